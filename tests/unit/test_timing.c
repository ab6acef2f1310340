// SPDX-License-Identifier: MIT
/*
 * Unit tests of the timing model (model/tern_timing.h), through
 * tern_model_run() on four devices in a ring whose links have known
 * figures: what a transfer costs, links taken in turns or in parallel, a
 * device's memory shared by every engine that reads or writes it, a wait
 * passing when its semaphore was signalled, and the same modelled times
 * whatever order the host runs the engines in.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "packets.h"
#include "tern_model.h"

#define DEVICES		4
#define BUF_BYTES	(4u << 20)
#define SEM_OFF		(BUF_BYTES - 4096)	/* semaphores, 8 bytes each */
#define STAMP_OFF	(BUF_BYTES - 8)
#define MIB		(1u << 20)
/* 100 GB/s links of 1,000 ns: 10,000 fs per byte, round figures. */
#define LINK_NS(bytes)	((u64)(bytes) * 10000 / 1000000)
#define LATENCY		1000u
/*
 * A device's memory serves all its engines and peers together at
 * TERN_TIMING_MEM_BANDWIDTH: 344 fs a byte, whole ns.
 */
#define MEM_NS(bytes)	((u64)(bytes) * (1000000000u / 2900000u) / 1000000)
/* What a wait costs once it passes: its packet. */
#define PACKET		TERN_TIMING_PACKET_NS
#define SPEC "custom:0-1@100/1000ns,1-2@100/1000ns,2-3@100/1000ns,3-0@100/1000ns"

static struct tern_fabric fabric;
static const struct tern_core_shape no_cores;
/* Every engine here is a DMA engine: each packet costs its decode. */
static const struct tern_model_target dma = {
	.type = DRM_TERN_ENGINE_DMA, .shape = &no_cores,
};
static struct tern_timing *timing;
static struct tern_timing_engine engines[DEVICES];
/* A second DMA engine of device 0. */
static struct tern_timing_engine second;
static u8 *memory[DEVICES];

/* Device d's memory is at VA (d + 1) << 32, seen alike by every engine. */
static u64 va(u32 device, u64 off)
{
	return ((u64)(device + 1) << 32) + off;
}

static void *translate(void *ctx, u64 addr, u64 len, u32 *owner)
{
	u64 d = (addr >> 32) - 1, off = addr & 0xffffffffull;

	(void)ctx;
	if (d >= DEVICES || off >= BUF_BYTES || len > BUF_BYTES - off)
		return NULL;
	*owner = (u32)d;
	return memory[d] + off;
}

static u64 host_clock(void *ctx)
{
	(void)ctx;
	return 424242;
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(tern_fabric_init(&fabric, DEVICES, SPEC), 0);
	timing = calloc(1, sizeof(*timing));
	assert_non_null(timing);
	tern_timing_init(timing, &fabric);
	memset(engines, 0, sizeof(engines));
	memset(&second, 0, sizeof(second));
	for (int d = 0; d < DEVICES; d++) {
		memory[d] = calloc(1, BUF_BYTES);
		assert_non_null(memory[d]);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(timing);
	for (int d = 0; d < DEVICES; d++)
		free(memory[d]);
	return 0;
}

struct stream {
	u64 words[512];
	struct tern_packet_builder b;
};

static void stream_init(struct stream *s)
{
	tern_packets_init(&s->b, s->words, sizeof(s->words));
}

static struct tern_model_mem mem_of(u32 device,
				    struct tern_timing_engine *engine,
				    bool model_clock)
{
	struct tern_model_mem mem = {
		.translate = translate, .clock = host_clock,
		.fabric = &fabric, .device = device,
		.timing = timing, .engine = engine,
		.model_clock = model_clock, .target = &dma,
	};

	return mem;
}

/* Runs @s on @engine of device @device; returns what tern_model_run did. */
static int run_engine(u32 device, struct tern_timing_engine *engine,
		      struct stream *s, bool model_clock)
{
	struct tern_model_mem mem = mem_of(device, engine, model_clock);
	struct tern_model_job job;
	int ret;

	tern_model_job_init(&job, s->words, (u32)s->b.size);
	do
		ret = tern_model_run(&job, &mem);
	while (ret == TERN_MODEL_YIELD);
	if (ret == 0)
		tern_timing_job_end(engine);
	return ret;
}

/* Runs @s on device @device's engine. */
static int run_on(u32 device, struct stream *s, bool model_clock)
{
	return run_engine(device, &engines[device], s, model_clock);
}

static u64 stamp_of(u32 device)
{
	return *(u64 *)(void *)(memory[device] + STAMP_OFF);
}

/* A remote write costs its bytes over the link plus one latency. */
static void test_copy_over_one_hop(void **state)
{
	struct stream s;

	(void)state;
	stream_init(&s);
	tern_packet_copy(&s.b, va(1, 0), va(0, 0), MIB);
	tern_packet_timestamp(&s.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &s, true), 0);
	assert_int_equal(stamp_of(0), LINK_NS(MIB) + LATENCY);
	/* the engine's clock is what it wrote; the host's clock is not read */
	assert_int_equal(engines[0].now, LINK_NS(MIB) + LATENCY +
			 TERN_TIMING_PACKET_NS);
}

/* Without the model's clock selected, TIMESTAMP reads the host clock. */
static void test_host_clock_unless_selected(void **state)
{
	struct stream s;

	(void)state;
	stream_init(&s);
	tern_packet_copy(&s.b, va(1, 0), va(0, 0), MIB);
	tern_packet_timestamp(&s.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &s, false), 0);
	assert_int_equal(stamp_of(0), 424242);
	assert_true(engines[0].now >= LINK_NS(MIB) + LATENCY);
}

/* A read costs the same bytes but a latency there and back. */
static void test_remote_read(void **state)
{
	struct stream s;

	(void)state;
	stream_init(&s);
	tern_packet_copy(&s.b, va(0, 0), va(1, 0), MIB);
	tern_packet_timestamp(&s.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &s, true), 0);
	assert_int_equal(stamp_of(0), LINK_NS(MIB) + 2 * LATENCY);
}

/* One engine keeps two links busy at once: east and west. */
static void test_links_in_parallel(void **state)
{
	struct stream s;

	(void)state;
	stream_init(&s);
	tern_packet_copy(&s.b, va(1, 0), va(0, 0), MIB);
	tern_packet_copy(&s.b, va(3, 0), va(0, MIB), MIB);
	tern_packet_timestamp(&s.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &s, true), 0);
	/*
	 * the second starts once issued: each reads memory at its link's
	 * pace, and memory has room for both
	 */
	assert_int_equal(stamp_of(0), PACKET + LINK_NS(MIB) + LATENCY);
}

/*
 * Devices 0 and 1 both send to device 2 at once; 0's route goes through
 * link 1->2 as well, so they take turns on it: whoever the host ran first
 * goes first, the other lands one transfer later.
 */
static void test_shared_link_takes_turns(void **state)
{
	struct stream s0, s1;

	(void)state;
	stream_init(&s0);
	tern_packet_copy(&s0.b, va(2, 0), va(0, 0), MIB);
	tern_packet_timestamp(&s0.b, va(0, STAMP_OFF));
	stream_init(&s1);
	tern_packet_copy(&s1.b, va(2, MIB), va(1, 0), MIB);
	tern_packet_timestamp(&s1.b, va(1, STAMP_OFF));
	assert_int_equal(run_on(0, &s0, true), 0);
	assert_int_equal(run_on(1, &s1, true), 0);
	assert_int_equal(stamp_of(0), LINK_NS(MIB) + 2 * LATENCY);
	assert_int_equal(stamp_of(1), 2 * LINK_NS(MIB) + LATENCY);
}

/*
 * Links remember when they are busy: an engine that is behind in modelled
 * time fits its transfer in the gap before another engine's later one,
 * even though the host ran the later one first.
 */
static void test_gap_before_later_transfer(void **state)
{
	struct stream late, early;

	(void)state;
	engines[1].now = 100000;
	stream_init(&late);
	tern_packet_copy(&late.b, va(2, 0), va(1, 0), MIB);
	assert_int_equal(run_on(1, &late, true), 0);
	stream_init(&early);
	tern_packet_copy(&early.b, va(2, MIB), va(1, MIB), 64u << 10);
	tern_packet_timestamp(&early.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &early, true), 0);
	/* device 0's route 0->1->2 crosses 1->2 well before device 1 does */
	assert_int_equal(stamp_of(0), LINK_NS(64u << 10) + 2 * LATENCY);
}

/* Too small to keep a link busy for a nanosecond: no turn taken. */
static void test_small_transfer_takes_no_turn(void **state)
{
	struct stream big, small;

	(void)state;
	stream_init(&big);
	tern_packet_copy(&big.b, va(2, 0), va(1, 0), MIB);
	assert_int_equal(run_on(1, &big, true), 0);
	stream_init(&small);
	tern_packet_copy(&small.b, va(2, MIB), va(0, 0), 96);
	tern_packet_timestamp(&small.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &small, true), 0);
	assert_int_equal(stamp_of(0), 2 * LATENCY);
}

/* A later packet that reads what an earlier one writes waits for it. */
static void test_read_after_write_waits(void **state)
{
	struct stream s;

	(void)state;
	stream_init(&s);
	tern_packet_copy(&s.b, va(1, 0), va(0, 0), MIB);
	tern_packet_copy(&s.b, va(0, 2 * MIB), va(1, 0), MIB);
	tern_packet_timestamp(&s.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &s, true), 0);
	/* the read of device 1's copy starts once the write has landed */
	assert_int_equal(stamp_of(0), 2 * LINK_NS(MIB) + 3 * LATENCY);
}

/* The signaller's side: data, then the semaphore, on device 1. */
static void build_sender(struct stream *s)
{
	stream_init(s);
	tern_packet_copy(&s->b, va(1, 0), va(0, 0), MIB);
	tern_packet_sem_signal(&s->b, va(1, SEM_OFF), 1, false);
}

static void build_waiter(struct stream *s)
{
	stream_init(s);
	tern_packet_sem_wait(&s->b, va(1, SEM_OFF), 1, false);
	tern_packet_timestamp(&s->b, va(1, STAMP_OFF));
}

/* The wait passes when the signal landed, behind the data it follows. */
static void test_wait_passes_at_signal(void **state)
{
	struct stream sender, waiter;

	(void)state;
	build_sender(&sender);
	build_waiter(&waiter);
	assert_int_equal(run_on(0, &sender, true), 0);
	assert_int_equal(run_on(1, &waiter, true), 0);
	assert_int_equal(stamp_of(1), LINK_NS(MIB) + LATENCY + PACKET);
}

/* The same when the waiter ran first in host order and stalled. */
static void test_wait_first_same_time(void **state)
{
	struct stream sender, waiter;
	struct tern_model_mem mem = mem_of(1, &engines[1], true);
	struct tern_model_job job;

	(void)state;
	build_sender(&sender);
	build_waiter(&waiter);
	tern_model_job_init(&job, waiter.words, (u32)waiter.b.size);
	assert_int_equal(tern_model_run(&job, &mem), TERN_MODEL_STALLED);
	assert_int_equal(run_on(0, &sender, true), 0);
	assert_int_equal(tern_model_run(&job, &mem), 0);
	assert_int_equal(stamp_of(1), LINK_NS(MIB) + LATENCY + PACKET);
}

/*
 * A sequence number stored ahead (the signaller ran two steps before the
 * waiter looked): a wait for the first step still passes at its time.
 */
static void test_wait_for_earlier_step(void **state)
{
	struct stream s, waiter;

	(void)state;
	stream_init(&s);
	tern_packet_sem_signal(&s.b, va(1, SEM_OFF), 1, false);
	tern_packet_copy(&s.b, va(1, 0), va(0, 0), MIB);
	tern_packet_sem_signal(&s.b, va(1, SEM_OFF), 2, false);
	assert_int_equal(run_on(0, &s, true), 0);
	build_waiter(&waiter);
	assert_int_equal(run_on(1, &waiter, true), 0);
	assert_int_equal(stamp_of(1), LATENCY + PACKET);
}

/*
 * Devices 1 to 3 add to a semaphore of device 0 from different modelled
 * times; a wait for two passes when the second of them lands, in
 * whatever order the host ran the three.
 */
static u64 adds_in_order(const u32 order[3])
{
	static const u64 start[DEVICES] = { 0, 5000, 3000, 9000 };
	struct stream s, waiter;
	u64 stamp;

	setup(NULL);
	for (int i = 0; i < 3; i++) {
		u32 d = order[i];

		engines[d].now = start[d];
		stream_init(&s);
		tern_packet_sem_signal(&s.b, va(0, SEM_OFF), 1, true);
		assert_int_equal(run_on(d, &s, true), 0);
	}
	stream_init(&waiter);
	tern_packet_sem_wait(&waiter.b, va(0, SEM_OFF), 2, false);
	tern_packet_timestamp(&waiter.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &waiter, true), 0);
	stamp = stamp_of(0);
	teardown(NULL);
	return stamp;
}

static void test_adds_in_modelled_order(void **state)
{
	static const u32 orders[][3] = {
		{ 1, 2, 3 }, { 3, 2, 1 }, { 2, 3, 1 }, { 3, 1, 2 },
	};

	(void)state;
	/* lands: device 1 at 5000 + 1000, 2 at 3000 + 2 hops, 3 at 10000 */
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		assert_int_equal(adds_in_order(orders[i]), 6000 + PACKET);
}

/* The host wrote the semaphore: the wait passes at the engine's time. */
static void test_host_written_semaphore(void **state)
{
	struct stream s, waiter;

	(void)state;
	stream_init(&s);
	tern_packet_sem_signal(&s.b, va(1, SEM_OFF), 1, false);
	assert_int_equal(run_on(0, &s, true), 0);
	/* then the host sets it back and on, through its own mapping */
	*(u64 *)(void *)(memory[1] + SEM_OFF) = 7;
	engines[1].now = 300;
	stream_init(&waiter);
	tern_packet_sem_wait(&waiter.b, va(1, SEM_OFF), 7, true);
	tern_packet_timestamp(&waiter.b, va(1, STAMP_OFF));
	assert_int_equal(run_on(1, &waiter, true), 0);
	assert_int_equal(stamp_of(1), 300 + PACKET);
}

/* ---- a device's memory, one resource for all who read or write it ---- */

/* A copy within one device reads and writes its memory: twice the bytes. */
#define LOCAL_COPY_NS(bytes)	MEM_NS(2 * (u64)(bytes))

static void build_local_copy(struct stream *s, u32 device, u64 off, u64 bytes)
{
	stream_init(s);
	tern_packet_copy(&s->b, va(device, off + bytes), va(device, off), bytes);
}

/* Two engines of one device copying at once take turns on its memory. */
static void test_memory_shared_by_engines(void **state)
{
	struct stream a, b;

	(void)state;
	build_local_copy(&a, 0, 0, MIB);
	build_local_copy(&b, 0, 2 * MIB, MIB);
	assert_int_equal(run_on(0, &a, true), 0);
	/* alone it would take its bytes at the memory's bandwidth */
	assert_int_equal(engines[0].now, LOCAL_COPY_NS(MIB));
	assert_int_equal(LOCAL_COPY_NS(MIB), 721);
	assert_int_equal(run_engine(0, &second, &b, true), 0);
	/* issued at 0 too, it is served once the first has been */
	assert_int_equal(second.now, 2 * LOCAL_COPY_NS(MIB));
}

/* Copies on two devices do not slow each other. */
static void test_memory_per_device(void **state)
{
	struct stream a, b;

	(void)state;
	build_local_copy(&a, 0, 0, MIB);
	build_local_copy(&b, 1, 0, MIB);
	assert_int_equal(run_on(0, &a, true), 0);
	assert_int_equal(run_on(1, &b, true), 0);
	assert_int_equal(engines[0].now, LOCAL_COPY_NS(MIB));
	assert_int_equal(engines[1].now, LOCAL_COPY_NS(MIB));
}

/*
 * Memory remembers when it is busy, as links do: an engine behind in
 * modelled time is served in the gap before another engine's later copy
 * that the host ran first.
 */
static void test_memory_gap_before_later_copy(void **state)
{
	struct stream late, early;

	(void)state;
	engines[0].now = 100000;
	build_local_copy(&late, 0, 0, MIB);
	assert_int_equal(run_on(0, &late, true), 0);
	assert_int_equal(engines[0].now, 100000 + LOCAL_COPY_NS(MIB));
	build_local_copy(&early, 0, 2 * MIB, MIB);
	assert_int_equal(run_engine(0, &second, &early, true), 0);
	assert_int_equal(second.now, LOCAL_COPY_NS(MIB));
}

/* A peer's write takes its turn on the memory it writes. */
static void test_peer_write_waits_for_memory(void **state)
{
	struct stream local, remote;

	(void)state;
	/* device 1's memory is busy until 1442 */
	build_local_copy(&local, 1, 0, 2 * MIB);
	assert_int_equal(run_on(1, &local, true), 0);
	assert_int_equal(engines[1].now, LOCAL_COPY_NS(2 * MIB));
	/* 64 KiB from device 0 would cross the link in 655 ns */
	stream_init(&remote);
	tern_packet_copy(&remote.b, va(1, 3 * MIB), va(0, 0), 64u << 10);
	tern_packet_timestamp(&remote.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &remote, true), 0);
	assert_int_equal(stamp_of(0), LOCAL_COPY_NS(2 * MIB) +
			 MEM_NS(64u << 10) + LATENCY);
}

/*
 * A transfer its link paces needs memory at the link's pace: it is served
 * late in its time on the link, and a copy issued meanwhile that memory
 * paces goes first whatever order the host ran them in.
 */
static void test_link_paced_leaves_memory(void **state)
{
	struct stream remote, local;

	(void)state;
	stream_init(&remote);
	tern_packet_copy(&remote.b, va(1, 0), va(0, 0), MIB);
	tern_packet_timestamp(&remote.b, va(0, STAMP_OFF));
	assert_int_equal(run_on(0, &remote, true), 0);
	build_local_copy(&local, 1, MIB, MIB);
	assert_int_equal(run_on(1, &local, true), 0);
	assert_int_equal(stamp_of(0), LINK_NS(MIB) + LATENCY);
	assert_int_equal(engines[1].now, LOCAL_COPY_NS(MIB));
}

struct timed_job {
	u32 device;
	struct tern_timing_engine *engine;
	struct stream s;
};

/*
 * Runs @jobs to their ends, taking them in @order, again while any is
 * stalled on a semaphore, as the simulator's workers would.
 */
static void run_all(struct timed_job *jobs, const int *order, int count)
{
	struct tern_model_mem mem[4];
	struct tern_model_job job[4];
	bool done[4] = { false };
	int left = count, ret;

	for (int i = 0; i < count; i++) {
		mem[i] = mem_of(jobs[i].device, jobs[i].engine, true);
		tern_model_job_init(&job[i], jobs[i].s.words,
				    (u32)jobs[i].s.b.size);
	}
	while (left) {
		int before = left;

		for (int k = 0; k < count; k++) {
			int i = order[k];

			if (done[i])
				continue;
			do
				ret = tern_model_run(&job[i], &mem[i]);
			while (ret == TERN_MODEL_YIELD);
			if (ret == TERN_MODEL_STALLED)
				continue;
			assert_int_equal(ret, 0);
			tern_timing_job_end(jobs[i].engine);
			done[i] = true;
			left--;
		}
		assert_true(left < before);	/* no job waits for nothing */
	}
}

/*
 * A pipeline on device 0's memory its semaphores order: engine 0 copies
 * and signals; the second engine waits, copies and signals; device 1
 * waits for that and reads the copy across the link. Beside it, engine 3
 * copies within device 0 much later in modelled time. Returns device
 * 1's stamp; *@late gets engine 3's clock.
 */
static u64 pipeline_in_order(const int order[4], u64 *late)
{
	static struct timed_job jobs[4];
	static struct tern_timing_engine later;
	u64 stamp;

	setup(NULL);
	memset(&later, 0, sizeof(later));
	later.now = 50000;
	jobs[0] = (struct timed_job){ .device = 0, .engine = &engines[0] };
	build_local_copy(&jobs[0].s, 0, 0, MIB);
	tern_packet_sem_signal(&jobs[0].s.b, va(0, SEM_OFF), 1, false);
	jobs[1] = (struct timed_job){ .device = 0, .engine = &second };
	stream_init(&jobs[1].s);
	tern_packet_sem_wait(&jobs[1].s.b, va(0, SEM_OFF), 1, false);
	tern_packet_copy(&jobs[1].s.b, va(0, 2 * MIB), va(0, MIB), MIB);
	tern_packet_sem_signal(&jobs[1].s.b, va(0, SEM_OFF + 8), 1, false);
	jobs[2] = (struct timed_job){ .device = 1, .engine = &engines[1] };
	stream_init(&jobs[2].s);
	tern_packet_sem_wait(&jobs[2].s.b, va(0, SEM_OFF + 8), 1, false);
	tern_packet_copy(&jobs[2].s.b, va(1, 0), va(0, 2 * MIB), MIB);
	tern_packet_timestamp(&jobs[2].s.b, va(1, STAMP_OFF));
	jobs[3] = (struct timed_job){ .device = 0, .engine = &later };
	build_local_copy(&jobs[3].s, 0, 2 * MIB, 512u << 10);
	run_all(jobs, order, 4);
	stamp = stamp_of(1);
	*late = later.now;
	teardown(NULL);
	return stamp;
}

/* The same program gives the same modelled times, whatever the host's order. */
static void test_same_times_any_order(void **state)
{
	static const int orders[][4] = {
		{ 0, 1, 2, 3 }, { 3, 2, 1, 0 }, { 2, 1, 3, 0 }, { 0, 1, 2, 3 },
	};
	/* each copy in device 0 after the signal before it, no turn taken */
	const u64 second_done = 2 * LOCAL_COPY_NS(MIB) + PACKET;
	const u64 want = second_done + LATENCY + PACKET + LINK_NS(MIB) +
			 2 * LATENCY;
	u64 late;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++) {
		assert_int_equal(pipeline_in_order(orders[i], &late), want);
		assert_int_equal(late, 50000 + LOCAL_COPY_NS(512u << 10));
	}
}

/* A job that faults leaves the clocks as they were before it. */
static void test_fault_moves_nothing(void **state)
{
	struct stream s;

	(void)state;
	stream_init(&s);
	tern_packet_copy(&s.b, va(1, 0), va(7, 0), MIB);
	assert_int_equal(run_on(0, &s, true), -EFAULT);
	assert_int_equal(engines[0].now, 0);
	assert_int_equal(engines[0].drain, 0);
}

/* Every test on fresh memory, clocks and links. */
#define T(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_copy_over_one_hop),
		T(test_host_clock_unless_selected),
		T(test_remote_read),
		T(test_links_in_parallel),
		T(test_shared_link_takes_turns),
		T(test_gap_before_later_transfer),
		T(test_small_transfer_takes_no_turn),
		T(test_read_after_write_waits),
		T(test_wait_passes_at_signal),
		T(test_wait_first_same_time),
		T(test_wait_for_earlier_step),
		cmocka_unit_test(test_adds_in_modelled_order),
		T(test_host_written_semaphore),
		T(test_memory_shared_by_engines),
		T(test_memory_per_device),
		T(test_memory_gap_before_later_copy),
		T(test_peer_write_waits_for_memory),
		T(test_link_paced_leaves_memory),
		cmocka_unit_test(test_same_times_any_order),
		T(test_fault_moves_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
