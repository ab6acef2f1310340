// SPDX-License-Identifier: MIT
/*
 * The compute tests' device: opened as every tern-bench test opens one,
 * then its cores and its free memory, each refusal a sentence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"
#include "setup.h"

int compute_open(const struct compute_test *test,
		 const struct compute_args *args, struct compute_device *cd)
{
	struct bench_options opts = { .device = args->device };
	char prog[64];
	tern_status_t status;
	int ret;

	setenv("TERN_SIM_CORES", "8", 0);
	setenv("TERN_SIM_CLOCK", "model", 0);
	ret = bench_device_open(test->name, &opts, &cd->dev);
	if (ret)
		return ret;
	snprintf(prog, sizeof(prog), "tern-bench %s", test->name);
	status = tern_device_get_compute(cd->dev.device, &cd->compute);
	if (status == TERN_ERROR_NOT_SUPPORTED) {
		fprintf(stderr,
			"%s: device %d has no compute cores (on the simulator TERN_SIM_CORES gives each device 1 to 16)\n",
			prog, cd->dev.props.index);
		ret = EXIT_USAGE;
	} else if (status != TERN_SUCCESS) {
		cli_report_error(prog, "reading the device's cores", status);
		ret = 1;
	}
	if (ret) {
		tern_device_close(cd->dev.device);
		return ret;
	}
	cd->modelled = cd->dev.props.capabilities &
		       TERN_DEVICE_CAP_MODELLED_CLOCK;
	return 0;
}

int compute_check_memory(const struct compute_test *test,
			 struct compute_device *cd, uint64_t need,
			 uint32_t side, const char *what)
{
	uint64_t used = 0, total = 0;
	char need_s[32], free_s[32], total_s[32], prog[64];
	tern_status_t status;

	snprintf(prog, sizeof(prog), "tern-bench %s", test->name);
	status = tern_device_memory_usage(cd->dev.device, &used, &total);
	if (status != TERN_SUCCESS) {
		cli_report_error(prog, "reading memory usage", status);
		return 1;
	}
	if (need <= total - used)
		return 0;
	cli_format_bytes(need, need_s, sizeof(need_s));
	cli_format_bytes(total - used, free_s, sizeof(free_s));
	cli_format_bytes(total, total_s, sizeof(total_s));
	fprintf(stderr,
		"%s: side %u needs %s of device memory (%s); device %d has %s free of %s\n",
		prog, side, need_s, what, cd->dev.props.index, free_s,
		total_s);
	return EXIT_USAGE;
}

tern_status_t compute_alloc(struct compute_device *cd, uint64_t bytes,
			    tern_buffer_t *buffer, void **ptr)
{
	tern_status_t status;

	status = tern_buffer_alloc(cd->dev.device, TERN_MEMORY_DEVICE, bytes,
				   buffer);
	if (status == TERN_SUCCESS)
		status = tern_buffer_map(*buffer, ptr);
	return status;
}

void compute_largest(const struct compute_args *args, uint32_t *side,
		     size_t *bytes)
{
	*side = 0;
	*bytes = 0;
	for (size_t i = 0; i < args->size_count; i++)
		if (args->sizes[i] > *side)
			*side = args->sizes[i];
	for (size_t i = 0; i < args->type_count; i++)
		if (args->types[i]->bytes > *bytes)
			*bytes = args->types[i]->bytes;
}

double compute_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
