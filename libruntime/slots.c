// SPDX-License-Identifier: MIT
/*
 * Timestamp slots: 8-byte cells that TIMESTAMP packets write, carved from
 * page-sized buffers of the device (host memory where the device has it),
 * so that events do not each cost a buffer. A slot released while its
 * TIMESTAMP job may still run is retired until that job's fence signals.
 */
#include <stdlib.h>

#include "internal.h"

#define TERN_SLOT_CHUNK_BYTES	4096u
#define TERN_SLOTS_PER_CHUNK	(TERN_SLOT_CHUNK_BYTES / 8)

static bool tern_slot_push_free(struct tern_slot_pool *pool, uint32_t slot)
{
	if (pool->free_count == pool->free_cap) {
		uint32_t cap = pool->free_cap ? pool->free_cap * 2 : 64;
		uint32_t *bigger = realloc(pool->free_slots,
					   cap * sizeof(*bigger));

		if (!bigger)
			return false;
		pool->free_slots = bigger;
		pool->free_cap = cap;
	}
	pool->free_slots[pool->free_count++] = slot;
	return true;
}

/* Frees retired slots whose TIMESTAMP jobs have completed. */
static void tern_slot_collect(struct tern_device *dev)
{
	struct tern_slot_pool *pool = &dev->slots;
	uint32_t i = 0;

	while (i < pool->retired_count) {
		struct tern_retired_slot *r = &pool->retired[i];

		if (dev->ops->fence_status(r->fence) == TERN_ERROR_NOT_READY ||
		    !tern_slot_push_free(pool, r->slot)) {
			i++;
			continue;
		}
		tern_fence_put(r->fence);
		*r = pool->retired[--pool->retired_count];
	}
}

static tern_status_t tern_slot_grow(struct tern_device *dev)
{
	struct tern_slot_pool *pool = &dev->slots;
	tern_memory_kind_t kind =
		(dev->info.capabilities & TERN_DEVICE_CAP_HOST_MEMORY) ?
		TERN_MEMORY_HOST : TERN_MEMORY_DEVICE;
	struct tern_slot_chunk *chunks, *chunk;
	tern_status_t status;
	void *cpu;
	uint32_t i;

	chunks = realloc(pool->chunks, (pool->chunk_count + 1) * sizeof(*chunks));
	if (!chunks)
		return TERN_ERROR_OUT_OF_MEMORY;
	pool->chunks = chunks;
	chunk = &chunks[pool->chunk_count];
	status = dev->ops->buffer_create(dev->be, kind, TERN_SLOT_CHUNK_BYTES,
					 &chunk->buffer);
	if (status)
		return status;
	status = dev->ops->buffer_map(dev->be, chunk->buffer, &cpu);
	if (status) {
		dev->ops->buffer_free(dev->be, chunk->buffer);
		return status;
	}
	chunk->cpu = cpu;
	pool->chunk_count++;
	for (i = TERN_SLOTS_PER_CHUNK; i-- > 0;)
		if (!tern_slot_push_free(pool, (pool->chunk_count - 1) *
					 TERN_SLOTS_PER_CHUNK + i))
			return TERN_ERROR_OUT_OF_MEMORY;
	return TERN_SUCCESS;
}

tern_status_t tern_slot_alloc(struct tern_device *dev, uint32_t *slot)
{
	struct tern_slot_pool *pool = &dev->slots;
	tern_status_t status;

	if (!pool->free_count)
		tern_slot_collect(dev);
	if (!pool->free_count) {
		status = tern_slot_grow(dev);
		if (status && !pool->free_count)
			return status;
	}
	*slot = pool->free_slots[--pool->free_count];
	return TERN_SUCCESS;
}

void tern_slot_release(struct tern_device *dev, uint32_t slot,
		       struct tern_fence *fence)
{
	struct tern_slot_pool *pool = &dev->slots;

	if (fence && dev->ops->fence_status(fence) == TERN_ERROR_NOT_READY) {
		if (pool->retired_count == pool->retired_cap) {
			uint32_t cap = pool->retired_cap ?
				       pool->retired_cap * 2 : 16;
			struct tern_retired_slot *bigger =
				realloc(pool->retired, cap * sizeof(*bigger));

			if (!bigger)
				goto leak;
			pool->retired = bigger;
			pool->retired_cap = cap;
		}
		pool->retired[pool->retired_count].slot = slot;
		pool->retired[pool->retired_count].fence = tern_fence_get(fence);
		pool->retired_count++;
		return;
	}
	if (tern_slot_push_free(pool, slot))
		return;
leak:
	/* Out of host memory: losing one 8-byte slot is the safe choice. */
	tern_debug("timestamp slot %u lost (out of memory)", slot);
}

static uint64_t *tern_slot_ptr(struct tern_device *dev, uint32_t slot)
{
	return &dev->slots.chunks[slot / TERN_SLOTS_PER_CHUNK]
			.cpu[slot % TERN_SLOTS_PER_CHUNK];
}

uint64_t tern_slot_va(struct tern_device *dev, uint32_t slot)
{
	return dev->slots.chunks[slot / TERN_SLOTS_PER_CHUNK].buffer->va +
	       (uint64_t)(slot % TERN_SLOTS_PER_CHUNK) * 8;
}

uint64_t tern_slot_read(struct tern_device *dev, uint32_t slot)
{
	return __atomic_load_n(tern_slot_ptr(dev, slot), __ATOMIC_ACQUIRE);
}

void tern_slot_write(struct tern_device *dev, uint32_t slot, uint64_t value)
{
	__atomic_store_n(tern_slot_ptr(dev, slot), value, __ATOMIC_RELEASE);
}

void tern_slot_pool_destroy(struct tern_device *dev)
{
	struct tern_slot_pool *pool = &dev->slots;
	uint32_t i;

	for (i = 0; i < pool->retired_count; i++)
		tern_fence_put(pool->retired[i].fence);
	for (i = 0; i < pool->chunk_count; i++)
		dev->ops->buffer_free(dev->be, pool->chunks[i].buffer);
	free(pool->retired);
	free(pool->free_slots);
	free(pool->chunks);
	*pool = (struct tern_slot_pool){ 0 };
}
