/* SPDX-License-Identifier: MIT */
/*
 * Verification data for tern-bench: a byte pattern that depends on a seed
 * (made from the size and the test), so a copy that moved stale data,
 * the wrong range or nothing at all shows up as wrong bytes.
 */
#ifndef TOOLS_BENCH_PATTERN_H
#define TOOLS_BENCH_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* Word @index of the stream for @seed: splitmix64(seed + index * golden). */
uint64_t pattern_word(uint64_t seed, uint64_t index);

/* A seed unique to one (size, test) pair. */
uint64_t pattern_seed(uint64_t size, uint32_t test);

/* Writes the pattern for @seed to @buf. */
void pattern_fill(void *buf, size_t bytes, uint64_t seed);

/* Writes the complement of the pattern: every byte differs from it. */
void pattern_poison(void *buf, size_t bytes, uint64_t seed);

/* Counts the bytes of @buf that differ from the pattern for @seed. */
uint64_t pattern_count_wrong(const void *buf, size_t bytes, uint64_t seed);

#endif /* TOOLS_BENCH_PATTERN_H */
