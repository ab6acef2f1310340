// SPDX-License-Identifier: MIT
/*
 * Opening the device a tern-bench test runs on, and the run header.
 */
#include <stdio.h>

#include "cli.h"
#include "device.h"

int bench_device_open(const char *test, const struct bench_options *opts,
		      struct bench_device *dev)
{
	char prog[64];
	tern_status_t status;
	int count = 0, ret;

	snprintf(prog, sizeof(prog), "tern-bench %s", test);
	ret = cli_count_devices(prog, &dev->backend, &count);
	if (ret)
		return ret;
	if (opts->device >= count) {
		fprintf(stderr,
			"tern-bench %s: -d %ld: no such device; %d device%s present (index 0 to %d), backend %s\n",
			test, opts->device, count, count == 1 ? "" : "s",
			count - 1, cli_backend_description(dev->backend));
		return EXIT_USAGE;
	}
	status = tern_device_open((int)opts->device, &dev->device);
	if (status != TERN_SUCCESS) {
		cli_report_error(prog, "opening the device", status);
		return 1;
	}
	status = tern_device_get_properties(dev->device, &dev->props);
	if (status != TERN_SUCCESS) {
		cli_report_error(prog, "reading device properties", status);
		tern_device_close(dev->device);
		return 1;
	}
	return 0;
}

void bench_print_header(const char *test, const struct bench_options *opts,
			const struct bench_device *dev)
{
	printf("# tern-bench %s: minBytes %llu maxBytes %llu step: %llu(factor) warmup iters: %ld iters: %ld validation: 1\n",
	       test, (unsigned long long)opts->min_bytes,
	       (unsigned long long)opts->max_bytes,
	       (unsigned long long)opts->factor, opts->warmup_iters,
	       opts->iters);
	bench_print_device(dev);
}

void bench_print_device(const struct bench_device *dev)
{
	char memory[32];

	cli_format_bytes(dev->props.memory_bytes, memory, sizeof(memory));
	printf("#\n");
	printf("# Backend: %s\n", cli_backend_description(dev->backend));
	printf("# Device %d: node %s, memory %s, engines %u, fabric ports %u, engine clock %llu Hz\n",
	       dev->props.index, dev->props.node, memory,
	       dev->props.engine_count, dev->props.fabric_port_count,
	       (unsigned long long)dev->props.clock_hz);
	printf("#\n");
}

void bench_report_wrong(const char *test, uint64_t wrong, uint64_t first_size)
{
	fflush(stdout);
	fprintf(stderr,
		"tern-bench %s: %llu value%s differ from the expected result, the first in the row of %llu bytes (column #wrong)\n",
		test, (unsigned long long)wrong, wrong == 1 ? "" : "s",
		(unsigned long long)first_size);
}
