// SPDX-License-Identifier: MIT
/*
 * tern-bench gemm: C = A . B by tern_gemm() over a sweep of square shapes,
 * input types and core counts. Each row gives the device's time (the
 * timing model's on the simulator) against the tensor engines' peak, the
 * host's time for the same calls, and OpenBLAS's sgemm of the same values
 * in the same run as the peer; every row's C is checked bit for bit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "bench.h"
#include "blas.h"
#include "cli.h"
#include "pattern.h"
#include "reference.h"
#include "setup.h"
#include "table.h"
#include "tern_compute.h"

static const struct compute_test gemm_test = {
	.name = "gemm",
	.summary = "C = A.B by tern_gemm on a device's cores: device time against the tensor\n"
		   "engines' peak, and the host's time against OpenBLAS's sgemm.",
	.takes = COMPUTE_TAKES_CORES | COMPUTE_TAKES_TRANSPOSE,
	.fp8 = true,
};

struct gemm_bench {
	const struct compute_args *args;
	struct compute_device cd;
	tern_stream_t stream;
	tern_event_t start, end;
	tern_buffer_t a, b, c;
	void *a_bits, *b_bits;
	float *c_device;
	float *a_values, *b_values, *c_peer;	/* host memory */
	struct gemm_sample *samples;
};

/* One row's figures, as the columns below print them. */
struct gemm_row {
	uint64_t size, cores;
	const char *type;
	double time_us, tflops, peak;
	uint64_t wrong;
	double wall_ms, wall_gflops;
	double blas_ms, blas_gflops;
	double ratio;
	uint64_t blas_wrong;	/* not a column: summed for the summary */
};

#define GEMM_COLUMN(g, n, u, w, type, p, field) \
	{ .group = (g), .name = (n), .unit = (u), .width = (w), \
	  .kind = BENCH_COLUMN_##type, .precision = (p), \
	  .offset = offsetof(struct gemm_row, field) }

static const struct bench_column gemm_columns[] = {
	GEMM_COLUMN(NULL, "size", "(M=N=K)", 7, UINT, 0, size),
	GEMM_COLUMN(NULL, "type", "", 7, TEXT, 0, type),
	GEMM_COLUMN(NULL, "cores", "", 5, UINT, 0, cores),
	GEMM_COLUMN("device", "time", "(us)", 10, REAL, 2, time_us),
	GEMM_COLUMN("device", "TFLOPS", "", 7, REAL, 2, tflops),
	GEMM_COLUMN("device", "peak", "(frac)", 6, REAL, 3, peak),
	GEMM_COLUMN("device", "#wrong", "", 6, UINT, 0, wrong),
	GEMM_COLUMN("wall", "time", "(ms)", 10, REAL, 2, wall_ms),
	GEMM_COLUMN("wall", "GFLOPS", "", 7, REAL, 2, wall_gflops),
	GEMM_COLUMN("peer: OpenBLAS", "time", "(ms)", 10, REAL, 2, blas_ms),
	GEMM_COLUMN("peer: OpenBLAS", "GFLOPS", "", 7, REAL, 2, blas_gflops),
	GEMM_COLUMN(NULL, "ratio", "", 6, REAL, 3, ratio),
};

#define GEMM_COLUMNS (sizeof(gemm_columns) / sizeof(gemm_columns[0]))

/*
 * A core's peak in FLOPS for @dtype, as Documentation/compute.rst times
 * MATMUL: the 128 x 128 array does 128 x 128 multiply-adds a cycle, a
 * quarter of that with a float32 input.
 */
static double gemm_peak_per_core(const struct gemm_bench *b, tern_dtype_t dtype)
{
	double peak = 2.0 * b->cd.compute.partitions * TERN_MATMUL_MAX_M *
		      (double)b->cd.compute.core_clock_hz;

	return dtype == TERN_FLOAT32 ? peak / 4 : peak;
}

static tern_status_t gemm_enqueue(struct gemm_bench *b,
				  const struct gemm_shape *s,
				  const struct compute_type *type,
				  uint32_t cores, long count)
{
	tern_matrix_t a = tern_matrix(tern_ptr(b->a, 0), type->dtype,
				      s->transpose_a ? s->k : s->m,
				      s->transpose_a ? s->m : s->k);
	tern_matrix_t bm = tern_matrix(tern_ptr(b->b, 0), type->dtype,
				       s->transpose_b ? s->n : s->k,
				       s->transpose_b ? s->k : s->n);
	tern_matrix_t c = tern_matrix(tern_ptr(b->c, 0), TERN_FLOAT32, s->m,
				      s->n);
	tern_gemm_options_t options;
	tern_status_t status = TERN_SUCCESS;

	tern_gemm_options_init(&options);
	options.transpose_a = s->transpose_a;
	options.transpose_b = s->transpose_b;
	options.cores = cores;
	for (long i = 0; i < count && status == TERN_SUCCESS; i++)
		status = tern_gemm(&a, &bm, &c, &options, b->stream);
	return status;
}

/* Warm-up, then the timed calls between two events; C is left for checking. */
static tern_status_t gemm_time(struct gemm_bench *b, const struct gemm_shape *s,
			       const struct compute_type *type, uint32_t cores,
			       struct gemm_row *row)
{
	long iters = b->args->iters;
	tern_status_t status;
	double start = 0;
	float ms = 0;

	status = gemm_enqueue(b, s, type, cores, b->args->warmup_iters);
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(b->stream);
	if (status == TERN_SUCCESS) {
		start = compute_now_us();
		status = tern_event_record(b->start, b->stream);
	}
	if (status == TERN_SUCCESS)
		status = gemm_enqueue(b, s, type, cores, iters);
	if (status == TERN_SUCCESS)
		status = tern_event_record(b->end, b->stream);
	/* Synchronize even after a failed enqueue: buffers are reused next. */
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(b->stream);
	else
		tern_stream_synchronize(b->stream);
	if (status == TERN_SUCCESS) {
		row->wall_ms = (compute_now_us() - start) / 1000.0 / (double)iters;
		status = tern_event_elapsed_time(&ms, b->start, b->end);
	}
	row->time_us = (double)ms * 1000.0 / (double)iters;
	return status;
}

/* One row: fresh inputs, the device's calls, the check, the peer. */
static tern_status_t gemm_measure(struct gemm_bench *b, uint32_t side,
				  const struct compute_type *type,
				  uint32_t cores, struct gemm_row *row)
{
	struct gemm_shape s = {
		.m = side, .n = side, .k = side,
		.transpose_a = b->args->transpose_a,
		.transpose_b = b->args->transpose_b,
	};
	double flops = 2.0 * s.m * s.n * s.k;
	struct blas_result blas;
	tern_status_t status;
	size_t count;

	compute_fill(type, b->a_bits, b->a_values, (size_t)s.m * s.k,
		     pattern_seed(side, 2 * type->dtype), COMPUTE_GEMM_TOP, false);
	compute_fill(type, b->b_bits, b->b_values, (size_t)s.k * s.n,
		     pattern_seed(side, 2 * type->dtype + 1), COMPUTE_GEMM_TOP,
		     false);
	/* all ones: a NaN the device never writes (its NaN is 0x7fc00000) */
	memset(b->c_device, 0xff, (size_t)s.m * s.n * sizeof(float));
	status = gemm_time(b, &s, type, cores, row);
	if (status != TERN_SUCCESS)
		return status;

	count = gemm_choose_samples(&s, pattern_seed(side, 0x9e3), b->samples);
	gemm_reference(&s, b->a_values, b->b_values, b->samples, count);
	row->wrong = gemm_count_wrong(&s, b->c_device, b->samples, count);
	blas_run(&s, b->a_values, b->b_values, b->c_peer,
		 b->args->warmup_iters, b->args->iters, b->samples, count,
		 &blas);

	row->size = side;
	row->type = type->name;
	row->cores = cores;
	row->tflops = row->time_us > 0 ? flops / row->time_us / 1e6 : 0;
	row->peak = b->cd.modelled ? row->tflops * 1e12 /
		    (gemm_peak_per_core(b, type->dtype) * cores) : NAN;
	row->wall_gflops = row->wall_ms > 0 ? flops / row->wall_ms / 1e6 : 0;
	row->blas_ms = blas.time_us / 1000.0;
	row->blas_gflops = blas.time_us > 0 ? flops / blas.time_us / 1e3 : 0;
	row->ratio = row->blas_gflops > 0 ?
		     row->wall_gflops / row->blas_gflops : NAN;
	row->blas_wrong = blas.wrong;
	return TERN_SUCCESS;
}

static uint32_t gemm_cores(const struct gemm_bench *b, size_t i)
{
	return b->args->cores[i] ? b->args->cores[i] : b->cd.compute.cores;
}

static void gemm_print_header(const struct gemm_bench *b)
{
	const struct compute_args *args = b->args;
	char sbuf[32], psum[32];

	printf("# tern-bench gemm: sizes");
	for (size_t i = 0; i < args->size_count; i++)
		printf(" %u", args->sizes[i]);
	printf(" types");
	for (size_t i = 0; i < args->type_count; i++)
		printf(" %s", args->types[i]->name);
	printf(" cores");
	for (size_t i = 0; i < args->core_count; i++)
		printf(" %u", gemm_cores(b, i));
	printf(" transpose %c%c warmup iters: %ld iters: %ld validation: 1\n",
	       args->transpose_a ? 't' : 'n', args->transpose_b ? 't' : 'n',
	       args->warmup_iters, args->iters);
	bench_print_device(&b->cd.dev);
	cli_format_bytes(b->cd.compute.sbuf_partition_bytes, sbuf, sizeof(sbuf));
	cli_format_bytes(b->cd.compute.psum_partition_bytes, psum, sizeof(psum));
	printf("# Compute: %u cores at %llu Hz, SBUF %s and PSUM %s a partition; a core's peak %.2f TFLOPS (fp32 %.2f)\n",
	       b->cd.compute.cores,
	       (unsigned long long)b->cd.compute.core_clock_hz, sbuf, psum,
	       gemm_peak_per_core(b, TERN_BFLOAT16) / 1e12,
	       gemm_peak_per_core(b, TERN_FLOAT32) / 1e12);
	printf("# device: %s per call, TFLOPS over the peak of the cores asked for\n",
	       b->cd.modelled ?
	       "modelled device time (the simulator's timing model, TERN_SIM_CLOCK=model)" :
	       "the engines' clock (peak n/a: not the timing model's)");
	printf("# wall: the host's clock around the calls and the wait; ratio: wall GFLOPS over OpenBLAS's\n");
	printf("# peer: cblas_sgemm of the same values in float32, %s\n",
	       blas_description());
	printf("# #wrong: C bit for bit against fused multiply-adds in K order, every element up to %d, else %d\n",
	       GEMM_CHECK_ALL, GEMM_SAMPLES);
	printf("#\n");
}

/* Says which row first went wrong, so that exit status 1 never comes alone. */
static void gemm_report_wrong(const char *what, uint64_t wrong,
			      const struct gemm_row *first)
{
	fflush(stdout);
	fprintf(stderr,
		"tern-bench gemm: %llu value%s of %s differ%s from the reference, the first in the row of %s %llu on %llu core%s\n",
		(unsigned long long)wrong, wrong == 1 ? "" : "s", what,
		wrong == 1 ? "s" : "", first->type,
		(unsigned long long)first->size,
		(unsigned long long)first->cores, first->cores == 1 ? "" : "s");
}

/* What the rows add up to, for the summary lines. */
struct gemm_tally {
	uint64_t wrong, blas_wrong;
	struct gemm_row first_wrong, first_blas_wrong;
	double ratio_sum;
	unsigned int rows;
};

/* Measures and prints one row; returns 0, or 1 when the device failed. */
static int gemm_row(struct gemm_bench *b, uint32_t side,
		    const struct compute_type *type, uint32_t cores,
		    struct gemm_tally *tally)
{
	struct gemm_row row = { 0 };
	tern_status_t status;
	char what[96];

	status = gemm_measure(b, side, type, cores, &row);
	if (status != TERN_SUCCESS) {
		snprintf(what, sizeof(what), "%s gemm of side %u on %u cores",
			 type->name, side, cores);
		fflush(stdout);
		cli_report_error("tern-bench gemm", what, status);
		return 1;
	}
	bench_table_row(gemm_columns, GEMM_COLUMNS, &row);
	if (row.wrong && !tally->wrong)
		tally->first_wrong = row;
	if (row.blas_wrong && !tally->blas_wrong)
		tally->first_blas_wrong = row;
	tally->wrong += row.wrong;
	tally->blas_wrong += row.blas_wrong;
	tally->ratio_sum += isnan(row.ratio) ? 0 : row.ratio;
	tally->rows++;
	return 0;
}

/* Every row, by type, core count and size; returns the exit status. */
static int gemm_sweep(struct gemm_bench *b)
{
	const struct compute_args *args = b->args;
	struct gemm_tally tally = { 0 };

	bench_table_header(gemm_columns, GEMM_COLUMNS);
	for (size_t t = 0; t < args->type_count; t++)
		for (size_t c = 0; c < args->core_count; c++)
			for (size_t i = 0; i < args->size_count; i++)
				if (gemm_row(b, args->sizes[i], args->types[t],
					     gemm_cores(b, c), &tally))
					return 1;
	printf("# Out of bounds values : %llu %s\n",
	       (unsigned long long)tally.wrong, tally.wrong ? "FAILED" : "OK");
	printf("# Peer values past float32's error bound : %llu %s\n",
	       (unsigned long long)tally.blas_wrong,
	       tally.blas_wrong ? "FAILED" : "OK");
	printf("# Avg wall ratio to OpenBLAS: %.3f (same shapes, same run)\n",
	       tally.rows ? tally.ratio_sum / tally.rows : 0.0);
	printf("#\n");
	if (tally.wrong)
		gemm_report_wrong("the device's C", tally.wrong,
				  &tally.first_wrong);
	if (tally.blas_wrong)
		gemm_report_wrong("OpenBLAS's C", tally.blas_wrong,
				  &tally.first_blas_wrong);
	return tally.wrong || tally.blas_wrong ? 1 : 0;
}

/* The device must have as many cores as asked for. */
static int gemm_check_cores(struct gemm_bench *b)
{
	for (size_t i = 0; i < b->args->core_count; i++) {
		if (b->args->cores[i] <= b->cd.compute.cores)
			continue;
		fprintf(stderr,
			"tern-bench gemm: --cores %u: device %d has %u core%s\n",
			b->args->cores[i], b->cd.dev.props.index,
			b->cd.compute.cores, b->cd.compute.cores == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	return 0;
}

/* Everything on the device is freed by tern_device_close(). */
static tern_status_t gemm_setup(struct gemm_bench *b)
{
	uint64_t elements;
	tern_status_t status;
	void *c_ptr = NULL;
	uint32_t side;
	size_t bytes;

	compute_largest(b->args, &side, &bytes);
	elements = (uint64_t)side * side;
	status = compute_alloc(&b->cd, elements * bytes, &b->a, &b->a_bits);
	if (status == TERN_SUCCESS)
		status = compute_alloc(&b->cd, elements * bytes, &b->b,
				       &b->b_bits);
	if (status == TERN_SUCCESS)
		status = compute_alloc(&b->cd, elements * sizeof(float), &b->c,
				       &c_ptr);
	b->c_device = c_ptr;
	if (status == TERN_SUCCESS)
		status = tern_stream_create(b->cd.dev.device, &b->stream);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b->cd.dev.device, &b->start);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b->cd.dev.device, &b->end);
	if (status != TERN_SUCCESS)
		return status;
	b->a_values = malloc(elements * sizeof(float));
	b->b_values = malloc(elements * sizeof(float));
	b->c_peer = malloc(elements * sizeof(float));
	b->samples = malloc(GEMM_CHECK_ALL * sizeof(*b->samples));
	return b->a_values && b->b_values && b->c_peer && b->samples ?
	       TERN_SUCCESS : TERN_ERROR_OUT_OF_MEMORY;
}

int bench_gemm_main(int argc, char **argv)
{
	struct compute_args args;
	struct gemm_bench b = { .args = &args };
	tern_status_t status;
	uint32_t side;
	size_t bytes;
	int ret;

	switch (compute_parse_args(&gemm_test, argc, argv, &args)) {
	case BENCH_PARSE_HELP:
		compute_print_usage(&gemm_test);
		return 0;
	case BENCH_PARSE_USAGE:
		return EXIT_USAGE;
	case BENCH_PARSE_RUN:
		break;
	}
	ret = compute_open(&gemm_test, &args, &b.cd);
	if (ret)
		return ret;
	compute_largest(&args, &side, &bytes);
	ret = gemm_check_cores(&b);
	if (!ret)
		ret = compute_check_memory(&gemm_test, &b.cd, (uint64_t)side *
					   side * (2 * bytes + sizeof(float)),
					   side,
					   "A and B of the widest type, C of float32");
	if (ret)
		goto close;
	status = gemm_setup(&b);
	if (status != TERN_SUCCESS) {
		cli_report_error("tern-bench gemm", "allocating buffers", status);
		ret = 1;
		goto close;
	}
	gemm_print_header(&b);
	ret = gemm_sweep(&b);
close:
	free(b.a_values);
	free(b.b_values);
	free(b.c_peer);
	free(b.samples);
	tern_device_close(b.cd.dev.device);
	return ret;
}
