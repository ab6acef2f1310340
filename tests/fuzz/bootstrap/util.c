// SPDX-License-Identifier: MIT
/*
 * Small things every process of the fuzzer uses: a random stream that a
 * seed makes alike in all of them, time, hex, and sockets.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

uint64_t fz_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t fz_next(struct fz_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return fz_mix(r->s);
}

uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

bool fz_chance(struct fz_rng *r, unsigned int percent)
{
	return fz_below(r, 100) < percent;
}

void fz_fill(struct fz_rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)fz_next(r);
}

void fz_flip(struct fz_rng *r, void *buf, size_t len, int bits)
{
	uint8_t *p = buf;

	for (int i = 0; i < bits && len; i++)
		p[fz_below(r, (uint32_t)len)] ^= (uint8_t)(1u << fz_below(r, 8));
}

/* A value at or past the edge of what an int32 field may say. */
int32_t fz_edge_int(struct fz_rng *r, int nranks)
{
	const int32_t pool[] = {
		-2, -1, 0, 1, 2, 3, nranks - 1, nranks, nranks + 1, 15, 16, 17,
		COLL_STATUS_LAST, COLL_STATUS_LAST + 1, COLL_MAX_RANKS,
		COLL_MAX_RANKS + 1, INT32_MAX, INT32_MIN, (int32_t)fz_next(r),
	};

	return pool[fz_below(r, sizeof(pool) / sizeof(pool[0]))];
}

int64_t fz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fz_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void fz_hex(const void *buf, size_t len, char *out)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * len] = 0;
}

bool fz_unhex(const char *hex, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (strlen(hex) != 2 * len)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned int byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return false;
		p[i] = (uint8_t)byte;
	}
	return true;
}

bool fz_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* A line of at most @len - 1 bytes from @fd by @deadline, without '\n'. */
bool fz_read_line(int fd, char *buf, size_t len, int64_t deadline)
{
	size_t got = 0;

	while (got + 1 < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - fz_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		n = read(fd, buf + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		if (buf[got] == '\n') {
			buf[got] = 0;
			return true;
		}
		got++;
	}
	return false;
}

/* Blocking; tried again while nothing listens yet, until @deadline. */
static int fz_connect(int family, int type, const void *addr, socklen_t len,
		      int64_t deadline)
{
	while (fz_now_ms() < deadline) {
		int fd = socket(family, type | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -1;
		if (connect(fd, addr, len) == 0)
			return fd;
		close(fd);
		fz_sleep_ms(5);
	}
	return -1;
}

int fz_connect_tcp(const struct coll_id *cid, int64_t deadline)
{
	struct sockaddr_storage ss;
	socklen_t len = coll_id_sockaddr(cid, &ss);

	return fz_connect(cid->family, SOCK_STREAM, &ss, len, deadline);
}

int fz_connect_unix(const uint8_t name[COLL_TAG_BYTES], int64_t deadline)
{
	struct sockaddr_un addr;
	socklen_t len = coll_handoff_address(name, &addr);

	return fz_connect(AF_UNIX, SOCK_SEQPACKET, &addr, len, deadline);
}

/* @len bytes and @nfds fds as one packet. */
bool fz_sendmsg(int fd, const void *buf, size_t len, const int *fds,
		int nfds)
{
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 0) {
		struct cmsghdr *cmsg;

		memset(control.buf, 0, sizeof(control.buf));
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)len;
}

/* IDHEX SEED RUN TIMEOUT: the attackers' command line. */
bool fz_child_args(char **argv, tern_unique_id_t *id, struct fz_plan *p)
{
	if (!fz_unhex(argv[0], id->internal, sizeof(id->internal)))
		return false;
	fz_make_plan(strtoull(argv[1], NULL, 0), strtoull(argv[2], NULL, 0),
		     atoi(argv[3]), p);
	return true;
}
