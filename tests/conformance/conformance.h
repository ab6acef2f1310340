/* SPDX-License-Identifier: MIT */
/*
 * The conformance suite: behaviour every backend must show, written against
 * tern.h alone. TERN_TEST_DEVICE picks the device (default 0).
 */
#ifndef TERN_CONFORMANCE_H
#define TERN_CONFORMANCE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* The device under test, opened for each group. */
struct conformance {
	tern_device_t dev;
	tern_device_properties_t props;
	tern_backend_t backend;
};

extern struct conformance conf;

int conformance_open(void **state);
int conformance_close(void **state);

/* A mapped buffer of @kind with @bytes (skips the test if the device cannot). */
tern_buffer_t conf_alloc(tern_memory_kind_t kind, size_t bytes, uint8_t **cpu);
uint64_t conf_used_memory(void);

/* The device's cores; skips the test on a device without them. */
uint32_t conf_need_compute(void);

/* Deterministic bytes that differ with @seed and position. */
void conf_fill_random(uint8_t *dst, size_t bytes, uint32_t seed);
/* Fails the test at the first byte of @got that is not @value. */
void conf_assert_bytes(const uint8_t *got, uint8_t value, size_t bytes,
		       const char *what);

/* Entry points of the groups; each returns its number of failures. */
int conformance_copy_tests(void);
int conformance_stream_tests(void);
int conformance_memory_tests(void);
int conformance_fabric_tests(void);
int conformance_collective_tests(void);
int conformance_compute_tests(void);
int conformance_optimizer_tests(void);
/* The child side of the one-rank-per-process test (collectives.c). */
int conformance_collective_rank_child(const char *id, int rank, int nranks,
				      const char *mode);

/* The child side of the killed-process test (memory.c). */
int conformance_hold_memory_child(int ready_fd);
/* The child side of the simulator topology test (fabric.c). */
int conformance_topology_child(void);

#endif /* TERN_CONFORMANCE_H */
