// SPDX-License-Identifier: MIT
/*
 * The conformance suite's entry point and the functions its groups share.
 *
 *   test_conformance                 run every group on the chosen backend
 *   test_conformance --hold-memory FD  (internal) the process the
 *                                    killed-process test kills
 *   test_conformance --topology      (internal) prints the simulated
 *                                    fabric for the topology tests
 *
 * TERN_TEST_FILTER (cmocka's pattern) picks the tests to run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "tern_compute.h"

struct conformance conf;

static int conformance_device_index(void)
{
	const char *env = getenv("TERN_TEST_DEVICE");

	return env ? atoi(env) : 0;
}

int conformance_open(void **state)
{
	(void)state;
	memset(&conf, 0, sizeof(conf));
	if (tern_get_backend(&conf.backend) ||
	    tern_device_open(conformance_device_index(), &conf.dev) ||
	    tern_device_get_properties(conf.dev, &conf.props)) {
		print_error("cannot open Tern device %d\n",
			    conformance_device_index());
		return -1;
	}
	return 0;
}

int conformance_close(void **state)
{
	(void)state;
	if (!conf.dev)
		return 0;	/* the setup failed and said so */
	return tern_device_close(conf.dev) ? -1 : 0;
}

tern_buffer_t conf_alloc(tern_memory_kind_t kind, size_t bytes, uint8_t **cpu)
{
	tern_buffer_t buf = NULL;
	void *ptr = NULL;

	if (kind == TERN_MEMORY_HOST &&
	    !(conf.props.capabilities & TERN_DEVICE_CAP_HOST_MEMORY)) {
		print_message("skipped: the device cannot reach host memory\n");
		skip();
	}
	assert_ok(tern_buffer_alloc(conf.dev, kind, bytes, &buf));
	assert_ok(tern_buffer_map(buf, &ptr));
	assert_non_null(ptr);
	if (cpu)
		*cpu = ptr;
	return buf;
}

uint32_t conf_need_compute(void)
{
	tern_compute_info_t info;

	if (!(conf.props.capabilities & TERN_DEVICE_CAP_COMPUTE)) {
		print_message("skipped: the device has no compute engines\n");
		skip();
	}
	assert_ok(tern_device_get_compute(conf.dev, &info));
	return info.cores;
}

uint64_t conf_used_memory(void)
{
	uint64_t used = 0, total = 0;

	assert_ok(tern_device_memory_usage(conf.dev, &used, &total));
	assert_true(used <= total);
	return used;
}

void conf_fill_random(uint8_t *dst, size_t bytes, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < bytes; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		dst[i] = (uint8_t)x;
	}
}

void conf_assert_bytes(const uint8_t *got, uint8_t value, size_t bytes,
		       const char *what)
{
	for (size_t i = 0; i < bytes; i++)
		if (got[i] != value)
			fail_msg("%s: byte %zu is 0x%02x, want 0x%02x", what, i,
				 got[i], value);
}

int main(int argc, char **argv)
{
	tern_backend_t backend;
	int failed = 0;

	if (argc == 3 && strcmp(argv[1], "--hold-memory") == 0)
		return conformance_hold_memory_child(atoi(argv[2]));
	if (argc == 2 && strcmp(argv[1], "--topology") == 0)
		return conformance_topology_child();
	if (argc == 6 && strcmp(argv[1], "--coll-rank") == 0)
		return conformance_collective_rank_child(argv[2], atoi(argv[3]),
							 atoi(argv[4]), argv[5]);

	/* cmocka's pattern, * and ? as wildcards: the tests to run. */
	if (getenv("TERN_TEST_FILTER"))
		cmocka_set_test_filter(getenv("TERN_TEST_FILTER"));
	if (tern_get_backend(&backend) == TERN_SUCCESS)
		printf("conformance: backend %s\n", tern_backend_name(backend));
	failed += conformance_copy_tests();
	failed += conformance_stream_tests();
	failed += conformance_memory_tests();
	failed += conformance_fabric_tests();
	failed += conformance_collective_tests();
	failed += conformance_compute_tests();
	failed += conformance_optimizer_tests();
	return failed ? 1 : 0;
}
