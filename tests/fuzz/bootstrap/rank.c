// SPDX-License-Identifier: MIT
/*
 * A real rank (--rank): device RANK of the slot's simulated machine, an
 * init with the id it is given (rank 0 makes it, as NCCL's rank 0 does),
 * and a small all-reduce whose sums it checks. Its exit status is its
 * verdict (fuzz.h), so that a sanitizer's report or a signal stands out.
 * And the machine's holder (--hold), which keeps the simulated machine
 * up between runs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define FZ_COUNT	1024		/* int32 elements all-reduced */

/* The process's open fds, as " fd:target" in @buf; how many. */
static int fz_list_fds(char *buf, size_t len)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	size_t n = 0;
	int count = 0;

	if (!dir)
		return -1;
	buf[0] = 0;
	while ((e = readdir(dir))) {
		char path[300], target[128];
		ssize_t tl;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(dir))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		tl = readlink(path, target, sizeof(target) - 1);
		target[tl > 0 ? tl : 0] = 0;
		count++;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " %s:%s",
					      e->d_name, target);
	}
	closedir(dir);
	return count;
}

static int32_t fz_value(int rank, size_t i)
{
	return (int32_t)((rank + 1) * 1000 + (int)(i % 997));
}

/* Rank 0 ("-") makes the id and writes it to fd 9; the others read it. */
static tern_status_t fz_get_id(const char *idhex, tern_unique_id_t *id)
{
	char hex[2 * sizeof(id->internal) + 2];
	tern_status_t s;

	if (strcmp(idhex, "-") != 0)
		return fz_unhex(idhex, id->internal, sizeof(id->internal)) ?
		       TERN_SUCCESS : TERN_ERROR_INVALID_ARGUMENT;
	s = tern_get_unique_id(id);
	if (s)
		return s;
	fz_hex(id->internal, sizeof(id->internal), hex);
	strcat(hex, "\n");
	s = fz_write(9, hex, strlen(hex)) ? TERN_SUCCESS : TERN_ERROR_BACKEND;
	close(9);
	return s;
}

/* Checks the all-reduce's sums: 0, or FZ_EXIT_WRONG. */
static int fz_check_sums(const int32_t *got, int rank, int nranks)
{
	for (size_t i = 0; i < FZ_COUNT; i++) {
		int32_t want = 0;

		for (int r = 0; r < nranks; r++)
			want += fz_value(r, i);
		if (got[i] != want) {
			fprintf(stderr, "rank %d/%d: init ok, all-reduce WRONG: element %zu is %d, want %d\n",
				rank, nranks, i, got[i], want);
			return FZ_EXIT_WRONG;
		}
	}
	fprintf(stderr, "rank %d/%d: init ok, all-reduce exact\n", rank, nranks);
	return 0;
}

int fz_rank_main(const char *idhex, int rank, int nranks)
{
	const size_t bytes = FZ_COUNT * sizeof(int32_t);
	static char fds_before[4096], fds_after[4096];
	tern_device_t dev = NULL;
	tern_stream_t stream = NULL;
	tern_buffer_t send = NULL, recv = NULL;
	tern_comm_t comm = NULL;
	tern_unique_id_t id;
	int32_t *send_cpu = NULL, *recv_cpu = NULL;
	tern_status_t s;
	void *cpu;
	int ret, nfds;

	s = tern_device_open(rank, &dev);
	if (!s)
		s = tern_stream_create(dev, &stream);
	if (!s)
		s = tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, bytes, &send);
	if (!s)
		s = tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, bytes, &recv);
	if (!s && !(s = tern_buffer_map(send, &cpu)))
		send_cpu = cpu;
	if (!s && !(s = tern_buffer_map(recv, &cpu)))
		recv_cpu = cpu;
	if (!s)
		s = fz_get_id(idhex, &id);
	if (s) {
		fprintf(stderr, "rank %d/%d: setting up: %s (%s)\n", rank, nranks,
			tern_status_name(s), tern_get_last_error());
		return FZ_EXIT_SETUP;
	}
	nfds = fz_list_fds(fds_before, sizeof(fds_before));
	s = tern_comm_init_rank(&comm, nranks, &id, rank, dev);
	if (s) {
		fprintf(stderr, "rank %d/%d: init: %s (%s)\n", rank, nranks,
			tern_status_name(s), tern_get_last_error());
		ret = FZ_EXIT_INIT + (int)s;
		goto out;
	}
	for (size_t i = 0; i < FZ_COUNT; i++) {
		send_cpu[i] = fz_value(rank, i);
		recv_cpu[i] = (int32_t)0xa5a5a5a5;
	}
	s = tern_all_reduce(tern_ptr(send, 0), tern_ptr(recv, 0), FZ_COUNT,
			    TERN_INT32, TERN_SUM, comm, stream);
	if (!s)
		s = tern_stream_synchronize(stream);
	if (s) {
		fprintf(stderr, "rank %d/%d: init ok, all-reduce: %s (%s)\n",
			rank, nranks, tern_status_name(s),
			tern_get_last_error());
		ret = FZ_EXIT_REDUCE + (int)s;
		goto out;
	}
	ret = fz_check_sums(recv_cpu, rank, nranks);
out:
	if (comm)
		tern_comm_destroy(comm);
	/* What init opened, a comm destroyed or an init failed closes. */
	if (fz_list_fds(fds_after, sizeof(fds_after)) > nfds) {
		fprintf(stderr, "rank %d/%d: FD LEAK: %d fds open before init:%s\n  after:%s\n",
			rank, nranks, nfds, fds_before, fds_after);
		ret = FZ_EXIT_LEAK;
	}
	tern_buffer_free(send);
	tern_buffer_free(recv);
	tern_stream_destroy(stream);
	tern_device_close(dev);
	return ret;
}

/* Holds the slot's machine for the whole run (--hold): until stdin ends. */
int fz_hold_main(void)
{
	tern_device_t dev;
	char c;

	if (tern_device_open(0, &dev)) {
		fprintf(stderr, "hold: %s\n", tern_get_last_error());
		return FZ_EXIT_SETUP;
	}
	if (!fz_write(9, "r\n", 2))
		return FZ_EXIT_SETUP;
	close(9);
	while (read(0, &c, 1) < 0 && errno == EINTR)
		;
	tern_device_close(dev);
	return 0;
}
