// SPDX-License-Identifier: MIT
/*
 * Simulator memory: buffers, device memory accounting and each context's
 * device address space, following tern.ko: sizes are rounded up to pages,
 * device placement is charged against the device's memory (a request
 * larger than all of it, or than what is free, is out of memory), host
 * placement is not, and every buffer gets an address in its context's
 * [SIM_VA_BASE, SIM_VA_BASE + SIM_VA_SIZE). Buffers start zeroed.
 *
 * The address space is an array of buffers sorted by address: lookups (one
 * per memory access of a packet) are a binary search; new buffers usually
 * go after the last one, so inserts are cheap too.
 *
 * A buffer's pages (struct sim_memory) may be mapped by several contexts,
 * of any device, once exported and imported (share.c); translate
 * reports whose memory an address is, so that the model routes the access
 * over the fabric.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"

static struct sim_context *sim_context(struct tern_be_device *bdev)
{
	return tern_container_of(bdev, struct sim_context, base);
}

static struct sim_bo *sim_bo(struct tern_be_buffer *bbuf)
{
	return tern_container_of(bbuf, struct sim_bo, base);
}

/* Host placement is bounded by the machine's memory, as in the driver. */
static uint64_t sim_host_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);

	return pages > 0 ? (uint64_t)pages * SIM_PAGE_SIZE : UINT64_MAX;
}

static tern_status_t sim_charge(struct sim_device *dev, uint64_t size)
{
	tern_status_t status = TERN_ERROR_OUT_OF_MEMORY;

	pthread_mutex_lock(&dev->lock);
	if (size <= dev->mem_total - dev->mem_used) {
		dev->mem_used += size;
		status = TERN_SUCCESS;
	}
	pthread_mutex_unlock(&dev->lock);
	return status;
}

static void sim_uncharge(struct sim_device *dev, uint64_t size)
{
	pthread_mutex_lock(&dev->lock);
	dev->mem_used -= size;
	pthread_mutex_unlock(&dev->lock);
}

/* Index of the first buffer at or above @va. Lock held. */
static size_t sim_bo_index(struct sim_context *ctx, uint64_t va)
{
	size_t lo = 0, hi = ctx->bo_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->bos[mid]->base.va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Finds room for @size bytes: after the last buffer, else the first gap. */
static bool sim_va_find(struct sim_context *ctx, uint64_t size,
			uint64_t *va, size_t *index)
{
	const uint64_t end = SIM_VA_BASE + SIM_VA_SIZE;
	uint64_t start = SIM_VA_BASE;
	size_t i;

	if (ctx->bo_count) {
		struct sim_bo *last = ctx->bos[ctx->bo_count - 1];

		start = last->base.va + last->base.size;
	}
	if (size <= end - start) {
		*va = start;
		*index = ctx->bo_count;
		return true;
	}
	start = SIM_VA_BASE;
	for (i = 0; i < ctx->bo_count; i++) {
		if (size <= ctx->bos[i]->base.va - start) {
			*va = start;
			*index = i;
			return true;
		}
		start = ctx->bos[i]->base.va + ctx->bos[i]->base.size;
	}
	return false;
}

/* Gives @bo an address. Lock held. */
static tern_status_t sim_va_insert(struct sim_context *ctx, struct sim_bo *bo)
{
	size_t index;

	if (ctx->bo_count == ctx->bo_cap) {
		size_t cap = ctx->bo_cap ? ctx->bo_cap * 2 : 64;
		struct sim_bo **bigger = realloc(ctx->bos, cap * sizeof(*bigger));

		if (!bigger)
			return TERN_ERROR_OUT_OF_MEMORY;
		ctx->bos = bigger;
		ctx->bo_cap = cap;
	}
	if (!sim_va_find(ctx, bo->base.size, &bo->base.va, &index))
		return TERN_ERROR_OUT_OF_MEMORY;
	memmove(&ctx->bos[index + 1], &ctx->bos[index],
		(ctx->bo_count - index) * sizeof(ctx->bos[0]));
	ctx->bos[index] = bo;
	ctx->bo_count++;
	return TERN_SUCCESS;
}

tern_status_t sim_bo_create(struct sim_context *ctx, struct sim_memory *memory,
			    struct sim_bo **out)
{
	tern_status_t status;
	struct sim_bo *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return TERN_ERROR_OUT_OF_MEMORY;
	bo->memory = memory;
	bo->base.size = memory->size;
	pthread_rwlock_wrlock(&ctx->va_lock);
	status = sim_va_insert(ctx, bo);
	pthread_rwlock_unlock(&ctx->va_lock);
	if (status) {
		free(bo);
		return status;
	}
	*out = bo;
	return TERN_SUCCESS;
}

tern_status_t sim_buffer_create(struct tern_be_device *bdev,
				tern_memory_kind_t kind, uint64_t bytes,
				struct tern_be_buffer **out)
{
	struct sim_context *ctx = sim_context(bdev);
	struct sim_memory *memory;
	uint64_t size, limit;
	tern_status_t status;
	struct sim_bo *bo;

	if (bytes == 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	limit = kind == TERN_MEMORY_DEVICE ? ctx->dev->mem_total :
					     sim_host_memory_bytes();
	if (bytes > limit || bytes > UINT64_MAX - SIM_PAGE_SIZE)
		return TERN_ERROR_OUT_OF_MEMORY;
	size = (bytes + SIM_PAGE_SIZE - 1) & ~(SIM_PAGE_SIZE - 1);

	status = sim_memory_create(ctx->dev, kind, size, &memory);
	if (status)
		return status;
	status = sim_bo_create(ctx, memory, &bo);
	if (status) {
		sim_memory_put(memory);
		return status;
	}
	*out = &bo->base;
	return TERN_SUCCESS;
}

/* Pages for sim_memory_create, charged to @dev for device placement. */
tern_status_t sim_pages_alloc(struct sim_device *dev, tern_memory_kind_t kind,
			      uint64_t size, void **cpu)
{
	tern_status_t status;
	void *mem;

	if (kind == TERN_MEMORY_DEVICE) {
		status = sim_charge(dev, size);
		if (status)
			return status;
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		if (kind == TERN_MEMORY_DEVICE)
			sim_uncharge(dev, size);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	*cpu = mem;
	return TERN_SUCCESS;
}

void sim_pages_free(struct sim_device *dev, tern_memory_kind_t kind,
		    uint64_t size, void *cpu)
{
	munmap(cpu, size);
	if (kind == TERN_MEMORY_DEVICE)
		sim_uncharge(dev, size);
}

tern_status_t sim_buffer_map(struct tern_be_device *bdev,
			     struct tern_be_buffer *bbuf, void **ptr)
{
	(void)bdev;
	*ptr = sim_bo(bbuf)->memory->cpu;
	return TERN_SUCCESS;
}

void sim_buffer_free(struct tern_be_device *bdev, struct tern_be_buffer *bbuf)
{
	struct sim_context *ctx = sim_context(bdev);
	struct sim_bo *bo = sim_bo(bbuf);
	size_t index;

	/* Engines hold the lock for reading while they run packets. */
	pthread_rwlock_wrlock(&ctx->va_lock);
	index = sim_bo_index(ctx, bo->base.va);
	if (index < ctx->bo_count && ctx->bos[index] == bo) {
		memmove(&ctx->bos[index], &ctx->bos[index + 1],
			(ctx->bo_count - index - 1) * sizeof(ctx->bos[0]));
		ctx->bo_count--;
	}
	pthread_rwlock_unlock(&ctx->va_lock);
	sim_memory_put(bo->memory);
	free(bo);
}

void *sim_translate(void *opaque, uint64_t va, uint64_t len, uint32_t *owner)
{
	struct sim_context *ctx = opaque;
	size_t index = sim_bo_index(ctx, va);
	struct sim_bo *bo;
	uint64_t offset;

	/* The buffer holding @va starts at @va or is the one before. */
	if (index < ctx->bo_count && ctx->bos[index]->base.va == va)
		bo = ctx->bos[index];
	else if (index > 0)
		bo = ctx->bos[index - 1];
	else
		return NULL;
	if (va < bo->base.va)
		return NULL;
	offset = va - bo->base.va;
	if (offset >= bo->base.size || len > bo->base.size - offset)
		return NULL;
	*owner = (uint32_t)bo->memory->dev->index;
	return (char *)bo->memory->cpu + offset;
}
