// SPDX-License-Identifier: MIT
/*
 * Verification data for tern-bench. Byte i of the pattern is byte (i % 8),
 * little endian, of splitmix64(seed + i / 8): cheap to generate, never
 * periodic within a buffer, and different for every seed.
 */
#include <string.h>

#include "pattern.h"

uint64_t pattern_word(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + index * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint8_t pattern_byte(uint64_t seed, uint64_t i)
{
	return (uint8_t)(pattern_word(seed, i / 8) >> (8 * (i % 8)));
}

uint64_t pattern_seed(uint64_t size, uint32_t test)
{
	return pattern_word(size, test);
}

/* Stores @word at @dst in little-endian byte order. */
static void pattern_store(uint8_t *dst, uint64_t word)
{
	for (int b = 0; b < 8; b++)
		dst[b] = (uint8_t)(word >> (8 * b));
}

static void pattern_write(uint8_t *buf, size_t bytes, uint64_t seed,
			  uint64_t invert)
{
	size_t words = bytes / 8;

	for (size_t w = 0; w < words; w++)
		pattern_store(buf + 8 * w, pattern_word(seed, w) ^ invert);
	for (size_t i = 8 * words; i < bytes; i++)
		buf[i] = pattern_byte(seed, i) ^ (uint8_t)invert;
}

void pattern_fill(void *buf, size_t bytes, uint64_t seed)
{
	pattern_write(buf, bytes, seed, 0);
}

void pattern_poison(void *buf, size_t bytes, uint64_t seed)
{
	pattern_write(buf, bytes, seed, ~0ull);
}

uint64_t pattern_count_wrong(const void *buf, size_t bytes, uint64_t seed)
{
	const uint8_t *p = buf;
	size_t words = bytes / 8;
	uint64_t wrong = 0;

	for (size_t w = 0; w < words; w++) {
		uint8_t expect[8];

		pattern_store(expect, pattern_word(seed, w));
		if (memcmp(p + 8 * w, expect, 8) == 0)
			continue;
		for (int b = 0; b < 8; b++)
			wrong += p[8 * w + b] != expect[b];
	}
	for (size_t i = 8 * words; i < bytes; i++)
		wrong += p[i] != pattern_byte(seed, i);
	return wrong;
}
