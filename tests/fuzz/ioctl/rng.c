// SPDX-License-Identifier: MIT
/*
 * xoshiro256** seeded through splitmix64: fast, and the same sequence from
 * the same seed on every machine, which is what makes a run replayable.
 */
#include <string.h>

#include "fuzz.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rng_below(struct rng *rng, uint64_t n)
{
	return n ? rng_next(rng) % n : 0;
}

bool rng_chance(struct rng *rng, unsigned int percent)
{
	return rng_below(rng, 100) < percent;
}

void rng_fill(struct rng *rng, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t word = rng_next(rng);
		size_t n = len < sizeof(word) ? len : sizeof(word);

		memcpy(p, &word, n);
		p += n;
		len -= n;
	}
}

uint64_t seed_derive(uint64_t master, uint64_t worker, uint64_t thread)
{
	uint64_t state = master ^ (worker * 0x100000001b3ull) ^ (thread << 48);

	splitmix64(&state);
	return splitmix64(&state);
}
