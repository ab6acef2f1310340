// SPDX-License-Identifier: MIT
/*
 * What a worker remembers: files, buffers, queues, rings, syncobjs, file
 * descriptors and mappings, shared by its threads under one lock. Items
 * are copied in and out, so a thread works on its copy while another may
 * close the real thing: that race is part of what is fuzzed.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fuzz.h"

static const struct {
	size_t size;
	unsigned int capacity;
} pool_shapes[POOL_KINDS] = {
	[POOL_FILE] = { sizeof(struct pool_file), 12 },
	[POOL_BO] = { sizeof(struct pool_bo), 64 },
	[POOL_QUEUE] = { sizeof(struct pool_queue), 32 },
	[POOL_RING] = { sizeof(struct pool_ring), FUZZ_POOL_RINGS },
	[POOL_SYNCOBJ] = { sizeof(struct pool_syncobj), 48 },
	[POOL_FD] = { sizeof(struct pool_fd), 32 },
	[POOL_MAP] = { sizeof(struct pool_map), 32 },
};

void pool_init(struct pool *pool)
{
	pthread_mutex_init(&pool->lock, NULL);
	pool->next_serial = 1;
	for (int k = 0; k < POOL_KINDS; k++) {
		struct pool_set *set = &pool->set[k];

		set->item_size = pool_shapes[k].size;
		set->capacity = pool_shapes[k].capacity;
		set->count = 0;
		set->items = calloc(set->capacity, set->item_size);
		if (!set->items)
			abort();
	}
}

uint32_t pool_new_serial(struct pool *pool)
{
	uint32_t serial;

	pthread_mutex_lock(&pool->lock);
	serial = pool->next_serial++;
	pthread_mutex_unlock(&pool->lock);
	return serial;
}

static void *slot(struct pool_set *set, unsigned int i)
{
	return (uint8_t *)set->items + (size_t)i * set->item_size;
}

static uint32_t item_file(struct pool_set *set, unsigned int i)
{
	uint32_t file;

	memcpy(&file, slot(set, i), sizeof(file));
	return file;
}

static void remove_at(struct pool_set *set, unsigned int i)
{
	set->count--;
	if (i != set->count)
		memcpy(slot(set, i), slot(set, set->count), set->item_size);
}

bool pool_add(struct pool *pool, enum pool_kind kind, const void *item,
	      void *evicted, struct rng *rng)
{
	struct pool_set *set = &pool->set[kind];
	bool full;

	pthread_mutex_lock(&pool->lock);
	full = set->count == set->capacity;
	if (full) {
		unsigned int victim = (unsigned int)rng_below(rng, set->count);

		memcpy(evicted, slot(set, victim), set->item_size);
		memcpy(slot(set, victim), item, set->item_size);
	} else {
		memcpy(slot(set, set->count++), item, set->item_size);
	}
	pthread_mutex_unlock(&pool->lock);
	return full;
}

/* Index of a random item of @file (0: any), or -1; the lock is held. */
static int pick_locked(struct pool_set *set, struct rng *rng, uint32_t file)
{
	unsigned int matches = 0, chosen;

	if (!file)
		return set->count ? (int)rng_below(rng, set->count) : -1;
	for (unsigned int i = 0; i < set->count; i++)
		matches += item_file(set, i) == file;
	if (!matches)
		return -1;
	chosen = (unsigned int)rng_below(rng, matches);
	for (unsigned int i = 0; i < set->count; i++) {
		if (item_file(set, i) == file && chosen-- == 0)
			return (int)i;
	}
	return -1;
}

static bool pick_or_take(struct pool *pool, enum pool_kind kind,
			 struct rng *rng, uint32_t file, void *out, bool take)
{
	struct pool_set *set = &pool->set[kind];
	int i;

	pthread_mutex_lock(&pool->lock);
	i = pick_locked(set, rng, file);
	if (i >= 0) {
		memcpy(out, slot(set, (unsigned int)i), set->item_size);
		if (take)
			remove_at(set, (unsigned int)i);
	}
	pthread_mutex_unlock(&pool->lock);
	return i >= 0;
}

bool pool_pick(struct pool *pool, enum pool_kind kind, struct rng *rng,
	       uint32_t file, void *out)
{
	return pick_or_take(pool, kind, rng, file, out, false);
}

bool pool_take(struct pool *pool, enum pool_kind kind, struct rng *rng,
	       uint32_t file, void *out)
{
	return pick_or_take(pool, kind, rng, file, out, true);
}

/* Index of the item equal to @item's first @cmp_len bytes, or -1; locked. */
static int find_locked(struct pool_set *set, const void *item, size_t cmp_len)
{
	for (unsigned int i = 0; i < set->count; i++) {
		if (!memcmp(slot(set, i), item, cmp_len))
			return (int)i;
	}
	return -1;
}

bool pool_forget(struct pool *pool, enum pool_kind kind, const void *item,
		 size_t cmp_len)
{
	struct pool_set *set = &pool->set[kind];
	int i;

	pthread_mutex_lock(&pool->lock);
	i = find_locked(set, item, cmp_len);
	if (i >= 0)
		remove_at(set, (unsigned int)i);
	pthread_mutex_unlock(&pool->lock);
	return i >= 0;
}

bool pool_with(struct pool *pool, enum pool_kind kind, const void *item,
	       size_t cmp_len, void (*fn)(void *item, void *ctx), void *ctx)
{
	struct pool_set *set = &pool->set[kind];
	int i;

	pthread_mutex_lock(&pool->lock);
	i = find_locked(set, item, cmp_len);
	if (i >= 0)
		fn(slot(set, (unsigned int)i), ctx);
	pthread_mutex_unlock(&pool->lock);
	return i >= 0;
}

unsigned int pool_collect(struct pool *pool, enum pool_kind kind,
			  uint32_t file, void *out, unsigned int max)
{
	struct pool_set *set = &pool->set[kind];
	unsigned int n = 0;

	pthread_mutex_lock(&pool->lock);
	for (unsigned int i = 0; i < set->count && n < max; i++) {
		if (!file || item_file(set, i) == file)
			memcpy((uint8_t *)out + (size_t)n++ * set->item_size,
			       slot(set, i), set->item_size);
	}
	pthread_mutex_unlock(&pool->lock);
	return n;
}

unsigned int pool_count(struct pool *pool, enum pool_kind kind)
{
	unsigned int count;

	pthread_mutex_lock(&pool->lock);
	count = pool->set[kind].count;
	pthread_mutex_unlock(&pool->lock);
	return count;
}

void pool_forget_file(struct pool *pool, uint32_t file)
{
	static const enum pool_kind kinds[] = {
		POOL_BO, POOL_QUEUE, POOL_RING, POOL_SYNCOBJ,
	};

	pthread_mutex_lock(&pool->lock);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct pool_set *set = &pool->set[kinds[k]];

		for (unsigned int i = set->count; i-- > 0;) {
			if (item_file(set, i) != file)
				continue;
			/* locked: nobody writes into it meanwhile */
			if (kinds[k] == POOL_RING) {
				const struct pool_ring *ring = slot(set, i);

				munmap(ring->addr, ring->len);
			}
			remove_at(set, i);
		}
	}
	pthread_mutex_unlock(&pool->lock);
}

bool pool_with_map(struct pool *pool, struct rng *rng,
		   void (*fn)(const struct pool_map *map, void *ctx), void *ctx)
{
	struct pool_set *set = &pool->set[POOL_MAP];
	int i;

	pthread_mutex_lock(&pool->lock);
	i = pick_locked(set, rng, 0);
	if (i >= 0)
		fn(slot(set, (unsigned int)i), ctx);
	pthread_mutex_unlock(&pool->lock);
	return i >= 0;
}

uint64_t pool_host_bytes(struct pool *pool)
{
	struct pool_set *set = &pool->set[POOL_BO];
	uint64_t bytes = 0;

	pthread_mutex_lock(&pool->lock);
	for (unsigned int i = 0; i < set->count; i++) {
		const struct pool_bo *bo = slot(set, i);

		if (bo->placement == DRM_TERN_PLACEMENT_HOST && !bo->import)
			bytes += bo->size;
	}
	pthread_mutex_unlock(&pool->lock);
	return bytes;
}
