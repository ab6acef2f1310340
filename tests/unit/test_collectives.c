// SPDX-License-Identifier: MIT
/*
 * Collectives on the simulator, checked element by element against a
 * reference: every collective x dtype x op x rank count {1,2,3,4,7,8,16} x
 * topology {ring, torus, full} x sizes {0, 1, odd, several blocks}, in
 * place and out of place, as the tuner chooses and with rings and chains
 * forced (TERN_ALGO) where it would not; and the fabric counters after an
 * all-reduce on a 4-device ring and a 4x4 torus, to the byte.
 *
 * The simulated machine is fixed per process, so the program runs itself
 * again as a child (--child NAME) for each configuration, with
 * TERN_SIM_DEVICES and TERN_SIM_TOPOLOGY set. Inputs are small integers,
 * so every dtype's result is exact whatever order the ranks reduce in.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "status.h"
#include "elements.h"
#include "sim_child.h"
#include "tern.h"
#include "tern_sim.h"

#define MAX_RANKS	64
/* libtern's COLL_CHUNK_BYTES: the most the one-step path takes. */
#define SLOT_BYTES	(256u << 10)
/* libtern's COLL_RING_CHUNK_BYTES: what a ring moves a step. */
#define RING_CHUNK_BYTES	(512u << 10)

/* A simulated machine and the ranks (its first devices) a comm spans. */
struct config {
	const char *name;
	const char *topology;
	int devices, ranks;
	bool fabric_check;
	bool faults;		/* runs the fault tests instead of the matrix */
	const char *env;	/* NAME=VALUE for the child, or NULL */
};

static const struct config configs[] = {
	{ "ring-1", "none", 1, 1, false, false, NULL },
	{ "ring-2", "ring", 2, 2, false, false, NULL },
	{ "ring-3", "ring", 3, 3, false, false, NULL },
	{ "ring-4", "ring", 4, 4, true, false, NULL },
	{ "ring-7", "ring", 7, 7, false, false, NULL },
	{ "ring-8", "ring", 8, 8, false, false, NULL },
	{ "ring-16", "ring", 16, 16, false, false, NULL },
	{ "torus-1", "torus:4x4", 16, 1, false, false, NULL },
	{ "torus-2", "torus:4x4", 16, 2, false, false, NULL },
	{ "torus-3", "torus:4x4", 16, 3, false, false, NULL },
	{ "torus-4", "torus:2x2", 4, 4, false, false, NULL },
	{ "torus-7", "torus:4x4", 16, 7, false, false, NULL },
	{ "torus-8", "torus:2x4", 8, 8, false, false, NULL },
	{ "torus-16", "torus:4x4", 16, 16, true, false, NULL },
	{ "full-1", "none", 1, 1, false, false, NULL },
	{ "full-2", "full", 2, 2, false, false, NULL },
	{ "full-3", "full", 3, 3, false, false, NULL },
	{ "full-4", "full", 4, 4, false, false, NULL },
	{ "full-7", "full", 7, 7, false, false, NULL },
	{ "full-8", "full", 8, 8, false, false, NULL },
	{ "full-16", "full", 16, 16, false, false, NULL },
	{ "faults-4", "ring", 4, 4, false, true, NULL },
	/* what the tuner would not pick, forced: exact all the same */
	{ "torus-16-rings", "torus:4x4", 16, 16, false, false,
	  "TERN_ALGO=ring" },
	{ "torus-9-torus", "torus:3x3", 9, 9, false, false, "TERN_ALGO=torus" },
	/* three dimensions: four 4x4 tori, twins joined in rings across */
	{ "ultra-64", "trn2-ultra", 64, 64, false, false, NULL },
	{ "ring-7-rings", "ring", 7, 7, false, false, "TERN_ALGO=ring" },
	{ "ring-5-chains", "ring", 5, 5, false, false, "TERN_ALGO=chain" },
};

/*
 * Element counts: none, one, odd (these take the one-step path), and odd
 * past a slot of any dtype, split over the rings (the ring path, or an
 * all-reduce by rows and columns on the 4x4 torus; the ring's blocks in
 * flight together are the fabric check's, and the forced algorithms run
 * at every size). The large size runs every dtype and every op, but not every pair
 * of them, in place and out of place in turn: the ring steps are what
 * takes the simulator's time.
 */
static const size_t sizes[] = { 0, 1, 37, 0 };
#define LARGE		3	/* index of the size given by large_count() */

static size_t large_count(tern_dtype_t t)
{
	size_t bytes = 0;

	tern_dtype_size(t, &bytes);
	return (SLOT_BYTES / bytes) + 7;
}

static bool large_case(int t, int op, int in_place)
{
	return (t + op) % 4 == 0 && (t + op) / 4 % 2 == in_place;
}

static const struct config *cfg;

static struct {
	int n;
	tern_device_t dev[MAX_RANKS];
	tern_stream_t stream[MAX_RANKS];
	tern_stream_t stream2[MAX_RANKS];	/* receives of send/recv */
	tern_comm_t comm[MAX_RANKS];
} g;

static size_t dtype_bytes(tern_dtype_t t)
{
	size_t bytes = el_bytes(t);

	assert_true(bytes > 0);
	return bytes;
}

/* Bytes of copy-only collectives: differ with rank, element and byte. */
static uint8_t pattern(int r, size_t byte)
{
	return (uint8_t)((size_t)r * 131 + byte * 7 + byte / 251);
}

/* ---- buffers ---- */

struct bufs {
	tern_buffer_t send[MAX_RANKS], recv[MAX_RANKS];
	uint8_t *send_cpu[MAX_RANKS], *recv_cpu[MAX_RANKS];
};

static void bufs_alloc(struct bufs *b, size_t send_bytes, size_t recv_bytes,
		       bool in_place)
{
	for (int r = 0; r < g.n; r++) {
		void *ptr;

		assert_ok(tern_buffer_alloc(g.dev[r], TERN_MEMORY_DEVICE,
					    recv_bytes + 8, &b->recv[r]));
		assert_ok(tern_buffer_map(b->recv[r], &ptr));
		b->recv_cpu[r] = ptr;
		memset(ptr, 0xee, recv_bytes + 8);
		if (in_place) {
			b->send[r] = b->recv[r];
			b->send_cpu[r] = b->recv_cpu[r];
			continue;
		}
		assert_ok(tern_buffer_alloc(g.dev[r], TERN_MEMORY_DEVICE,
					    send_bytes + 8, &b->send[r]));
		assert_ok(tern_buffer_map(b->send[r], &ptr));
		b->send_cpu[r] = ptr;
	}
}

static void bufs_free(struct bufs *b, bool in_place)
{
	for (int r = 0; r < g.n; r++) {
		assert_ok(tern_buffer_free(b->recv[r]));
		if (!in_place)
			assert_ok(tern_buffer_free(b->send[r]));
	}
}

static void sync_all(void)
{
	for (int r = 0; r < g.n; r++) {
		assert_ok(tern_stream_synchronize(g.stream[r]));
		assert_ok(tern_stream_synchronize(g.stream2[r]));
	}
}

/* Element @i of @got against the reduction of every rank's inputs. */
static void expect_reduced(tern_dtype_t t, tern_redop_t op, size_t src,
			   const uint8_t *got, size_t i, const char *what,
			   int r)
{
	const size_t es = dtype_bytes(t);
	uint8_t want[8];

	el_want(t, op, g.n, src, want);
	if (memcmp(want, got + i * es, es) != 0)
		fail_msg("%s: dtype %d op %d rank %d of %d element %zu: want %lld%s",
			 what, t, op, r, g.n, i,
			 (long long)el_reduced(t, op, g.n, src),
			 op == TERN_AVG ? " divided by the ranks" : "");
}

static void expect_bytes(const uint8_t *want, const uint8_t *got,
			 size_t bytes, const char *what, int r)
{
	for (size_t i = 0; i < bytes; i++)
		if (want[i] != got[i])
			fail_msg("%s: rank %d of %d byte %zu of %zu is 0x%02x, want 0x%02x",
				 what, r, g.n, i, bytes, got[i], want[i]);
}

/* ---- reductions ---- */

enum reduction { ALL_REDUCE, REDUCE_SCATTER, REDUCE };

static void run_reduction(enum reduction kind, tern_dtype_t t, tern_redop_t op,
			  size_t count, bool in_place)
{
	const size_t es = dtype_bytes(t);
	const int n = g.n, root = (int)(count % (size_t)n);
	size_t send_elems = kind == REDUCE_SCATTER ? count * (size_t)n : count;
	struct bufs b;

	bufs_alloc(&b, send_elems * es, send_elems * es, in_place);
	for (int r = 0; r < n; r++)
		for (size_t i = 0; i < send_elems; i++)
			el_encode(t, el_input(t, op, r, i), b.send_cpu[r], i);
	for (int r = 0; r < n; r++) {
		tern_ptr_t send = tern_ptr(b.send[r], 0);
		tern_ptr_t recv = tern_ptr(b.recv[r], 0);

		if (kind == ALL_REDUCE) {
			assert_ok(tern_all_reduce(send, recv, count, t, op,
						  g.comm[r], g.stream[r]));
		} else if (kind == REDUCE) {
			assert_ok(tern_reduce(send, recv, count, t, op, root,
					      g.comm[r], g.stream[r]));
		} else {
			if (in_place)
				recv.offset = (size_t)r * count * es;
			assert_ok(tern_reduce_scatter(send, recv, count, t, op,
						      g.comm[r], g.stream[r]));
		}
	}
	sync_all();
	for (int r = 0; r < n; r++) {
		size_t at = kind == REDUCE_SCATTER && in_place ?
			    (size_t)r * count : 0;

		if (kind == REDUCE && r != root)
			continue;
		for (size_t i = 0; i < count; i++) {
			size_t src = kind == REDUCE_SCATTER ?
				     (size_t)r * count + i : i;

			const char *what = kind == ALL_REDUCE ? "all-reduce" :
					   kind == REDUCE ? "reduce" :
					   "reduce-scatter";

			expect_reduced(t, op, src, b.recv_cpu[r] + at * es, i,
				       what, r);
		}
	}
	bufs_free(&b, in_place);
}

static void reduction_matrix(enum reduction kind)
{
	/* every type REDUCE takes: all but the 8-bit floats */
	for (int t = 0; t <= TERN_UINT64; t++)
		for (int op = 0; op < TERN_REDOP_COUNT; op++)
			for (size_t s = 0; s < ARRAY_SIZE(sizes); s++)
				for (int ip = 0; ip < 2; ip++)
					if (s != LARGE)
						run_reduction(kind, (tern_dtype_t)t,
							      (tern_redop_t)op,
							      sizes[s], ip);
					else if (large_case(t, op, ip))
						run_reduction(kind, (tern_dtype_t)t,
							      (tern_redop_t)op,
							      large_count((tern_dtype_t)t),
							      ip);
}

/*
 * Forced by dimensions on a torus, also a size whose pieces take several
 * blocks in the reduce-scatter and gather phases (of the widest chunk,
 * 512 KiB): the sums a phase leaves must be the piece the next one
 * reduces, whatever the blocks. Up to 16 ranks: more would take minutes.
 */
static void torus_blocks(void)
{
	const size_t parts = 6, side = 3, blocks = 2;

	if (!cfg->env || strcmp(cfg->env, "TERN_ALGO=torus") || g.n > 16)
		return;
	run_reduction(ALL_REDUCE, TERN_INT32, TERN_SUM,
		      blocks * parts * side * (512u << 10) / 4 + 5, true);
}

static void test_all_reduce(void **state)
{
	(void)state;
	reduction_matrix(ALL_REDUCE);
	torus_blocks();
}

static void test_reduce_scatter(void **state)
{
	(void)state;
	reduction_matrix(REDUCE_SCATTER);
}

static void test_reduce(void **state)
{
	(void)state;
	reduction_matrix(REDUCE);
}

/* ---- copies ---- */

enum movement { ALL_GATHER, BROADCAST, ALL_TO_ALL, SEND_RECV };

static void run_movement(enum movement kind, tern_dtype_t t, size_t count,
			 bool in_place)
{
	const size_t es = dtype_bytes(t), bytes = count * es;
	const int n = g.n, root = (int)((count + 1) % (size_t)n);
	size_t send_bytes = kind == ALL_TO_ALL ? bytes * (size_t)n : bytes;
	size_t recv_bytes = kind == ALL_GATHER || kind == ALL_TO_ALL ?
			    bytes * (size_t)n : bytes;
	uint8_t *want = malloc(recv_bytes + 1);
	struct bufs b;

	assert_non_null(want);
	bufs_alloc(&b, send_bytes, recv_bytes, in_place);
	for (int r = 0; r < n; r++) {
		size_t at = kind == ALL_GATHER && in_place ? (size_t)r * bytes : 0;

		for (size_t i = 0; i < send_bytes; i++)
			b.send_cpu[r][at + i] = pattern(r, i);
	}
	for (int r = 0; r < n; r++) {
		tern_ptr_t send = tern_ptr(b.send[r], 0);
		tern_ptr_t recv = tern_ptr(b.recv[r], 0);

		switch (kind) {
		case ALL_GATHER:
			if (in_place)
				send.offset = (size_t)r * bytes;
			assert_ok(tern_all_gather(send, recv, count, t,
						  g.comm[r], g.stream[r]));
			break;
		case BROADCAST:
			assert_ok(tern_broadcast(send, recv, count, t, root,
						 g.comm[r], g.stream[r]));
			break;
		case ALL_TO_ALL:
			assert_ok(tern_all_to_all(send, recv, count, t,
						  g.comm[r], g.stream[r]));
			break;
		case SEND_RECV:
			if (n == 1)
				break;
			/* A ring shift, receives on a second stream. */
			assert_ok(tern_send(send, count, t, (r + 1) % n,
					    g.comm[r], g.stream[r]));
			assert_ok(tern_recv(recv, count, t, (r + n - 1) % n,
					    g.comm[r], g.stream2[r]));
			break;
		}
	}
	sync_all();
	for (int r = 0; r < n; r++) {
		const char *what = kind == ALL_GATHER ? "all-gather" :
				   kind == BROADCAST ? "broadcast" :
				   kind == ALL_TO_ALL ? "all-to-all" : "send/recv";

		for (int p = 0; p < n; p++) {
			for (size_t i = 0; i < bytes; i++) {
				if (kind == ALL_GATHER)
					want[p * bytes + i] = pattern(p, i);
				else if (kind == ALL_TO_ALL)
					want[p * bytes + i] =
						pattern(p, (size_t)r * bytes + i);
			}
		}
		for (size_t i = 0; i < bytes; i++) {
			if (kind == BROADCAST)
				want[i] = pattern(root, i);
			else if (kind == SEND_RECV)
				want[i] = n == 1 ? 0xee : pattern((r + n - 1) % n, i);
		}
		expect_bytes(want, b.recv_cpu[r], recv_bytes, what, r);
	}
	bufs_free(&b, in_place);
	free(want);
}

/* Copies do not depend on the type beyond its size: one of each size. */
static bool large_movement(int t, int in_place)
{
	return (t == TERN_UINT8 && !in_place) || (t == TERN_FLOAT16 && in_place) ||
	       (t == TERN_INT64 && !in_place);
}

static void movement_matrix(enum movement kind)
{
	/* the 8-bit floats move as int8 does (test_comm moves them) */
	for (int t = 0; t <= TERN_UINT64; t++)
		for (size_t s = 0; s < ARRAY_SIZE(sizes); s++)
			for (int ip = 0; ip < 2; ip++) {
				if (ip && (kind == ALL_TO_ALL || kind == SEND_RECV))
					continue;
				if (s != LARGE)
					run_movement(kind, (tern_dtype_t)t,
						     sizes[s], ip);
				else if (large_movement(t, ip))
					run_movement(kind, (tern_dtype_t)t,
						     large_count((tern_dtype_t)t),
						     ip);
			}
}

static void test_all_gather(void **state)
{
	(void)state;
	movement_matrix(ALL_GATHER);
}

static void test_broadcast(void **state)
{
	(void)state;
	movement_matrix(BROADCAST);
}

static void test_all_to_all(void **state)
{
	(void)state;
	movement_matrix(ALL_TO_ALL);
}

static void test_send_recv(void **state)
{
	(void)state;
	movement_matrix(SEND_RECV);
}

/* ---- fabric counters ---- */

#define MAX_PORTS 16

static void read_tx(uint64_t tx[MAX_RANKS][MAX_PORTS], uint32_t *ports)
{
	for (int r = 0; r < g.n; r++) {
		tern_port_info_t info[MAX_PORTS];
		uint32_t count = 0;

		assert_ok(tern_device_get_ports(g.dev[r], info, MAX_PORTS, &count));
		assert_true(count <= MAX_PORTS);
		ports[r] = count;
		for (uint32_t p = 0; p < count; p++)
			tx[r][p] = info[p].tx_bytes;
	}
}

/*
 * An all-reduce of S bytes runs on c rings (2 on a ring: both ways; 4 on a
 * KxK torus: two edge-disjoint Hamiltonian cycles, both ways), so each
 * directed link carries one ring: 2(n-1)/n * S/c bytes of data, the lower
 * bound, plus 8 bytes per chunk for the "ready" semaphore of that ring and
 * 8 per chunk for the credits of the ring running the other way. On the
 * 4x4 torus the tuner runs it by rows and columns, which puts the same
 * bytes and chunks on every directed link.
 */
static void test_fabric_counters(void **state)
{
	uint64_t before[MAX_RANKS][MAX_PORTS], after[MAX_RANKS][MAX_PORTS];
	uint32_t ports[MAX_RANKS];
	const int n = g.n, rings = n == 16 ? 4 : 2;
	const size_t chunk_elems = RING_CHUNK_BYTES / 4;
	/* Per ring: blocks of n chunks, one segment (= chunk) per rank. */
	const size_t blocks = 2, count = (size_t)rings * blocks * n * chunk_elems;
	const uint64_t bytes = count * 4;
	const uint64_t transfers = blocks * 2 * (uint64_t)(n - 1);
	const uint64_t want = 2 * (uint64_t)(n - 1) * bytes / (uint64_t)n /
			      (uint64_t)rings + transfers * 16;
	struct bufs b;

	(void)state;
	bufs_alloc(&b, bytes, bytes, false);
	read_tx(before, ports);
	for (int r = 0; r < n; r++)
		assert_ok(tern_all_reduce(tern_ptr(b.send[r], 0),
					  tern_ptr(b.recv[r], 0), count,
					  TERN_FLOAT32, TERN_SUM, g.comm[r],
					  g.stream[r]));
	sync_all();
	read_tx(after, ports);
	for (int r = 0; r < n; r++) {
		for (uint32_t p = 0; p < ports[r]; p++) {
			uint64_t moved = after[r][p] - before[r][p];

			if (moved != want)
				fail_msg("device %d port %u sent %llu bytes, want %llu",
					 r, p, (unsigned long long)moved,
					 (unsigned long long)want);
		}
	}
	bufs_free(&b, false);
}

/* ---- faults: every surviving rank gets an error, none hangs ---- */

/* The errors a collective may end with when a rank fails or is missing. */
static bool comm_failure(tern_status_t s)
{
	return s == TERN_ERROR_NO_ROUTE || s == TERN_ERROR_TIMEOUT ||
	       s == TERN_ERROR_PEER_FAILED || s == TERN_ERROR_CANCELLED;
}

static void check_failure(tern_status_t s, int r, const char *what)
{
	if (!comm_failure(s))
		fail_msg("rank %d: %s gave %s, want a failure", r, what,
			 tern_status_name(s));
}

/*
 * Runs an all-reduce of @count floats on a fresh communicator, enqueueing
 * rank 1 last, after @before_rank1 (may be NULL) ran. A rank that learnt
 * of the failure before its turn refuses the call with the comm's error;
 * every rank's stream, the comm's async error and its destroy report a
 * failure, at least one of them TERN_ERROR_NO_ROUTE if @no_route.
 */
static void failing_all_reduce(size_t count, void (*before_rank1)(void),
			       bool skip_rank1, bool no_route)
{
	tern_comm_t comm[MAX_RANKS];
	int routes = 0;
	struct bufs b;

	assert_ok(tern_comm_init_all(comm, g.n, g.dev));
	bufs_alloc(&b, count * 4, count * 4, false);
	for (int r = 0; r < g.n; r++) {
		tern_status_t s;

		if (r == 1)
			continue;
		s = tern_all_reduce(tern_ptr(b.send[r], 0),
				    tern_ptr(b.recv[r], 0), count,
				    TERN_FLOAT32, TERN_SUM, comm[r], g.stream[r]);
		if (s)
			check_failure(s, r, "all-reduce");
	}
	if (before_rank1)
		before_rank1();
	if (!skip_rank1) {
		tern_status_t s = tern_all_reduce(tern_ptr(b.send[1], 0),
						  tern_ptr(b.recv[1], 0), count,
						  TERN_FLOAT32, TERN_SUM,
						  comm[1], g.stream[1]);
		if (s)
			check_failure(s, 1, "all-reduce");
	}
	for (int r = 0; r < g.n; r++) {
		tern_status_t status = tern_stream_synchronize(g.stream[r]);

		/* Its stream ran nothing new (it may still show the last error). */
		if (skip_rank1 && r == 1)
			continue;
		if (status != TERN_SUCCESS)
			check_failure(status, r, "synchronize");
		routes += status == TERN_ERROR_NO_ROUTE;
	}
	if (no_route)
		assert_true(routes > 0);
	for (int r = 0; r < g.n; r++) {
		tern_status_t async = TERN_SUCCESS;

		assert_ok(tern_comm_get_async_error(comm[r], &async));
		check_failure(async, r, "tern_comm_get_async_error");
		check_failure(tern_comm_destroy(comm[r]), r, "destroy");
	}
	bufs_free(&b, false);
}

/* Cuts device 1 off: both its ring links down. */
static void isolate_rank1(void)
{
	assert_ok(tern_sim_set_link(1, 0, 0));
	assert_ok(tern_sim_set_link(1, 1, 0));
}

static void reconnect_rank1(void)
{
	assert_ok(tern_sim_set_link(1, 0, 1));
	assert_ok(tern_sim_set_link(1, 1, 1));
}

static void test_link_down_before(void **state)
{
	(void)state;
	isolate_rank1();
	failing_all_reduce(5, NULL, false, true);	/* one step */
	failing_all_reduce(300007, NULL, false, true);	/* the ring */
	reconnect_rank1();
}

/* The other ranks are already waiting for rank 1 when its links go. */
static void test_link_down_during(void **state)
{
	(void)state;
	failing_all_reduce(300007, isolate_rank1, false, true);
	reconnect_rank1();
}

static void test_rank_missing(void **state)
{
	(void)state;
	failing_all_reduce(300007, NULL, true, false);
}

/* After the failures, a fresh communicator works again. */
static void test_recovery(void **state)
{
	tern_comm_t saved[MAX_RANKS];

	(void)state;
	memcpy(saved, g.comm, sizeof(saved));
	assert_ok(tern_comm_init_all(g.comm, g.n, g.dev));
	run_reduction(ALL_REDUCE, TERN_INT32, TERN_SUM, 300007, false);
	for (int r = 0; r < g.n; r++)
		assert_ok(tern_comm_destroy(g.comm[r]));
	memcpy(g.comm, saved, sizeof(saved));
}

/* ---- the child: one machine ---- */

static int child_setup(void **state)
{
	(void)state;
	g.n = cfg->ranks;
	for (int r = 0; r < g.n; r++) {
		if (tern_device_open(r, &g.dev[r]) ||
		    tern_stream_create(g.dev[r], &g.stream[r]) ||
		    tern_stream_create(g.dev[r], &g.stream2[r]))
			return -1;
	}
	return tern_comm_init_all(g.comm, g.n, g.dev) ? -1 : 0;
}

static int child_teardown(void **state)
{
	(void)state;
	for (int r = 0; r < g.n; r++)
		if (g.comm[r] && tern_comm_destroy(g.comm[r]))
			return -1;
	for (int r = 0; r < g.n; r++)
		if (g.dev[r] && tern_device_close(g.dev[r]))
			return -1;
	return 0;
}

static int run_child(const char *name)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_reduce),
		cmocka_unit_test(test_reduce_scatter),
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_all_gather),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_all_to_all),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_fabric_counters),
	};
	const struct CMUnitTest fault_tests[] = {
		cmocka_unit_test(test_link_down_before),
		cmocka_unit_test(test_link_down_during),
		cmocka_unit_test(test_rank_missing),
		cmocka_unit_test(test_recovery),
	};
	char group[64];

	for (size_t i = 0; i < ARRAY_SIZE(configs); i++)
		if (strcmp(configs[i].name, name) == 0)
			cfg = &configs[i];
	if (!cfg)
		return 2;
	snprintf(group, sizeof(group), "collectives/%s", name);
	if (cfg->faults)
		return cmocka_run_group_tests_name(group, fault_tests,
						   child_setup, child_teardown);
	/* past 16 ranks, only all-reduce: the rest would take minutes */
	if (cfg->ranks > 16)
		return _cmocka_run_group_tests(group, tests, 1, child_setup,
					       child_teardown);
	return _cmocka_run_group_tests(group, tests,
				       ARRAY_SIZE(tests) - !cfg->fabric_check,
				       child_setup, child_teardown);
}

/* Runs this program for one configuration; returns its failure count. */
static int run_config(const struct config *c)
{
	/*
	 * Faults end at the job timeout: keep it short. Elsewhere it only
	 * catches a hang, so it is long: the fabric check's 64 MiB a rank on
	 * 16 devices takes seconds a job under the sanitizers.
	 */
	const char *const env[] = { c->env, NULL };
	/*
	 * the fabric check's two blocks of every ring need room, and 64
	 * ranks' slots take 68 MiB
	 */
	const struct sim_machine m = {
		c->devices, c->topology,
		c->fabric_check ? "160" : c->ranks > 16 ? "128" : "64",
		c->faults ? "300" : "30000", c->env ? env : NULL
	};

	return sim_child_run("collectives", c->name, &m);
}

/*
 * `test_collectives short`, for the sanitizer build: a configuration of
 * each kind (ring, torus, full mesh, rings, chains and tori forced,
 * faults, the fabric check) and not its sizes again, which run the same
 * code at several times the native time.
 */
static const char *const short_configs[] = {
	"ring-1", "ring-3", "ring-4", "torus-2", "torus-7", "torus-16",
	"full-4", "faults-4", "torus-9-torus", "ring-7-rings",
	"ring-5-chains",
};

static bool in_short(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(short_configs); i++)
		if (strcmp(short_configs[i], name) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const bool only_short = argc == 2 && strcmp(argv[1], "short") == 0;
	int failed = 0;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return run_child(argv[2]);
	if (argc > 1 && !only_short) {
		fprintf(stderr, "usage: %s [short]\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++)
		if (!only_short || in_short(configs[i].name))
			failed += run_config(&configs[i]) != 0;
	return failed ? 1 : 0;
}
