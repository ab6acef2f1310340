// SPDX-License-Identifier: MIT
/*
 * Messages on the simulated machine's socket (wire.h): a header and its
 * payload in one sendmsg, descriptors attached to the header, so that a
 * reader that gets the header gets the descriptors with it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wire.h"

void sim_wire_strcpy(char *dst, const char *src, unsigned long size)
{
	unsigned long n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	memset(dst + n, 0, size - n);
}

int sim_wire_send(int sock, uint32_t type, const void *payload, uint32_t len,
		  const void *extra, uint32_t extra_len, const int *fds,
		  int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SIM_WIRE_MAX_FDS)];
		struct cmsghdr align;
	} control;
	struct sim_msg_header header = { type, len + extra_len };
	struct iovec iov[3] = {
		{ &header, sizeof(header) },
		{ (void *)payload, len },
		{ (void *)extra, extra_len },
	};
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = extra ? 3 : 2 };
	size_t total = sizeof(header) + len + extra_len, sent = 0;

	if (nfds > 0) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * (size_t)nfds);
	}
	while (sent < total) {
		ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		sent += (size_t)n;
		/* Descriptors went with the first bytes; move past what went. */
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
		while (n > 0 && msg.msg_iovlen) {
			if ((size_t)n >= msg.msg_iov->iov_len) {
				n -= (ssize_t)msg.msg_iov->iov_len;
				msg.msg_iov++;
				msg.msg_iovlen--;
			} else {
				msg.msg_iov->iov_base =
					(char *)msg.msg_iov->iov_base + n;
				msg.msg_iov->iov_len -= (size_t)n;
				n = 0;
			}
		}
	}
	return 0;
}

/* Reads exactly @len bytes; -EPROTO if the peer closes in between. */
static int sim_wire_read_all(int sock, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(sock, (char *)buf + got, len - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPROTO;
		got += (size_t)n;
	}
	return 0;
}

static void sim_wire_take_fds(struct msghdr *msg, int fds[SIM_WIRE_MAX_FDS])
{
	struct cmsghdr *cmsg;

	for (cmsg = CMSG_FIRSTHDR(msg); cmsg; cmsg = CMSG_NXTHDR(msg, cmsg)) {
		size_t n, i;
		int fd;

		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int),
			       sizeof(fd));
			if (i < SIM_WIRE_MAX_FDS && fds[i] < 0)
				fds[i] = fd;
			else
				close(fd);	/* more than a message takes */
		}
	}
}

int sim_wire_recv(int sock, uint32_t *type, void *buf, uint32_t cap,
		  uint32_t *len, int fds[SIM_WIRE_MAX_FDS])
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SIM_WIRE_MAX_FDS * 2)];
		struct cmsghdr align;
	} control;
	struct sim_msg_header header;
	struct iovec iov = { &header, sizeof(header) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	ssize_t n;
	int ret, i;

	for (i = 0; i < SIM_WIRE_MAX_FDS; i++)
		fds[i] = -1;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPIPE;
	sim_wire_take_fds(&msg, fds);
	if ((size_t)n < sizeof(header)) {
		ret = sim_wire_read_all(sock, (char *)&header + n,
					sizeof(header) - (size_t)n);
		if (ret)
			goto fail;
	}
	ret = -EPROTO;
	if (msg.msg_flags & MSG_CTRUNC || header.size > cap)
		goto fail;
	ret = sim_wire_read_all(sock, buf, header.size);
	if (ret)
		goto fail;
	*type = header.type;
	*len = header.size;
	return 0;
fail:
	for (i = 0; i < SIM_WIRE_MAX_FDS; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	return ret == -EPROTO || ret == -EPIPE ? -EPROTO : ret;
}
