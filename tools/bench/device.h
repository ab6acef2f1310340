/* SPDX-License-Identifier: MIT */
/*
 * Opening the device a tern-bench test runs on, and the header describing
 * the run that every test prints first.
 */
#ifndef TOOLS_BENCH_DEVICE_H
#define TOOLS_BENCH_DEVICE_H

#include "options.h"
#include "tern.h"

struct bench_device {
	tern_backend_t backend;
	tern_device_t device;
	tern_device_properties_t props;
};

/*
 * Opens device opts->device. Returns 0, or the exit status after printing
 * why not: EXIT_USAGE for an index past the devices present or a backend
 * configuration libtern refuses, 1 for a device that cannot be used.
 */
int bench_device_open(const char *test, const struct bench_options *opts,
		      struct bench_device *dev);

/* Prints the "# ..." lines naming the test, its options, backend and device. */
void bench_print_header(const char *test, const struct bench_options *opts,
			const struct bench_device *dev);
/* The backend and device lines alone. */
void bench_print_device(const struct bench_device *dev);

/*
 * Says on stderr that a sweep saw @wrong wrong values, the first in the
 * row of @first_size bytes, so that its exit status 1 never comes alone.
 */
void bench_report_wrong(const char *test, uint64_t wrong,
			uint64_t first_size);

#endif /* TOOLS_BENCH_DEVICE_H */
