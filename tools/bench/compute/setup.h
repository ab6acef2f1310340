/* SPDX-License-Identifier: MIT */
/*
 * What every compute test does before its rows: the device opened, its
 * cores read, and its memory checked and allocated.
 */
#ifndef TOOLS_BENCH_COMPUTE_SETUP_H
#define TOOLS_BENCH_COMPUTE_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "device.h"
#include "tern_compute.h"

struct compute_device {
	struct bench_device dev;
	tern_compute_info_t compute;
	bool modelled;		/* device time is the timing model's */
};

/*
 * On the simulator, asks for a Trainium2 chip's 8 cores and modelled time
 * unless TERN_SIM_CORES and TERN_SIM_CLOCK say otherwise; then opens
 * device args->device and reads its cores. Returns 0, or the exit status
 * after printing why not (EXIT_USAGE for a device without cores).
 */
int compute_open(const struct compute_test *test,
		 const struct compute_args *args, struct compute_device *cd);

/*
 * Refuses (EXIT_USAGE, with a sentence naming @side and @what) @need
 * bytes the device has not free; 0 when they fit.
 */
int compute_check_memory(const struct compute_test *test,
			 struct compute_device *cd, uint64_t need,
			 uint32_t side, const char *what);

/* A mapped buffer of device memory. */
tern_status_t compute_alloc(struct compute_device *cd, uint64_t bytes,
			    tern_buffer_t *buffer, void **ptr);

/* The largest of args->sizes and the widest of args->types. */
void compute_largest(const struct compute_args *args, uint32_t *side,
		     size_t *bytes);

/* The host's clock in microseconds, for wall and peer times. */
double compute_now_us(void);

#endif /* TOOLS_BENCH_COMPUTE_SETUP_H */
