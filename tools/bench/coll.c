// SPDX-License-Identifier: MIT
/*
 * tern-bench all-reduce, all-gather, reduce-scatter, broadcast, reduce and
 * all-to-all: nccl-tests' *_perf on Tern devices. One communicator per
 * device (tern_comm_init_all), one stream each, or under a launcher one
 * rank per process (launch.c); for every size, warm-up, timed iterations
 * out of place then in place (the time is the slowest rank's, from its
 * events), a checked run of each, and the fabric's busiest link against
 * the topology's lower bound. Ranks in other processes agree on those
 * figures through a collective of their own (coll_agree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "device.h"
#include "coll_data.h"
#include "coll_fabric.h"
#include "launch.h"
#include "options.h"
#include "settings.h"
#include "table.h"

struct coll_kind {
	enum coll_id id;
	tern_collective_t coll;	/* as libtern names it */
	const char *name;
	const char *summary;
	int reduces;	/* takes -o */
	int rooted;	/* takes -r */
	int pieces;	/* the size splits into one piece per rank */
	/* busbw = algbw * factor(n), and the busiest link's lower bound is
	 * S * bound(n) / links; both with the factors of REFERENCES.md */
	double (*factor)(int n);
};

static double coll_factor_all_reduce(int n)
{
	return 2.0 * (n - 1) / n;
}

static double coll_factor_pieces(int n)
{
	return (double)(n - 1) / n;
}

static double coll_factor_one(int n)
{
	(void)n;
	return 1.0;
}

static const struct coll_kind coll_kinds[] = {
	{ COLL_ALL_REDUCE, TERN_COLL_ALL_REDUCE, "all-reduce",
	  "All-reduce bandwidth (nccl-tests all_reduce_perf).",
	  1, 0, 0, coll_factor_all_reduce },
	{ COLL_ALL_GATHER, TERN_COLL_ALL_GATHER, "all-gather",
	  "All-gather bandwidth (nccl-tests all_gather_perf); the size is the gathered array.",
	  0, 0, 1, coll_factor_pieces },
	{ COLL_REDUCE_SCATTER, TERN_COLL_REDUCE_SCATTER, "reduce-scatter",
	  "Reduce-scatter bandwidth (nccl-tests reduce_scatter_perf); the size is the whole input.",
	  1, 0, 1, coll_factor_pieces },
	{ COLL_BROADCAST, TERN_COLL_BROADCAST, "broadcast",
	  "Broadcast bandwidth from the root (nccl-tests broadcast_perf).",
	  0, 1, 0, coll_factor_one },
	{ COLL_REDUCE, TERN_COLL_REDUCE, "reduce",
	  "Reduce-to-root bandwidth (nccl-tests reduce_perf).",
	  1, 1, 0, coll_factor_one },
	{ COLL_ALL_TO_ALL, TERN_COLL_ALL_TO_ALL, "all-to-all",
	  "All-to-all bandwidth (nccl-tests alltoall_perf); the size is each rank's send buffer.",
	  0, 0, 1, coll_factor_pieces },
};

struct coll_rank {
	tern_device_t device;
	tern_device_properties_t props;
	tern_comm_t comm;
	tern_stream_t stream;
	tern_event_t start, end;
	tern_buffer_t send, recv;
	void *send_ptr, *recv_ptr;
};

struct coll_bench {
	const struct coll_kind *kind;
	const struct bench_coll_options *opts;
	tern_backend_t backend;
	int nranks;
	struct coll_rank *ranks;
	tern_device_t *devices;	/* ranks[r].device, as an array */
	struct coll_data data;
	/* The ranks this process holds: all, or under a launcher its own. */
	int first, end;
	const struct bench_launch *launch;	/* NULL: not launched */
	tern_buffer_t agree;	/* one value, for coll_agree */
	void *agree_ptr;
	uint32_t links;	/* fewest up links on a rank; 0: no fabric */
	struct coll_fabric_snapshot before, after;
	int modelled;	/* device time is the timing model's */
	int skip_data;	/* TERN_SIM_DATA=off: the engines move no bytes */
};

/* One size's figures for one placement. */
struct coll_result {
	int run;		/* 0: not supported in this placement */
	double time_us;
	double algbw, busbw;
	uint64_t wrong;
	uint64_t busiest;	/* bytes per iteration, out of place */
	double wall_us;		/* per iteration, by the host's clock */
};

/* Elements per rank's piece, and the count printed (the whole array). */
struct coll_shape {
	uint64_t size, count, piece;
};

static struct coll_shape coll_shape(const struct coll_bench *b,
				    uint64_t bytes)
{
	struct coll_shape s;
	uint64_t es = b->data.elem_size;

	if (b->kind->pieces) {
		s.piece = bytes / (es * (uint64_t)b->nranks);
		s.count = s.piece * (uint64_t)b->nranks;
	} else {
		s.count = bytes / es;
		s.piece = s.count;
	}
	s.size = s.count * es;
	return s;
}

static tern_status_t coll_enqueue(struct coll_bench *b, int r,
				  const struct coll_shape *s, int in_place)
{
	struct coll_rank *rk = &b->ranks[r];
	size_t es = b->data.elem_size;
	tern_dtype_t dt = b->opts->dtype;
	tern_redop_t op = b->opts->op;
	int root = (int)b->opts->root;
	tern_ptr_t send = tern_ptr(rk->send, 0), recv = tern_ptr(rk->recv, 0);

	if (in_place) {
		send = recv;
		if (b->kind->id == COLL_ALL_GATHER)
			send.offset = (size_t)r * s->piece * es;
		if (b->kind->id == COLL_REDUCE_SCATTER)
			recv.offset = (size_t)r * s->piece * es;
	}
	switch (b->kind->id) {
	case COLL_ALL_REDUCE:
		return tern_all_reduce(send, recv, s->count, dt, op, rk->comm,
				       rk->stream);
	case COLL_ALL_GATHER:
		return tern_all_gather(send, recv, s->piece, dt, rk->comm,
				       rk->stream);
	case COLL_REDUCE_SCATTER:
		return tern_reduce_scatter(send, recv, s->piece, dt, op,
					   rk->comm, rk->stream);
	case COLL_BROADCAST:
		return tern_broadcast(send, recv, s->count, dt, root, rk->comm,
				      rk->stream);
	case COLL_REDUCE:
		return tern_reduce(send, recv, s->count, dt, op, root,
				   rk->comm, rk->stream);
	default:
		return tern_all_to_all(send, recv, s->piece, dt, rk->comm,
				       rk->stream);
	}
}

/* Enqueues @iters collectives on every rank, then waits for all streams. */
static tern_status_t coll_iterate(struct coll_bench *b,
				  const struct coll_shape *s, int in_place,
				  long iters, int timed)
{
	tern_status_t status = TERN_SUCCESS, st;

	for (int r = b->first; r < b->end && timed && status == TERN_SUCCESS; r++)
		status = tern_event_record(b->ranks[r].start,
					   b->ranks[r].stream);
	for (long i = 0; i < iters && status == TERN_SUCCESS; i++)
		for (int r = b->first; r < b->end && status == TERN_SUCCESS; r++)
			status = coll_enqueue(b, r, s, in_place);
	for (int r = b->first; r < b->end && timed && status == TERN_SUCCESS; r++)
		status = tern_event_record(b->ranks[r].end, b->ranks[r].stream);
	/* every stream, even after a failure: buffers are reused next */
	for (int r = b->first; r < b->end; r++) {
		st = tern_stream_synchronize(b->ranks[r].stream);
		if (status == TERN_SUCCESS)
			status = st;
	}
	return status;
}

/* Inputs into each rank's source, poison into what the result overwrites. */
static void coll_prepare(struct coll_bench *b, const struct coll_shape *s,
			 int in_place)
{
	size_t es = b->data.elem_size;

	for (int r = b->first; r < b->end; r++) {
		struct coll_rank *rk = &b->ranks[r];
		char *recv = rk->recv_ptr;
		uint64_t recv_count = b->kind->id == COLL_REDUCE_SCATTER ?
			(in_place ? s->count : s->piece) : s->count;
		uint64_t send_count = b->kind->id == COLL_ALL_GATHER ?
			s->piece : s->count;

		memset(recv, 0xa5, recv_count * es);
		if (!in_place) {
			coll_data_fill(&b->data, rk->send_ptr, r, 0, send_count);
		} else if (b->kind->id == COLL_ALL_GATHER) {
			coll_data_fill(&b->data, recv + (size_t)r * s->piece * es,
				       r, 0, s->piece);
		} else {
			coll_data_fill(&b->data, recv, r, 0, s->count);
		}
	}
}

/* Result elements of rank @r that differ from what they must be. */
static uint64_t coll_count_wrong(struct coll_bench *b,
				 const struct coll_shape *s, int r,
				 int in_place)
{
	const struct coll_data *d = &b->data;
	const char *recv = b->ranks[r].recv_ptr;
	uint64_t wrong = 0, piece = s->piece;
	int root = (int)b->opts->root;
	double want;

	switch (b->kind->id) {
	case COLL_REDUCE_SCATTER:
		if (in_place)
			recv += (size_t)r * piece * d->elem_size;
		for (uint64_t j = 0; j < piece; j++)
			wrong += coll_data_load(d, recv, j) !=
				coll_data_reduced(d, (uint64_t)r * piece + j);
		return wrong;
	case COLL_REDUCE:
		if (r != root)
			return 0;	/* only the root's result is defined */
		/* fall through */
	case COLL_ALL_REDUCE:
		for (uint64_t i = 0; i < s->count; i++)
			wrong += coll_data_load(d, recv, i) !=
				coll_data_reduced(d, i);
		return wrong;
	default:
		break;
	}
	for (uint64_t i = 0; i < s->count; i++) {
		switch (b->kind->id) {
		case COLL_ALL_GATHER:
			want = coll_data_input(d, (int)(i / piece), i % piece);
			break;
		case COLL_BROADCAST:
			want = coll_data_input(d, root, i);
			break;
		default:	/* all-to-all: block j came from rank j */
			want = coll_data_input(d, (int)(i / piece),
					       (uint64_t)r * piece + i % piece);
			break;
		}
		wrong += coll_data_load(d, recv, i) != want;
	}
	return wrong;
}

/*
 * Makes *@value the @op of every rank's, when the ranks are in processes
 * of their own; one process holding them all has it already.
 */
static tern_status_t coll_agree(struct coll_bench *b, uint64_t *value,
				tern_redop_t op)
{
	struct coll_rank *rk = &b->ranks[b->first];
	tern_ptr_t at = tern_ptr(b->agree, 0);
	tern_status_t status;

	if (!b->launch)
		return TERN_SUCCESS;
	memcpy(b->agree_ptr, value, sizeof(*value));
	status = tern_all_reduce(at, at, 1, TERN_UINT64, op, rk->comm,
				 rk->stream);
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(rk->stream);
	memcpy(value, b->agree_ptr, sizeof(*value));
	return status;
}

static uint64_t coll_host_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static tern_status_t coll_measure(struct coll_bench *b,
				  const struct coll_shape *s, int in_place,
				  struct coll_result *res)
{
	const struct bench_options *sweep = &b->opts->sweep;
	uint64_t slowest_ns, busiest, wall_ns;
	tern_status_t status;
	float ms, slowest = 0;

	memset(res, 0, sizeof(*res));
	if (in_place && b->kind->id == COLL_ALL_TO_ALL)
		return TERN_SUCCESS;	/* libtern has no in-place all-to-all */
	res->run = 1;
	/* with no data moved, no page of the buffers is ever touched */
	if (!b->skip_data)
		coll_prepare(b, s, in_place);
	status = coll_iterate(b, s, in_place, sweep->warmup_iters, 0);
	/*
	 * A peer reading from this rank's device counts on this rank's
	 * ports: once an agreement has ended here, every peer is past the
	 * iterations before it, so the window holds its iterations alone
	 * (and a few bytes of the agreement).
	 */
	if (status == TERN_SUCCESS && !in_place && b->links)
		status = coll_agree(b, &(uint64_t){ 0 }, TERN_MAX);
	if (status == TERN_SUCCESS && !in_place && b->links)
		status = coll_fabric_read(b->devices + b->first,
					  b->end - b->first, &b->before);
	/* ranks in other processes start the clock together */
	if (status == TERN_SUCCESS && b->launch && (in_place || !b->links))
		status = coll_agree(b, &(uint64_t){ 0 }, TERN_MAX);
	wall_ns = coll_host_ns();
	if (status == TERN_SUCCESS)
		status = coll_iterate(b, s, in_place, sweep->iters, 1);
	wall_ns = coll_host_ns() - wall_ns;
	if (status == TERN_SUCCESS)
		status = coll_agree(b, &wall_ns, TERN_MAX);
	if (status == TERN_SUCCESS && !in_place && b->links)
		status = coll_agree(b, &(uint64_t){ 0 }, TERN_MAX);
	if (status == TERN_SUCCESS && !in_place && b->links)
		status = coll_fabric_read(b->devices + b->first,
					  b->end - b->first, &b->after);
	for (int r = b->first; r < b->end && status == TERN_SUCCESS; r++) {
		status = tern_event_elapsed_time(&ms, b->ranks[r].start,
						 b->ranks[r].end);
		if (ms > slowest)
			slowest = ms;
	}
	slowest_ns = (uint64_t)((double)slowest * 1e6);
	if (status == TERN_SUCCESS)
		status = coll_agree(b, &slowest_ns, TERN_MAX);
	if (status == TERN_SUCCESS && !in_place && b->links) {
		busiest = coll_fabric_busiest(&b->before, &b->after);
		status = coll_agree(b, &busiest, TERN_MAX);
		res->busiest = busiest / (uint64_t)sweep->iters;
	}
	if (status != TERN_SUCCESS)
		return status;
	res->time_us = (double)slowest_ns / 1000.0 / (double)sweep->iters;
	res->wall_us = (double)wall_ns / 1000.0 / (double)sweep->iters;
	res->algbw = res->time_us > 0 ?
		(double)s->size / (res->time_us * 1000.0) : 0.0;
	res->busbw = res->algbw * b->kind->factor(b->nranks);
	if (!b->opts->check)
		return TERN_SUCCESS;
	/* one more run from fresh inputs: the timed ones may have compounded
	 * an in-place result */
	coll_prepare(b, s, in_place);
	status = coll_iterate(b, s, in_place, 1, 0);
	for (int r = b->first; r < b->end && status == TERN_SUCCESS; r++)
		res->wrong += coll_count_wrong(b, s, r, in_place);
	if (status == TERN_SUCCESS)
		status = coll_agree(b, &res->wrong, TERN_SUM);
	return status;
}

#define COLL_PLACEMENT(g) \
	BENCH_HEADING(g, "time", "(us)", 10), \
	BENCH_HEADING(g, "algbw", "(GB/s)", 6), \
	BENCH_HEADING(g, "busbw", "(GB/s)", 6), \
	BENCH_HEADING(g, "#wrong", "", 6)

/* The table's columns; coll_print_row() prints the rows to match. */
static const struct bench_column coll_columns[] = {
	BENCH_HEADING(NULL, "size", "(B)", 10),
	BENCH_HEADING(NULL, "count", "(elements)", 12),
	BENCH_HEADING(NULL, "type", "", 8),
	BENCH_HEADING(NULL, "redop", "", 6),
	BENCH_HEADING(NULL, "root", "", 6),
	COLL_PLACEMENT("out-of-place"), COLL_PLACEMENT("in-place"),
	BENCH_HEADING("fabric-eff", "busiest", "(B/iter)", 12),
	BENCH_HEADING("fabric-eff", "ratio", "", 5),
	/* out of place: the host's clock, and the fabric's bound */
	BENCH_HEADING("wall", "time", "(us)", 10),
	BENCH_HEADING("wall", "busbw", "(GB/s)", 6),
	BENCH_HEADING("bound", "time", "(us)", 10),
	BENCH_HEADING("bound", "ratio", "", 5),
	BENCH_HEADING(NULL, "algo", "", 8),
};

#define COLL_COLUMNS (sizeof(coll_columns) / sizeof(coll_columns[0]))

/* The topology's least bytes on the busiest link, per iteration. */
static double coll_lower_bound(const struct coll_bench *b, uint64_t size)
{
	return (double)size * b->kind->factor(b->nranks) / (double)b->links;
}

/* The host's time, and the fabric's bound with the time's share of it. */
static void coll_print_wall_and_bound(const struct coll_bench *b,
				      const struct coll_shape *s,
				      const struct coll_result *oop)
{
	double wall_busbw = 0, bound_us = 0;

	if (!oop->run) {
		printf("  %10s  %6s  %10s  %5s", "N/A", "N/A", "N/A", "N/A");
		return;
	}
	if (oop->wall_us > 0)
		wall_busbw = (double)s->size / (oop->wall_us * 1000.0) *
			     b->kind->factor(b->nranks);
	printf("  %10.2f  %6.2f", oop->wall_us, wall_busbw);
	if (tern_comm_lower_bound(b->ranks[b->first].comm, b->kind->coll,
				  s->size, (int)b->opts->root, &bound_us) ||
	    bound_us <= 0 || oop->time_us <= 0)
		printf("  %10s  %5s", "n/a", "n/a");
	else
		printf("  %10.2f  %5.2f", bound_us, bound_us / oop->time_us);
}

/* The algorithm libtern's tuner runs at this size. */
static void coll_print_algo(const struct coll_bench *b,
			    const struct coll_shape *s)
{
	tern_algo_estimate_t chosen;
	uint32_t count = 0;

	if (tern_comm_algorithms(b->ranks[b->first].comm, b->kind->coll,
				 s->size, &chosen, 1, &count) || !count)
		printf("  %8s", "n/a");
	else
		printf("  %8s", chosen.name);
}

static void coll_print_row(const struct coll_bench *b,
			   const struct coll_shape *s,
			   const struct coll_result res[2])
{
	const struct coll_result *oop = &res[0];
	double bound;

	printf("%12llu  %12llu  %8s  %6s  %6d",
	       (unsigned long long)s->size, (unsigned long long)s->count,
	       bench_dtype_name(b->opts->dtype),
	       b->kind->reduces ? bench_redop_name(b->opts->op) : "none",
	       b->kind->rooted ? (int)b->opts->root : -1);
	for (int g = 0; g < 2; g++) {
		char wrong[24];

		if (!res[g].run) {
			printf("  %10s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
			continue;
		}
		if (b->opts->check)
			snprintf(wrong, sizeof(wrong), "%llu",
				 (unsigned long long)res[g].wrong);
		else
			snprintf(wrong, sizeof(wrong), "N/A");
		printf("  %10.2f  %6.2f  %6.2f  %6s", res[g].time_us,
		       res[g].algbw, res[g].busbw, wrong);
	}
	bound = b->links ? coll_lower_bound(b, s->size) : 0;
	if (!b->links)
		printf("  %12s  %5s", "n/a", "n/a");
	else if (bound <= 0 || oop->busiest == 0)
		printf("  %12llu  %5s", (unsigned long long)oop->busiest,
		       "n/a");
	else
		printf("  %12llu  %5.2f", (unsigned long long)oop->busiest,
		       bound / (double)oop->busiest);
	coll_print_wall_and_bound(b, s, oop);
	coll_print_algo(b, s);
	printf("\n");
	fflush(stdout);	/* a row at a time for whoever is watching */
}

static void coll_print_header(const struct coll_bench *b)
{
	const struct bench_options *sweep = &b->opts->sweep;

	printf("# tern-bench %s: minBytes %llu maxBytes %llu step: %llu(factor) warmup iters: %ld iters: %ld validation: %ld\n",
	       b->kind->name, (unsigned long long)sweep->min_bytes,
	       (unsigned long long)sweep->max_bytes,
	       (unsigned long long)sweep->factor, sweep->warmup_iters,
	       sweep->iters, b->opts->check);
	printf("#\n");
	printf("# Backend: %s\n", cli_backend_description(b->backend));
	if (b->launch)
		printf("# Ranks: %d, one per process (%s), type %s", b->nranks,
		       b->launch->launcher, bench_dtype_name(b->opts->dtype));
	else
		printf("# Ranks: %d, one per device, type %s", b->nranks,
		       bench_dtype_name(b->opts->dtype));
	if (b->kind->reduces)
		printf(", op %s", bench_redop_name(b->opts->op));
	if (b->kind->rooted)
		printf(", root %ld", b->opts->root);
	printf("\n");
	for (int r = b->first; r < b->end; r++)
		printf("#  Rank %2d: device %2d, node %s, fabric id %d, fabric ports %u\n",
		       r, b->ranks[r].props.index, b->ranks[r].props.node,
		       b->ranks[r].props.fabric_id,
		       b->ranks[r].props.fabric_port_count);
	if (b->links)
		printf("# fabric-eff: lower bound %s * S / %u links per rank, over the busiest link's tx bytes per iteration out of place\n",
		       b->kind->factor == coll_factor_all_reduce ? "2(n-1)/n" :
		       b->kind->factor == coll_factor_pieces ? "(n-1)/n" : "1",
		       b->links);
	else
		printf("# fabric-eff: n/a (no fabric links up)\n");
	printf("# time: %s; wall: the host's clock, out of place\n",
	       b->modelled ?
	       "modelled device time (the simulator's timing model, TERN_SIM_CLOCK=model)" :
	       "the engines' clock");
	printf("# bound: the fabric's alpha-beta lower bound (tern_comm_lower_bound), ratio bound / time out of place\n");
	printf("# algo: what libtern's tuner runs (tern_comm_algorithms; TERN_ALGO forces one)\n");
	printf("#\n");
}

/* Runs the sweep; returns the exit status. */
static int coll_sweep(struct coll_bench *b)
{
	const struct bench_options *sweep = &b->opts->sweep;
	double busbw_sum = 0;
	uint64_t wrong = 0, first_wrong = 0;
	unsigned int measured = 0;

	bench_table_header(coll_columns, COLL_COLUMNS);
	for (uint64_t size = sweep->min_bytes; size;
	     size = bench_next_size(sweep, size)) {
		struct coll_shape s = coll_shape(b, size);
		struct coll_result res[2];

		for (int g = 0; g < 2; g++) {
			tern_status_t status = coll_measure(b, &s, g, &res[g]);
			char what[96];

			if (status != TERN_SUCCESS) {
				snprintf(what, sizeof(what), "%s %s of %llu bytes",
					 g ? "in-place" : "out-of-place",
					 b->kind->name,
					 (unsigned long long)s.size);
				fflush(stdout);
				cli_report_error("tern-bench", what, status);
				return 1;
			}
			if (res[g].run) {
				busbw_sum += res[g].busbw;
				wrong += res[g].wrong;
				measured++;
			}
		}
		if (wrong && !first_wrong)
			first_wrong = s.size;
		coll_print_row(b, &s, res);
	}
	printf("# Out of bounds values : %llu %s\n", (unsigned long long)wrong,
	       wrong ? "FAILED" : "OK");
	printf("# Avg bus bandwidth    : %g\n",
	       measured ? busbw_sum / measured : 0.0);
	printf("#\n");
	if (wrong)
		bench_report_wrong(b->kind->name, wrong, first_wrong);
	return wrong ? 1 : 0;
}

/* Opens -g devices (all by default); returns 0 or the exit status. */
static int coll_open_devices(struct coll_bench *b, const char *prog)
{
	tern_status_t status;
	int count = 0, ret;

	ret = cli_count_devices(prog, &b->backend, &count);
	if (ret)
		return ret;
	if (b->opts->ndev > count || b->opts->ndev > COLL_FABRIC_MAX_RANKS) {
		fprintf(stderr,
			"%s: -g %ld: only %d device%s present, backend %s\n",
			prog, b->opts->ndev, count, count == 1 ? "" : "s",
			cli_backend_description(b->backend));
		return EXIT_USAGE;
	}
	b->nranks = b->opts->ndev ? (int)b->opts->ndev : count;
	if (b->nranks > COLL_FABRIC_MAX_RANKS)
		b->nranks = COLL_FABRIC_MAX_RANKS;
	b->first = 0;
	b->end = b->nranks;
	if (b->launch) {
		if (b->opts->ndev) {
			fprintf(stderr, "%s: -g %ld: under %s each process is one rank on one device\n",
				prog, b->opts->ndev, b->launch->launcher);
			return EXIT_USAGE;
		}
		if (b->launch->local_rank >= count) {
			fprintf(stderr, "%s: rank %d: local rank %d has no device; %d present, backend %s\n",
				prog, b->launch->rank, b->launch->local_rank,
				count, cli_backend_description(b->backend));
			return EXIT_USAGE;
		}
		b->nranks = b->launch->size;
		b->first = b->launch->rank;
		b->end = b->first + 1;
	}
	if (b->kind->rooted && b->opts->root >= b->nranks) {
		fprintf(stderr, "%s: -r %ld: no such rank; %d rank%s (0 to %d)\n",
			prog, b->opts->root, b->nranks,
			b->nranks == 1 ? "" : "s", b->nranks - 1);
		return EXIT_USAGE;
	}
	b->ranks = calloc((size_t)b->nranks, sizeof(*b->ranks));
	b->devices = calloc((size_t)b->nranks, sizeof(*b->devices));
	if (!b->ranks || !b->devices) {
		cli_report_error(prog, "starting", TERN_ERROR_OUT_OF_MEMORY);
		return 1;
	}
	for (int r = b->first; r < b->end; r++) {
		status = tern_device_open(b->launch ? b->launch->local_rank : r,
					  &b->ranks[r].device);
		if (status == TERN_SUCCESS)
			status = tern_device_get_properties(b->ranks[r].device,
							    &b->ranks[r].props);
		if (status != TERN_SUCCESS) {
			cli_report_error(prog, "opening the devices", status);
			return 1;
		}
		b->devices[r] = b->ranks[r].device;
		if (b->ranks[r].props.capabilities &
		    TERN_DEVICE_CAP_MODELLED_CLOCK)
			b->modelled = 1;
	}
	return 0;
}

/* Refuses sizes the devices cannot hold before allocating anything. */
static int coll_check_memory(struct coll_bench *b, const char *prog)
{
	uint64_t used = 0, total = 0, need = 2 * b->opts->sweep.max_bytes;
	char need_s[32], free_s[32];
	tern_status_t status;

	for (int r = b->first; r < b->end; r++) {
		status = tern_device_memory_usage(b->devices[r], &used, &total);
		if (status != TERN_SUCCESS) {
			cli_report_error(prog, "reading memory usage", status);
			return 1;
		}
		if (need <= total - used)
			continue;
		cli_format_bytes(need, need_s, sizeof(need_s));
		cli_format_bytes(total - used, free_s, sizeof(free_s));
		fprintf(stderr,
			"%s: -e needs %s of device memory per device (send and receive buffers of the largest size); device %d has %s free\n",
			prog, need_s, r, free_s);
		return EXIT_USAGE;
	}
	return 0;
}

static tern_status_t coll_setup(struct coll_bench *b,
				 const tern_unique_id_t *id)
{
	uint64_t bytes = b->opts->sweep.max_bytes;
	tern_comm_t *comms;
	tern_status_t status;

	comms = calloc((size_t)b->nranks, sizeof(*comms));
	if (!comms)
		return TERN_ERROR_OUT_OF_MEMORY;
	if (b->launch)
		status = tern_comm_init_rank(&comms[b->first], b->nranks, id,
					     b->first, b->devices[b->first]);
	else
		status = tern_comm_init_all(comms, b->nranks, b->devices);
	for (int r = b->first; r < b->end && status == TERN_SUCCESS; r++)
		b->ranks[r].comm = comms[r];
	free(comms);
	if (status == TERN_SUCCESS && b->launch)
		status = tern_buffer_alloc(b->devices[b->first],
					   TERN_MEMORY_DEVICE, sizeof(uint64_t),
					   &b->agree);
	if (status == TERN_SUCCESS && b->launch)
		status = tern_buffer_map(b->agree, &b->agree_ptr);
	for (int r = b->first; r < b->end && status == TERN_SUCCESS; r++) {
		struct coll_rank *rk = &b->ranks[r];

		status = tern_buffer_alloc(rk->device, TERN_MEMORY_DEVICE,
					   bytes, &rk->send);
		if (status == TERN_SUCCESS)
			status = tern_buffer_map(rk->send, &rk->send_ptr);
		if (status == TERN_SUCCESS)
			status = tern_buffer_alloc(rk->device,
						   TERN_MEMORY_DEVICE, bytes,
						   &rk->recv);
		if (status == TERN_SUCCESS)
			status = tern_buffer_map(rk->recv, &rk->recv_ptr);
		if (status == TERN_SUCCESS)
			status = tern_stream_create(rk->device, &rk->stream);
		if (status == TERN_SUCCESS)
			status = tern_event_create(rk->device, &rk->start);
		if (status == TERN_SUCCESS)
			status = tern_event_create(rk->device, &rk->end);
	}
	if (status == TERN_SUCCESS)
		status = coll_fabric_min_links(b->devices + b->first,
					       b->end - b->first, &b->links);
	if (status == TERN_SUCCESS) {
		uint64_t links = b->links;

		status = coll_agree(b, &links, TERN_MIN);
		b->links = (uint32_t)links;
	}
	return status;
}

/* Communicators first (they wait for their streams), then the devices. */
static void coll_teardown(struct coll_bench *b)
{
	for (int r = 0; b->ranks && r < b->nranks; r++)
		if (b->ranks[r].comm)
			tern_comm_destroy(b->ranks[r].comm);
	if (b->agree)
		tern_buffer_free(b->agree);
	for (int r = 0; b->ranks && r < b->nranks; r++)
		if (b->ranks[r].device)
			tern_device_close(b->ranks[r].device);
	free(b->ranks);
	free(b->devices);
}

int bench_coll_main(enum coll_id id, int argc, char **argv)
{
	const struct coll_kind *kind = &coll_kinds[id];
	struct bench_coll_options opts;
	struct coll_bench b = { 0 };
	struct bench_launch launch;
	tern_unique_id_t uid;
	char prog[64];
	tern_status_t status;
	bool data = true;
	int ret;

	switch (bench_parse_coll_options(argc, argv, &opts)) {
	case BENCH_PARSE_HELP:
		bench_print_coll_usage(kind->name, kind->summary);
		return 0;
	case BENCH_PARSE_USAGE:
		return EXIT_USAGE;
	case BENCH_PARSE_RUN:
		break;
	}
	snprintf(prog, sizeof(prog), "tern-bench %s", kind->name);
	if (tern_setting_on("TERN_SIM_DATA", &data)) {
		fprintf(stderr, "%s: %s\n", prog, tern_get_last_error());
		return EXIT_USAGE;
	}
	b.skip_data = !data;
	if (opts.check && b.skip_data) {
		fprintf(stderr, "%s: TERN_SIM_DATA=off moves no data, so there is no result to check: add -c 0\n",
			prog);
		return EXIT_USAGE;
	}
	/* On the simulator, time what the fabric would take, unless told. */
	setenv("TERN_SIM_CLOCK", "model", 0);
	b.kind = kind;
	b.opts = &opts;
	ret = bench_launch_detect(prog, &launch);
	if (ret == EXIT_USAGE)
		return ret;
	if (opts.sim_hosts && ret != 1) {
		fprintf(stderr, "%s: -H wants ranks from a launcher (mpirun, srun, torchrun)\n",
			prog);
		return EXIT_USAGE;
	}
	if (opts.sim_hosts &&
	    bench_launch_sim_hosts(prog, &launch, opts.sim_hosts))
		return EXIT_USAGE;
	if (ret == 1) {
		b.launch = &launch;
		/* Rank 0 speaks for the job, as nccl-tests' rank 0 does. */
		if (launch.rank != 0 && !freopen("/dev/null", "w", stdout))
			return 1;
	}
	ret = coll_open_devices(&b, prog);
	if (!ret && b.launch)
		ret = bench_launch_share_id(prog, &launch, &uid);
	if (!ret)
		ret = coll_check_memory(&b, prog);
	if (ret)
		goto out;
	b.data = (struct coll_data) {
		.dtype = opts.dtype, .reduces = kind->reduces,
		.op = opts.op, .nranks = b.nranks,
	};
	status = tern_dtype_size(opts.dtype, &b.data.elem_size);
	if (status == TERN_SUCCESS)
		status = coll_setup(&b, &uid);
	if (status != TERN_SUCCESS) {
		cli_report_error(prog, "setting up the communicators", status);
		ret = 1;
		goto out;
	}
	coll_print_header(&b);
	ret = coll_sweep(&b);
out:
	coll_teardown(&b);
	return ret;
}
