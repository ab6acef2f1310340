// SPDX-License-Identifier: MIT
/*
 * Machine memory: buffers, device memory accounting and each context's
 * device address space, following tern.ko: sizes are rounded up to pages,
 * device placement is charged against the device's memory (a request
 * larger than all of it, or than what is free, is out of memory), host
 * placement is not, and every buffer gets an address in its context's
 * [MACHINE_VA_BASE, MACHINE_VA_BASE + MACHINE_VA_SIZE). Buffers start
 * zeroed.
 *
 * The pages are a memfd, sealed against resizing: the machine maps it for
 * its engines and hands it to the process, which maps it for the CPU, so
 * both see the same bytes; a process cannot shrink it under the engines.
 *
 * The address space is an array of buffers sorted by address: lookups (one
 * per memory access of a packet) are a binary search; new buffers usually
 * go after the last one, so inserts are cheap too. Packets are translated
 * through the submitting context's space alone: memory of another process
 * is reachable only once it has been exported to this one and imported.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machine.h"

/*
 * Charges @size bytes of @kind to @dev; host placement to the machine's
 * host budget as well (limits.c).
 */
static tern_status_t machine_charge(struct machine_device *dev,
				    tern_memory_kind_t kind, uint64_t size)
{
	tern_status_t status = TERN_SUCCESS;

	if (kind != TERN_MEMORY_DEVICE &&
	    machine_host_charge(dev->machine, size))
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&dev->lock);
	if (kind != TERN_MEMORY_DEVICE)
		dev->mem_host_used += size;
	else if (size <= dev->mem_total - dev->mem_used)
		dev->mem_used += size;
	else
		status = TERN_ERROR_OUT_OF_MEMORY;
	if (status == TERN_SUCCESS)
		dev->buffer_count++;
	pthread_mutex_unlock(&dev->lock);
	return status;
}

static void machine_uncharge(struct machine_device *dev,
			     tern_memory_kind_t kind, uint64_t size)
{
	pthread_mutex_lock(&dev->lock);
	if (kind == TERN_MEMORY_DEVICE)
		dev->mem_used -= size;
	else
		dev->mem_host_used -= size;
	dev->buffer_count--;
	pthread_mutex_unlock(&dev->lock);
	if (kind != TERN_MEMORY_DEVICE)
		machine_host_uncharge(dev->machine, size);
}

static int machine_memfd(struct machine_device *dev, uint64_t size)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "tern-sim:%d", dev->index);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		close(fd);
		return -1;
	}
	return fd;
}

tern_status_t machine_pages_alloc(struct machine_device *dev,
				  tern_memory_kind_t kind, uint64_t size,
				  struct machine_memory *memory)
{
	tern_status_t status = TERN_ERROR_OUT_OF_MEMORY;
	struct stat st;
	void *cpu;
	int fd;

	if (machine_charge(dev, kind, size))
		return TERN_ERROR_OUT_OF_MEMORY;
	fd = machine_memfd(dev, size);
	if (fd < 0) {
		/* Descriptors, not memory: say so. */
		if (errno == EMFILE || errno == ENFILE)
			status = TERN_ERROR_LIMIT;
		goto err;
	}
	cpu = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cpu == MAP_FAILED || fstat(fd, &st)) {
		if (cpu != MAP_FAILED)
			munmap(cpu, size);
		close(fd);
		goto err;
	}
	memory->dev = dev;
	memory->kind = kind;
	memory->size = size;
	memory->cpu = cpu;
	memory->fd = fd;
	memory->st_dev = (uint64_t)st.st_dev;
	memory->st_ino = (uint64_t)st.st_ino;
	return TERN_SUCCESS;
err:
	machine_uncharge(dev, kind, size);
	return status;
}

void machine_pages_free(struct machine_memory *memory)
{
	munmap(memory->cpu, memory->size);
	close(memory->fd);
	machine_uncharge(memory->dev, memory->kind, memory->size);
}

/* Index of the first buffer at or above @va. Lock held. */
static size_t machine_bo_index(struct machine_context *ctx, uint64_t va)
{
	size_t lo = 0, hi = ctx->bo_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ctx->bos[mid]->va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Finds room for @size bytes: after the last buffer, else the first gap. */
static bool machine_va_find(struct machine_context *ctx, uint64_t size,
			    uint64_t *va, size_t *index)
{
	const uint64_t end = MACHINE_VA_BASE + MACHINE_VA_SIZE;
	uint64_t start = MACHINE_VA_BASE;
	size_t i;

	if (ctx->bo_count) {
		struct machine_bo *last = ctx->bos[ctx->bo_count - 1];

		start = last->va + last->size;
	}
	if (size <= end - start) {
		*va = start;
		*index = ctx->bo_count;
		return true;
	}
	start = MACHINE_VA_BASE;
	for (i = 0; i < ctx->bo_count; i++) {
		if (size <= ctx->bos[i]->va - start) {
			*va = start;
			*index = i;
			return true;
		}
		start = ctx->bos[i]->va + ctx->bos[i]->size;
	}
	return false;
}

/* Gives @bo an address. Lock held. */
static tern_status_t machine_va_insert(struct machine_context *ctx,
				       struct machine_bo *bo)
{
	size_t index;

	if (ctx->bo_count == ctx->bo_cap) {
		size_t cap = ctx->bo_cap ? ctx->bo_cap * 2 : 64;
		struct machine_bo **bigger =
			realloc(ctx->bos, cap * sizeof(*bigger));

		if (!bigger)
			return TERN_ERROR_OUT_OF_MEMORY;
		ctx->bos = bigger;
		ctx->bo_cap = cap;
	}
	if (!machine_va_find(ctx, bo->size, &bo->va, &index))
		return TERN_ERROR_OUT_OF_MEMORY;
	memmove(&ctx->bos[index + 1], &ctx->bos[index],
		(ctx->bo_count - index) * sizeof(ctx->bos[0]));
	ctx->bos[index] = bo;
	ctx->bo_count++;
	return TERN_SUCCESS;
}

/* A buffer of @memory in @ctx's address space; nothing charged here. */
static tern_status_t machine_bo_insert(struct machine_context *ctx,
				       struct machine_memory *memory,
				       bool imported, struct machine_bo **out)
{
	struct machine_bo *bo = calloc(1, sizeof(*bo));
	tern_status_t status;

	if (!bo)
		return TERN_ERROR_OUT_OF_MEMORY;
	bo->memory = memory;
	bo->size = memory->size;
	bo->imported = imported;
	pthread_rwlock_wrlock(&ctx->va_lock);
	status = machine_va_insert(ctx, bo);
	if (!status && !imported && memory->kind == TERN_MEMORY_DEVICE)
		ctx->mem_device += bo->size;
	else if (!status && !imported)
		ctx->mem_host += bo->size;
	pthread_rwlock_unlock(&ctx->va_lock);
	if (status) {
		free(bo);
		return status;
	}
	*out = bo;
	return TERN_SUCCESS;
}

tern_status_t machine_bo_map(struct machine_context *ctx,
			     struct machine_memory *memory,
			     struct machine_bo **out)
{
	tern_status_t status;

	status = machine_client_hold(ctx->client, memory->kind, memory->size,
				     true);
	if (status)
		return status;
	status = machine_bo_insert(ctx, memory, true, out);
	if (status)
		machine_client_unhold(ctx->client, memory->kind, memory->size,
				      true);
	return status;
}

tern_status_t machine_bo_create(struct machine_context *ctx,
				tern_memory_kind_t kind, uint64_t bytes,
				struct machine_bo **out)
{
	struct machine_memory *memory;
	uint64_t size, limit;
	tern_status_t status;

	if (bytes == 0 || (kind != TERN_MEMORY_DEVICE && kind != TERN_MEMORY_HOST))
		return TERN_ERROR_INVALID_ARGUMENT;
	limit = kind == TERN_MEMORY_DEVICE ? ctx->dev->mem_total :
		ctx->dev->machine->limits.client_host_bytes;
	if (bytes > limit || bytes > UINT64_MAX - MACHINE_PAGE_SIZE)
		return TERN_ERROR_OUT_OF_MEMORY;
	size = (bytes + MACHINE_PAGE_SIZE - 1) & ~(MACHINE_PAGE_SIZE - 1);

	status = machine_client_hold(ctx->client, kind, size, false);
	if (status)
		return status;
	status = machine_memory_create(ctx->dev, kind, size, &memory);
	if (!status) {
		status = machine_bo_insert(ctx, memory, false, out);
		if (status)
			machine_memory_put(memory);
	}
	if (status)
		machine_client_unhold(ctx->client, kind, size, false);
	return status;
}

int machine_bo_fd(struct machine_context *ctx, uint64_t va)
{
	size_t index;
	int fd = -1;

	pthread_rwlock_rdlock(&ctx->va_lock);
	index = machine_bo_index(ctx, va);
	if (index < ctx->bo_count && ctx->bos[index]->va == va)
		fd = fcntl(ctx->bos[index]->memory->fd, F_DUPFD_CLOEXEC, 0);
	pthread_rwlock_unlock(&ctx->va_lock);
	return fd;
}

tern_status_t machine_bo_free(struct machine_context *ctx, uint64_t va)
{
	struct machine_bo *bo = NULL;
	size_t index;

	/* Engines hold the lock for reading while they run packets. */
	pthread_rwlock_wrlock(&ctx->va_lock);
	index = machine_bo_index(ctx, va);
	if (index < ctx->bo_count && ctx->bos[index]->va == va) {
		bo = ctx->bos[index];
		memmove(&ctx->bos[index], &ctx->bos[index + 1],
			(ctx->bo_count - index - 1) * sizeof(ctx->bos[0]));
		ctx->bo_count--;
		if (!bo->imported && bo->memory->kind == TERN_MEMORY_DEVICE)
			ctx->mem_device -= bo->size;
		else if (!bo->imported)
			ctx->mem_host -= bo->size;
	}
	pthread_rwlock_unlock(&ctx->va_lock);
	if (!bo)
		return TERN_ERROR_INVALID_ARGUMENT;
	machine_client_unhold(ctx->client, bo->memory->kind, bo->size,
			      bo->imported);
	machine_memory_put(bo->memory);
	free(bo);
	return TERN_SUCCESS;
}

void *machine_translate(void *opaque, uint64_t va, uint64_t len,
			uint32_t *owner)
{
	struct machine_context *ctx = opaque;
	size_t index = machine_bo_index(ctx, va);
	struct machine_bo *bo;
	uint64_t offset;

	/* The buffer holding @va starts at @va or is the one before. */
	if (index < ctx->bo_count && ctx->bos[index]->va == va)
		bo = ctx->bos[index];
	else if (index > 0)
		bo = ctx->bos[index - 1];
	else
		return NULL;
	if (va < bo->va)
		return NULL;
	offset = va - bo->va;
	if (offset >= bo->size || len > bo->size - offset)
		return NULL;
	*owner = (uint32_t)bo->memory->dev->index;
	return (char *)bo->memory->cpu + offset;
}
