// SPDX-License-Identifier: MIT
/*
 * Launchers and the id's rendezvous. The handover is the tool's, not
 * libtern's: one TCP connection per rank to rank 0, which answers each
 * with the 128 bytes of the id; nccl-tests does the same with MPI_Bcast,
 * which would tie tern-bench to one MPI. Whoever connects gets the id, so
 * it goes without its secret (tern_unique_id_public): every rank takes
 * that from TERN_COMM_SECRET, or on rank 0's host from the user's file.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "coll_fabric.h"
#include "launch.h"
#include "settings.h"

#define LAUNCH_MAGIC		"ternbid1"
#define LAUNCH_DEFAULT_PORT	29500	/* torchrun's */

struct launch_vars {
	const char *launcher, *rank, *size, *local_rank;
};

static const struct launch_vars launch_kinds[] = {
	{ "mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	  "OMPI_COMM_WORLD_LOCAL_RANK" },
	{ "srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID" },
	{ "torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK" },
};

static int launch_number(const char *prog, const char *name, long min,
			 long max, long *value)
{
	const char *text = getenv(name);

	if (text && cli_parse_long(text, min, max, value))
		return 0;
	fprintf(stderr, "%s: %s=%s%s%s: expected a number from %ld to %ld\n",
		prog, name, text ? "'" : "", text ? text : "(not set)",
		text ? "'" : "", min, max);
	return EXIT_USAGE;
}

/* A port of its own per job, so that two jobs on a host do not meet. */
static void launch_default_port(char *port, size_t len)
{
	const char *job = getenv("SLURM_JOB_ID");
	uint32_t hash = 2166136261u;

	if (!job)
		job = getenv("OMPI_MCA_ess_base_jobid");
	if (!job)
		job = getenv("PMIX_NAMESPACE");
	if (!job) {
		snprintf(port, len, "%d", LAUNCH_DEFAULT_PORT);
		return;
	}
	for (const char *p = job; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 16777619u;
	snprintf(port, len, "%u", 20000 + hash % 20000);
}

int bench_launch_detect(const char *prog, struct bench_launch *l)
{
	const struct launch_vars *v = NULL;
	long rank, size, local = 0, port;
	int64_t timeout = 0;
	const char *addr = getenv("MASTER_ADDR");

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < sizeof(launch_kinds) / sizeof(launch_kinds[0]); i++)
		if (getenv(launch_kinds[i].rank) || getenv(launch_kinds[i].size))
			v = &launch_kinds[i];
	if (!v)
		return 0;
	if (launch_number(prog, v->size, 1, COLL_FABRIC_MAX_RANKS, &size) ||
	    launch_number(prog, v->rank, 0, size - 1, &rank))
		return EXIT_USAGE;
	if (getenv(v->local_rank) &&
	    launch_number(prog, v->local_rank, 0, size - 1, &local))
		return EXIT_USAGE;
	if (!getenv(v->local_rank))
		local = rank;	/* one host: rank i uses device i */
	if (getenv("MASTER_PORT")) {
		if (launch_number(prog, "MASTER_PORT", 1, 65535, &port))
			return EXIT_USAGE;
		snprintf(l->port, sizeof(l->port), "%ld", port);
	} else {
		launch_default_port(l->port, sizeof(l->port));
	}
	/* The rendezvous waits as long as libtern's init would. */
	if (tern_setting_number("TERN_COMM_INIT_TIMEOUT_MS", &timeout)) {
		fprintf(stderr, "%s: %s\n", prog, tern_get_last_error());
		return EXIT_USAGE;
	}
	if (addr && (!*addr || strlen(addr) >= sizeof(l->addr))) {
		fprintf(stderr, "%s: MASTER_ADDR='%s': expected a host name or address\n",
			prog, addr);
		return EXIT_USAGE;
	}
	snprintf(l->addr, sizeof(l->addr), "%s", addr ? addr : "127.0.0.1");
	l->launcher = v->launcher;
	l->rank = (int)rank;
	l->size = (int)size;
	l->local_rank = (int)local;
	l->timeout_ms = (long)timeout;
	return size > 1 ? 1 : 0;
}

int bench_launch_sim_hosts(const char *prog, struct bench_launch *l,
			   long hosts)
{
	const char *base = tern_setting_text("TERN_SIM_MACHINE");
	char name[128];
	int per;

	if (l->size % hosts) {
		fprintf(stderr, "%s: -H %ld: expected a number of hosts that divides the %d ranks\n",
			prog, hosts, l->size);
		return EXIT_USAGE;
	}
	per = l->size / (int)hosts;
	if (!tern_setting_is_set("TERN_SIM_MACHINE") ||
	    strcmp(base, "auto") == 0)
		base = "tern-bench";
	snprintf(name, sizeof(name), "%.100s-host%d", base, l->rank / per);
	setenv("TERN_SIM_MACHINE", name, 1);
	l->local_rank = l->rank % per;
	return 0;
}

static long launch_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads or writes all @len bytes before @deadline; 0 or -1. */
static int launch_io(int fd, void *buf, size_t len, bool out, long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
	char *p = buf;

	while (len) {
		long left = deadline - launch_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
			return -1;
		n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static struct addrinfo *launch_resolve(const char *prog,
				       const struct bench_launch *l,
				       bool passive)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int err;

	hints.ai_flags = passive ? AI_PASSIVE : 0;
	err = getaddrinfo(l->addr, l->port, &hints, &res);
	if (err) {
		fprintf(stderr, "%s: rank %d: MASTER_ADDR %s, port %s: %s\n",
			prog, l->rank, l->addr, l->port, gai_strerror(err));
		return NULL;
	}
	return res;
}

static int launch_serve(const char *prog, const struct bench_launch *l,
			const tern_unique_id_t *id)
{
	long deadline = launch_now_ms() + l->timeout_ms;
	struct addrinfo *ai = launch_resolve(prog, l, true);
	int lfd, one = 1, served = 0;

	if (!ai)
		return 1;
	lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 128)) {
		fprintf(stderr, "%s: rank 0: cannot listen on %s port %s: %s (set MASTER_ADDR and MASTER_PORT)\n",
			prog, l->addr, l->port, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	while (served < l->size - 1) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		long left = deadline - launch_now_ms();
		char hello[8];
		int fd;

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
			break;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		/* Anything else that connects is turned away. */
		if (launch_io(fd, hello, sizeof(hello), false, deadline) == 0 &&
		    memcmp(hello, LAUNCH_MAGIC, sizeof(hello)) == 0 &&
		    launch_io(fd, (void *)id, sizeof(*id), true, deadline) == 0)
			served++;
		close(fd);
	}
	close(lfd);
	if (served == l->size - 1)
		return 0;
	fprintf(stderr, "%s: rank 0: %d of %d ranks came to %s port %s within %ld ms\n",
		prog, served + 1, l->size, l->addr, l->port, l->timeout_ms);
	return 1;
}

static int launch_fetch(const char *prog, const struct bench_launch *l,
			tern_unique_id_t *id)
{
	long deadline = launch_now_ms() + l->timeout_ms;
	struct timespec pause = { 0, 50000000 };

	while (launch_now_ms() < deadline) {
		struct addrinfo *ai = launch_resolve(prog, l, false);
		int fd, ok;

		if (!ai)
			return 1;
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
		freeaddrinfo(ai);
		if (ok && launch_io(fd, LAUNCH_MAGIC, 8, true, deadline) == 0 &&
		    launch_io(fd, id, sizeof(*id), false, deadline) == 0) {
			close(fd);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		nanosleep(&pause, NULL);	/* rank 0 may not listen yet */
	}
	fprintf(stderr, "%s: rank %d: no rank 0 answered at %s port %s within %ld ms (MASTER_ADDR, MASTER_PORT, TERN_COMM_INIT_TIMEOUT_MS)\n",
		prog, l->rank, l->addr, l->port, l->timeout_ms);
	return 1;
}

int bench_launch_share_id(const char *prog, const struct bench_launch *l,
			  tern_unique_id_t *id)
{
	tern_status_t status;

	tern_unique_id_t full;

	if (l->rank != 0)
		return launch_fetch(prog, l, id);
	status = tern_get_unique_id(&full);
	/* Anyone may connect to the port: it hands out no secret. */
	if (status == TERN_SUCCESS)
		status = tern_unique_id_public(&full, id);
	if (status) {
		cli_report_error(prog, "making the communicator's id", status);
		return 1;
	}
	return launch_serve(prog, l, id);
}
