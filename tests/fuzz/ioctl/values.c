// SPDX-License-Identifier: MIT
/*
 * Argument values: mostly the valid one the caller has, sometimes an edge
 * of a range or random bits, so that both the paths that work and the
 * checks that refuse are exercised.
 */
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

static const uint64_t boundaries[] = {
	0, 1, 2, 3, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0x1001,
	0x1fff, 0x2000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe,
	0xffffffff, 0x100000000ull, 0x100000fffull,
	(1ull << 47) - 1, 1ull << 47, (1ull << 47) + 1,
	(1ull << 48) - 0x1000, (1ull << 48) - 1, 1ull << 48, (1ull << 48) + 1,
	1ull << 63, ~0ull - 0xfff, ~0ull - 1, ~0ull,
};

uint64_t value_boundary(struct rng *rng)
{
	size_t n = sizeof(boundaries) / sizeof(boundaries[0]);

	return boundaries[rng_below(rng, n)];
}

uint64_t value_u64(struct rng *rng, uint64_t valid)
{
	uint64_t roll = rng_below(rng, 100);

	if (roll < 90)
		return valid;
	if (roll < 95)
		return value_boundary(rng);
	if (roll < 98)
		return valid + rng_below(rng, 17) - 8;
	return rng_next(rng);
}

uint32_t value_u32(struct rng *rng, uint32_t valid)
{
	return (uint32_t)value_u64(rng, valid);
}

uint32_t value_flags(struct rng *rng, uint32_t valid)
{
	if (!rng_chance(rng, 4))
		return valid;
	return rng_chance(rng, 50) ? valid | 1u << rng_below(rng, 32) :
				     (uint32_t)rng_next(rng);
}

/* Kept mapped without access, so that nothing else lands there. */
static void *inaccessible_page(void)
{
	static void *page;

	if (!page) {
		void *p = mmap(NULL, 4096, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		page = p == MAP_FAILED ? NULL : p;
	}
	return page;
}

/* Addresses every kernel must refuse to read or write for us. */
static uint64_t refused_ptr(struct rng *rng)
{
	switch (rng_below(rng, 6)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)inaccessible_page();
	case 2:
		return 0xffffffff81000000ull;	/* the kernel's text */
	case 3:
		return 1ull << 47;		/* just above user space */
	case 4:
		return 0x8000000000000000ull;	/* not canonical */
	default:
		return ~0ull - 7;
	}
}

uint64_t value_read_ptr(struct rng *rng, const void *valid)
{
	uint64_t roll = rng_below(rng, 100);

	if (roll < 92)
		return (uintptr_t)valid;
	if (roll < 97)
		return refused_ptr(rng);
	if (roll < 99)
		return (uintptr_t)valid + rng_below(rng, 1u << 20);
	return rng_next(rng);
}

uint64_t value_write_ptr(struct rng *rng, void *valid)
{
	return rng_chance(rng, 94) ? (uintptr_t)valid : refused_ptr(rng);
}

int64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec;
}

int64_t value_deadline(struct rng *rng)
{
	int64_t ns = monotonic_ns();

	switch (rng_below(rng, 10)) {
	case 0:
		return 0;				/* long past */
	case 1:
		return ns - 1000000000ll;
	case 2: case 3: case 4:
		return ns;				/* a poll */
	default:
		return ns + (int64_t)rng_below(rng, 20000000);
	}
}

uint32_t value_core_count(struct rng *rng, uint32_t valid)
{
	if (rng_chance(rng, 90))
		return valid;
	return (uint32_t)rng_below(rng, FUZZ_CORE_MAX_COUNT + 1);
}

int value_fd(struct fuzz_thread *t, int valid)
{
	struct pool_file file;
	struct pool_fd fd;

	switch (rng_below(&t->rng, 20)) {
	case 0:
		return -1;
	case 1:
		return (int)rng_below(&t->rng, 64);
	case 2:
		return (int)rng_next(&t->rng);
	case 3:
		if (pool_pick(&t->worker->pool, POOL_FILE, &t->rng, 0, &file))
			return file.fd;
		return valid;
	case 4:
		if (pool_pick(&t->worker->pool, POOL_FD, &t->rng, 0, &fd))
			return fd.fd;
		return valid;
	default:
		return valid;
	}
}
