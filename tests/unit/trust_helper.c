// SPDX-License-Identifier: MIT
/*
 * The two sides of tests/unit/test_trust.sh, which runs this program as
 * the job's user (A) and as another user (B) of one host:
 *
 *   hold-id FILE         A: makes an id, writes its address to FILE, waits
 *                        for a line on stdin, then runs 2 ranks on it
 *   bind-port FILE       B: tries to bind the address in FILE every way
 *                        Linux offers; exit 0 only if every way is refused
 *   ranks N ITER [DIR]   A: ITER communicators of N ranks, each checked
 *                        by an exact all-reduce; with DIR, each id's
 *                        secret and tag in hex to DIR/ids, for the capture
 *   poke-handoff SECS    B: for SECS, connects to every Tern hand-off
 *                        socket /proc/net/unix lists, sends it fds of its
 *                        own and nonsense; prints how many it reached
 *
 * Every failure prints what happened and exits non-zero.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coll/trust/trust.h"
#include "tern.h"

#define ELEMS	1024

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('\n', f);
}

/* One rank: init, an all-reduce of rank + 1 checked exactly, destroy. */
static int rank_main(const tern_unique_id_t *id, int rank, int n)
{
	tern_device_t dev;
	tern_stream_t stream;
	tern_buffer_t buf;
	tern_comm_t comm;
	tern_status_t s;
	int32_t *cpu, want = n * (n + 1) / 2;

	s = tern_device_open(rank, &dev);
	if (!s)
		s = tern_comm_init_rank(&comm, n, id, rank, dev);
	if (s) {
		printf("rank %d: init: %s (%s)\n", rank, tern_status_name(s),
		       tern_get_last_error());
		return 1;
	}
	s = tern_stream_create(dev, &stream);
	if (!s)
		s = tern_buffer_alloc(dev, TERN_MEMORY_HOST, ELEMS * 4, &buf);
	if (!s)
		s = tern_buffer_map(buf, (void **)&cpu);
	for (int i = 0; !s && i < ELEMS; i++)
		cpu[i] = rank + 1;
	if (!s)
		s = tern_all_reduce(tern_ptr(buf, 0), tern_ptr(buf, 0), ELEMS,
				    TERN_INT32, TERN_SUM, comm, stream);
	if (!s)
		s = tern_stream_synchronize(stream);
	for (int i = 0; !s && i < ELEMS; i++)
		if (cpu[i] != want) {
			printf("rank %d: element %d is %d, want %d\n", rank, i,
			       cpu[i], want);
			return 1;
		}
	if (s) {
		printf("rank %d: all-reduce: %s\n", rank, tern_status_name(s));
		return 1;
	}
	tern_comm_destroy(comm);
	tern_device_close(dev);
	return 0;
}

/* @n ranks on @id, each its own process; 0 if every one succeeded. */
static int run_ranks(const tern_unique_id_t *id, int n)
{
	int failed = 0, status;
	pid_t pid;

	for (int r = 0; r < n; r++) {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(rank_main(id, r, n));
		if (pid < 0)
			return 1;
	}
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	return failed;
}

static int hold_id(const char *file)
{
	const struct coll_id *cid;
	tern_unique_id_t id;
	char line[16];
	FILE *f;

	if (tern_get_unique_id(&id)) {
		printf("hold-id: %s\n", tern_get_last_error());
		return 1;
	}
	cid = (const void *)id.internal;
	f = fopen(file, "w");
	if (!f)
		return 1;
	fprintf(f, "%u %u ", cid->family, ntohs(cid->port));
	hex(f, cid->addr, sizeof(cid->addr));
	fclose(f);
	/* B tries its binds now. */
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return run_ranks(&id, 2);
}

/* One way to bind the address: 0 if refused, 1 if B got the port. */
static int bind_one(int family, const uint8_t *addr, unsigned int port,
		    bool wildcard, bool reuseaddr, bool reuseport)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd = socket(family, SOCK_STREAM, 0), on = 1, got;

	if (family == AF_INET) {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (!wildcard)
			memcpy(&a->sin_addr, addr, 4);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (!wildcard)
			memcpy(&a->sin6_addr, addr, 16);
		len = sizeof(*a);
	}
	if (reuseaddr)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (reuseport)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on));
	got = bind(fd, (struct sockaddr *)&ss, len) == 0 && listen(fd, 8) == 0;
	printf("bind-port: %s address, SO_REUSEADDR %d, SO_REUSEPORT %d: %s\n",
	       wildcard ? "wildcard" : "the id's", reuseaddr, reuseport,
	       got ? "BOUND: another user holds rank 0's port" :
	       strerror(errno));
	close(fd);
	return got;
}

static int bind_port(const char *file)
{
	unsigned int family, port;
	char addr_hex[40];
	uint8_t addr[16] = { 0 };
	int bound = 0;
	FILE *f = fopen(file, "r");

	if (!f || fscanf(f, "%u %u %39s", &family, &port, addr_hex) != 3) {
		printf("bind-port: cannot read %s\n", file);
		return 1;
	}
	fclose(f);
	for (int i = 0; i < 16; i++)
		sscanf(addr_hex + 2 * i, "%2hhx", &addr[i]);
	for (int w = 0; w < 2; w++)
		for (int ra = 0; ra < 2; ra++)
			for (int rp = 0; rp < 2; rp++)
				bound += bind_one((int)family, addr, port, w, ra,
						  rp);
	return bound != 0;
}

static int ranks(int n, int iter, const char *dir)
{
	char path[256];
	FILE *ids = NULL;
	int failed = 0;

	if (dir) {
		snprintf(path, sizeof(path), "%s/ids", dir);
		ids = fopen(path, "w");
		if (!ids)
			return 1;
	}
	for (int i = 0; i < iter; i++) {
		tern_unique_id_t id;
		const struct coll_id *cid = (const void *)id.internal;

		if (tern_get_unique_id(&id))
			return 1;
		if (ids) {
			hex(ids, cid->secret, sizeof(cid->secret));
			hex(ids, cid->tag, sizeof(cid->tag));
			fflush(ids);
		}
		failed += run_ranks(&id, n) != 0;
		coll_id_release(&id);
	}
	if (ids)
		fclose(ids);
	printf("ranks: %d of %d communicators of %d ranks exact\n",
	       iter - failed, iter, n);
	return failed != 0;
}

/* Connects to @name (abstract), hands it two fds of ours and nonsense. */
static bool poke(const char *name)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	int fds[2] = { memfd_create("b", 0), memfd_create("b", 0) };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	char junk[80];
	struct iovec iov = { junk, sizeof(junk) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&mh);
	bool reached;

	memcpy(addr.sun_path + 1, name, len < 100 ? len : 100);
	reached = connect(fd, (struct sockaddr *)&addr,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + len)) == 0;
	if (reached) {
		memset(junk, 'b', sizeof(junk));
		memset(control.buf, 0, sizeof(control.buf));
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, sizeof(fds));
		(void)sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)recv(fd, junk, sizeof(junk), MSG_DONTWAIT);
	}
	close(fd);
	close(fds[0]);
	close(fds[1]);
	return reached;
}

static int poke_handoff(int seconds)
{
	time_t end = time(NULL) + seconds;
	unsigned int reached = 0;
	char line[512];

	while (time(NULL) < end) {
		FILE *f = fopen("/proc/net/unix", "r");

		while (f && fgets(line, sizeof(line), f)) {
			char *at = strstr(line, "@tern-handoff-");

			if (!at)
				at = strstr(line, "@tern-coll-");

			if (at) {
				at[strcspn(at, " \n")] = 0;
				reached += poke(at + 1);
			}
		}
		if (f)
			fclose(f);
		usleep(1000);
	}
	printf("poke-handoff: reached %u hand-off sockets\n", reached);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "hold-id") == 0)
		return hold_id(argv[2]);
	if (argc == 3 && strcmp(argv[1], "bind-port") == 0)
		return bind_port(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "ranks") == 0)
		return ranks(atoi(argv[2]), atoi(argv[3]),
			     argc == 5 ? argv[4] : NULL);
	if (argc == 3 && strcmp(argv[1], "poke-handoff") == 0)
		return poke_handoff(atoi(argv[2]));
	fprintf(stderr, "usage: %s hold-id FILE | bind-port FILE | ranks N ITER [DIR] | poke-handoff SECONDS\n",
		argv[0]);
	return 2;
}
