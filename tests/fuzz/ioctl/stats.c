// SPDX-License-Identifier: MIT
/*
 * Calls per row and results per errno, in memory every process of the run
 * shares, and the table printed at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "fuzz.h"

static const char *const call_names[CALL_COUNT] = {
	[CALL_TERN_GET_INFO] = "TERN_GET_INFO",
	[CALL_TERN_BO_CREATE_DEVICE] = "TERN_BO_CREATE/device",
	[CALL_TERN_BO_CREATE_HOST] = "TERN_BO_CREATE/host",
	[CALL_TERN_BO_INFO] = "TERN_BO_INFO",
	[CALL_TERN_QUEUE_CREATE] = "TERN_QUEUE_CREATE",
	[CALL_TERN_QUEUE_DESTROY] = "TERN_QUEUE_DESTROY",
	[CALL_TERN_SUBMIT_VALID] = "TERN_SUBMIT/valid",
	[CALL_TERN_SUBMIT_MUTATED] = "TERN_SUBMIT/mutated",
	[CALL_TERN_SUBMIT_STALL] = "TERN_SUBMIT/stall",
	[CALL_TERN_TOPOLOGY] = "TERN_TOPOLOGY",
	[CALL_TERN_RING_CREATE] = "TERN_RING_CREATE",
	[CALL_TERN_RING_DESTROY] = "TERN_RING_DESTROY",
	[CALL_TERN_RING_KICK] = "TERN_RING_KICK",
	[CALL_TERN_RING_WAIT] = "TERN_RING_WAIT",
	[CALL_TERN_RING_MASS] = "TERN_RING_MASS",
	[CALL_TERN_RING_WAIT_DESTROY] = "TERN_RING_WAIT_DESTROY",
	[CALL_TERN_RAW] = "TERN_raw",
	[CALL_GEM_CLOSE] = "GEM_CLOSE",
	[CALL_PRIME_HANDLE_TO_FD] = "PRIME_HANDLE_TO_FD",
	[CALL_PRIME_FD_TO_HANDLE] = "PRIME_FD_TO_HANDLE",
	[CALL_SYNCOBJ_CREATE] = "SYNCOBJ_CREATE",
	[CALL_SYNCOBJ_DESTROY] = "SYNCOBJ_DESTROY",
	[CALL_SYNCOBJ_WAIT] = "SYNCOBJ_WAIT",
	[CALL_SYNCOBJ_RESET] = "SYNCOBJ_RESET",
	[CALL_SYNCOBJ_SIGNAL] = "SYNCOBJ_SIGNAL",
	[CALL_SYNCOBJ_HANDLE_TO_FD] = "SYNCOBJ_HANDLE_TO_FD",
	[CALL_SYNCOBJ_FD_TO_HANDLE] = "SYNCOBJ_FD_TO_HANDLE",
	[CALL_SYNCOBJ_TIMELINE_WAIT] = "SYNCOBJ_TIMELINE_WAIT",
	[CALL_SYNCOBJ_QUERY] = "SYNCOBJ_QUERY",
	[CALL_SYNCOBJ_TRANSFER] = "SYNCOBJ_TRANSFER",
	[CALL_SYNCOBJ_TIMELINE_SIGNAL] = "SYNCOBJ_TIMELINE_SIGNAL",
	[CALL_GET_CAP] = "GET_CAP",
	[CALL_VERSION] = "VERSION",
	[CALL_SYNC_FILE_INFO] = "SYNC_IOC_FILE_INFO",
	[CALL_SYNC_FILE_MERGE] = "SYNC_IOC_MERGE",
	[CALL_SYNC_FILE_POLL] = "poll/sync_file",
	[CALL_MMAP] = "mmap",
	[CALL_MUNMAP] = "munmap",
	[CALL_TOUCH] = "touch/mapping",
	[CALL_OPEN] = "open/node",
	[CALL_CLOSE] = "close/node",
	[CALL_CLOSE_FD] = "close/fd",
	[CALL_FENCE_STATUS] = "fence-status",
	[CALL_DEBUGFS_FABRIC_LINK] = "debugfs/fabric_link",
	[CALL_DEBUGFS_MEM_ERROR] = "debugfs/mem_error",
	[CALL_DEBUGFS_ENGINE_HANG] = "debugfs/engine_hang",
	[CALL_DEBUGFS_READ] = "debugfs/read",
	[CALL_NETLINK_DEVICE_GET] = "netlink/DEVICE_GET",
	[CALL_NETLINK_LINK_GET] = "netlink/LINK_GET",
	[CALL_NETLINK_CLIENT_GET] = "netlink/CLIENT_GET",
	[CALL_NETLINK_OTHER] = "netlink/other",
	[CALL_NETLINK_EVENT] = "netlink/event",
	[CALL_SYSFS_READ] = "sysfs/read",
	[CALL_SYSFS_HEALTH_CLEAR] = "sysfs/health_clear",
};

const char *call_name(enum fuzz_call call)
{
	return call < CALL_COUNT ? call_names[call] : "?";
}

enum fuzz_call call_by_name(const char *name)
{
	for (int call = 0; call < CALL_COUNT; call++) {
		if (!strcasecmp(name, call_names[call]))
			return (enum fuzz_call)call;
	}
	return CALL_COUNT;
}

struct fuzz_shared *stats_create(void)
{
	void *p = mmap(NULL, sizeof(struct fuzz_shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("tern-fuzz: shared statistics");
		exit(1);
	}
	return p;	/* zeroed by mmap */
}

void stats_record(struct fuzz_shared *shared, enum fuzz_call call, int err)
{
	unsigned int bin = err < 0 || err > FUZZ_ERRNO_MAX ? FUZZ_BINS - 1 :
			   (unsigned int)err;

	atomic_fetch_add_explicit(&shared->calls[call], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&shared->results[call][bin], 1,
				  memory_order_relaxed);
}

uint64_t stats_total(const struct fuzz_shared *shared)
{
	uint64_t total = 0;

	for (int call = 0; call < CALL_COUNT; call++)
		total += atomic_load(&shared->calls[call]);
	return total;
}

const char *result_name(int err)
{
	const char *name;

	if (err == 0)
		return "ok";
	if (err < 0 || err > FUZZ_ERRNO_MAX)
		return "other";
	name = strerrorname_np(err);
	return name ? name : "?";
}

/* The non-empty bins of @counts, largest first: "ok 120, EINVAL 7". */
static void print_results(const uint64_t *counts)
{
	bool shown[FUZZ_BINS] = { false };

	for (const char *sep = "";; sep = ", ") {
		unsigned int best = FUZZ_BINS;

		for (unsigned int bin = 0; bin < FUZZ_BINS; bin++) {
			if (counts[bin] && !shown[bin] &&
			    (best == FUZZ_BINS || counts[bin] > counts[best]))
				best = bin;
		}
		if (best == FUZZ_BINS)
			break;
		shown[best] = true;
		printf("%s%s %llu", sep, result_name((int)best),
		       (unsigned long long)counts[best]);
	}
	printf("\n");
}

void stats_print(const struct fuzz_shared *shared, double seconds)
{
	uint64_t all[FUZZ_BINS] = { 0 }, total = stats_total(shared);

	printf("---- tern-fuzz statistics ----\n");
	printf("%-24s %10s  %s\n", "call", "calls", "results (errno count)");
	for (int call = 0; call < CALL_COUNT; call++) {
		uint64_t counts[FUZZ_BINS], calls = atomic_load(&shared->calls[call]);

		if (!calls)
			continue;
		for (unsigned int bin = 0; bin < FUZZ_BINS; bin++) {
			counts[bin] = atomic_load(&shared->results[call][bin]);
			all[bin] += counts[bin];
		}
		printf("%-24s %10llu  ", call_names[call], (unsigned long long)calls);
		print_results(counts);
	}
	printf("%-24s %10llu  ", "all", (unsigned long long)total);
	print_results(all);
	printf("---- end of tern-fuzz statistics ----\n");
	printf("tern-fuzz: %llu calls in %.1f s, %.0f calls/s\n",
	       (unsigned long long)total, seconds,
	       seconds > 0 ? (double)total / seconds : 0.0);
}
