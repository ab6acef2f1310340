// SPDX-License-Identifier: MIT
/*
 * The runner of the row-kernel tests: y = kernel(x) on square matrices,
 * for each input type (and activation), each size. A row gives the
 * device's time against the scalar engines' bound, the host's time, and
 * a plain C loop's in the same run as the peer. Whole rows of y are
 * checked bit for bit against the reference, which rounds each result
 * into y's type as the device model does (tern_element_store()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pattern.h"
#include "rows.h"
#include "setup.h"
#include "table.h"
#include "tern_tile.h"

/* Whole rows are checked until they hold at least this many elements. */
#define ROWS_CHECKED_ELEMENTS	65536
/* The peer's results are within this share of the reference's. */
#define ROWS_PEER_TOLERANCE	0x1p-10

struct rows_bench {
	const struct rows_test *t;
	const struct compute_args *args;
	struct compute_device cd;
	tern_stream_t stream;
	tern_event_t start, end;
	tern_buffer_t x, y;
	void *x_bits, *y_bits;
	float *x_values, *peer_y;	/* host memory */
	float *expect;			/* a row's reference */
};

/* One row's figures, as the columns below print them. */
struct rows_row {
	uint64_t size, cores;
	const char *type, *op;
	double time_us, gelems;
	uint64_t wrong;
	double bound_us, bound_ratio;
	double wall_ms, wall_melems;
	double peer_ms, peer_melems;
	double ratio;
	uint64_t peer_wrong;	/* not a column: summed for the summary */
};

#define ROWS_COLUMN(g, n, u, w, type, p, field) \
	{ .group = (g), .name = (n), .unit = (u), .width = (w), \
	  .kind = BENCH_COLUMN_##type, .precision = (p), \
	  .offset = offsetof(struct rows_row, field) }

static const struct bench_column rows_columns[] = {
	ROWS_COLUMN(NULL, "size", "(R=C)", 7, UINT, 0, size),
	ROWS_COLUMN(NULL, "type", "", 5, TEXT, 0, type),
	ROWS_COLUMN(NULL, "op", "", 8, TEXT, 0, op),
	ROWS_COLUMN(NULL, "cores", "", 5, UINT, 0, cores),
	ROWS_COLUMN("device", "time", "(us)", 10, REAL, 2, time_us),
	ROWS_COLUMN("device", "Gelem/s", "", 7, REAL, 2, gelems),
	ROWS_COLUMN("device", "#wrong", "", 6, UINT, 0, wrong),
	ROWS_COLUMN("bound", "time", "(us)", 10, REAL, 2, bound_us),
	ROWS_COLUMN("bound", "ratio", "", 5, REAL, 3, bound_ratio),
	ROWS_COLUMN("wall", "time", "(ms)", 10, REAL, 2, wall_ms),
	ROWS_COLUMN("wall", "Melem/s", "", 7, REAL, 2, wall_melems),
	ROWS_COLUMN("peer: C loop", "time", "(ms)", 10, REAL, 2, peer_ms),
	ROWS_COLUMN("peer: C loop", "Melem/s", "", 7, REAL, 2, peer_melems),
	ROWS_COLUMN(NULL, "ratio", "", 6, REAL, 3, ratio),
};

#define ROWS_COLUMNS (sizeof(rows_columns) / sizeof(rows_columns[0]))

/* The cores the kernel deals its blocks of 128 rows to (libtern.rst). */
static uint32_t rows_cores(const struct rows_bench *b, uint32_t rows)
{
	uint32_t blocks = (rows + TERN_PARTITIONS - 1) / TERN_PARTITIONS;

	return blocks < b->cd.compute.cores ? blocks : b->cd.compute.cores;
}

/*
 * The least time the scalar engines take: the busiest core's blocks,
 * each the test's passes of an ACTIVATE over the row, F + 64 cycles
 * (Documentation/compute.rst's timing).
 */
static double rows_bound_us(const struct rows_bench *b, uint32_t rows,
			    uint32_t cols)
{
	uint32_t blocks = (rows + TERN_PARTITIONS - 1) / TERN_PARTITIONS;
	uint32_t cores = rows_cores(b, rows);
	uint64_t per_core = (blocks + cores - 1) / cores;
	double cycles = (double)per_core * b->t->passes * (cols + 64.0);

	return cycles / (double)b->cd.compute.core_clock_hz * 1e6;
}

static tern_status_t rows_enqueue(struct rows_bench *b, uint32_t side,
				  const struct compute_type *type,
				  tern_activation_t f, long count)
{
	tern_matrix_t x = tern_matrix(tern_ptr(b->x, 0), type->dtype, side,
				      side);
	tern_matrix_t y = tern_matrix(tern_ptr(b->y, 0), type->dtype, side,
				      side);
	tern_status_t status = TERN_SUCCESS;

	for (long i = 0; i < count && status == TERN_SUCCESS; i++)
		status = b->t->enqueue(&x, &y, f, b->stream);
	return status;
}

/* Warm-up, then the timed calls between two events; y is left for checking. */
static tern_status_t rows_time(struct rows_bench *b, uint32_t side,
			       const struct compute_type *type,
			       tern_activation_t f, struct rows_row *row)
{
	long iters = b->args->iters;
	tern_status_t status;
	double start = 0;
	float ms = 0;

	status = rows_enqueue(b, side, type, f, b->args->warmup_iters);
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(b->stream);
	if (status == TERN_SUCCESS) {
		start = compute_now_us();
		status = tern_event_record(b->start, b->stream);
	}
	if (status == TERN_SUCCESS)
		status = rows_enqueue(b, side, type, f, iters);
	if (status == TERN_SUCCESS)
		status = tern_event_record(b->end, b->stream);
	/* Synchronize even after a failed enqueue: buffers are reused next. */
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(b->stream);
	else
		tern_stream_synchronize(b->stream);
	if (status == TERN_SUCCESS) {
		row->wall_ms = (compute_now_us() - start) / 1000.0 /
			       (double)iters;
		status = tern_event_elapsed_time(&ms, b->start, b->end);
	}
	row->time_us = (double)ms * 1000.0 / (double)iters;
	return status;
}

/* Row @r's elements: the device's against the reference, the peer's near it. */
static void rows_check_row(struct rows_bench *b, uint32_t side, uint32_t r,
			   const struct compute_type *type, tern_activation_t f,
			   struct rows_row *row)
{
	const uint8_t *got = (const uint8_t *)b->y_bits +
			     (size_t)r * side * type->bytes;
	const float *peer = b->peer_y + (size_t)r * side;

	b->t->reference(b->x_values + (size_t)r * side, side, f, b->expect);
	for (uint32_t c = 0; c < side; c++) {
		uint8_t want[4];
		uint32_t bits;
		double e = b->expect[c], p = peer[c];

		memcpy(&bits, &b->expect[c], 4);
		tern_element_store(want, type->dtype, bits);
		row->wrong += memcmp(got + (size_t)c * type->bytes, want,
				     type->bytes) != 0;
		if (!(p == e || (isnan(p) && isnan(e)) ||
		      fabs(p - e) <= ldexp(fabs(e), -10) + 1e-30))
			row->peer_wrong++;
	}
}

/*
 * Every row when the matrix has at most ROWS_CHECKED_ELEMENTS, else the
 * first, the last and random others until they hold that many.
 */
static void rows_check(struct rows_bench *b, uint32_t side,
		       const struct compute_type *type, tern_activation_t f,
		       struct rows_row *row)
{
	uint64_t elements = (uint64_t)side * side;
	uint32_t count;

	if (elements <= ROWS_CHECKED_ELEMENTS) {
		for (uint32_t r = 0; r < side; r++)
			rows_check_row(b, side, r, type, f, row);
		return;
	}
	count = (ROWS_CHECKED_ELEMENTS + side - 1) / side;
	count = count < 2 ? 2 : count;
	rows_check_row(b, side, 0, type, f, row);
	rows_check_row(b, side, side - 1, type, f, row);
	for (uint32_t i = 2; i < count; i++)
		rows_check_row(b, side,
			       (uint32_t)(pattern_word(pattern_seed(side, 0x70),
						       i) % side),
			       type, f, row);
}

/* One row of the table: fresh x, the device's calls, the check, the peer. */
static tern_status_t rows_measure(struct rows_bench *b, uint32_t side,
				  const struct compute_type *type,
				  const struct compute_function *f,
				  struct rows_row *row)
{
	double elements = (double)side * side, start;
	tern_status_t status;

	compute_fill(type, b->x_bits, b->x_values, (size_t)side * side,
		     pattern_seed(side, 2 * type->dtype + 64 * f->function),
		     COMPUTE_ROWS_TOP, f->positive);
	/* all ones: a NaN the device never writes (its NaNs are quiet) */
	memset(b->y_bits, 0xff, (size_t)side * side * type->bytes);
	status = rows_time(b, side, type, f->function, row);
	if (status != TERN_SUCCESS)
		return status;

	for (long i = 0; i < b->args->warmup_iters; i++)
		b->t->peer(b->x_values, b->peer_y, side, side, f->function);
	start = compute_now_us();
	for (long i = 0; i < b->args->iters; i++)
		b->t->peer(b->x_values, b->peer_y, side, side, f->function);
	row->peer_ms = (compute_now_us() - start) / 1000.0 /
		       (double)b->args->iters;
	rows_check(b, side, type, f->function, row);

	row->size = side;
	row->type = type->name;
	row->op = b->t->op ? b->t->op : f->name;
	row->cores = rows_cores(b, side);
	row->gelems = row->time_us > 0 ? elements / row->time_us / 1e3 : 0;
	row->bound_us = rows_bound_us(b, side, side);
	row->bound_ratio = b->cd.modelled && row->time_us > 0 ?
			   row->bound_us / row->time_us : NAN;
	row->wall_melems = row->wall_ms > 0 ? elements / row->wall_ms / 1e3 : 0;
	row->peer_melems = row->peer_ms > 0 ? elements / row->peer_ms / 1e3 : 0;
	row->ratio = row->peer_melems > 0 ?
		     row->wall_melems / row->peer_melems : NAN;
	return TERN_SUCCESS;
}

static void rows_print_header(const struct rows_bench *b)
{
	const struct compute_args *args = b->args;
	const char *name = b->t->test.name;

	printf("# tern-bench %s: sizes", name);
	for (size_t i = 0; i < args->size_count; i++)
		printf(" %u", args->sizes[i]);
	printf(" types");
	for (size_t i = 0; i < args->type_count; i++)
		printf(" %s", args->types[i]->name);
	if (!b->t->op) {
		printf(" functions");
		for (size_t i = 0; i < args->function_count; i++)
			printf(" %s", args->functions[i]->name);
	}
	printf(" warmup iters: %ld iters: %ld validation: 1\n",
	       args->warmup_iters, args->iters);
	bench_print_device(&b->cd.dev);
	printf("# Compute: %u cores at %llu Hz; blocks of 128 rows dealt to at most as many cores\n",
	       b->cd.compute.cores,
	       (unsigned long long)b->cd.compute.core_clock_hz);
	printf("# device: %s per call, Gelem/s of x\n", b->cd.modelled ?
	       "modelled device time (the simulator's timing model, TERN_SIM_CLOCK=model)" :
	       "the engines' clock (bound ratio n/a: not the timing model's)");
	printf("# bound: %u ACTIVATE%s of F + 64 cycles a block on the busiest core's scalar engine; ratio bound / time\n",
	       b->t->passes, b->t->passes == 1 ? "" : "s");
	printf("# wall: the host's clock around the calls and the wait; ratio: wall Melem/s over the peer's\n");
	printf("# peer: a plain C loop of libm float functions on the host, within 2^-10 of the reference\n");
	printf("# #wrong: whole rows of y bit for bit against libtern.rst's roundings, every row up to %d elements, else rows holding %d\n",
	       ROWS_CHECKED_ELEMENTS, ROWS_CHECKED_ELEMENTS);
	printf("#\n");
}

/* What the rows add up to, for the summary lines. */
struct rows_tally {
	uint64_t wrong, peer_wrong;
	struct rows_row first_wrong, first_peer_wrong;
	double ratio_sum;
	unsigned int rows;
};

static void rows_report_wrong(const char *name, const char *what,
			      uint64_t wrong, const struct rows_row *first)
{
	fflush(stdout);
	fprintf(stderr,
		"tern-bench %s: %llu value%s of %s differ%s from the reference, the first in the row of %s %s %llu\n",
		name, (unsigned long long)wrong, wrong == 1 ? "" : "s", what,
		wrong == 1 ? "s" : "", first->type, first->op,
		(unsigned long long)first->size);
}

/* Measures and prints one row; returns 0, or 1 when the device failed. */
static int rows_one(struct rows_bench *b, uint32_t side,
		    const struct compute_type *type,
		    const struct compute_function *f, struct rows_tally *tally)
{
	struct rows_row row = { 0 };
	tern_status_t status;
	char prog[64], what[96];

	status = rows_measure(b, side, type, f, &row);
	if (status != TERN_SUCCESS) {
		snprintf(prog, sizeof(prog), "tern-bench %s", b->t->test.name);
		snprintf(what, sizeof(what), "%s %s of side %u", type->name,
			 b->t->op ? b->t->op : f->name, side);
		fflush(stdout);
		cli_report_error(prog, what, status);
		return 1;
	}
	bench_table_row(rows_columns, ROWS_COLUMNS, &row);
	if (row.wrong && !tally->wrong)
		tally->first_wrong = row;
	if (row.peer_wrong && !tally->peer_wrong)
		tally->first_peer_wrong = row;
	tally->wrong += row.wrong;
	tally->peer_wrong += row.peer_wrong;
	tally->ratio_sum += isnan(row.ratio) ? 0 : row.ratio;
	tally->rows++;
	return 0;
}

/* Every row, by type, function and size; returns the exit status. */
static int rows_sweep(struct rows_bench *b)
{
	const struct compute_args *args = b->args;
	size_t functions = b->t->op ? 1 : args->function_count;
	struct rows_tally tally = { 0 };

	bench_table_header(rows_columns, ROWS_COLUMNS);
	for (size_t t = 0; t < args->type_count; t++)
		for (size_t f = 0; f < functions; f++)
			for (size_t i = 0; i < args->size_count; i++)
				if (rows_one(b, args->sizes[i], args->types[t],
					     args->functions[f], &tally))
					return 1;
	printf("# Out of bounds values : %llu %s\n",
	       (unsigned long long)tally.wrong, tally.wrong ? "FAILED" : "OK");
	printf("# Peer values past 2^-10 of the reference : %llu %s\n",
	       (unsigned long long)tally.peer_wrong,
	       tally.peer_wrong ? "FAILED" : "OK");
	printf("# Avg wall ratio to the C loop: %.3f (same shapes, same run)\n",
	       tally.rows ? tally.ratio_sum / tally.rows : 0.0);
	printf("#\n");
	if (tally.wrong)
		rows_report_wrong(b->t->test.name, "the device's y",
				  tally.wrong, &tally.first_wrong);
	if (tally.peer_wrong)
		rows_report_wrong(b->t->test.name, "the C loop's y",
				  tally.peer_wrong, &tally.first_peer_wrong);
	return tally.wrong || tally.peer_wrong ? 1 : 0;
}

/* Everything on the device is freed by tern_device_close(). */
static tern_status_t rows_setup(struct rows_bench *b)
{
	uint64_t elements;
	tern_status_t status;
	uint32_t side;
	size_t bytes;

	compute_largest(b->args, &side, &bytes);
	elements = (uint64_t)side * side;
	status = compute_alloc(&b->cd, elements * bytes, &b->x, &b->x_bits);
	if (status == TERN_SUCCESS)
		status = compute_alloc(&b->cd, elements * bytes, &b->y,
				       &b->y_bits);
	if (status == TERN_SUCCESS)
		status = tern_stream_create(b->cd.dev.device, &b->stream);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b->cd.dev.device, &b->start);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b->cd.dev.device, &b->end);
	if (status != TERN_SUCCESS)
		return status;
	b->x_values = malloc(elements * sizeof(float));
	b->peer_y = malloc(elements * sizeof(float));
	b->expect = malloc((size_t)side * sizeof(float));
	return b->x_values && b->peer_y && b->expect ? TERN_SUCCESS :
	       TERN_ERROR_OUT_OF_MEMORY;
}

int rows_main(const struct rows_test *t, int argc, char **argv)
{
	struct compute_args args;
	struct rows_bench b = { .t = t, .args = &args };
	char prog[64];
	tern_status_t status;
	uint32_t side;
	size_t bytes;
	int ret;

	switch (compute_parse_args(&t->test, argc, argv, &args)) {
	case BENCH_PARSE_HELP:
		compute_print_usage(&t->test);
		return 0;
	case BENCH_PARSE_USAGE:
		return EXIT_USAGE;
	case BENCH_PARSE_RUN:
		break;
	}
	ret = compute_open(&t->test, &args, &b.cd);
	if (ret)
		return ret;
	compute_largest(&args, &side, &bytes);
	ret = compute_check_memory(&t->test, &b.cd,
				   2 * (uint64_t)side * side * bytes, side,
				   "x and y of the widest type");
	if (ret)
		goto close;
	status = rows_setup(&b);
	if (status != TERN_SUCCESS) {
		snprintf(prog, sizeof(prog), "tern-bench %s", t->test.name);
		cli_report_error(prog, "allocating buffers", status);
		ret = 1;
		goto close;
	}
	rows_print_header(&b);
	ret = rows_sweep(&b);
close:
	free(b.x_values);
	free(b.peer_y);
	free(b.expect);
	tern_device_close(b.cd.dev.device);
	return ret;
}
