// SPDX-License-Identifier: MIT
/*
 * tern-bench copy: host->device, device->host and device->device copy
 * bandwidth over a sweep of sizes. Time comes from events (the engine
 * clock); every size is checked byte for byte after its timed iterations.
 * The CPU's own memcpy() between two host allocations is measured in the
 * same run as the peer the engine figures are read against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "device.h"
#include "options.h"
#include "pattern.h"
#include "table.h"

#define COPY_SUMMARY "Copy bandwidth host->device (h2d), device->host (d2h) and device->device (d2d)."

enum copy_direction { COPY_H2D, COPY_D2H, COPY_D2D, COPY_DIRECTIONS };

static const char *const copy_direction_names[COPY_DIRECTIONS] = {
	"h2d", "d2h", "d2d",
};

/* One host and two device buffers of the largest size; sources are refilled
 * and destinations poisoned before each direction, so they can be shared.
 */
struct copy_bench {
	struct bench_device dev;
	tern_stream_t stream;
	tern_event_t start, end;
	tern_buffer_t host, dev_a, dev_b;
	void *host_ptr, *dev_a_ptr, *dev_b_ptr;
	void *peer_src, *peer_dst;	/* plain malloc() memory for memcpy() */
};

struct copy_result {
	double time_us;	/* per iteration */
	double gbps;	/* 1e9 bytes per second */
	uint64_t wrong;	/* bytes that differ from the source pattern */
};

static void copy_ends(struct copy_bench *b, enum copy_direction dir,
		      tern_buffer_t *src, void **src_ptr,
		      tern_buffer_t *dst, void **dst_ptr)
{
	switch (dir) {
	case COPY_H2D:
		*src = b->host, *src_ptr = b->host_ptr;
		*dst = b->dev_a, *dst_ptr = b->dev_a_ptr;
		break;
	case COPY_D2H:
		*src = b->dev_a, *src_ptr = b->dev_a_ptr;
		*dst = b->host, *dst_ptr = b->host_ptr;
		break;
	default:
		*src = b->dev_a, *src_ptr = b->dev_a_ptr;
		*dst = b->dev_b, *dst_ptr = b->dev_b_ptr;
		break;
	}
}

static tern_status_t copy_enqueue(struct copy_bench *b, tern_buffer_t dst,
				  tern_buffer_t src, uint64_t size, long count)
{
	tern_status_t status = TERN_SUCCESS;

	for (long i = 0; i < count && status == TERN_SUCCESS; i++)
		status = tern_memcpy_async(dst, 0, src, 0, size, b->stream);
	return status;
}

static tern_status_t copy_run(struct copy_bench *b,
			      const struct bench_options *opts,
			      enum copy_direction dir, uint64_t size,
			      struct copy_result *result)
{
	uint64_t seed = pattern_seed(size, dir);
	tern_buffer_t src, dst;
	void *src_ptr, *dst_ptr;
	tern_status_t status;
	float ms = 0;

	copy_ends(b, dir, &src, &src_ptr, &dst, &dst_ptr);
	pattern_fill(src_ptr, size, seed);
	pattern_poison(dst_ptr, size, seed);

	status = copy_enqueue(b, dst, src, size, opts->warmup_iters);
	if (status == TERN_SUCCESS)
		status = tern_event_record(b->start, b->stream);
	if (status == TERN_SUCCESS)
		status = copy_enqueue(b, dst, src, size, opts->iters);
	if (status == TERN_SUCCESS)
		status = tern_event_record(b->end, b->stream);
	/* Synchronize even after a failed enqueue: buffers are reused next. */
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(b->stream);
	else
		tern_stream_synchronize(b->stream);
	if (status == TERN_SUCCESS)
		status = tern_event_elapsed_time(&ms, b->start, b->end);
	if (status != TERN_SUCCESS)
		return status;

	result->time_us = (double)ms * 1000.0 / (double)opts->iters;
	result->gbps = result->time_us > 0 ?
		(double)size / (result->time_us * 1000.0) : 0.0;
	result->wrong = pattern_count_wrong(dst_ptr, size, seed);
	return TERN_SUCCESS;
}

static double copy_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The peer: the same copy done by the CPU with memcpy(), same iterations. */
static void copy_run_peer(struct copy_bench *b,
			  const struct bench_options *opts, uint64_t size,
			  struct copy_result *result)
{
	uint64_t seed = pattern_seed(size, COPY_DIRECTIONS);
	double start;

	pattern_fill(b->peer_src, size, seed);
	pattern_poison(b->peer_dst, size, seed);
	for (long i = 0; i < opts->warmup_iters; i++)
		memcpy(b->peer_dst, b->peer_src, size);
	start = copy_now_us();
	for (long i = 0; i < opts->iters; i++) {
		memcpy(b->peer_dst, b->peer_src, size);
		/* keep the compiler from folding the repeated copies */
		__asm__ volatile("" : : "r"(b->peer_dst) : "memory");
	}
	result->time_us = (copy_now_us() - start) / (double)opts->iters;
	result->gbps = result->time_us > 0 ?
		(double)size / (result->time_us * 1000.0) : 0.0;
	result->wrong = pattern_count_wrong(b->peer_dst, size, seed);
}

/* Refuses sizes the device cannot hold before allocating anything. */
static int copy_check_memory(struct copy_bench *b,
			     const struct bench_options *opts)
{
	uint64_t used = 0, total = 0, need = 2 * opts->max_bytes;
	char max_s[32], need_s[32], free_s[32], total_s[32];
	tern_status_t status;

	status = tern_device_memory_usage(b->dev.device, &used, &total);
	if (status != TERN_SUCCESS) {
		cli_report_error("tern-bench copy", "reading memory usage",
				 status);
		return 1;
	}
	if (need <= total - used)
		return 0;
	cli_format_bytes(opts->max_bytes, max_s, sizeof(max_s));
	cli_format_bytes(need, need_s, sizeof(need_s));
	cli_format_bytes(total - used, free_s, sizeof(free_s));
	cli_format_bytes(total, total_s, sizeof(total_s));
	fprintf(stderr,
		"tern-bench copy: -e %s needs %s of device memory (two buffers of the largest size); device %d has %s free of %s\n",
		max_s, need_s,
		b->dev.props.index, free_s, total_s);
	return EXIT_USAGE;
}

static tern_status_t copy_alloc_one(struct copy_bench *b,
				    tern_memory_kind_t kind, uint64_t bytes,
				    tern_buffer_t *buffer, void **ptr)
{
	tern_status_t status;

	status = tern_buffer_alloc(b->dev.device, kind, bytes, buffer);
	if (status == TERN_SUCCESS)
		status = tern_buffer_map(*buffer, ptr);
	return status;
}

/* Everything is freed by tern_device_close(), on success or not. */
static tern_status_t copy_setup(struct copy_bench *b, uint64_t bytes)
{
	tern_status_t status;

	status = copy_alloc_one(b, TERN_MEMORY_HOST, bytes, &b->host,
				&b->host_ptr);
	if (status == TERN_SUCCESS)
		status = copy_alloc_one(b, TERN_MEMORY_DEVICE, bytes, &b->dev_a,
					&b->dev_a_ptr);
	if (status == TERN_SUCCESS)
		status = copy_alloc_one(b, TERN_MEMORY_DEVICE, bytes, &b->dev_b,
					&b->dev_b_ptr);
	if (status == TERN_SUCCESS)
		status = tern_stream_create(b->dev.device, &b->stream);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b->dev.device, &b->start);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b->dev.device, &b->end);
	if (status != TERN_SUCCESS)
		return status;
	b->peer_src = malloc(bytes);
	b->peer_dst = malloc(bytes);
	return b->peer_src && b->peer_dst ? TERN_SUCCESS :
		TERN_ERROR_OUT_OF_MEMORY;
}

static void copy_print_table_header(void)
{
	char line[3][160];
	int at[3];

	at[0] = snprintf(line[0], sizeof(line[0]), "# %11s", "");
	at[1] = snprintf(line[1], sizeof(line[1]), "# %11s", "size");
	at[2] = snprintf(line[2], sizeof(line[2]), "# %11s", "(B)");
	for (int d = 0; d < COPY_DIRECTIONS; d++) {
		/* each direction's three columns are 26 wide; center its name */
		at[0] += snprintf(line[0] + at[0], sizeof(line[0]) - at[0],
				  "  %14s%12s", copy_direction_names[d], "");
		at[1] += snprintf(line[1] + at[1], sizeof(line[1]) - at[1],
				  "  %10s %7s %7s", "time", "algbw", "#wrong");
		at[2] += snprintf(line[2] + at[2], sizeof(line[2]) - at[2],
				  "  %10s %7s %7s", "(us)", "(GB/s)", "");
	}
	at[0] += snprintf(line[0] + at[0], sizeof(line[0]) - at[0],
			  "  %18s", "peer: memcpy");
	at[1] += snprintf(line[1] + at[1], sizeof(line[1]) - at[1],
			  "  %10s %7s", "time", "algbw");
	snprintf(line[2] + at[2], sizeof(line[2]) - at[2],
		 "  %10s %7s", "(us)", "(GB/s)");
	for (int i = 0; i < 3; i++)
		bench_print_trimmed(line[i]);
}

static void copy_print_row(uint64_t size,
			   const struct copy_result result[COPY_DIRECTIONS],
			   const struct copy_result *peer)
{
	printf("%13llu", (unsigned long long)size);
	for (int d = 0; d < COPY_DIRECTIONS; d++)
		printf("  %10.2f %7.2f %7llu", result[d].time_us,
		       result[d].gbps, (unsigned long long)result[d].wrong);
	printf("  %10.2f %7.2f\n", peer->time_us, peer->gbps);
	fflush(stdout);	/* a row at a time for whoever is watching */
}

/* Runs the sweep; returns the exit status. */
static int copy_sweep(struct copy_bench *b, const struct bench_options *opts)
{
	double gbps_sum[COPY_DIRECTIONS] = { 0 }, peer_sum = 0;
	uint64_t wrong = 0, first_wrong = 0;
	unsigned int rows = 0;

	copy_print_table_header();
	for (uint64_t size = opts->min_bytes; size;
	     size = bench_next_size(opts, size)) {
		struct copy_result result[COPY_DIRECTIONS], peer;

		for (int d = 0; d < COPY_DIRECTIONS; d++) {
			tern_status_t status = copy_run(b, opts, d, size,
							&result[d]);
			char what[64];

			if (status != TERN_SUCCESS) {
				snprintf(what, sizeof(what),
					 "%s copy of %llu bytes",
					 copy_direction_names[d],
					 (unsigned long long)size);
				fflush(stdout);
				cli_report_error("tern-bench copy", what,
						 status);
				return 1;
			}
			gbps_sum[d] += result[d].gbps;
			wrong += result[d].wrong;
		}
		copy_run_peer(b, opts, size, &peer);
		peer_sum += peer.gbps;
		wrong += peer.wrong;
		if (wrong && !first_wrong)
			first_wrong = size;
		copy_print_row(size, result, &peer);
		rows++;
	}
	printf("# Out of bounds values : %llu %s\n", (unsigned long long)wrong,
	       wrong ? "FAILED" : "OK");
	printf("# Avg copy bandwidth: h2d %.2f GB/s, d2h %.2f GB/s, d2d %.2f GB/s\n",
	       gbps_sum[COPY_H2D] / rows, gbps_sum[COPY_D2H] / rows,
	       gbps_sum[COPY_D2D] / rows);
	printf("# Avg peer memcpy bandwidth: %.2f GB/s (same sizes, same run)\n",
	       peer_sum / rows);
	printf("#\n");
	return wrong ? 1 : 0;
}

int bench_copy_main(int argc, char **argv)
{
	struct bench_options opts;
	struct copy_bench b = { 0 };
	tern_status_t status;
	int ret;

	switch (bench_parse_options(argc, argv, &opts)) {
	case BENCH_PARSE_HELP:
		bench_print_usage("copy", COPY_SUMMARY);
		return 0;
	case BENCH_PARSE_USAGE:
		return EXIT_USAGE;
	case BENCH_PARSE_RUN:
		break;
	}
	ret = bench_device_open("copy", &opts, &b.dev);
	if (ret)
		return ret;
	ret = copy_check_memory(&b, &opts);
	if (ret)
		goto close;
	status = copy_setup(&b, opts.max_bytes);
	if (status != TERN_SUCCESS) {
		cli_report_error("tern-bench copy", "allocating buffers", status);
		ret = 1;
		goto close;
	}
	bench_print_header("copy", &opts, &b.dev);
	ret = copy_sweep(&b, &opts);
close:
	free(b.peer_src);
	free(b.peer_dst);
	tern_device_close(b.dev.device);
	return ret;
}
