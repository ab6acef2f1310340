// SPDX-License-Identifier: MIT
/*
 * Communicators across hosts, on one machine: each "host" is a simulated
 * machine of its own (TERN_SIM_MACHINE), whose devices nothing on another
 * can import, joined over libfabric (FI_PROVIDER tcp over the loopback,
 * or shm). Every rank is a process, this program again (--rank ...), that
 * runs the collectives against a reference computed here and exits 0 only
 * if every answer is exact.
 *
 * `test_hosts PROVIDER` runs the groups for one provider (libfabric reads
 * FI_PROVIDER once per process); `test_hosts tcp-short` a few over tcp,
 * for the sanitizer build. TEST_HOSTS_ONLY=PATTERN runs only the tests
 * whose names match (cmocka's pattern: * and ?).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "elements.h"
#include "tern.h"
#include "coll/hosts/internal.h"
#include "net/stats.h"

/* Exit codes of a rank, so the parent says what went wrong. */
enum { RANK_OK, RANK_SETUP, RANK_INIT, RANK_WRONG, RANK_STATUS };

static char self_path[4096];
static char machine_base[64];
static const char *provider_name;
static int machine_round;	/* each run its own machines, fresh settings */
/*
 * The cut test's: host 1's ranks run in network namespace @cut_netns,
 * reaching host 0's over a veth pair (@cut_if[0] ours, [1] theirs).
 */
static char cut_netns[32], cut_if[2][16];

/* Small values: every sum is exact in int32 and float32 alike. */
static int32_t value(int rank, size_t i)
{
	return (int32_t)((rank % 7 + 1) * 100 + (int)(i % 97));
}

static int rank_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s)\n", tern_get_last_error());
	return code;
}

/* One all-reduce of @count elements, checked against the reference. */
static int check_all_reduce(tern_comm_t comm, tern_stream_t stream,
			    tern_buffer_t send, tern_buffer_t recv,
			    int32_t *send_cpu, int32_t *recv_cpu, int rank,
			    int nranks, size_t count, tern_dtype_t dtype,
			    tern_redop_t op)
{
	tern_ptr_t s = { send, 0 }, r = { recv, 0 };
	tern_status_t st;

	for (size_t i = 0; i < count; i++) {
		if (dtype == TERN_FLOAT32) {
			float f = (float)value(rank, i);

			memcpy(&send_cpu[i], &f, 4);
		} else {
			send_cpu[i] = value(rank, i);
		}
	}
	memset(recv_cpu, 0xa5, count * 4 + 4);
	st = tern_all_reduce(s, r, count, dtype, op, comm, stream);
	if (st == TERN_SUCCESS)
		st = tern_stream_synchronize(stream);
	if (st)
		return rank_fail(RANK_STATUS, "rank %d: all-reduce of %zu: %s", rank,
			    count, tern_status_name(st));
	for (size_t i = 0; i < count; i++) {
		int64_t want = op == TERN_MAX ? INT64_MIN : 0;
		int64_t got;

		for (int q = 0; q < nranks; q++) {
			int64_t v = value(q, i);

			want = op == TERN_MAX ? (v > want ? v : want) : want + v;
		}
		if (op == TERN_AVG)
			want /= nranks;
		if (dtype == TERN_FLOAT32) {
			float f;

			memcpy(&f, &recv_cpu[i], 4);
			if (op == TERN_AVG) {
				/* sums of whole numbers, divided once */
				double exact = 0;

				for (int q = 0; q < nranks; q++)
					exact += value(q, i);
				if ((float)(exact / nranks) != f)
					return rank_fail(RANK_WRONG, "rank %d: avg [%zu] of %zu: %g, want %g",
						    rank, i, count, f,
						    exact / nranks);
				continue;
			}
			got = (int64_t)f;
		} else {
			got = recv_cpu[i];
		}
		if (got != want)
			return rank_fail(RANK_WRONG, "rank %d: [%zu] of %zu: %lld, want %lld",
				    rank, i, count, (long long)got,
				    (long long)want);
	}
	if (recv_cpu[count] != (int32_t)0xa5a5a5a5)
		return rank_fail(RANK_WRONG, "rank %d: wrote past %zu", rank, count);
	return RANK_OK;
}

/* The sum of every rank's value(q, i). */
static int64_t sum_of(int nranks, size_t i)
{
	int64_t sum = 0;

	for (int q = 0; q < nranks; q++)
		sum += value(q, i);
	return sum;
}

/* Poisons @recv's @bytes and one element past them. */
static void poison(int32_t *recv_cpu, size_t elems)
{
	memset(recv_cpu, 0xa5, (elems + 1) * 4);
}

static int check_tail(const int32_t *recv_cpu, size_t elems, int rank,
		      const char *what)
{
	if (recv_cpu[elems] != (int32_t)0xa5a5a5a5)
		return rank_fail(RANK_WRONG, "rank %d: %s wrote past %zu",
				 rank, what, elems);
	return RANK_OK;
}

static int run_and_wait(tern_status_t st, tern_stream_t stream, int rank,
			const char *what, size_t count)
{
	if (st == TERN_SUCCESS)
		st = tern_stream_synchronize(stream);
	if (st)
		return rank_fail(RANK_STATUS, "rank %d: %s of %zu: %s", rank,
				 what, count, tern_status_name(st));
	return RANK_OK;
}

/* What rank @from sends rank @to, element @i. */
static int32_t block_value(int from, int to, size_t i)
{
	return (int32_t)(from * 100000 + to * 1000 + (int)(i % 997));
}

/*
 * All-to-all of @count int32 per rank, and a group of a send to the next
 * rank and a recv from the one before (on another host, interleaved).
 */
static int check_exchange(tern_comm_t comm, tern_stream_t stream,
			  tern_buffer_t send, tern_buffer_t recv,
			  int32_t *send_cpu, int32_t *recv_cpu, int rank,
			  int nranks, size_t count)
{
	tern_ptr_t s = { send, 0 }, r = { recv, 0 };
	const size_t n = (size_t)nranks;
	const int next = (rank + 1) % nranks;
	const int prev = (rank + nranks - 1) % nranks;
	tern_status_t st;
	int code;

	for (size_t q = 0; q < n; q++)
		for (size_t i = 0; i < count; i++)
			send_cpu[q * count + i] = block_value(rank, (int)q, i);
	poison(recv_cpu, n * count);
	code = run_and_wait(tern_all_to_all(s, r, count, TERN_INT32, comm,
					    stream), stream, rank,
			    "all-to-all", count);
	for (size_t q = 0; q < n && !code; q++)
		for (size_t i = 0; i < count && !code; i++)
			if (recv_cpu[q * count + i] !=
			    block_value((int)q, rank, i))
				code = rank_fail(RANK_WRONG, "rank %d: all-to-all [%zu][%zu] of %zu: %d, want %d",
						 rank, q, i, count,
						 recv_cpu[q * count + i],
						 block_value((int)q, rank, i));
	if (!code)
		code = check_tail(recv_cpu, n * count, rank, "all-to-all");
	if (code)
		return code;
	poison(recv_cpu, count);
	st = tern_group_start();
	if (st == TERN_SUCCESS)
		st = tern_send(s, count, TERN_INT32, next, comm, stream);
	if (st == TERN_SUCCESS)
		st = tern_recv(r, count, TERN_INT32, prev, comm, stream);
	if (st == TERN_SUCCESS)
		st = tern_group_end();
	code = run_and_wait(st, stream, rank, "send/recv", count);
	for (size_t i = 0; i < count && !code; i++)
		if (recv_cpu[i] != block_value(prev, 0, i))
			code = rank_fail(RANK_WRONG, "rank %d: recv [%zu] of %zu from %d",
					 rank, i, count, prev);
	if (!code)
		code = check_tail(recv_cpu, count, rank, "recv");
	return code;
}

/*
 * All-gather, reduce-scatter, broadcast and reduce of @count int32 per
 * piece (roots the last rank and 0), and all-gather of int8 (an odd byte
 * count), each against the reference.
 */
static int check_others(tern_comm_t comm, tern_stream_t stream,
			tern_buffer_t send, tern_buffer_t recv,
			int32_t *send_cpu, int32_t *recv_cpu, int rank,
			int nranks, size_t count)
{
	tern_ptr_t s = { send, 0 }, r = { recv, 0 };
	const size_t n = (size_t)nranks;
	int8_t *bytes_in = (int8_t *)send_cpu, *bytes_out = (int8_t *)recv_cpu;
	int code;

	/* all-gather */
	for (size_t i = 0; i < count; i++)
		send_cpu[i] = value(rank, i);
	poison(recv_cpu, n * count);
	code = run_and_wait(tern_all_gather(s, r, count, TERN_INT32, comm,
					    stream), stream, rank,
			    "all-gather", count);
	for (size_t q = 0; q < n && !code; q++)
		for (size_t i = 0; i < count && !code; i++)
			if (recv_cpu[q * count + i] != value((int)q, i))
				code = rank_fail(RANK_WRONG, "rank %d: all-gather [%zu][%zu] of %zu",
						 rank, q, i, count);
	if (!code)
		code = check_tail(recv_cpu, n * count, rank, "all-gather");
	/* all-gather of bytes, odd in all */
	for (size_t i = 0; i < count && !code; i++)
		bytes_in[i] = (int8_t)(rank * 3 + (int)i % 5 - 60);
	if (!code) {
		poison(recv_cpu, (n * count + 3) / 4);
		code = run_and_wait(tern_all_gather(s, r, count, TERN_INT8,
						    comm, stream),
				    stream, rank, "all-gather int8", count);
	}
	for (size_t q = 0; q < n && !code; q++)
		for (size_t i = 0; i < count && !code; i++)
			if (bytes_out[q * count + i] !=
			    (int8_t)((int)q * 3 + (int)i % 5 - 60))
				code = rank_fail(RANK_WRONG, "rank %d: all-gather int8 [%zu][%zu] of %zu",
						 rank, q, i, count);
	if (!code && n * count % 4 == 0)
		code = check_tail(recv_cpu, n * count / 4, rank,
				  "all-gather int8");
	/* reduce-scatter */
	for (size_t i = 0; i < n * count && !code; i++)
		send_cpu[i] = value(rank, i);
	if (!code) {
		poison(recv_cpu, count);
		code = run_and_wait(tern_reduce_scatter(s, r, count, TERN_INT32,
							TERN_SUM, comm, stream),
				    stream, rank, "reduce-scatter", count);
	}
	for (size_t i = 0; i < count && !code; i++)
		if (recv_cpu[i] != sum_of(nranks, (size_t)rank * count + i))
			code = rank_fail(RANK_WRONG, "rank %d: reduce-scatter [%zu] of %zu",
					 rank, i, count);
	if (!code)
		code = check_tail(recv_cpu, count, rank, "reduce-scatter");
	/* broadcast from the last rank, reduce to rank 0 */
	for (size_t i = 0; i < count && !code; i++)
		send_cpu[i] = value(rank, i);
	if (!code) {
		poison(recv_cpu, count);
		code = run_and_wait(tern_broadcast(s, r, count, TERN_INT32,
						   nranks - 1, comm, stream),
				    stream, rank, "broadcast", count);
	}
	for (size_t i = 0; i < count && !code; i++)
		if (recv_cpu[i] != value(nranks - 1, i))
			code = rank_fail(RANK_WRONG, "rank %d: broadcast [%zu] of %zu",
					 rank, i, count);
	if (!code) {
		poison(recv_cpu, count);
		code = run_and_wait(tern_reduce(s, r, count, TERN_INT32,
						TERN_SUM, 0, comm, stream),
				    stream, rank, "reduce", count);
	}
	for (size_t i = 0; i < count && !code && rank == 0; i++)
		if (recv_cpu[i] != sum_of(nranks, i))
			code = rank_fail(RANK_WRONG, "rank %d: reduce [%zu] of %zu",
					 rank, i, count);
	/* Only the root's recv is written. */
	if (!code && rank != 0 && recv_cpu[0] != (int32_t)0xa5a5a5a5 &&
	    count)
		code = rank_fail(RANK_WRONG, "rank %d: reduce wrote a non-root's recv",
				 rank);
	if (!code)
		code = check_exchange(comm, stream, send, recv, send_cpu,
				      recv_cpu, rank, nranks, count);
	return code;
}

/*
 * Reduce-scatter of float32 averages, @count a rank: sums of whole
 * numbers divided once, exact; with @count large, in several chunks.
 */
static int check_reduce_scatter_avg(tern_comm_t comm, tern_stream_t stream,
				    tern_buffer_t send, tern_buffer_t recv,
				    int32_t *send_cpu, int32_t *recv_cpu,
				    int rank, int nranks, size_t count)
{
	tern_ptr_t s = { send, 0 }, r = { recv, 0 };
	const size_t n = (size_t)nranks;
	float *in = (float *)send_cpu, *out = (float *)recv_cpu;
	int code;

	for (size_t i = 0; i < n * count; i++)
		in[i] = (float)value(rank, i);
	poison(recv_cpu, count);
	code = run_and_wait(tern_reduce_scatter(s, r, count, TERN_FLOAT32,
						TERN_AVG, comm, stream),
			    stream, rank, "reduce-scatter avg", count);
	for (size_t i = 0; i < count && !code; i++) {
		const size_t at = (size_t)rank * count + i;
		const float want = (float)((double)sum_of(nranks, at) /
					   nranks);

		if (out[i] != want)
			code = rank_fail(RANK_WRONG, "rank %d: reduce-scatter avg [%zu] of %zu: %g, want %g",
					 rank, i, count, out[i], want);
	}
	if (!code)
		code = check_tail(recv_cpu, count, rank, "reduce-scatter avg");
	return code;
}

/*
 * Every dtype and op of the reductions (elements.h's exact inputs):
 * all-reduce of @count, reduce-scatter of @count a rank, reduce of
 * @count to the last rank; every element of each result against the
 * reference, and nothing written past it.
 */
static int check_reductions(tern_comm_t comm, tern_stream_t stream,
			    tern_buffer_t send, tern_buffer_t recv,
			    void *send_cpu, void *recv_cpu, int rank,
			    int nranks, size_t count)
{
	static const char *const names[] = {
		"all-reduce", "reduce-scatter", "reduce",
	};
	tern_ptr_t s = { send, 0 }, r = { recv, 0 };
	const int root = nranks - 1;
	int code = RANK_OK;

	/* every type a collective takes: all but the 8-bit floats */
	for (int t = 0; t <= TERN_UINT64 && !code; t++) {
		const tern_dtype_t dt = (tern_dtype_t)t;
		const size_t es = el_bytes(dt);

		for (int op = 0; op < TERN_REDOP_COUNT && !code; op++) {
			const tern_redop_t o = (tern_redop_t)op;

			for (int k = 0; k < 3 && !code; k++) {
				const size_t in = k == 1 ? count * (size_t)nranks : count;
				const size_t from = k == 1 ? (size_t)rank * count : 0;
				const uint8_t *got = recv_cpu;
				tern_status_t st;

				for (size_t i = 0; i < in; i++)
					el_encode(dt, el_input(dt, o, rank, i),
						  send_cpu, i);
				memset(recv_cpu, 0xa5, count * es + 8);
				st = k == 0 ? tern_all_reduce(s, r, count, dt, o,
							      comm, stream) :
				     k == 1 ? tern_reduce_scatter(s, r, count, dt,
								  o, comm, stream) :
					      tern_reduce(s, r, count, dt, o,
							  root, comm, stream);
				code = run_and_wait(st, stream, rank, names[k],
						    count);
				if (k == 2 && rank != root)
					continue;
				for (size_t i = 0; i < count && !code; i++) {
					uint8_t want[8];

					el_want(dt, o, nranks, from + i, want);
					if (memcmp(want, got + i * es, es))
						code = rank_fail(RANK_WRONG, "rank %d: %s dtype %d op %d [%zu] of %zu",
								 rank, names[k], t, op, i,
								 count);
				}
				if (!code && got[count * es] != 0xa5)
					code = rank_fail(RANK_WRONG, "rank %d: %s dtype %d op %d wrote past %zu",
							 rank, names[k], t, op, count);
			}
		}
	}
	return code;
}

/* The elements libtern gives part @i of @parts of @total (coll_split). */
static void split(uint64_t total, uint64_t parts, uint64_t i, uint64_t *start,
		  uint64_t *len)
{
	uint64_t base = total / parts, rem = total % parts;

	*start = i * base + (i < rem ? i : rem);
	*len = base + (i < rem ? 1 : 0);
}

/* This process's counters' file, mapped; NULL if there is none. */
static const struct tern_net_stats *own_stats(void)
{
	char dir[256], prefix[32], path[600];
	const struct tern_net_stats *s = NULL;
	struct dirent *e;
	DIR *d;

	if (tern_net_stats_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return NULL;
	snprintf(prefix, sizeof(prefix), "net-%d-", (int)getpid());
	while ((e = readdir(d)) && !s) {
		FILE *f;
		static char buf[65536];

		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		if (f && fread(buf, 1, sizeof(buf), f) >= sizeof(*s))
			s = (const struct tern_net_stats *)buf;
		if (f)
			fclose(f);
	}
	closedir(d);
	return s;
}

/* Counts @pieces [@a, @b) of @m int32 as moved to (@k 0) or from (2) @peer. */
static void expect_move(uint64_t want[][4], int k, int peer, int h,
			uint64_t m, int hosts, int a, int b)
{
	const int i = peer < h ? peer : peer - 1;	/* the file's record */
	uint64_t start, len, s2, l2;

	split(m, (uint64_t)hosts, (uint64_t)a, &start, &len);
	split(m, (uint64_t)hosts, (uint64_t)(b - 1), &s2, &l2);
	len = s2 + l2 - start;
	want[i][k] += len * 4;
	want[i][k + 1] += len != 0;
}

/*
 * What a chunk of @m int32 moves along the rail by @algo, host @h of
 * @hosts, all-reduced or (@scatter) reduce-scattered: the ring's pieces
 * to the next host and from the one before (a reduce-scatter its first
 * half, turned a piece so that host h keeps piece h); halving-doubling's
 * halves, then doublings, with the host one bit away (a reduce-scatter
 * the halves); doubling's whole chunk likewise (no reduce-scatter: the
 * tuner's choice, halving-doubling).
 */
static void expect_chunk(uint64_t want[][4], uint64_t m, int h, int hosts,
			 const char *algo, bool scatter)
{
	const int next = (h + 1) % hosts, prev = (h + hosts - 1) % hosts;
	const int shift = scatter ? -1 : 0;
	int a = 0, b = hosts;

	if (strcmp(algo, "doubling") == 0 && !scatter) {
		for (int mask = 1; mask < hosts; mask *= 2) {
			expect_move(want, 0, h ^ mask, h, m, hosts, 0, hosts);
			expect_move(want, 2, h ^ mask, h, m, hosts, 0, hosts);
		}
		return;
	}
	if (strcmp(algo, "ring") != 0 && hosts > 2) {
		for (int mask = hosts / 2; mask >= 1; mask /= 2) {
			int mid = a + (b - a) / 2;
			bool upper = h & mask;

			expect_move(want, 0, h ^ mask, h, m, hosts,
				    upper ? a : mid, upper ? mid : b);
			expect_move(want, 2, h ^ mask, h, m, hosts,
				    upper ? mid : a, upper ? b : mid);
			if (upper)
				a = mid;
			else
				b = mid;
		}
		for (int mask = 1; mask < hosts && !scatter; mask *= 2) {
			int w = b - a, pa = h & mask ? a - w : b;

			expect_move(want, 0, h ^ mask, h, m, hosts, a, b);
			expect_move(want, 2, h ^ mask, h, m, hosts, pa, pa + w);
			if (pa < a)
				a = pa;
			else
				b = pa + w;
		}
		return;
	}
	for (int k = 0; k < (scatter ? 1 : 2) * (hosts - 1); k++) {
		int sp = k < hosts - 1 ? h - k + shift : h + 1 - (k - hosts + 1);
		int rp = k < hosts - 1 ? h - k - 1 + shift : h - (k - hosts + 1);

		sp = (sp % hosts + hosts) % hosts;
		rp = (rp % hosts + hosts) % hosts;
		expect_move(want, 0, next, h, m, hosts, sp, sp + 1);
		expect_move(want, 2, prev, h, m, hosts, rp, rp + 1);
	}
}

/* The counters' file's four counters per peer host, now. */
static void counters_now(const struct tern_net_stats *s, uint64_t now[][4])
{
	for (uint32_t j = 0; j < s->npeers; j++) {
		now[j][0] = s->peer[j].tx_bytes;
		now[j][1] = s->peer[j].tx_messages;
		now[j][2] = s->peer[j].rx_bytes;
		now[j][3] = s->peer[j].rx_messages;
	}
}

/* Whether the counters moved by @want since @before; says where not. */
static int counters_moved(const struct tern_net_stats *s,
			  uint64_t before[][4], uint64_t want[][4], int rank,
			  const char *what)
{
	uint64_t now[64][4];

	counters_now(s, now);
	for (uint32_t j = 0; j < s->npeers; j++)
		for (int k = 0; k < 4; k++)
			if (now[j][k] - before[j][k] != want[j][k])
				return rank_fail(RANK_WRONG, "rank %d: %s: host %s: counter %d moved %llu, want %llu",
						 rank, what, s->peer[j].host, k,
						 (unsigned long long)(now[j][k] - before[j][k]),
						 (unsigned long long)want[j][k]);
	return RANK_OK;
}

/*
 * The network bytes and messages an all-reduce of @count int32 must move
 * to and from each other host: our shard (by our place on our host, of
 * @per), chunk by chunk along the rail by @algo (TERN_NET_ALGO); and a
 * reduce-scatter's: our rail's blocks, a piece a host, chunk by chunk.
 * The counters' file must say exactly that.
 */
static int check_counters(tern_comm_t comm, tern_stream_t stream,
			  tern_buffer_t send, tern_buffer_t recv,
			  int32_t *send_cpu, int32_t *recv_cpu, int rank,
			  int nranks, int hosts, const char *algo)
{
	const uint64_t count = 300001, chunk = (1u << 20) / 4;
	const uint64_t block = 90001, piece = chunk / (uint64_t)hosts;
	const int per = nranks / hosts, h = rank % hosts, lr = rank / hosts;
	uint64_t want[64][4] = { { 0 } }, before[64][4], shard_at, shard;
	const struct tern_net_stats *s = own_stats();
	tern_ptr_t sp = { send, 0 }, rp = { recv, 0 };
	int code;

	if (!s || memcmp(s->magic, TERN_NET_STATS_MAGIC, 8) ||
	    s->pid != (int32_t)getpid() || s->rank != rank ||
	    s->npeers != (uint32_t)hosts - 1)
		return rank_fail(RANK_WRONG, "rank %d: no counters' file that fits",
				 rank);
	counters_now(s, before);
	/* Forced where it cannot run (hosts not a power of two): a ring. */
	if (hosts & (hosts - 1))
		algo = "ring";
	split(count, (uint64_t)per, (uint64_t)lr, &shard_at, &shard);
	for (uint64_t at = 0; at < shard; at += chunk)
		expect_chunk(want, shard - at < chunk ? shard - at : chunk, h,
			     hosts, algo, false);
	code = check_all_reduce(comm, stream, send, recv, send_cpu, recv_cpu,
				rank, nranks, count, TERN_INT32, TERN_SUM);
	if (!code)
		code = counters_moved(own_stats(), before, want, rank,
				      "all-reduce");
	if (code)
		return code;
	memset(want, 0, sizeof(want));
	counters_now(s, before);
	for (uint64_t at = 0; at < block; at += piece)
		expect_chunk(want, (block - at < piece ? block - at : piece) *
			     (uint64_t)hosts, h, hosts, algo, true);
	memset(send_cpu, 0, block * (uint64_t)nranks * 4);
	code = run_and_wait(tern_reduce_scatter(sp, rp, block, TERN_INT32,
						TERN_SUM, comm, stream),
			    stream, rank, "reduce-scatter", block);
	if (!code)
		code = counters_moved(own_stats(), before, want, rank,
				      "reduce-scatter");
	return code;
}

/* The bytes each fabric port of @dev has sent, into @tx; their count. */
static uint32_t port_tx(tern_device_t dev, uint64_t *tx)
{
	tern_port_info_t info[16];
	uint32_t n = 0;

	if (tern_device_get_ports(dev, info, 16, &n) || n > 16)
		return 0;
	for (uint32_t p = 0; p < n; p++)
		tx[p] = info[p].tx_bytes;
	return n;
}

/*
 * On hosts of 4 devices in a ring: an all-reduce's fabric traffic is its
 * host's part alone, the reduce-scatter and all-gather of the shards
 * round the host's two rings (one each way), so every port carries one
 * ring's: 2 (4 - 1) / 4 of the array over 2 rings, plus 16 bytes a chunk
 * (the ready word one way, the credit the other). 2 rings x 4 shards x
 * one 512 KiB chunk each makes the chunks whole. The network's part
 * would show here if it crossed the fabric.
 */
static int check_fabric(tern_comm_t comm, tern_device_t dev,
			tern_stream_t stream, tern_buffer_t send,
			tern_buffer_t recv, int32_t *send_cpu, int32_t *recv_cpu,
			int rank, int nranks)
{
	const uint64_t chunk = (512u << 10) / 4, count = 2 * 4 * chunk;
	const uint64_t want = 2 * 3 * count * 4 / 4 / 2 + 2 * 3 * 16;
	uint64_t before[16], after[16];
	uint32_t ports = port_tx(dev, before);
	int code;

	if (ports != 2)
		return rank_fail(RANK_WRONG, "rank %d: %u fabric ports, want a ring's 2",
				 rank, ports);
	code = check_all_reduce(comm, stream, send, recv, send_cpu, recv_cpu,
				rank, nranks, count, TERN_INT32, TERN_SUM);
	port_tx(dev, after);
	for (uint32_t p = 0; p < ports && !code; p++)
		if (after[p] - before[p] != want)
			code = rank_fail(RANK_WRONG, "rank %d: fabric port %u sent %llu bytes, want %llu",
					 rank, p,
					 (unsigned long long)(after[p] - before[p]),
					 (unsigned long long)want);
	return code;
}

/* Sizes: none, one, odd, shards of one chunk, and several chunks. */
static const size_t sizes[] = { 0, 1, 7, 4099, 300001, 1500001 };
/* Every rank's piece of the largest collective: sizes[3] x 16 ranks fit. */

static void parse_id(const char *hex, tern_unique_id_t *id)
{
	for (size_t i = 0; i < sizeof(id->internal); i++)
		sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&id->internal[i]);
}

/*
 * The fault test's rank: all-reduces until one fails, having told the
 * parent (a byte on fd @ready) once the first passed. The parent kills
 * host 1's ranks; a survivor must see TERN_ERROR_PEER_FAILED, well before
 * the job timeout, and then make a comm of host 0's ranks with @hex2 and
 * all-reduce on it.
 */
static int rank_fault(tern_comm_t comm, tern_device_t dev,
		      tern_stream_t stream, tern_buffer_t send,
		      tern_buffer_t recv, int32_t *send_cpu, int32_t *recv_cpu,
		      int rank, int nranks, const char *hex2, int ready)
{
	const size_t count = 500000;
	tern_ptr_t s = { send, 0 }, r = { recv, 0 };
	tern_unique_id_t id2;
	tern_comm_t again;
	tern_status_t st;
	double start;
	int code;

	code = check_all_reduce(comm, stream, send, recv, send_cpu, recv_cpu,
				rank, nranks, count, TERN_INT32, TERN_SUM);
	if (code)
		return code;
	if (write(ready, "x", 1) != 1)
		return RANK_SETUP;
	do {
		start = now_s();
		st = tern_all_reduce(s, r, count, TERN_INT32, TERN_SUM, comm,
				     stream);
		if (st == TERN_SUCCESS)
			st = tern_stream_synchronize(stream);
	} while (st == TERN_SUCCESS);
	if (st != TERN_ERROR_PEER_FAILED)
		return rank_fail(RANK_STATUS, "rank %d: failed with %s", rank,
				 tern_status_name(st));
	/* The job timeout is 600 s: detection, not the timeout, ended it. */
	if (now_s() - start > 60)
		return rank_fail(RANK_STATUS, "rank %d: failed after %.0f s",
				 rank, now_s() - start);
	fprintf(stderr, "rank %d: %s after %.3f s\n", rank,
		tern_status_name(st), now_s() - start);
	tern_comm_destroy(comm);
	/* Cut off, host 1's ranks cannot make the new comm: they are done. */
	if (getenv("TEST_HOSTS_CUT") && rank % 2 == 1)
		return RANK_OK;
	parse_id(hex2, &id2);
	if (tern_comm_init_rank(&again, nranks / 2, &id2, rank / 2, dev))
		return rank_fail(RANK_INIT, "rank %d: init without host 1",
				 rank);
	code = check_all_reduce(again, stream, send, recv, send_cpu, recv_cpu,
				rank / 2, nranks / 2, 1001, TERN_INT32,
				TERN_SUM);
	tern_comm_destroy(again);
	return code;
}

/* The process's open file descriptors. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3;	/* ".", ".." and the directory's own */
}

/*
 * Rail impostors: before the exchange, this rank connects to every rank
 * on another host over the network as any host could, and sends first
 * messages no rank of the comm would: a claim to be a rank not yet
 * connected there with a MAC of random bytes, one addressed to another
 * rank, and the bare 4-byte rank the network took on trust before. The
 * exchange must then be exact; the ranks' refusals are summed, and none
 * at all means the impostors were never seen.
 */
static int check_impostors(tern_comm_t comm, tern_stream_t stream,
			   tern_buffer_t send, tern_buffer_t recv,
			   int32_t *send_cpu, int32_t *recv_cpu, int rank,
			   int nranks)
{
	struct coll_hosts *h = ((struct tern_comm *)comm)->hosts;
	struct tern_net_comm *fake[3 * COLL_MAX_RANKS];
	struct coll_rail_hello *lie = (void *)(h->tmp + COLL_STAGE_BYTES / 2);
	struct tern_net_req *req;
	int nfake = 0, code;
	int32_t *refused = send_cpu;

	/* Say we are another rank of our host, one p may not have yet. */
	int claim = rank;

	for (int q = 0; q < nranks; q++)
		if (q != rank && h->host_of[q] == h->host)
			claim = q;
	for (int p = 0; p < nranks; p++) {
		if (h->host_of[p] == h->host)
			continue;
		for (int k = 0; k < 3; k++) {
			struct coll_rail_hello *m = &lie[nfake];

			m->rank = claim;
			m->to = k == 1 ? (p + 1) % nranks : p;
			for (size_t i = 0; i < sizeof(m->mac); i++)
				m->mac[i] = (uint8_t)rand();
			if (h->ops->connect(h->net, &h->handle[p], &fake[nfake]))
				return rank_fail(RANK_WRONG, "rank %d: cannot reach rank %d's listen",
						 rank, p);
			while (h->ops->isend(fake[nfake], m, k == 2 ? 4 : sizeof(*m),
					     h->tmp_mr, &req) ==
			       TERN_ERROR_NOT_READY)
				h->ops->wait(h->net, 1);
			nfake++;
		}
	}
	/* The impostors first in every queue, then the comm's own. */
	code = check_all_reduce(comm, stream, send, recv, send_cpu, recv_cpu,
				rank, nranks, 1001, TERN_INT32, TERN_SUM);
	if (!code)
		code = check_exchange(comm, stream, send, recv, send_cpu,
				      recv_cpu, rank, nranks, 4099);
	if (!code) {
		tern_ptr_t at = { send, 0 };

		*refused = (int32_t)h->refused;
		code = run_and_wait(tern_all_reduce(at, at, 1, TERN_INT32,
						    TERN_SUM, comm, stream),
				    stream, rank, "refusals", 1);
		if (!code && *refused == 0)
			code = rank_fail(RANK_WRONG, "rank %d: no rank refused an impostor",
					 rank);
		if (!code && rank == 0)
			fprintf(stderr, "rail impostors: %d connections, %d refused in all\n",
				nfake * nranks, *refused);
	}
	for (int i = 0; i < nfake; i++)
		h->ops->close_comm(fake[i]);
	return code;
}

static int rank_main(const char *hex, int rank, int nranks, int device)
{
	const char *fault = getenv("TEST_HOSTS_FAULT");
	tern_status_t st;
	int before;
	const size_t most = 1500001 + 1;
	tern_buffer_t send, recv;
	tern_unique_id_t id;
	tern_stream_t stream;
	tern_device_t dev;
	tern_comm_t comm;
	void *send_cpu, *recv_cpu;
	int code = RANK_OK;

	parse_id(hex, &id);
	if (tern_device_open(device, &dev) ||
	    tern_stream_create(dev, &stream) ||
	    tern_buffer_alloc(dev, TERN_MEMORY_HOST, most * 4, &send) ||
	    tern_buffer_alloc(dev, TERN_MEMORY_HOST, most * 4, &recv) ||
	    tern_buffer_map(send, &send_cpu) || tern_buffer_map(recv, &recv_cpu))
		return rank_fail(RANK_SETUP, "rank %d: setup", rank);
	before = count_fds();
	st = tern_comm_init_rank(&comm, nranks, &id, rank, dev);
	if (st)
		return rank_fail(RANK_INIT, "rank %d: init: %s", rank,
				 tern_status_name(st));
	if (getenv("TEST_HOSTS_FDS")) {
		/* What init keeps open: the bootstrap's links and the network's. */
		int kept = count_fds() - before;
		/* Rank 0 holds the bootstrap's star: a link a rank. */
		int most = atoi(getenv("TEST_HOSTS_FDS")) +
			   (rank == 0 ? nranks : 0);

		fprintf(stderr, "rank %d: init keeps %d fds\n", rank, kept);
		code = check_all_reduce(comm, stream, send, recv, send_cpu,
					recv_cpu, rank, nranks, 1001,
					TERN_INT32, TERN_SUM);
		tern_comm_destroy(comm);
		if (!code && kept > most)
			code = rank_fail(RANK_WRONG, "rank %d: init keeps %d fds, want at most %d",
					 rank, kept, most);
		return code;
	}
	if (getenv("TEST_HOSTS_IMPOSTORS")) {
		code = check_impostors(comm, stream, send, recv, send_cpu,
				       recv_cpu, rank, nranks);
		if (tern_comm_destroy(comm) && !code)
			code = rank_fail(RANK_STATUS, "rank %d: destroy", rank);
		return code;
	}
	if (fault)
		return rank_fault(comm, dev, stream, send, recv, send_cpu,
				  recv_cpu, rank, nranks, strchr(fault, ':') + 1,
				  atoi(fault));
	if (getenv("TEST_HOSTS_H") && getenv("TERN_NET_ALGO"))
		code = check_counters(comm, stream, send, recv, send_cpu,
				      recv_cpu, rank, nranks,
				      atoi(getenv("TEST_HOSTS_H")),
				      getenv("TERN_NET_ALGO"));
	if (!code && getenv("TEST_HOSTS_H") &&
	    nranks == 4 * atoi(getenv("TEST_HOSTS_H")))
		code = check_fabric(comm, dev, stream, send, recv, send_cpu,
				    recv_cpu, rank, nranks);
	for (size_t k = 0; k < ARRAY_SIZE(sizes) && !code; k++)
		code = check_all_reduce(comm, stream, send, recv, send_cpu,
					recv_cpu, rank, nranks, sizes[k],
					TERN_INT32, TERN_SUM);
	if (!code)
		code = check_all_reduce(comm, stream, send, recv, send_cpu,
					recv_cpu, rank, nranks, 1001,
					TERN_FLOAT32, TERN_SUM);
	if (!code)
		code = check_all_reduce(comm, stream, send, recv, send_cpu,
					recv_cpu, rank, nranks, 1001,
					TERN_INT32, TERN_MAX);
	if (!code)
		code = check_all_reduce(comm, stream, send, recv, send_cpu,
					recv_cpu, rank, nranks, 1001,
					TERN_FLOAT32, TERN_AVG);
	for (size_t k = 0; k < 4 && !code; k++)
		code = check_others(comm, stream, send, recv, send_cpu,
				    recv_cpu, rank, nranks, sizes[k]);
	if (!code)
		code = check_reduce_scatter_avg(comm, stream, send, recv,
						send_cpu, recv_cpu, rank,
						nranks, sizes[5] / nranks);
	if (!code)
		code = check_reductions(comm, stream, send, recv, send_cpu,
					recv_cpu, rank, nranks, 1001);
	if (tern_comm_destroy(comm) && !code)
		code = rank_fail(RANK_STATUS, "rank %d: destroy", rank);
	return code;
}

/*
 * Runs @n ranks, rank r on host @host[r] as device @device[r] of its
 * machine; all must exit with @want.
 */
static void id_hex(char *hex)
{
	tern_unique_id_t id;

	assert_int_equal(tern_get_unique_id(&id), 0);
	for (size_t i = 0; i < sizeof(id.internal); i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)id.internal[i]);
}

/*
 * In the cut test, a rank's process on host 1 goes into the namespace;
 * each side's bootstrap and network use its end of the veth pair.
 */
static int cut_enter(bool far)
{
	char path[64], eq[20];
	int fd;

	if (far) {
		snprintf(path, sizeof(path), "/run/netns/%s", cut_netns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET))
			return -1;
		close(fd);
	}
	snprintf(eq, sizeof(eq), "=%s", cut_if[far]);
	setenv("TERN_SOCKET_IFNAME", eq, 1);
	setenv("FI_TCP_IFACE", cut_if[far], 1);
	return 0;
}

/*
 * Starts ranks 0 to @started - 1 of @n, rank r on host @host[r] as device
 * @device[r], with a new id (in @hex).
 */
static void spawn_ranks_of(int n, int started, const int *host,
			   const int *device, pid_t *pids, char *hex)
{
	id_hex(hex);
	machine_round++;
	for (int r = 0; r < started; r++) {
		pids[r] = fork();
		assert_true(pids[r] >= 0);
		if (pids[r] == 0) {
			char machine[96], rs[16], ns[16], ds[16];

			if (cut_netns[0] && cut_enter(host[r] == 1))
				_exit(126);
			snprintf(machine, sizeof(machine), "%s-%d-h%d",
				 machine_base, machine_round, host[r]);
			setenv("TERN_SIM_MACHINE", machine, 1);
			snprintf(rs, sizeof(rs), "%d", r);
			snprintf(ns, sizeof(ns), "%d", n);
			snprintf(ds, sizeof(ds), "%d", device[r]);
			execl(self_path, self_path, "--rank", hex, rs, ns, ds,
			      (char *)NULL);
			_exit(127);
		}
	}
}

/* Starts @n ranks, rank r on host @host[r] as device @device[r]. */
static void spawn_ranks(int n, const int *host, const int *device,
			pid_t *pids)
{
	char hex[2 * sizeof(((tern_unique_id_t *)0)->internal) + 1];

	spawn_ranks_of(n, n, host, device, pids, hex);
}

/* Runs @n ranks as spawn_ranks() does; all must exit with @want. */
static void run_ranks(int n, const int *host, const int *device, int want)
{
	pid_t pids[64];

	spawn_ranks(n, host, device, pids);
	for (int r = 0; r < n; r++) {
		int status;

		assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != want)
			fail_msg("rank %d of %d: exit %d, want %d", r, n,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 want);
	}
}

/*
 * @hosts x @per ranks, rank r on host r % @hosts (interleaved, so a host's
 * ranks are not a run of ranks) as device r / @hosts of its machine.
 */
static void run_hosts(int hosts, int per, int want)
{
	int host[64], device[64];

	char h[16];

	for (int r = 0; r < hosts * per; r++) {
		host[r] = r % hosts;
		device[r] = r / hosts;
	}
	/* The ranks check their counters against this layout. */
	snprintf(h, sizeof(h), "%d", hosts);
	setenv("TEST_HOSTS_H", h, 1);
	run_ranks(hosts * per, host, device, want);
	unsetenv("TEST_HOSTS_H");
}

/* Runs hosts x per ranks with the rail's algorithm @algo (NULL: tuned). */
static void run_algo(int hosts, int per, const char *algo)
{
	if (algo)
		setenv("TERN_NET_ALGO", algo, 1);
	run_hosts(hosts, per, RANK_OK);
	unsetenv("TERN_NET_ALGO");
}

/* Impostors on every rank's network listen: refused, the data exact. */
static void test_rail_impostors(void **state)
{
	(void)state;
	setenv("TEST_HOSTS_IMPOSTORS", "1", 1);
	run_hosts(2, 2, RANK_OK);
	unsetenv("TEST_HOSTS_IMPOSTORS");
}

static void test_2_hosts_1(void **state)
{
	(void)state;
	run_algo(2, 1, "ring");
}

static void test_2_hosts_4(void **state)
{
	(void)state;
	run_algo(2, 4, "ring");
}

static void test_4_hosts_4(void **state)
{
	(void)state;
	run_algo(4, 4, "ring");
}

/* The tuner's choice, chunk by chunk: exact whatever it is. */
static void test_4_hosts_2_tuned(void **state)
{
	(void)state;
	run_algo(4, 2, NULL);
}

static void test_4_hosts_1_halving(void **state)
{
	(void)state;
	run_algo(4, 1, "halving-doubling");
}

static void test_4_hosts_1_doubling(void **state)
{
	(void)state;
	run_algo(4, 1, "doubling");
}

/* Three hosts, not a power of two: halving-doubling forced runs as a ring. */
static void test_3_hosts_2(void **state)
{
	(void)state;
	setenv("TERN_NET_ALGO", "halving-doubling", 1);
	run_hosts(3, 2, RANK_OK);
	unsetenv("TERN_NET_ALGO");
}

/* Runs the shell command made of @fmt; its exit status. */
static int shell(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * Host 1's processes killed mid-all-reduce, with a job timeout of 600 s:
 * host 0's ranks fail with TERN_ERROR_PEER_FAILED (within 60 s, so the
 * bootstrap's links, not the timeout, ended it) and then work on a comm
 * of their own.
 */
static void test_host_killed(void **state)
{
	const int host[4] = { 0, 1, 0, 1 }, device[4] = { 0, 0, 1, 1 };
	char env[300], hex2[2 * sizeof(((tern_unique_id_t *)0)->internal) + 1];
	int ready[2], status;
	pid_t pids[4];
	char c;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	id_hex(hex2);
	snprintf(env, sizeof(env), "%d:%s", ready[1], hex2);
	setenv("TEST_HOSTS_FAULT", env, 1);
	setenv("TERN_SIM_JOB_TIMEOUT_MS", "600000", 1);
	spawn_ranks(4, host, device, pids);
	unsetenv("TEST_HOSTS_FAULT");
	unsetenv("TERN_SIM_JOB_TIMEOUT_MS");
	close(ready[1]);
	for (int r = 0; r < 4; r++)
		assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	kill(pids[1], SIGKILL);
	kill(pids[3], SIGKILL);
	for (int r = 0; r < 4; r++) {
		assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
		/*
		 * libfabric's shm regions of a killed process stay in
		 * /dev/shm, named by its pid, and would refuse the next
		 * process given that pid: ours to remove, as it could not.
		 */
		if (host[r] == 1)
			shell("rm -f /dev/shm/%d:*", (int)pids[r]);
		if (host[r] == 1)
			continue;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != RANK_OK)
			fail_msg("survivor %d: exit %d", r,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

/* Host 1's namespace, joined to ours by a veth pair with addresses. */
static int cut_setup(void **state)
{
	const int id = (int)getpid() % 100000;

	(void)state;
	if (getuid() != 0)
		return 0;	/* the test says why it skips */
	snprintf(cut_netns, sizeof(cut_netns), "tern-cut-%d", id);
	snprintf(cut_if[0], sizeof(cut_if[0]), "tcA%d", id);
	snprintf(cut_if[1], sizeof(cut_if[1]), "tcB%d", id);
	/* a /30 of 10.231/16 by pid; a stale pair of ours with it goes first */
	const int net = (id * 4) % 65536;

	shell("ip link del %s 2>/dev/null", cut_if[0]);
	if (shell("! ip -br addr | grep -q ' 10\\.231\\.%d\\.%d/' && "
		  "ip netns add %s && ip link add %s type veth peer name %s netns %s && "
		  "ip addr add 10.231.%d.%d/30 dev %s && ip link set %s up && "
		  "ip -n %s addr add 10.231.%d.%d/30 dev %s && "
		  "ip -n %s link set %s up && ip -n %s link set lo up",
		  net / 256, net % 256 + 1, cut_netns, cut_if[0], cut_if[1],
		  cut_netns, net / 256, net % 256 + 1, cut_if[0], cut_if[0],
		  cut_netns, net / 256, net % 256 + 2, cut_if[1], cut_netns,
		  cut_if[1], cut_netns)) {
		fprintf(stderr, "cut_setup: could not make namespace %s\n",
			cut_netns);
		return -1;
	}
	return 0;
}

static int cut_teardown(void **state)
{
	(void)state;
	/*
	 * Our end of the pair too: the namespace (and its end) may outlive
	 * ip netns del a while, keeping our end and its address.
	 */
	if (cut_netns[0])
		shell("ip link del %s 2>/dev/null; ip netns del %s", cut_if[0],
		      cut_netns);
	cut_netns[0] = '\0';
	unsetenv("TEST_HOSTS_CUT");
	unsetenv("TERN_COMM_CUT_MS");
	setenv("TERN_SOCKET_IFNAME", "=lo", 1);
	setenv("FI_TCP_IFACE", "lo", 1);
	return 0;
}

/*
 * Host 1 (its own network namespace) cut off mid-all-reduce, its link
 * taken down: its processes live on and nothing closes a connection, so
 * only the links' keepalives (TERN_COMM_CUT_MS, 2 s here) can tell. Every
 * rank must fail with PEER_FAILED well before the 600 s job timeout;
 * host 0's then make a comm of their own and all-reduce on it.
 */
static void test_host_cut(void **state)
{
	const int host[4] = { 0, 1, 0, 1 }, device[4] = { 0, 0, 1, 1 };
	char env[300], hex2[2 * sizeof(((tern_unique_id_t *)0)->internal) + 1];
	int ready[2], status;
	pid_t pids[4];
	char c;

	(void)state;
	if (getuid() != 0)
		skip();		/* namespaces and links need root */
	assert_int_equal(pipe(ready), 0);
	/* the ids name host 0's end of the pair */
	cut_enter(false);
	id_hex(hex2);
	snprintf(env, sizeof(env), "%d:%s", ready[1], hex2);
	setenv("TEST_HOSTS_FAULT", env, 1);
	setenv("TEST_HOSTS_CUT", "1", 1);
	setenv("TERN_COMM_CUT_MS", "2000", 1);
	setenv("TERN_SIM_JOB_TIMEOUT_MS", "600000", 1);
	spawn_ranks(4, host, device, pids);
	unsetenv("TEST_HOSTS_FAULT");
	unsetenv("TERN_SIM_JOB_TIMEOUT_MS");
	close(ready[1]);
	for (int r = 0; r < 4; r++)
		assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(shell("ip -n %s link set %s down", cut_netns,
			       cut_if[1]), 0);
	for (int r = 0; r < 4; r++) {
		assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != RANK_OK)
			fail_msg("rank %d (host %d): exit %d", r, host[r],
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

/*
 * A provider that does not exist: every rank's init fails, not only that
 * of the ranks whose network would not open (here all of them).
 */
static void test_no_provider(void **state)
{
	(void)state;
	setenv("FI_PROVIDER", "nosuch", 1);
	run_hosts(2, 2, RANK_INIT);
	setenv("FI_PROVIDER", provider_name, 1);
}

/*
 * The network's settings (and the links') given nonsense: init fails on
 * every rank, with INVALID_ARGUMENT (RANK_INIT), instead of guessing.
 */
static void test_bad_net_settings(void **state)
{
	static const char *const bad[][2] = {
		{ "TERN_NET_ALGO", "fastest" },
		{ "TERN_NET_GBPS", "10G" },
		{ "TERN_NET_GBPS", "0" },
		{ "TERN_NET_LATENCY_US", "-5" },
		{ "TERN_NET_LATENCY_US", "1e9" },
		{ "TERN_COMM_CUT_MS", "10" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		setenv(bad[i][0], bad[i][1], 1);
		run_hosts(2, 1, RANK_INIT);
		unsetenv(bad[i][0]);
	}
}

/*
 * A rank that never comes (rank 3 of 2 hosts x 2): the others' init
 * fails at TERN_COMM_INIT_TIMEOUT_MS, 2 s here.
 */
static void test_rank_missing(void **state)
{
	const int host[3] = { 0, 1, 0 }, device[3] = { 0, 0, 1 };
	char hex[2 * sizeof(((tern_unique_id_t *)0)->internal) + 1];
	pid_t pids[3];
	int status;

	(void)state;
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "2000", 1);
	spawn_ranks_of(4, 3, host, device, pids, hex);
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "60000", 1);
	for (int r = 0; r < 3; r++) {
		assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != RANK_INIT)
			fail_msg("rank %d: exit %d, want %d", r,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 RANK_INIT);
	}
}

/*
 * 32 ranks on each of 2 hosts: init keeps few file descriptors in every
 * process, the same few whatever the ranks (rank 0 a link a rank more,
 * the bootstrap's star): not two a peer for its areas, not a socket a
 * rank of another host (those the first send or recv to one makes).
 */
static void test_32_per_host(void **state)
{
	(void)state;
	run_hosts(2, 32, RANK_OK);
}

static int fds_setup(void **state)
{
	(void)state;
	setenv("TEST_HOSTS_FDS", "32", 1);
	setenv("TERN_SIM_DEVICES", "32", 1);
	return 0;
}

static int fds_teardown(void **state)
{
	(void)state;
	unsetenv("TEST_HOSTS_FDS");
	setenv("TERN_SIM_DEVICES", "4", 1);
	return 0;
}

/* Hosts holding different numbers of ranks: refused on every rank. */
static void test_uneven_hosts(void **state)
{
	const int host[3] = { 0, 0, 1 }, device[3] = { 0, 1, 0 };

	(void)state;
	run_ranks(3, host, device, RANK_INIT);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tcp[] = {
		cmocka_unit_test(test_2_hosts_1),
		cmocka_unit_test(test_2_hosts_4),
		cmocka_unit_test(test_4_hosts_4),
		cmocka_unit_test(test_4_hosts_2_tuned),
		cmocka_unit_test(test_4_hosts_1_halving),
		cmocka_unit_test(test_4_hosts_1_doubling),
		cmocka_unit_test(test_3_hosts_2),
		cmocka_unit_test(test_rail_impostors),
		cmocka_unit_test_setup_teardown(test_32_per_host, fds_setup,
						fds_teardown),
		cmocka_unit_test(test_uneven_hosts),
		cmocka_unit_test(test_host_killed),
		cmocka_unit_test_setup_teardown(test_host_cut, cut_setup,
						cut_teardown),
		cmocka_unit_test(test_no_provider),
		cmocka_unit_test(test_bad_net_settings),
		cmocka_unit_test(test_rank_missing),
	};
	/* For the sanitizer build: every collective, impostors, a host killed. */
	const struct CMUnitTest tcp_short[] = {
		cmocka_unit_test(test_2_hosts_4),
		cmocka_unit_test(test_rail_impostors),
		cmocka_unit_test(test_host_killed),
	};
	const struct CMUnitTest shm[] = {
		cmocka_unit_test(test_2_hosts_4),
		cmocka_unit_test(test_host_killed),
	};
	static char dir[] = "/tmp/tern-hosts.XXXXXX";
	static char dir_run[] = "/tmp/tern-hosts-run.XXXXXX";
	const char *provider = argc > 1 ? argv[1] : "tcp";

	provider_name = provider;
	char host0[80];
	ssize_t len;

	if (argc == 6 && strcmp(argv[1], "--rank") == 0)
		return rank_main(argv[2], atoi(argv[3]), atoi(argv[4]),
				 atoi(argv[5]));
	len = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (len < 0)
		return 1;
	self_path[len] = 0;
	if (!getenv("TERN_SIM_DIR")) {
		if (!mkdtemp(dir))
			return 1;
		setenv("TERN_SIM_DIR", dir, 1);
	}
	if (!mkdtemp(dir_run))
		return 1;
	snprintf(machine_base, sizeof(machine_base), "hosts-%d", (int)getpid());
	/* The id is made on host 0's machine. */
	snprintf(host0, sizeof(host0), "%s-h0", machine_base);
	setenv("TERN_SIM_MACHINE", host0, 1);
	setenv("TERN_BACKEND", "sim", 1);
	setenv("TERN_SIM_DEVICES", "4", 1);
	setenv("TERN_SIM_TOPOLOGY", "ring", 1);
	setenv("TERN_SIM_MEM_MB", "64", 1);
	setenv("TERN_SIM_IDLE_MS", "2000", 1);
	setenv("TERN_COMM_INIT_TIMEOUT_MS", "60000", 1);
	setenv("TERN_RUN_DIR", dir_run, 1);
	if (strcmp(provider, "tcp-short") == 0)
		provider = "tcp";
	setenv("FI_PROVIDER", provider, 1);
	setenv("FI_TCP_IFACE", "lo", 1);
	setenv("TERN_SOCKET_IFNAME", "=lo", 1);
	if (getenv("TEST_HOSTS_ONLY"))
		cmocka_set_test_filter(getenv("TEST_HOSTS_ONLY"));
	if (strcmp(provider, "shm") == 0)
		return cmocka_run_group_tests_name("hosts-shm", shm, NULL,
						   NULL) ? 1 : 0;
	if (argc > 1 && strcmp(argv[1], "tcp-short") == 0)
		return cmocka_run_group_tests_name("hosts-tcp-short", tcp_short,
						   NULL, NULL) ? 1 : 0;
	return cmocka_run_group_tests_name("hosts-tcp", tcp, NULL, NULL) ?
	       1 : 0;
}
