// SPDX-License-Identifier: MIT
/*
 * tern-bench latency: what the submission path costs, on whatever backend
 * is active, beside the cheapest request the backend serves, measured in
 * the same run by the host's clock:
 *
 *   null          a request that does nothing but answer (the device's
 *                 memory usage: DRM_IOCTL_TERN_GET_INFO on tern.ko, one
 *                 round trip to the machine on the simulator);
 *   submit+wait   one job of one packet (an event's TIMESTAMP) and the wait
 *                 for it: what a framework pays to learn one op is done;
 *   submit        the submission alone, the wait left out of the timing;
 *   back-to-back  100 submissions and one wait, per submission.
 *
 * Each prints its median and 99th percentile over -n iterations, after -w
 * untimed ones, and the ratios of the first two to the null request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "device.h"
#include "options.h"

#define LATENCY_SUMMARY "Submission latency: a null request, submit plus wait, submit alone, back-to-back submits."
#define LATENCY_BATCH	100

struct latency_bench {
	struct bench_device dev;
	tern_stream_t stream;
	tern_event_t event;
};

enum latency_kind {
	LATENCY_NULL, LATENCY_SUBMIT_WAIT, LATENCY_SUBMIT, LATENCY_BATCHED,
	LATENCY_KINDS
};

static const char *const latency_names[LATENCY_KINDS] = {
	"null", "submit+wait", "submit", "back-to-back",
};

static uint64_t latency_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One timed sample of @kind, in ns; 0 with *@status set if a call failed. */
static uint64_t latency_sample(struct latency_bench *b, enum latency_kind kind,
			       tern_status_t *status)
{
	uint64_t used, total, start, ns = 0;

	start = latency_now_ns();
	switch (kind) {
	case LATENCY_NULL:
		*status = tern_device_memory_usage(b->dev.device, &used, &total);
		ns = latency_now_ns() - start;
		break;
	case LATENCY_SUBMIT_WAIT:
		*status = tern_event_record(b->event, b->stream);
		if (*status == TERN_SUCCESS)
			*status = tern_event_synchronize(b->event);
		ns = latency_now_ns() - start;
		break;
	case LATENCY_SUBMIT:
		*status = tern_event_record(b->event, b->stream);
		ns = latency_now_ns() - start;
		if (*status == TERN_SUCCESS)
			*status = tern_event_synchronize(b->event);
		break;
	default:
		for (int i = 0; i < LATENCY_BATCH && *status == TERN_SUCCESS; i++)
			*status = tern_event_record(b->event, b->stream);
		if (*status == TERN_SUCCESS)
			*status = tern_stream_synchronize(b->stream);
		ns = (latency_now_ns() - start) / LATENCY_BATCH;
		break;
	}
	return ns;
}

static int latency_compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and 99th percentile of @kind over @opts->iters samples, in us. */
static tern_status_t latency_measure(struct latency_bench *b,
				     const struct bench_options *opts,
				     enum latency_kind kind, double *median,
				     double *p99)
{
	long iters = opts->iters;
	tern_status_t status = TERN_SUCCESS;
	uint64_t *samples;

	/* the batched kind takes LATENCY_BATCH submissions a sample */
	if (kind == LATENCY_BATCHED && iters > LATENCY_BATCH)
		iters /= LATENCY_BATCH;
	samples = calloc((size_t)iters, sizeof(*samples));
	if (!samples)
		return TERN_ERROR_OUT_OF_MEMORY;
	for (long i = 0; i < opts->warmup_iters && status == TERN_SUCCESS; i++)
		latency_sample(b, kind, &status);
	for (long i = 0; i < iters && status == TERN_SUCCESS; i++)
		samples[i] = latency_sample(b, kind, &status);
	if (status == TERN_SUCCESS) {
		qsort(samples, (size_t)iters, sizeof(*samples), latency_compare);
		*median = (double)samples[iters / 2] / 1000.0;
		*p99 = (double)samples[(iters * 99) / 100] / 1000.0;
	}
	free(samples);
	return status;
}

static int latency_run(struct latency_bench *b, const struct bench_options *opts)
{
	double median[LATENCY_KINDS], p99[LATENCY_KINDS];

	printf("# %-14s %12s %12s %10s\n", "what", "median", "p99", "samples");
	printf("# %-14s %12s %12s\n", "", "(us)", "(us)");
	for (int k = 0; k < LATENCY_KINDS; k++) {
		tern_status_t status = latency_measure(b, opts, k, &median[k],
						       &p99[k]);
		long samples = k == LATENCY_BATCHED && opts->iters > LATENCY_BATCH ?
			       opts->iters / LATENCY_BATCH : opts->iters;

		if (status != TERN_SUCCESS) {
			char what[64];

			fflush(stdout);
			snprintf(what, sizeof(what), "timing %s", latency_names[k]);
			cli_report_error("tern-bench latency", what, status);
			return 1;
		}
		printf("  %-14s %12.2f %12.2f %10ld\n", latency_names[k],
		       median[k], p99[k], samples);
	}
	printf("# submit+wait / null: %.1f; submit / null: %.1f (medians)\n",
	       median[LATENCY_NULL] > 0 ?
	       median[LATENCY_SUBMIT_WAIT] / median[LATENCY_NULL] : 0.0,
	       median[LATENCY_NULL] > 0 ?
	       median[LATENCY_SUBMIT] / median[LATENCY_NULL] : 0.0);
	return 0;
}

int bench_latency_main(int argc, char **argv)
{
	struct bench_options opts;
	struct latency_bench b = { 0 };
	tern_status_t status;
	int ret;

	switch (bench_parse_latency_options(argc, argv, &opts)) {
	case BENCH_PARSE_HELP:
		bench_print_latency_usage(LATENCY_SUMMARY);
		return 0;
	case BENCH_PARSE_USAGE:
		return EXIT_USAGE;
	case BENCH_PARSE_RUN:
		break;
	}
	ret = bench_device_open("latency", &opts, &b.dev);
	if (ret)
		return ret;
	status = tern_stream_create(b.dev.device, &b.stream);
	if (status == TERN_SUCCESS)
		status = tern_event_create(b.dev.device, &b.event);
	if (status != TERN_SUCCESS) {
		cli_report_error("tern-bench latency", "creating a stream", status);
		tern_device_close(b.dev.device);
		return 1;
	}
	printf("# tern-bench latency: warmup iters: %ld iters: %ld (back-to-back: %d submissions a sample)\n",
	       opts.warmup_iters, opts.iters, LATENCY_BATCH);
	bench_print_device(&b.dev);
	ret = latency_run(&b, &opts);
	tern_device_close(b.dev.device);
	return ret;
}
