// SPDX-License-Identifier: MIT
/*
 * Collectives over tern.ko when a device loses its links (libtern, kernel
 * backend): device 0 cut off before an all-reduce, and while one is under
 * way. Every rank must end with an error instead of hanging: the rank that
 * cannot reach its peer with NO_ROUTE, the others with PEER_FAILED as soon
 * as they learn of it (not TIMEOUT: detection, not the job timeout, ends
 * their waits), or by refusing the call once their comm is in error. A
 * new communicator must then work, and no device memory may be left
 * behind.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric.h"
#include "status.h"

/* Elements of the all-reduces: 1 MiB of floats plus an uneven tail. */
#define COLL_COUNT	(262144 + 37)
#define COLL_BYTES	(COLL_COUNT * sizeof(float))
/* Hang guard while waiting for rank 0's first bytes on the fabric. */
#define COLL_START_BOUND_MS	60000


/* Rank r is the device whose fabric id is r: the comm follows the ring. */
static struct {
	int n;
	tern_device_t dev[FABRIC_MAX_DEVICES];
	tern_stream_t stream[FABRIC_MAX_DEVICES];
	uint64_t used[FABRIC_MAX_DEVICES];	/* memory before the test */
} cg;

struct coll_bufs {
	tern_buffer_t send[FABRIC_MAX_DEVICES], recv[FABRIC_MAX_DEVICES];
	float *send_cpu[FABRIC_MAX_DEVICES], *recv_cpu[FABRIC_MAX_DEVICES];
};

static float element(int rank, size_t i)
{
	return (float)(i % 251 + (size_t)rank);
}

static void bufs_alloc(struct coll_bufs *b)
{
	for (int r = 0; r < cg.n; r++) {
		void *cpu;

		assert_ok(tern_buffer_alloc(cg.dev[r], TERN_MEMORY_DEVICE,
					    COLL_BYTES, &b->send[r]));
		assert_ok(tern_buffer_map(b->send[r], &cpu));
		b->send_cpu[r] = cpu;
		assert_ok(tern_buffer_alloc(cg.dev[r], TERN_MEMORY_DEVICE,
					    COLL_BYTES, &b->recv[r]));
		assert_ok(tern_buffer_map(b->recv[r], &cpu));
		b->recv_cpu[r] = cpu;
		for (size_t i = 0; i < COLL_COUNT; i++)
			b->send_cpu[r][i] = element(r, i);
		memset(b->recv_cpu[r], 0, COLL_BYTES);
	}
}

static void bufs_free(struct coll_bufs *b)
{
	for (int r = 0; r < cg.n; r++) {
		assert_ok(tern_buffer_free(b->send[r]));
		assert_ok(tern_buffer_free(b->recv[r]));
	}
}

static tern_status_t all_reduce_try(int rank, tern_comm_t comm,
				    struct coll_bufs *b)
{
	return tern_all_reduce(tern_ptr(b->send[rank], 0),
			       tern_ptr(b->recv[rank], 0), COLL_COUNT,
			       TERN_FLOAT32, TERN_SUM, comm, cg.stream[rank]);
}

static void all_reduce_on(int rank, tern_comm_t comm, struct coll_bufs *b)
{
	assert_ok(all_reduce_try(rank, comm, b));
}

/* Enqueues rank @r's all-reduce of a failing comm: it may be refused. */
static void failing_all_reduce_on(int r, tern_comm_t comm, struct coll_bufs *b,
				  tern_status_t *status)
{
	status[r] = all_reduce_try(r, comm, b);
	if (status[r] != TERN_SUCCESS && status[r] != TERN_ERROR_PEER_FAILED)
		fail_msg("rank %d: all-reduce refused with %s", r,
			 tern_status_name(status[r]));
}

/*
 * Every rank ends in NO_ROUTE or PEER_FAILED (its stream, or the refusal
 * in @status); fills @status with each rank's. One of them is NO_ROUTE.
 */
static void assert_every_rank_failed(tern_status_t *status)
{
	int no_route = 0;

	for (int r = 0; r < cg.n; r++) {
		if (status[r] == TERN_SUCCESS)
			status[r] = tern_stream_synchronize(cg.stream[r]);
		if (status[r] != TERN_ERROR_NO_ROUTE &&
		    status[r] != TERN_ERROR_PEER_FAILED)
			fail_msg("rank %d: %s, want NO_ROUTE or PEER_FAILED", r,
				 tern_status_name(status[r]));
		no_route += status[r] == TERN_ERROR_NO_ROUTE;
		print_message("rank %d: %s\n", r, tern_status_name(status[r]));
	}
	assert_true(no_route > 0);
}

/* Each comm was in error: its destroy says so. */
static void comms_destroy_failed(tern_comm_t *comm)
{
	for (int r = 0; r < cg.n; r++) {
		tern_status_t status = tern_comm_destroy(comm[r]);

		if (status != TERN_ERROR_NO_ROUTE &&
		    status != TERN_ERROR_PEER_FAILED)
			fail_msg("rank %d: destroy gave %s", r,
				 tern_status_name(status));
	}
}

static void comms_destroy(tern_comm_t *comm)
{
	for (int r = 0; r < cg.n; r++)
		assert_ok(tern_comm_destroy(comm[r]));
}

/* Device 0's links, both of them. */
static void isolate_device0(void)
{
	assert_int_equal(link_write(0, "0 down"), 0);
	assert_int_equal(link_write(0, "1 down"), 0);
}

/* A new communicator over the whole ring gives every rank the exact sum. */
static void assert_fresh_comm_works(void)
{
	tern_comm_t comm[FABRIC_MAX_DEVICES];
	struct coll_bufs b;

	assert_ok(tern_comm_init_all(comm, cg.n, cg.dev));
	bufs_alloc(&b);
	for (int r = 0; r < cg.n; r++)
		all_reduce_on(r, comm[r], &b);
	for (int r = 0; r < cg.n; r++)
		assert_ok(tern_stream_synchronize(cg.stream[r]));
	for (int r = 0; r < cg.n; r++) {
		for (size_t i = 0; i < COLL_COUNT; i++) {
			float want = (float)(cg.n * (int)(i % 251) +
					     cg.n * (cg.n - 1) / 2);

			if (b.recv_cpu[r][i] != want)
				fail_msg("rank %d element %zu: %g, want %g", r,
					 i, (double)b.recv_cpu[r][i],
					 (double)want);
		}
	}
	comms_destroy(comm);
	bufs_free(&b);
}

static void assert_memory_released(void)
{
	for (int r = 0; r < cg.n; r++) {
		uint64_t used, total;

		assert_ok(tern_device_memory_usage(cg.dev[r], &used, &total));
		if (used != cg.used[r])
			fail_msg("device %d: %llu bytes in use, %llu before the test",
				 r, (unsigned long long)used,
				 (unsigned long long)cg.used[r]);
	}
}

static uint64_t device0_tx_bytes(void)
{
	tern_port_info_t ports[RING_PORTS];
	uint64_t bytes = 0;
	uint32_t count;

	assert_ok(tern_device_get_ports(cg.dev[0], ports, RING_PORTS, &count));
	assert_int_equal(count, RING_PORTS);
	for (uint32_t p = 0; p < RING_PORTS; p++)
		bytes += ports[p].tx_bytes;
	return bytes;
}

/*
 * Waits until rank 0's all-reduce has put bytes on the fabric, i.e. it is
 * running: its first step sends to both neighbours without waiting.
 */
static void wait_device0_sent_past(uint64_t tx_before)
{
	const struct timespec ms = { .tv_nsec = 1000000 };

	for (int waited = 0; device0_tx_bytes() == tx_before; waited++) {
		if (waited == COLL_START_BOUND_MS)
			fail_msg("rank 0's all-reduce never started");
		nanosleep(&ms, NULL);
	}
}

/*
 * Device 0 is cut off before the collective: the communicator is made
 * (it needs no fabric traffic), rank 0's first sends fail with NO_ROUTE,
 * and the others learn of it.
 */
static void test_coll_link_down_before(void **state)
{
	tern_comm_t comm[FABRIC_MAX_DEVICES];
	tern_status_t status[FABRIC_MAX_DEVICES];
	struct coll_bufs b;

	(void)state;
	isolate_device0();
	assert_ok(tern_comm_init_all(comm, cg.n, cg.dev));
	bufs_alloc(&b);
	for (int r = 0; r < cg.n; r++)
		failing_all_reduce_on(r, comm[r], &b, status);
	assert_every_rank_failed(status);
	assert_int_equal(status[0], TERN_ERROR_NO_ROUTE);
	comms_destroy_failed(comm);
	bufs_free(&b);

	links_all_up();
	assert_fresh_comm_works();
	assert_memory_released();
}

/*
 * Device 0 is cut off while its all-reduce runs. The last rank (its ring
 * neighbour) is enqueued only after that, so no rank can have finished
 * before the links went down. Whichever of the ranks with a link to
 * device 0 sends over it next fails with NO_ROUTE: device 0 itself, the
 * last rank, or rank 1 when its send to device 0 was still to come; the
 * others are told their peer failed.
 */
static void test_coll_link_down_during(void **state)
{
	tern_comm_t comm[FABRIC_MAX_DEVICES];
	tern_status_t status[FABRIC_MAX_DEVICES];
	int last = cg.n - 1;
	uint64_t tx_before;
	struct coll_bufs b;

	(void)state;
	assert_ok(tern_comm_init_all(comm, cg.n, cg.dev));
	bufs_alloc(&b);
	tx_before = device0_tx_bytes();
	for (int r = 0; r < last; r++)
		failing_all_reduce_on(r, comm[r], &b, status);
	wait_device0_sent_past(tx_before);
	isolate_device0();
	failing_all_reduce_on(last, comm[last], &b, status);
	assert_every_rank_failed(status);
	assert_true(status[last] == TERN_ERROR_NO_ROUTE ||
		    status[0] == TERN_ERROR_NO_ROUTE ||
		    status[1] == TERN_ERROR_NO_ROUTE);
	comms_destroy_failed(comm);
	bufs_free(&b);

	links_all_up();
	assert_fresh_comm_works();
	assert_memory_released();
}

static int coll_setup(void **state)
{
	(void)state;
	for (int r = 0; r < cg.n; r++) {
		uint64_t total;

		if (tern_device_memory_usage(cg.dev[r], &cg.used[r], &total))
			return -1;
	}
	return 0;
}

static int coll_teardown(void **state)
{
	(void)state;
	links_all_up();
	return 0;
}

/* Opens every device through libtern, rank = fabric id, one stream each. */
static int coll_group_setup(void **state)
{
	tern_backend_t backend;
	int count;

	(void)state;
	/* this suite is about tern.ko: never fall back to the simulator */
	setenv("TERN_BACKEND", "kernel", 1);
	if (tern_get_backend(&backend) || backend != TERN_BACKEND_KERNEL ||
	    tern_device_count(&count) || count != (int)fabric.devices)
		return -1;
	cg.n = count;
	for (int i = 0; i < count; i++) {
		tern_device_properties_t props;
		tern_device_t dev;

		if (tern_device_open(i, &dev) ||
		    tern_device_get_properties(dev, &props) ||
		    props.fabric_id < 0 || props.fabric_id >= count ||
		    cg.dev[props.fabric_id])
			return -1;
		cg.dev[props.fabric_id] = dev;
	}
	for (int r = 0; r < count; r++)
		if (tern_stream_create(cg.dev[r], &cg.stream[r]))
			return -1;
	return 0;
}

static int coll_group_teardown(void **state)
{
	int failed = 0;

	(void)state;
	for (int r = 0; r < cg.n; r++) {
		if (cg.stream[r])
			failed |= tern_stream_destroy(cg.stream[r]) != TERN_SUCCESS;
		if (cg.dev[r])
			failed |= tern_device_close(cg.dev[r]) != TERN_SUCCESS;
	}
	return failed ? -1 : 0;
}

#define T(f) cmocka_unit_test_setup_teardown(f, coll_setup, coll_teardown)

int collective_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_coll_link_down_before),
		T(test_coll_link_down_during),
	};

	return cmocka_run_group_tests_name("fabric_collectives", tests,
					   coll_group_setup,
					   coll_group_teardown);
}
