// SPDX-License-Identifier: MIT
/*
 * What one process may hold of the machine, and the machine of the host,
 * as tern.ko bounds what a file holds: so that no process, hostile or
 * only busy, can take what the others need or grow the machine until the
 * host's out-of-memory killer takes it (and every process's devices).
 *
 * - Host buffers of every process together hold at most the host budget
 *   (half of RAM unless set, as tern.ko's host_mem_mb); one process at
 *   most its share (half of the budget unless set). Past either,
 *   TERN_ERROR_OUT_OF_MEMORY.
 * - Every buffer's memory is a memfd the machine keeps open, so buffers
 *   cost descriptors: the machine raises its descriptor limit to the hard
 *   limit when it starts, keeps some for its processes' connections, and
 *   lets one process hold at most half of the rest in buffers and imports
 *   (unless set). Past that, or when the host has no descriptor left,
 *   TERN_ERROR_LIMIT, never OUT_OF_MEMORY with memory free.
 * - Jobs a process has submitted and that have not ended, and their
 *   packet bytes, are capped: a process at its cap is not read from (its
 *   ring or socket) until one of its jobs ends, so its submissions wait,
 *   as tern.ko's SUBMIT waits on -EBUSY, and the machine's memory stays
 *   bounded. The wait ends the moment the process goes.
 * - A machine serves a bounded number of processes; one more is refused
 *   with a sentence.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "machine.h"

/* Descriptors kept for the machine itself: listener, lock, workers'. */
#define MACHINE_FD_RESERVE	64
#define MACHINE_CLIENTS_MAX	1024

static uint64_t machine_ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);

	return pages > 0 ? (uint64_t)pages * MACHINE_PAGE_SIZE : 1ull << 32;
}

/* Raises the soft descriptor limit to the hard one; the limit then. */
static uint64_t machine_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? 1u << 20 : rl.rlim_cur;
}

void machine_limits_init(struct machine *m, const struct machine_limits *asked)
{
	struct machine_limits *l = &m->limits;
	uint64_t fds = machine_raise_nofile(), buffers;

	*l = *asked;
	l->descriptors = fds > UINT32_MAX ? UINT32_MAX : (uint32_t)fds;
	if (!l->host_bytes)
		l->host_bytes = machine_ram_bytes() / 2;
	if (!l->client_host_bytes)
		l->client_host_bytes = l->host_bytes / 2;
	if (l->client_host_bytes > l->host_bytes)
		l->client_host_bytes = l->host_bytes;
	if (!l->client_jobs)
		l->client_jobs = MACHINE_CLIENT_JOBS;
	if (!l->client_job_bytes)
		l->client_job_bytes = MACHINE_CLIENT_JOB_BYTES;
	/* A quarter of the descriptors for connections, the rest buffers. */
	l->clients = fds / 4 < MACHINE_CLIENTS_MAX ? (uint32_t)(fds / 4) :
						     MACHINE_CLIENTS_MAX;
	buffers = fds > MACHINE_FD_RESERVE + 2ull * l->clients ?
		  fds - MACHINE_FD_RESERVE - 2ull * l->clients : 1;
	if (!l->client_buffers || l->client_buffers > buffers)
		l->client_buffers = buffers / 2 > UINT32_MAX ? UINT32_MAX :
				    (uint32_t)(buffers / 2);
}

tern_status_t machine_host_charge(struct machine *m, uint64_t size)
{
	uint_fast64_t used = atomic_load(&m->host_used);

	do {
		if (size > m->limits.host_bytes - used)
			return TERN_ERROR_OUT_OF_MEMORY;
	} while (!atomic_compare_exchange_weak(&m->host_used, &used,
					       used + size));
	return TERN_SUCCESS;
}

void machine_host_uncharge(struct machine *m, uint64_t size)
{
	atomic_fetch_sub(&m->host_used, size);
}

tern_status_t machine_client_hold(struct machine_client *client,
				  tern_memory_kind_t kind, uint64_t size,
				  bool imported)
{
	const struct machine_limits *l = &client->machine->limits;
	struct machine_usage *u = &client->usage;

	if (u->buffers >= l->client_buffers)
		return TERN_ERROR_LIMIT;
	if (!imported && kind != TERN_MEMORY_DEVICE) {
		if (size > l->client_host_bytes - u->host_bytes)
			return TERN_ERROR_OUT_OF_MEMORY;
		u->host_bytes += size;
	}
	u->buffers++;
	return TERN_SUCCESS;
}

void machine_client_unhold(struct machine_client *client,
			   tern_memory_kind_t kind, uint64_t size,
			   bool imported)
{
	struct machine_usage *u = &client->usage;

	if (!imported && kind != TERN_MEMORY_DEVICE)
		u->host_bytes -= size;
	u->buffers--;
}

bool machine_client_job_fits(struct machine_client *client, uint32_t size)
{
	const struct machine_limits *l = &client->machine->limits;
	struct machine_usage *u = &client->usage;

	/* A job larger than the whole cap still goes, alone. */
	return atomic_load(&u->jobs) == 0 ||
	       (atomic_load(&u->jobs) < l->client_jobs &&
		atomic_load(&u->job_bytes) + size <= l->client_job_bytes);
}

void machine_client_job_add(struct machine_client *client, uint32_t size)
{
	atomic_fetch_add(&client->usage.jobs, 1);
	atomic_fetch_add(&client->usage.job_bytes, size);
}

void machine_client_job_end(struct machine_client *client, uint32_t size)
{
	struct machine_usage *u = &client->usage;
	uint64_t one = 1;

	atomic_fetch_sub(&u->job_bytes, size);
	atomic_fetch_sub(&u->jobs, 1);
	/* The workers take its ring again (this one, after its turn). */
	atomic_store(&client->ring.full, false);
	if (atomic_load(&u->waiting) && write(u->room_fd, &one, sizeof(one)))
		return;	/* a full counter wakes it as well */
}

int machine_client_wait_room(struct machine_client *client, uint32_t size)
{
	struct machine_usage *u = &client->usage;
	struct pollfd pfd[2] = {
		{ .fd = client->sock, .events = POLLRDHUP },
		{ .fd = u->room_fd, .events = POLLIN },
	};
	uint64_t count;
	int ret = 0;

	atomic_store(&u->waiting, true);
	while (!machine_client_job_fits(client, size)) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
			ret = -1;
			break;
		}
		if (pfd[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			ret = -1;	/* the process went: its jobs end now */
			break;
		}
		if ((pfd[1].revents & POLLIN) &&
		    read(u->room_fd, &count, sizeof(count)) < 0)
			count = 0;
	}
	atomic_store(&u->waiting, false);
	return ret;
}

int machine_usage_init(struct machine_usage *u)
{
	u->room_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return u->room_fd < 0 ? -errno : 0;
}

void machine_usage_fini(struct machine_usage *u)
{
	if (u->room_fd >= 0)
		close(u->room_fd);
}
