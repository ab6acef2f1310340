// SPDX-License-Identifier: MIT
/*
 * Communicators as a framework uses them, on the simulator: one comm on
 * several streams per rank (order), errors that stay and reach every
 * thread and every rank (sticky errors, tern_comm_get_async_error), abort
 * from a watchdog thread, failure detection well inside the job timeout,
 * groups (a large exchange both ways on one stream, all-to-allv), the
 * fabric's lower bound for each collective, and bad arguments to each new
 * call.
 *
 * Each group of tests runs in a child of its own (--child NAME) on the
 * simulated machine it needs. The error tests run with a 60 s job
 * timeout, so that a failure reported within COMM_PROMPT_S shows that
 * detection, not the timeout, ended the work.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "status.h"
#include "sim_child.h"
#include "tern.h"
#include "tern_sim.h"

#define MAX_RANKS	16
#define MAX_STREAMS	3
/* Far below the 60 s job timeout, far above any scheduling noise. */
#define COMM_PROMPT_S	20.0


static struct {
	int ndev;
	tern_device_t dev[MAX_RANKS];
	tern_stream_t stream[MAX_RANKS][MAX_STREAMS];
} g;

/* ---- int32 buffers, one per rank ---- */

struct rbuf {
	tern_buffer_t buf[MAX_RANKS];
	int32_t *cpu[MAX_RANKS];
};

static void rbuf_alloc(struct rbuf *b, int n, size_t elems)
{
	for (int r = 0; r < n; r++) {
		void *ptr;

		assert_ok(tern_buffer_alloc(g.dev[r], TERN_MEMORY_DEVICE,
					    elems * 4 + 4, &b->buf[r]));
		assert_ok(tern_buffer_map(b->buf[r], &ptr));
		b->cpu[r] = ptr;
		memset(ptr, 0xee, elems * 4 + 4);
	}
}

static void rbuf_free(struct rbuf *b, int n)
{
	for (int r = 0; r < n; r++)
		assert_ok(tern_buffer_free(b->buf[r]));
}

static int32_t value(int op, int r, size_t i)
{
	return (int32_t)((size_t)op * 1000 + (size_t)r * 37 + i % 101);
}

/* ---- (1) order across streams ---- */

/* What op @k of a sequence is: its kind rotates, its size too. */
enum seq_kind { SEQ_ALL_REDUCE, SEQ_ALL_GATHER, SEQ_BROADCAST,
		SEQ_REDUCE_SCATTER, SEQ_KINDS };
static const size_t seq_counts[] = { 1, 37, 70001 };

struct seq {
	int n, nstreams, nops;
	tern_comm_t comm[MAX_RANKS];
	struct rbuf send[12], recv[12];
};

static enum seq_kind seq_kind(int k)
{
	return (enum seq_kind)(k % SEQ_KINDS);
}

static size_t seq_count(int k)
{
	return seq_counts[(k / SEQ_KINDS + k) % ARRAY_SIZE(seq_counts)];
}

/* Elements of the send and recv buffers of op @k. */
static size_t seq_elems(const struct seq *s, int k, bool recv)
{
	size_t c = seq_count(k);

	switch (seq_kind(k)) {
	case SEQ_ALL_GATHER:
		return recv ? c * (size_t)s->n : c;
	case SEQ_REDUCE_SCATTER:
		return recv ? c : c * (size_t)s->n;
	default:
		return c;
	}
}

/* Rank @r's op @k, on its stream k % nstreams. */
static void seq_enqueue(struct seq *s, int k, int r)
{
	tern_ptr_t send = tern_ptr(s->send[k].buf[r], 0);
	tern_ptr_t recv = tern_ptr(s->recv[k].buf[r], 0);
	tern_stream_t stream = g.stream[r][k % s->nstreams];
	size_t c = seq_count(k);

	switch (seq_kind(k)) {
	case SEQ_ALL_REDUCE:
		assert_ok(tern_all_reduce(send, recv, c, TERN_INT32, TERN_SUM,
					  s->comm[r], stream));
		break;
	case SEQ_ALL_GATHER:
		assert_ok(tern_all_gather(send, recv, c, TERN_INT32,
					  s->comm[r], stream));
		break;
	case SEQ_BROADCAST:
		assert_ok(tern_broadcast(send, recv, c, TERN_INT32,
					 k % s->n, s->comm[r], stream));
		break;
	default:
		assert_ok(tern_reduce_scatter(send, recv, c, TERN_INT32,
					      TERN_SUM, s->comm[r], stream));
		break;
	}
}

static int32_t seq_want(const struct seq *s, int k, int r, size_t i)
{
	size_t c = seq_count(k);
	int32_t sum = 0;

	switch (seq_kind(k)) {
	case SEQ_ALL_REDUCE:
		for (int p = 0; p < s->n; p++)
			sum += value(k, p, i);
		return sum;
	case SEQ_ALL_GATHER:
		return value(k, (int)(i / c), i % c);
	case SEQ_BROADCAST:
		return value(k, k % s->n, i);
	default:
		for (int p = 0; p < s->n; p++)
			sum += value(k, p, (size_t)r * c + i);
		return sum;
	}
}

struct seq_thread {
	struct seq *s;
	int rank;
	pthread_t thread;
};

static void *seq_rank_main(void *arg)
{
	struct seq_thread *t = arg;

	for (int k = 0; k < t->s->nops; k++)
		seq_enqueue(t->s, k, t->rank);
	return NULL;
}

static void run_sequence(int n, int nstreams, int nops, bool threads)
{
	struct seq s = { .n = n, .nstreams = nstreams, .nops = nops };
	struct seq_thread th[MAX_RANKS];

	assert_true(nops <= (int)ARRAY_SIZE(s.send));
	assert_ok(tern_comm_init_all(s.comm, n, g.dev));
	for (int k = 0; k < nops; k++) {
		rbuf_alloc(&s.send[k], n, seq_elems(&s, k, false));
		rbuf_alloc(&s.recv[k], n, seq_elems(&s, k, true));
		for (int r = 0; r < n; r++)
			for (size_t i = 0; i < seq_elems(&s, k, false); i++)
				s.send[k].cpu[r][i] = value(k, r, i);
	}
	if (threads) {
		for (int r = 0; r < n; r++) {
			th[r] = (struct seq_thread){ &s, r, 0 };
			assert_int_equal(pthread_create(&th[r].thread, NULL,
							seq_rank_main, &th[r]), 0);
		}
		for (int r = 0; r < n; r++)
			pthread_join(th[r].thread, NULL);
	} else {
		for (int k = 0; k < nops; k++)
			for (int r = 0; r < n; r++)
				seq_enqueue(&s, k, r);
	}
	for (int r = 0; r < n; r++)
		for (int i = 0; i < nstreams; i++)
			assert_ok(tern_stream_synchronize(g.stream[r][i]));
	for (int k = 0; k < nops; k++)
		for (int r = 0; r < n; r++)
			for (size_t i = 0; i < seq_elems(&s, k, true); i++)
				if (s.recv[k].cpu[r][i] != seq_want(&s, k, r, i))
					fail_msg("%d ranks, %d streams, op %d (kind %d, %zu elements) rank %d element %zu: %d, want %d",
						 n, nstreams, k, seq_kind(k),
						 seq_count(k), r, i,
						 s.recv[k].cpu[r][i],
						 seq_want(&s, k, r, i));
	for (int k = 0; k < nops; k++) {
		rbuf_free(&s.send[k], n);
		rbuf_free(&s.recv[k], n);
	}
	for (int r = 0; r < n; r++)
		assert_ok(tern_comm_destroy(s.comm[r]));
}

/* The pattern frameworks use: one comm, the streams taken in turn. */
static void test_order_two_streams(void **state)
{
	(void)state;
	run_sequence(2, 2, 2, false);
	run_sequence(4, 2, 12, false);
	run_sequence(4, 2, 12, true);
}

static void test_order_three_streams(void **state)
{
	(void)state;
	run_sequence(3, 3, 12, false);
	run_sequence(4, 3, 12, true);
}

/* ---- (2) sticky errors ---- */

static bool is_failure(tern_status_t s)
{
	return s == TERN_ERROR_NO_ROUTE || s == TERN_ERROR_TIMEOUT ||
	       s == TERN_ERROR_PEER_FAILED || s == TERN_ERROR_CANCELLED;
}

static void expect_failure(tern_status_t s, const char *what, int r)
{
	if (!is_failure(s))
		fail_msg("rank %d: %s gave %s, want a failure", r, what,
			 tern_status_name(s));
}

static void set_links(int dev, int up)
{
	tern_port_info_t ports[8];
	uint32_t count = 0;
	tern_device_t d = g.dev[dev];

	assert_ok(tern_device_get_ports(d, ports, 8, &count));
	for (uint32_t p = 0; p < count && p < 8; p++)
		if (ports[p].state != TERN_LINK_UNCONNECTED)
			assert_ok(tern_sim_set_link(dev, p, up));
}

struct probe {
	tern_stream_t stream;
	tern_event_t event;
	tern_comm_t comm;
	tern_status_t sync, query, event_sync, event_query, async;
	pthread_t thread;
};

/* What one thread sees of a failed rank. */
static void *probe_main(void *arg)
{
	struct probe *p = arg;

	p->sync = tern_stream_synchronize(p->stream);
	p->query = tern_stream_query(p->stream);
	p->event_sync = tern_event_synchronize(p->event);
	p->event_query = tern_event_query(p->event);
	if (tern_comm_get_async_error(p->comm, &p->async))
		p->async = TERN_ERROR_BACKEND;
	return NULL;
}

/*
 * Every rank's all-reduce fails (rank 1 cut off first): two threads per
 * rank then each see the failure in every way there is to ask, and the
 * failed comm refuses more work; a new comm works.
 */
static void test_sticky_errors(void **state)
{
	const int n = 4;
	const size_t count = 300007;
	tern_comm_t comm[MAX_RANKS];
	tern_event_t event[MAX_RANKS];
	struct probe probe[MAX_RANKS][2];
	struct rbuf send, recv;
	double start;

	(void)state;
	assert_ok(tern_comm_init_all(comm, n, g.dev));
	rbuf_alloc(&send, n, count);
	rbuf_alloc(&recv, n, count);
	start = now_s();
	/* Rank 1 last, cut off: the others are waiting for it by then. */
	for (int k = 0; k < n; k++) {
		int r = (k + 2) % n;
		tern_status_t s;

		if (r == 1)
			set_links(1, 0);
		s = tern_all_reduce(tern_ptr(send.buf[r], 0),
				    tern_ptr(recv.buf[r], 0), count, TERN_INT32,
				    TERN_SUM, comm[r], g.stream[r][0]);

		assert_ok(s);
		assert_ok(tern_event_create(g.dev[r], &event[r]));
		assert_ok(tern_event_record(event[r], g.stream[r][0]));
	}
	for (int r = 0; r < n; r++) {
		for (int t = 0; t < 2; t++) {
			probe[r][t] = (struct probe){
				.stream = g.stream[r][0], .event = event[r],
				.comm = comm[r],
			};
			assert_int_equal(pthread_create(&probe[r][t].thread,
							NULL, probe_main,
							&probe[r][t]), 0);
		}
	}
	for (int r = 0; r < n; r++) {
		for (int t = 0; t < 2; t++) {
			const struct probe *p = &probe[r][t];

			pthread_join(probe[r][t].thread, NULL);
			expect_failure(p->sync, "synchronize", r);
			expect_failure(p->query, "stream query", r);
			expect_failure(p->event_sync, "event synchronize", r);
			expect_failure(p->event_query, "event query", r);
			expect_failure(p->async, "async error", r);
		}
	}
	if (now_s() - start > COMM_PROMPT_S)
		fail_msg("the failure took %.1f s to reach every rank",
			 now_s() - start);
	/* Asked again, it is still there. */
	for (int r = 0; r < n; r++) {
		tern_status_t async = TERN_SUCCESS;

		expect_failure(tern_stream_synchronize(g.stream[r][0]),
			       "second synchronize", r);
		expect_failure(tern_event_query(event[r]), "second query", r);
		assert_ok(tern_comm_get_async_error(comm[r], &async));
		expect_failure(async, "second async error", r);
		/* A failed comm enqueues nothing and says why. */
		assert_status(tern_all_reduce(tern_ptr(send.buf[r], 0),
					      tern_ptr(recv.buf[r], 0), 1,
					      TERN_INT32, TERN_SUM, comm[r],
					      g.stream[r][1]), async);
		assert_ok(tern_stream_query(g.stream[r][1]));
		assert_status(tern_comm_destroy(comm[r]), async);
		assert_ok(tern_event_destroy(event[r]));
	}
	set_links(1, 1);

	/* The same devices, a new comm: exact again. */
	assert_ok(tern_comm_init_all(comm, n, g.dev));
	for (int r = 0; r < n; r++)
		for (size_t i = 0; i < count; i++)
			send.cpu[r][i] = value(3, r, i);
	for (int r = 0; r < n; r++)
		assert_ok(tern_all_reduce(tern_ptr(send.buf[r], 0),
					  tern_ptr(recv.buf[r], 0), count,
					  TERN_INT32, TERN_SUM, comm[r],
					  g.stream[r][1]));
	for (int r = 0; r < n; r++)
		assert_ok(tern_stream_synchronize(g.stream[r][1]));
	/* Work after a reported error starts the stream afresh. */
	for (int r = 0; r < n; r++)
		assert_ok(tern_memset_async(send.buf[r], 0, 0, 4,
					    g.stream[r][0]));
	for (int r = 0; r < n; r++) {
		assert_ok(tern_stream_synchronize(g.stream[r][0]));
		for (size_t i = 0; i < count; i += 997) {
			int32_t want = 0;

			for (int p = 0; p < n; p++)
				want += value(3, p, i);
			assert_int_equal(recv.cpu[r][i], want);
		}
		assert_ok(tern_comm_destroy(comm[r]));
	}
	rbuf_free(&send, n);
	rbuf_free(&recv, n);
}

/* ---- (3) abort, (4) failure detection ---- */

struct aborter {
	tern_comm_t comm;
	unsigned int delay_ms;
	tern_status_t status;
	pthread_t thread;
};

static void *aborter_main(void *arg)
{
	struct aborter *a = arg;

	usleep(a->delay_ms * 1000);
	a->status = tern_comm_abort(a->comm);
	return NULL;
}

static void memory_used(uint64_t *used, int n)
{
	for (int r = 0; r < n; r++) {
		uint64_t total;

		assert_ok(tern_device_memory_usage(g.dev[r], &used[r], &total));
	}
}

/* Device memory returns to @base (an aborted comm may take a moment). */
static void memory_back_to(const uint64_t *base, int n)
{
	uint64_t used[MAX_RANKS];
	double until = now_s() + COMM_PROMPT_S;

	do {
		memory_used(used, n);
		if (memcmp(used, base, sizeof(used[0]) * (size_t)n) == 0)
			return;
		usleep(10000);
	} while (now_s() < until);
	for (int r = 0; r < n; r++)
		if (used[r] != base[r])
			fail_msg("device %d: %llu bytes in use, %llu before", r,
				 (unsigned long long)used[r],
				 (unsigned long long)base[r]);
}

/*
 * Rank 1 never joins: rank 0's all-reduce waits for it, the main thread
 * blocked in synchronize, until a watchdog thread aborts rank 0's comm.
 */
static void test_abort_from_watchdog(void **state)
{
	uint64_t base[MAX_RANKS];
	struct aborter a = { .delay_ms = 300 };
	tern_comm_t comm[2];
	struct rbuf buf;
	tern_status_t s, async = TERN_SUCCESS;
	double start;

	(void)state;
	memory_used(base, 2);
	rbuf_alloc(&buf, 2, 100000);
	assert_ok(tern_comm_init_all(comm, 2, g.dev));
	assert_ok(tern_all_reduce(tern_ptr(buf.buf[0], 0),
				  tern_ptr(buf.buf[0], 0), 100000, TERN_INT32,
				  TERN_SUM, comm[0], g.stream[0][0]));
	a.comm = comm[0];
	start = now_s();
	assert_int_equal(pthread_create(&a.thread, NULL, aborter_main, &a), 0);
	s = tern_stream_synchronize(g.stream[0][0]);
	pthread_join(a.thread, NULL);
	assert_ok(a.status);
	if (now_s() - start > COMM_PROMPT_S)
		fail_msg("synchronize returned after %.1f s", now_s() - start);
	assert_status(s, TERN_ERROR_CANCELLED);
	assert_status(tern_comm_abort(comm[0]), TERN_ERROR_INVALID_ARGUMENT);
	/* The peer learnt of it. */
	assert_ok(tern_comm_get_async_error(comm[1], &async));
	assert_status(async, TERN_ERROR_PEER_FAILED);
	assert_status(tern_all_reduce(tern_ptr(buf.buf[1], 0),
				      tern_ptr(buf.buf[1], 0), 10, TERN_INT32,
				      TERN_SUM, comm[1], g.stream[1][0]),
		      TERN_ERROR_PEER_FAILED);
	assert_status(tern_comm_destroy(comm[1]), TERN_ERROR_PEER_FAILED);
	rbuf_free(&buf, 2);
	memory_back_to(base, 2);
}

/* Every rank's synchronize ends in one of @ok, within COMM_PROMPT_S. */
static void expect_prompt_failure(int n, const bool *skip, double start)
{
	for (int r = 0; r < n; r++) {
		tern_status_t s;

		if (skip && skip[r])
			continue;
		s = tern_stream_synchronize(g.stream[r][0]);
		if (s != TERN_ERROR_PEER_FAILED && s != TERN_ERROR_NO_ROUTE &&
		    s != TERN_ERROR_CANCELLED)
			fail_msg("rank %d: %s, want PEER_FAILED or NO_ROUTE", r,
				 tern_status_name(s));
	}
	if (now_s() - start > COMM_PROMPT_S)
		fail_msg("the failure took %.1f s", now_s() - start);
}

#define LOST_COUNT	300007

/*
 * Enqueues an all-reduce on every rank of a new comm but @late, so that
 * they wait for it; @base receives the memory in use before.
 */
static void start_without(int n, int late, tern_comm_t *comm,
			  struct rbuf *buf, uint64_t *base)
{
	rbuf_alloc(buf, n, LOST_COUNT);
	memory_used(base, n);
	assert_ok(tern_comm_init_all(comm, n, g.dev));
	for (int r = 0; r < n; r++)
		if (r != late)
			assert_ok(tern_all_reduce(tern_ptr(buf->buf[r], 0),
						  tern_ptr(buf->buf[r], 0),
						  LOST_COUNT, TERN_INT32,
						  TERN_SUM, comm[r],
						  g.stream[r][0]));
	usleep(100000);
}

/* A rank's links go down while the others wait for it. */
static void test_link_down_detected(void **state)
{
	const int n = 4;
	uint64_t base[MAX_RANKS];
	tern_comm_t comm[MAX_RANKS];
	struct rbuf buf;
	double start;

	(void)state;
	start_without(n, 1, comm, &buf, base);
	set_links(1, 0);
	start = now_s();
	assert_ok(tern_all_reduce(tern_ptr(buf.buf[1], 0),
				  tern_ptr(buf.buf[1], 0), LOST_COUNT,
				  TERN_INT32, TERN_SUM, comm[1], g.stream[1][0]));
	expect_prompt_failure(n, NULL, start);
	for (int r = 0; r < n; r++)
		expect_failure(tern_comm_destroy(comm[r]), "destroy", r);
	set_links(1, 1);
	memory_back_to(base, n);
	rbuf_free(&buf, n);
}

/* A rank aborts mid-collective: the others fail promptly. */
static void test_peer_abort_detected(void **state)
{
	const int n = 4;
	uint64_t base[MAX_RANKS];
	tern_comm_t comm[MAX_RANKS];
	bool skip[MAX_RANKS] = { false };
	struct rbuf buf;
	double start;

	(void)state;
	start_without(n, 2, comm, &buf, base);
	start = now_s();
	assert_ok(tern_comm_abort(comm[2]));
	skip[2] = true;
	expect_prompt_failure(n, skip, start);
	for (int r = 0; r < n; r++)
		if (r != 2)
			assert_status(tern_comm_destroy(comm[r]),
				      TERN_ERROR_PEER_FAILED);
	memory_back_to(base, n);
	rbuf_free(&buf, n);
}

/* ---- (5) groups ---- */

/* Two ranks swap 16 MiB each way on one stream each, in a group. */
static void test_group_exchange(void **state)
{
	const size_t count = (16u << 20) / 4;
	tern_comm_t comm[2];
	struct rbuf send, recv;

	(void)state;
	assert_ok(tern_comm_init_all(comm, 2, g.dev));
	rbuf_alloc(&send, 2, count);
	rbuf_alloc(&recv, 2, count);
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < count; i++)
			send.cpu[r][i] = value(5, r, i) ^ (int32_t)i;
	/* One thread drives both ranks, as one group. */
	assert_ok(tern_group_start());
	for (int r = 0; r < 2; r++) {
		assert_ok(tern_send(tern_ptr(send.buf[r], 0), count, TERN_INT32,
				    1 - r, comm[r], g.stream[r][0]));
		assert_ok(tern_recv(tern_ptr(recv.buf[r], 0), count, TERN_INT32,
				    1 - r, comm[r], g.stream[r][0]));
	}
	assert_ok(tern_group_end());
	for (int r = 0; r < 2; r++)
		assert_ok(tern_stream_synchronize(g.stream[r][0]));
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < count; i++)
			if (recv.cpu[r][i] != (value(5, 1 - r, i) ^ (int32_t)i))
				fail_msg("rank %d element %zu: %d", r, i,
					 recv.cpu[r][i]);
	for (int r = 0; r < 2; r++)
		assert_ok(tern_comm_destroy(comm[r]));
	rbuf_free(&send, 2);
	rbuf_free(&recv, 2);
}

/* All-to-allv with random uneven counts (self included) as a group. */
static void run_all_to_allv(int n, unsigned int seed)
{
	size_t counts[MAX_RANKS][MAX_RANKS], sdispl[MAX_RANKS][MAX_RANKS + 1];
	size_t rdispl[MAX_RANKS][MAX_RANKS + 1];
	tern_comm_t comm[MAX_RANKS];
	struct rbuf send, recv;

	srand(seed);
	for (int r = 0; r < n; r++)
		for (int p = 0; p < n; p++)
			counts[r][p] = (size_t)(rand() % 4 == 0 ? 0 :
						rand() % 40000);
	for (int r = 0; r < n; r++) {
		sdispl[r][0] = rdispl[r][0] = 0;
		for (int p = 0; p < n; p++) {
			sdispl[r][p + 1] = sdispl[r][p] + counts[r][p];
			rdispl[r][p + 1] = rdispl[r][p] + counts[p][r];
		}
	}
	assert_ok(tern_comm_init_all(comm, n, g.dev));
	rbuf_alloc(&send, n, 40000 * (size_t)n);
	rbuf_alloc(&recv, n, 40000 * (size_t)n);
	for (int r = 0; r < n; r++)
		for (size_t i = 0; i < sdispl[r][n]; i++)
			send.cpu[r][i] = value(r, (int)i, i * 7);
	assert_ok(tern_group_start());
	for (int r = 0; r < n; r++) {
		for (int p = 0; p < n; p++) {
			assert_ok(tern_send(tern_ptr(send.buf[r], sdispl[r][p] * 4),
					    counts[r][p], TERN_INT32, p, comm[r],
					    g.stream[r][0]));
			assert_ok(tern_recv(tern_ptr(recv.buf[r], rdispl[r][p] * 4),
					    counts[p][r], TERN_INT32, p, comm[r],
					    g.stream[r][0]));
		}
	}
	assert_ok(tern_group_end());
	for (int r = 0; r < n; r++)
		assert_ok(tern_stream_synchronize(g.stream[r][0]));
	for (int r = 0; r < n; r++) {
		for (int p = 0; p < n; p++) {
			for (size_t i = 0; i < counts[p][r]; i++) {
				size_t at = sdispl[p][r] + i;
				int32_t want = value(p, (int)at, at * 7);
				int32_t got = recv.cpu[r][rdispl[r][p] + i];

				if (got != want)
					fail_msg("%d ranks: rank %d from %d element %zu: %d, want %d",
						 n, r, p, i, got, want);
			}
		}
		assert_ok(tern_comm_destroy(comm[r]));
	}
	rbuf_free(&send, n);
	rbuf_free(&recv, n);
}

static void test_all_to_allv(void **state)
{
	(void)state;
	for (int n = 2; n <= g.ndev; n += n < 4 ? 1 : 4)
		run_all_to_allv(n, 1000u + (unsigned int)n);
}

/* ---- (6) split ---- */

struct splitter {
	tern_comm_t comm, out;
	int color, key;
	tern_status_t status;
	pthread_t thread;
};

static void *splitter_main(void *arg)
{
	struct splitter *s = arg;

	s->status = tern_comm_split(s->comm, s->color, s->key, &s->out);
	return NULL;
}

static void tx_bytes(int n, uint64_t tx[][4])
{
	for (int r = 0; r < n; r++) {
		tern_port_info_t ports[4];
		uint32_t count = 0;

		assert_ok(tern_device_get_ports(g.dev[r], ports, 4, &count));
		assert_int_equal(count, 4);
		for (int p = 0; p < 4; p++)
			tx[r][p] = ports[p].tx_bytes;
	}
}

/*
 * All-reduces on each of 4 sub-communicators (rows or columns of the 4x4
 * torus) at once: exact, and only the ports along them (east and west for
 * rows, south and north for columns) carry traffic.
 */
static void reduce_on_lines(tern_comm_t *line, bool rows)
{
	const size_t count = 300007;
	uint64_t before[MAX_RANKS][4], after[MAX_RANKS][4];
	struct rbuf buf;

	rbuf_alloc(&buf, 16, count);
	for (int r = 0; r < 16; r++)
		for (size_t i = 0; i < count; i++)
			buf.cpu[r][i] = value(rows, r, i);
	tx_bytes(16, before);
	for (int r = 0; r < 16; r++)
		assert_ok(tern_all_reduce(tern_ptr(buf.buf[r], 0),
					  tern_ptr(buf.buf[r], 0), count,
					  TERN_INT32, TERN_SUM, line[r],
					  g.stream[r][0]));
	for (int r = 0; r < 16; r++)
		assert_ok(tern_stream_synchronize(g.stream[r][0]));
	tx_bytes(16, after);
	for (int r = 0; r < 16; r++) {
		for (size_t i = 0; i < count; i += 113) {
			int32_t want = 0;

			for (int j = 0; j < 4; j++)
				want += value(rows, rows ? r / 4 * 4 + j :
						      r % 4 + 4 * j, i);
			if (buf.cpu[r][i] != want)
				fail_msg("%s: rank %d element %zu: %d, want %d",
					 rows ? "row" : "column", r, i,
					 buf.cpu[r][i], want);
		}
		for (int p = 0; p < 4; p++) {
			bool along = rows ? p < 2 : p >= 2;
			uint64_t moved = after[r][p] - before[r][p];

			if (along != (moved > 0))
				fail_msg("%s all-reduce: device %d port %d sent %llu bytes",
					 rows ? "row" : "column", r, p,
					 (unsigned long long)moved);
		}
	}
	rbuf_free(&buf, 16);
}

static void test_split_rows_columns(void **state)
{
	tern_comm_t world[MAX_RANKS], rows[MAX_RANKS], none[MAX_RANKS];
	tern_comm_t columns[MAX_RANKS];
	struct splitter cols[MAX_RANKS];
	int rank = -1, count = 0;

	(void)state;
	assert_ok(tern_comm_init_all(world, 16, g.dev));
	/* Rows from one thread, in a group. */
	assert_ok(tern_group_start());
	for (int r = 0; r < 16; r++)
		assert_ok(tern_comm_split(world[r], r / 4, r % 4, &rows[r]));
	assert_ok(tern_group_end());
	/* Columns from a thread per rank; keys reverse the order. */
	for (int r = 0; r < 16; r++) {
		cols[r] = (struct splitter){
			.comm = world[r], .color = r % 4, .key = -(r / 4),
		};
		assert_int_equal(pthread_create(&cols[r].thread, NULL,
						splitter_main, &cols[r]), 0);
	}
	for (int r = 0; r < 16; r++) {
		pthread_join(cols[r].thread, NULL);
		assert_ok(cols[r].status);
		assert_ok(tern_comm_rank(rows[r], &rank));
		assert_int_equal(rank, r % 4);
		assert_ok(tern_comm_count(rows[r], &count));
		assert_int_equal(count, 4);
		assert_ok(tern_comm_rank(cols[r].out, &rank));
		assert_int_equal(rank, 3 - r / 4);
	}
	reduce_on_lines(rows, true);
	for (int r = 0; r < 16; r++)
		columns[r] = cols[r].out;
	reduce_on_lines(columns, false);
	/* Only rank 5 stays out: it gets no comm, the rest one of 15. */
	assert_ok(tern_group_start());
	for (int r = 0; r < 16; r++)
		assert_ok(tern_comm_split(world[r], r == 5 ? TERN_SPLIT_NOCOLOR : 0,
					  0, &none[r]));
	assert_ok(tern_group_end());
	assert_null(none[5]);
	assert_ok(tern_comm_count(none[0], &count));
	assert_int_equal(count, 15);
	assert_ok(tern_comm_rank(none[6], &rank));
	assert_int_equal(rank, 5);
	for (int r = 0; r < 16; r++) {
		assert_ok(tern_comm_destroy(rows[r]));
		assert_ok(tern_comm_destroy(columns[r]));
		assert_ok(tern_comm_destroy(world[r]));
		if (none[r])
			assert_ok(tern_comm_destroy(none[r]));
	}
}

static void test_split_errors(void **state)
{
	tern_comm_t world[2], out = NULL, pair[2] = { NULL, NULL };

	(void)state;
	assert_ok(tern_comm_init_all(world, 2, g.dev));
	assert_status(tern_comm_split(NULL, 0, 0, &out),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_split(world[0], 0, 0, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_split(world[0], -2, 0, &out),
		      TERN_ERROR_INVALID_ARGUMENT);
	/* The same comm twice in one group. */
	assert_ok(tern_group_start());
	assert_ok(tern_comm_split(world[0], 0, 0, &pair[0]));
	assert_status(tern_comm_split(world[0], 0, 0, &out),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_comm_split(world[1], 0, 0, &pair[1]));
	assert_ok(tern_group_end());
	assert_ok(tern_comm_destroy(pair[0]));
	assert_ok(tern_comm_destroy(pair[1]));
	/* world[0]'s split never met world[1]'s: withdrawn at the timeout. */
	assert_status(tern_comm_split(world[0], 0, 0, &out),
		      TERN_ERROR_PEER_FAILED);
	assert_ok(tern_comm_destroy(world[0]));
	assert_ok(tern_comm_destroy(world[1]));
}

/* ---- the fabric's bound ---- */

#define assert_close(got, want, eps)					\
	do {								\
		double got_ = (got), want_ = (want);			\
		if (got_ < want_ - (eps) || got_ > want_ + (eps))	\
			fail_msg("line %d: %.9f, want %.9f", __LINE__,	\
				 got_, want_);				\
	} while (0)

static double bound_us(tern_comm_t comm, tern_collective_t coll,
		       size_t bytes, int root)
{
	double us = -1;

	assert_ok(tern_comm_lower_bound(comm, coll, bytes, root, &us));
	return us;
}

/*
 * On the 4x4 torus of 256 GB/s, 1.5 us links: each chip sends over four
 * (1,024 GB/s) and the farthest chip is 4 hops away; a row of it is a ring
 * of 4, two links a chip, 2 hops across.
 */
static void test_lower_bound(void **state)
{
	tern_comm_t world[MAX_RANKS], rows[MAX_RANKS];
	double us = -1;

	(void)state;
	assert_ok(tern_comm_init_all(world, 16, g.dev));
	assert_close(bound_us(world[3], TERN_COLL_ALL_REDUCE, 8, 0),
			    6.0 + 2.0 * 15 / 16 * 8 / 1.024e6, 1e-9);
	assert_close(bound_us(world[0], TERN_COLL_ALL_REDUCE, 1u << 30, 0),
			    6.0 + 2.0 * 15 / 16 * (1u << 30) / 1.024e6, 1e-6);
	assert_close(bound_us(world[0], TERN_COLL_ALL_GATHER, 1u << 20, 0),
			    6.0 + 15.0 / 16 * (1u << 20) / 1.024e6, 1e-6);
	assert_close(bound_us(world[9], TERN_COLL_BROADCAST, 1u << 20, 5),
			    6.0 + (1u << 20) / 1.024e6, 1e-6);
	assert_close(bound_us(world[0], TERN_COLL_ALL_REDUCE, 0, 0), 0, 0);

	assert_ok(tern_group_start());
	for (int r = 0; r < 16; r++)
		assert_ok(tern_comm_split(world[r], r / 4, r % 4, &rows[r]));
	assert_ok(tern_group_end());
	assert_close(bound_us(rows[6], TERN_COLL_ALL_REDUCE, 4u << 20, 0),
			    3.0 + 2.0 * 3 / 4 * (4u << 20) / 0.512e6, 1e-6);

	assert_status(tern_comm_lower_bound(world[0], TERN_COLL_ALL_REDUCE, 8,
					    0, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_lower_bound(world[0], (tern_collective_t)6, 8,
					    0, &us),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_lower_bound(world[0], (tern_collective_t)-1,
					    8, 0, &us),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_lower_bound(world[0], TERN_COLL_BROADCAST, 8,
					    16, &us),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_lower_bound(world[0], TERN_COLL_REDUCE, 8, -1,
					    &us),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_lower_bound(NULL, TERN_COLL_ALL_REDUCE, 8, 0,
					    &us),
		      TERN_ERROR_INVALID_ARGUMENT);
	/* a root is only looked at where there is one */
	assert_ok(tern_comm_lower_bound(world[0], TERN_COLL_ALL_REDUCE, 8, 99,
					&us));
	for (int r = 0; r < 16; r++) {
		assert_ok(tern_comm_destroy(rows[r]));
		assert_ok(tern_comm_destroy(world[r]));
	}
	assert_status(tern_comm_lower_bound(world[0], TERN_COLL_ALL_REDUCE, 8,
					    0, &us),
		      TERN_ERROR_INVALID_ARGUMENT);
}

/* ---- bad arguments ---- */

static void test_bad_arguments(void **state)
{
	tern_comm_t comm[2], gone[2];
	tern_status_t async;
	struct rbuf buf;

	(void)state;
	assert_status(tern_group_end(), TERN_ERROR_INVALID_ARGUMENT);
	for (int i = 0; i < TERN_GROUP_MAX_DEPTH; i++)
		assert_ok(tern_group_start());
	assert_status(tern_group_start(), TERN_ERROR_INVALID_ARGUMENT);
	for (int i = 0; i < TERN_GROUP_MAX_DEPTH; i++)
		assert_ok(tern_group_end());
	assert_status(tern_group_end(), TERN_ERROR_INVALID_ARGUMENT);

	assert_status(tern_comm_abort(NULL), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_get_async_error(NULL, &async),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_comm_init_all(gone, 2, g.dev));
	assert_ok(tern_comm_init_all(comm, 2, g.dev));
	assert_status(tern_comm_get_async_error(comm[0], NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_comm_destroy(gone[0]));
	assert_ok(tern_comm_destroy(gone[1]));
	assert_status(tern_comm_abort(gone[0]), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_get_async_error(gone[1], &async),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_abort((tern_comm_t)&async),
		      TERN_ERROR_INVALID_ARGUMENT);

	rbuf_alloc(&buf, 2, 64);
	/* 8-bit floats move but do not reduce, with a sentence saying so */
	assert_status(tern_all_reduce(tern_ptr(buf.buf[0], 0),
				      tern_ptr(buf.buf[0], 0), 4,
				      TERN_FLOAT8_E4M3, TERN_SUM, comm[0],
				      g.stream[0][0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(tern_get_last_error(), "float8_e4m3fn"));
	assert_status(tern_reduce_scatter(tern_ptr(buf.buf[0], 0),
					  tern_ptr(buf.buf[0], 32), 2,
					  TERN_FLOAT8_E5M2, TERN_MAX, comm[0],
					  g.stream[0][0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	/* and they move: an all-gather of float8_e5m2 bytes */
	for (int r = 0; r < 2; r++)
		memset(buf.cpu[r], 0x40 + r, 64);
	assert_ok(tern_group_start());
	for (int r = 0; r < 2; r++)
		assert_ok(tern_all_gather(tern_ptr(buf.buf[r], 0),
					  tern_ptr(buf.buf[r], 32), 4,
					  TERN_FLOAT8_E5M2, comm[r],
					  g.stream[r][0]));
	assert_ok(tern_group_end());
	for (int r = 0; r < 2; r++) {
		assert_ok(tern_stream_synchronize(g.stream[r][0]));
		for (int i = 0; i < 8; i++)
			assert_int_equal(((uint8_t *)buf.cpu[r])[32 + i],
					 0x40 + i / 4);
	}
	/* Outside a group, a rank cannot send to itself. */
	assert_status(tern_send(tern_ptr(buf.buf[0], 0), 4, TERN_INT32, 0,
				comm[0], g.stream[0][0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	/* In a group, one comm's ops must share a stream. */
	assert_ok(tern_group_start());
	assert_ok(tern_send(tern_ptr(buf.buf[0], 0), 4, TERN_INT32, 1,
			    comm[0], g.stream[0][0]));
	assert_status(tern_recv(tern_ptr(buf.buf[0], 64), 4, TERN_INT32, 1,
				comm[0], g.stream[0][1]),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_recv(tern_ptr(buf.buf[1], 0), 4, TERN_INT32, 0,
			    comm[1], g.stream[1][0]));
	assert_ok(tern_group_end());
	for (int r = 0; r < 2; r++)
		assert_ok(tern_stream_synchronize(g.stream[r][0]));
	/* Sends to itself must meet recvs from itself of the same size. */
	assert_ok(tern_group_start());
	assert_ok(tern_send(tern_ptr(buf.buf[0], 0), 4, TERN_INT32, 0,
			    comm[0], g.stream[0][0]));
	assert_ok(tern_recv(tern_ptr(buf.buf[0], 64), 3, TERN_INT32, 0,
			    comm[0], g.stream[0][0]));
	assert_status(tern_group_end(), TERN_ERROR_INVALID_ARGUMENT);
	/* Bad arguments inside a group are refused at once, as outside. */
	assert_ok(tern_group_start());
	assert_status(tern_send(tern_ptr(buf.buf[0], 0), 4, TERN_INT32, 7,
				comm[0], g.stream[0][0]),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_all_reduce(tern_ptr(buf.buf[0], 0),
				      tern_ptr(buf.buf[0], 0), 1 << 20,
				      TERN_INT32, TERN_SUM, comm[0],
				      g.stream[0][0]),
		      TERN_ERROR_OUT_OF_RANGE);
	assert_ok(tern_group_end());
	/* A stream destroyed before the group's end: nothing launches. */
	{
		tern_stream_t s[2];

		for (int r = 0; r < 2; r++)
			assert_ok(tern_stream_create(g.dev[r], &s[r]));
		assert_ok(tern_group_start());
		for (int r = 0; r < 2; r++)
			assert_ok(tern_all_reduce(tern_ptr(buf.buf[r], 0),
						  tern_ptr(buf.buf[r], 0), 4,
						  TERN_INT32, TERN_SUM, comm[r],
						  s[r]));
		assert_ok(tern_stream_destroy(s[0]));
		assert_status(tern_group_end(), TERN_ERROR_INVALID_ARGUMENT);
		assert_ok(tern_stream_synchronize(s[1]));
		assert_ok(tern_stream_destroy(s[1]));
	}
	rbuf_free(&buf, 2);
	for (int r = 0; r < 2; r++) {
		assert_ok(tern_comm_get_async_error(comm[r], &async));
		assert_ok(async);
		assert_ok(tern_comm_destroy(comm[r]));
	}
}

/* Whatever a failed test left behind: every link up again. */
static int links_up(void **state)
{
	(void)state;
	for (int d = 0; d < g.ndev; d++)
		set_links(d, 1);
	return 0;
}

/* ---- the watchdog ---- */

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/*
 * An idle communicator costs no CPU: the watchdog sleeps between its
 * looks (a watchdog that spun would burn a core for the whole second).
 */
static void test_watchdog_sleeps(void **state)
{
	tern_comm_t comm[2];
	double used;

	(void)state;
	assert_ok(tern_comm_init_all(comm, 2, g.dev));
	used = cpu_seconds();
	sleep(1);
	used = cpu_seconds() - used;
	if (used > 0.25)
		fail_msg("an idle second cost %.2f s of CPU", used);
	assert_ok(tern_comm_destroy(comm[0]));
	assert_ok(tern_comm_destroy(comm[1]));
}

/* ---- settings out of range ---- */

static void test_bad_detect_interval(void **state)
{
	tern_comm_t comm[2];

	(void)state;
	assert_status(tern_comm_init_all(comm, 2, g.dev),
		      TERN_ERROR_INVALID_ARGUMENT);
}

/* A TERN_ALGO that names no algorithm: refused, and said why. */
static void test_bad_algo(void **state)
{
	tern_comm_t comm[2];

	(void)state;
	assert_status(tern_comm_init_all(comm, 2, g.dev),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(tern_get_last_error(), "TERN_ALGO=\"fastest\""));
}

/* What the tuner runs where, first in the list, with the other candidates. */
static void test_algorithms(void **state)
{
	tern_comm_t world[MAX_RANKS];
	tern_algo_estimate_t est[8];
	uint32_t count = 0;

	(void)state;
	assert_ok(tern_comm_init_all(world, 16, g.dev));
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE, 8, est,
				       8, &count));
	assert_int_equal(count, 3);
	assert_string_equal(est[0].name, "direct");
	assert_string_equal(est[1].name, "ring");
	assert_string_equal(est[2].name, "torus");
	assert_true(est[0].us > 6.0 && est[0].us < est[1].us &&
		    est[0].us < est[2].us);
	/* a piece past one slot: by rows and columns, in fewer steps */
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE, 1u << 20,
				       est, 8, &count));
	assert_int_equal(count, 2);
	assert_string_equal(est[0].name, "torus");
	assert_string_equal(est[1].name, "ring");
	assert_true(est[0].us < est[1].us);
	/* many blocks a piece: still by dimensions, its fewer steps */
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE,
				       (8u << 20) + 4, est, 8, &count));
	assert_int_equal(count, 2);
	assert_string_equal(est[0].name, "torus");
	/*
	 * the largest: the rings round the whole torus, whose steps nearly
	 * all send, where a dimension's ring of four idles one step in four
	 */
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE,
				       1u << 30, est, 8, &count));
	assert_int_equal(count, 2);
	assert_string_equal(est[0].name, "ring");
	assert_true(est[0].us < est[1].us);
	/* all-gather counts the whole array: 16 pieces of 64 KiB still fit */
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_GATHER, 1u << 20,
				       est, 8, &count));
	assert_int_equal(count, 2);
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_BROADCAST, 1u << 20,
				       est, 8, &count));
	assert_string_equal(est[0].name, "chain");
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_TO_ALL, 4096,
				       est, 8, &count));
	assert_int_equal(count, 1);
	assert_string_equal(est[0].name, "pairwise");
	/* asking how many, then fewer than there are */
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE, 8, NULL,
				       0, &count));
	assert_int_equal(count, 3);
	memset(est, 0, sizeof(est));
	assert_ok(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE, 8, est,
				       1, &count));
	assert_string_equal(est[0].name, "direct");
	assert_string_equal(est[1].name, "");

	assert_status(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE, 8,
					   est, 8, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_algorithms(world[0], TERN_COLL_ALL_REDUCE, 8,
					   NULL, 2, &count),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_algorithms(world[0], (tern_collective_t)6, 8,
					   est, 8, &count),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_comm_algorithms(NULL, TERN_COLL_ALL_REDUCE, 8, est,
					   8, &count),
		      TERN_ERROR_INVALID_ARGUMENT);
	for (int r = 0; r < 16; r++)
		assert_ok(tern_comm_destroy(world[r]));
}

/* TERN_ALGO=ring: the tuner runs it even where direct would be faster. */
static void test_forced_algorithm(void **state)
{
	tern_comm_t world[MAX_RANKS];
	tern_algo_estimate_t est[8];
	uint32_t count = 0;

	(void)state;
	assert_ok(tern_comm_init_all(world, 4, g.dev));
	assert_ok(tern_comm_algorithms(world[1], TERN_COLL_ALL_REDUCE, 8, est,
				       8, &count));
	assert_int_equal(count, 2);
	assert_string_equal(est[0].name, "ring");
	assert_string_equal(est[1].name, "direct");
	assert_true(est[0].us > est[1].us);
	/* where the ring cannot run, the tuner's own choice */
	assert_ok(tern_comm_algorithms(world[1], TERN_COLL_BROADCAST, 8, est,
				       8, &count));
	assert_string_equal(est[0].name, "direct");
	for (int r = 0; r < 4; r++)
		assert_ok(tern_comm_destroy(world[r]));
}

static void test_bad_init_timeout(void **state)
{
	tern_comm_t comm[2], out;

	(void)state;
	assert_ok(tern_comm_init_all(comm, 2, g.dev));
	assert_status(tern_comm_split(comm[0], 0, 0, &out),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_comm_destroy(comm[0]));
	assert_ok(tern_comm_destroy(comm[1]));
}

/* ---- children ---- */

struct config {
	const char *name;
	const char *topology;
	int devices;
	const char *timeout_ms;
	const char *env;		/* NAME=VALUE, or NULL */
	const struct CMUnitTest *tests;
	size_t count;
};

static const struct CMUnitTest order_tests[] = {
	cmocka_unit_test(test_order_two_streams),
	cmocka_unit_test(test_order_three_streams),
	cmocka_unit_test(test_bad_arguments),
	cmocka_unit_test(test_watchdog_sleeps),
};

static const struct CMUnitTest error_tests[] = {
	cmocka_unit_test_teardown(test_sticky_errors, links_up),
	cmocka_unit_test(test_abort_from_watchdog),
	cmocka_unit_test_teardown(test_link_down_detected, links_up),
	cmocka_unit_test(test_peer_abort_detected),
};

static const struct CMUnitTest group_tests[] = {
	cmocka_unit_test(test_group_exchange),
	cmocka_unit_test(test_all_to_allv),
};

static const struct CMUnitTest split_tests[] = {
	cmocka_unit_test(test_split_rows_columns),
	cmocka_unit_test(test_split_errors),
	cmocka_unit_test(test_lower_bound),
	cmocka_unit_test(test_algorithms),
};

static const struct CMUnitTest bad_algo_tests[] = {
	cmocka_unit_test(test_bad_algo),
};

static const struct CMUnitTest forced_algo_tests[] = {
	cmocka_unit_test(test_forced_algorithm),
};

static const struct CMUnitTest bad_detect_tests[] = {
	cmocka_unit_test(test_bad_detect_interval),
};

static const struct CMUnitTest bad_init_timeout_tests[] = {
	cmocka_unit_test(test_bad_init_timeout),
};

static const struct config configs[] = {
	{ "order", "ring", 4, "5000", NULL, order_tests, ARRAY_SIZE(order_tests) },
	{ "errors", "ring", 4, "60000", NULL, error_tests, ARRAY_SIZE(error_tests) },
	{ "groups", "torus:4x4", 16, "5000", NULL, group_tests,
	  ARRAY_SIZE(group_tests) },
	{ "split", "torus:4x4", 16, "5000", NULL, split_tests,
	  ARRAY_SIZE(split_tests) },
	{ "bad-detect", "ring", 2, "5000", "TERN_COMM_DETECT_MS=0",
	  bad_detect_tests, ARRAY_SIZE(bad_detect_tests) },
	{ "bad-init-timeout", "ring", 2, "5000", "TERN_COMM_INIT_TIMEOUT_MS=5s",
	  bad_init_timeout_tests, ARRAY_SIZE(bad_init_timeout_tests) },
	{ "bad-algo", "ring", 2, "5000", "TERN_ALGO=fastest",
	  bad_algo_tests, ARRAY_SIZE(bad_algo_tests) },
	{ "forced-algo", "ring", 4, "5000", "TERN_ALGO=ring",
	  forced_algo_tests, ARRAY_SIZE(forced_algo_tests) },
};

static int child_setup(void **state)
{
	(void)state;
	if (tern_device_count(&g.ndev))
		return -1;
	for (int r = 0; r < g.ndev && r < MAX_RANKS; r++) {
		if (tern_device_open(r, &g.dev[r]))
			return -1;
		for (int i = 0; i < MAX_STREAMS; i++)
			if (tern_stream_create(g.dev[r], &g.stream[r][i]))
				return -1;
	}
	return 0;
}

static int child_teardown(void **state)
{
	(void)state;
	for (int r = 0; r < g.ndev; r++)
		if (tern_device_close(g.dev[r]))
			return -1;
	return 0;
}

static int run_child(const char *name)
{
	char group[64];

	for (size_t i = 0; i < ARRAY_SIZE(configs); i++) {
		if (strcmp(configs[i].name, name) != 0)
			continue;
		snprintf(group, sizeof(group), "comm/%s", name);
		return _cmocka_run_group_tests(group, configs[i].tests,
					       configs[i].count, child_setup,
					       child_teardown);
	}
	return 2;
}

static int run_config(const struct config *c)
{
	/* A split that waits for a rank that never comes: not for long. */
	const char *env[] = { "TERN_COMM_INIT_TIMEOUT_MS=500", c->env, NULL };
	const struct sim_machine m = {
		c->devices, c->topology, "128", c->timeout_ms, env
	};

	return sim_child_run("comm", c->name, &m);
}

int main(int argc, char **argv)
{
	const char *only = getenv("TERN_TEST_CHILD");
	int failed = 0;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return run_child(argv[2]);
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++)
		if (!only || strcmp(only, configs[i].name) == 0)
			failed += run_config(&configs[i]) != 0;
	return failed ? 1 : 0;
}
