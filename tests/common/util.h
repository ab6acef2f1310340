/* SPDX-License-Identifier: MIT */
/*
 * What Tern's test programs share, in plain C: cmocka's tests get it
 * through test.h, the fuzzers and the table of malformed packets
 * directly.
 */
#ifndef TERN_TEST_UTIL_H
#define TERN_TEST_UTIL_H

#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * CLOCK_MONOTONIC, in nanoseconds, milliseconds and seconds: the clock of
 * tern.ko's wait deadlines (syncobjs, RING_WAIT).
 */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t now_ms(void)
{
	return now_ns() / 1000000;
}

static inline double now_s(void)
{
	return (double)now_ns() / 1e9;
}

#endif /* TERN_TEST_UTIL_H */
