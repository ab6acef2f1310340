// SPDX-License-Identifier: MIT
/*
 * Reading memory the module did not allocate and cannot vouch for (a
 * DLPack producer's tensor): the kernel does the reading, so an address
 * that is not mapped, or not readable, is EFAULT rather than a crash.
 * process_vm_readv() on this process copies in one pass; where a seccomp
 * policy forbids it, a pipe copies in two.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pytern.h"

/* What one write into an empty pipe takes whole: its default capacity. */
#define TERN_PY_PIPE_CHUNK	(64 * 1024)

static int tern_py_read_by_pipe(char *dst, const char *src, size_t bytes)
{
	int fds[2], err = 0;

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return errno;
	while (bytes && !err) {
		size_t chunk = bytes < TERN_PY_PIPE_CHUNK ? bytes :
			       TERN_PY_PIPE_CHUNK;
		ssize_t in = write(fds[1], src, chunk);

		if (in < 0 && errno == EINTR)
			continue;
		if (in <= 0) {
			err = in < 0 ? errno : EIO;
			break;
		}
		for (size_t got = 0; got < (size_t)in && !err;) {
			ssize_t out = read(fds[0], dst + got, (size_t)in - got);

			if (out < 0 && errno == EINTR)
				continue;
			if (out <= 0)
				err = out < 0 ? errno : EIO;
			else
				got += (size_t)out;
		}
		src += in;
		dst += in;
		bytes -= (size_t)in;
	}
	close(fds[0]);
	close(fds[1]);
	return err;
}

int tern_py_read_foreign(void *dst, const void *src, size_t bytes)
{
	char *to = dst;
	const char *from = src;

	while (bytes) {
		struct iovec local = { .iov_base = to, .iov_len = bytes };
		struct iovec remote = { .iov_base = (void *)from,
					.iov_len = bytes };
		ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

		if (n < 0 && (errno == ENOSYS || errno == EPERM))
			return tern_py_read_by_pipe(to, from, bytes);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EFAULT;
		to += n;
		from += n;
		bytes -= (size_t)n;
	}
	return 0;
}
