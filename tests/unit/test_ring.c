// SPDX-License-Identifier: MIT
/*
 * How jobs reach the simulated machine: through the process's submission
 * ring, or on the socket when they are too large for it.
 *
 * - Jobs keep their queue's order when ring and socket mix.
 * - A process that writes nonsense into its ring loses its connection,
 *   and only it: the machine serves everyone else as before.
 *
 * This program holds machine "r-PID" (1 device) for the whole run, in
 * TERN_SIM_DIR (made here when not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "packets.h"
#include "raw_client.h"
#include "sim_test.h"
#include "submit.h"
#include "tern.h"
#include "tern_sim.h"

/* Jobs of the order test: every third too large for the ring. */
#define ORDER_JOBS	60
#define BIG_NOP_UNITS	9000	/* 72 KiB of NOP: above SIM_RING_RECORD_MAX */

static char machine_name[64];
static tern_device_t dev;
static tern_stream_t stream;
static tern_buffer_t host;	/* 4 KiB of semaphores */
static uint64_t host_va;
static volatile uint64_t *host_cpu;

/*
 * Job i waits for the counter to be i and sets it to i + 1: a job run
 * before the one ahead of it in its queue waits for good, and the queue
 * behind it with it, until the job timeout fails them.
 */
static void test_order_across_ring_and_socket(void **state)
{
	static uint64_t packets[(BIG_NOP_UNITS + 64)];
	struct tern_packet_builder b;

	(void)state;
	host_cpu[0] = 0;
	for (uint64_t i = 0; i < ORDER_JOBS; i++) {
		tern_packets_init(&b, packets, sizeof(packets));
		tern_packet_sem_wait(&b, host_va, i, true);
		if (i % 3 == 1)
			tern_packet_nop(&b, BIG_NOP_UNITS);
		tern_packet_sem_signal(&b, host_va, i + 1, false);
		assert_false(b.overflow);
		assert_ok(tern_stream_submit(stream, packets, b.size, NULL, 0,
					     NULL));
	}
	assert_ok(tern_stream_synchronize(stream));
	assert_int_equal(host_cpu[0], ORDER_JOBS);
}

/* Writes a record header at @at, moves the tail to @tail and rings. */
static void raw_record(struct raw_client *c, uint64_t at, uint32_t type,
		       uint32_t size, uint64_t tail)
{
	struct sim_msg_header h = { type, size };

	memcpy(c->data + at % SIM_RING_BYTES, &h, sizeof(h));
	__atomic_store_n(&c->ring->tail, tail, __ATOMIC_SEQ_CST);
	assert_int_equal(sim_wire_send(c->sock, SIM_MSG_DOORBELL, NULL, 0,
				       NULL, 0, NULL, 0), 0);
}

static void test_ring_nonsense_closes_only_its_connection(void **state)
{
	const struct {
		const char *what;
		uint64_t at;
		uint32_t type, size;
		uint64_t tail;
	} cases[] = {
		{ "tail past the ring", 0, SIM_MSG_FENCE_PUT, 8,
		  SIM_RING_BYTES + 8 },
		{ "record past the ring's end", 0, SIM_MSG_FENCE_PUT,
		  SIM_RING_BYTES, 64 },
		{ "record past the tail", 0, SIM_MSG_FENCE_PUT, 64, 16 },
		{ "record larger than a ring record", 0, SIM_MSG_SUBMIT,
		  SIM_RING_RECORD_MAX, SIM_RING_RECORD_MAX + 8 },
		{ "a request that needs a reply", 0, SIM_MSG_CTX_OPEN, 8, 16 },
		{ "an unknown type", 0, 0x7777, 0, 8 },
		{ "padding short of the end", 0, SIM_MSG_RING_PAD, 8, 16 },
		{ "a fence put of the wrong size", 0, SIM_MSG_FENCE_PUT, 16,
		  24 },
	};
	uint8_t packets[64];
	struct tern_packet_builder b;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct raw_client c;

		raw_connect(&c, machine_name);
		raw_record(&c, cases[i].at, cases[i].type, cases[i].size,
			   cases[i].tail);
		if (!raw_closed(&c))
			fail_msg("%s: the connection stayed open",
				 cases[i].what);
		raw_close(&c);

		/* Everyone else is served as before. */
		host_cpu[1] = 0;
		tern_packets_init(&b, packets, sizeof(packets));
		tern_packet_sem_signal(&b, host_va + 8, i + 1, false);
		assert_ok(tern_stream_submit(stream, packets, b.size, NULL, 0,
					     NULL));
		assert_ok(tern_stream_synchronize(stream));
		assert_int_equal(host_cpu[1], i + 1);
	}
}

static int open_fixture(void **state)
{
	void *cpu;

	(void)state;
	if (tern_device_open(0, &dev) || tern_stream_create(dev, &stream) ||
	    tern_buffer_alloc(dev, TERN_MEMORY_HOST, 4096, &host) ||
	    tern_buffer_device_address(host, &host_va) ||
	    tern_buffer_map(host, &cpu))
		return -1;
	host_cpu = cpu;
	return 0;
}

static int close_fixture(void **state)
{
	(void)state;
	tern_buffer_free(host);
	tern_stream_destroy(stream);
	tern_device_close(dev);
	tern_sim_machine_stop(machine_name, 1, NULL);
	return 0;
}

/*
 * A HELLO with flags the machine does not know, or a pad not zero, is
 * refused; a good one after it is served.
 */
static void test_hello_nonsense_refused(void **state)
{
	static const struct {
		uint32_t flags, pad;
	} cases[] = { { 1u << 31, 0 }, { 2, 0 }, { 0, 1 },
		      { SIM_HELLO_GIVE_WAY, 0xffffffffu } };
	struct raw_client c;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(raw_hello(&c, machine_name, cases[i].flags,
					   cases[i].pad),
				 TERN_ERROR_INVALID_ARGUMENT);
		raw_close(&c);
	}
	raw_connect(&c, machine_name);
	raw_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_across_ring_and_socket),
		cmocka_unit_test(test_ring_nonsense_closes_only_its_connection),
		cmocka_unit_test(test_hello_nonsense_refused),
	};

	if (sim_own_machine("r", machine_name, sizeof(machine_name), "1",
			    "16"))
		return 1;
	setenv("TERN_SIM_JOB_TIMEOUT_MS", "2000", 1);
	return cmocka_run_group_tests_name("ring", tests, open_fixture,
					   close_fixture) ? 1 : 0;
}
