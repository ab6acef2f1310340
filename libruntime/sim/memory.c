// SPDX-License-Identifier: MIT
/*
 * Simulator buffers: made, charged and freed by the machine (its
 * simd/memory.c follows tern.ko's rules), whose memory is a memfd this
 * process maps for the CPU; the engines see the same pages. A buffer
 * keeps no descriptor here, as a GEM handle holds none: its own are
 * mapped when made (a mapping costs address space, not a descriptor, of
 * which a process may have only 1024), imports when first mapped.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"

static struct sim_bo *sim_bo(struct tern_be_buffer *bbuf)
{
	return tern_container_of(bbuf, struct sim_bo, base);
}

struct sim_bo *sim_bo_new(uint64_t va, uint64_t size)
{
	struct sim_bo *bo = calloc(1, sizeof(*bo));

	if (!bo)
		return NULL;
	bo->base.va = va;
	bo->base.size = size;
	pthread_mutex_init(&bo->lock, NULL);
	return bo;
}

tern_status_t sim_buffer_create(struct tern_be_device *bdev,
				tern_memory_kind_t kind, uint64_t bytes,
				struct tern_be_buffer **out)
{
	struct sim_context *ctx = tern_container_of(bdev, struct sim_context,
						    base);
	struct sim_bo_create req = { .ctx = ctx->id, .kind = kind,
				     .bytes = bytes };
	struct sim_bo_free undo = { .ctx = ctx->id };
	struct sim_bo_reply reply;
	tern_status_t status;
	struct sim_bo *bo;
	int fd = -1;

	status = sim_call(SIM_MSG_BO_CREATE, &req, sizeof(req), -1, &reply,
			  sizeof(reply), &fd);
	if (status == TERN_ERROR_LIMIT)
		tern_set_last_error("the simulated machine lets a process hold "
				    "no more buffers (TERN_SIM_CLIENT_BUFFERS), "
				    "or has no descriptor left for one");
	if (status)
		return status;
	bo = fd >= 0 ? sim_bo_new(reply.va, reply.size) : NULL;
	if (bo) {
		bo->cpu = mmap(NULL, bo->base.size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (bo->cpu == MAP_FAILED) {
			pthread_mutex_destroy(&bo->lock);
			free(bo);
			bo = NULL;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!bo) {
		struct sim_reply r;

		undo.va = reply.va;
		sim_call(SIM_MSG_BO_FREE, &undo, sizeof(undo), -1, &r,
			 sizeof(r), NULL);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	*out = &bo->base;
	return TERN_SUCCESS;
}

tern_status_t sim_buffer_map(struct tern_be_device *bdev,
			     struct tern_be_buffer *bbuf, void **ptr)
{
	struct sim_bo *bo = sim_bo(bbuf);
	tern_status_t status = TERN_SUCCESS;

	pthread_mutex_lock(&bo->lock);
	if (!bo->cpu) {
		void *cpu = MAP_FAILED;
		int fd = -1;

		/* An import: the machine lends a descriptor to map. */
		status = sim_bo_fd(bdev, bo, &fd);
		if (status == TERN_SUCCESS)
			cpu = mmap(NULL, bo->base.size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
		if (fd >= 0)
			close(fd);
		if (status == TERN_SUCCESS && cpu == MAP_FAILED)
			status = TERN_ERROR_OUT_OF_MEMORY;
		if (status == TERN_SUCCESS)
			bo->cpu = cpu;
	}
	*ptr = bo->cpu;
	pthread_mutex_unlock(&bo->lock);
	return status;
}

void sim_buffer_free(struct tern_be_device *bdev, struct tern_be_buffer *bbuf)
{
	struct sim_context *ctx = tern_container_of(bdev, struct sim_context,
						    base);
	struct sim_bo *bo = sim_bo(bbuf);
	struct sim_bo_free req = { .ctx = ctx->id, .va = bo->base.va };
	struct sim_reply reply;

	sim_call(SIM_MSG_BO_FREE, &req, sizeof(req), -1, &reply,
		 sizeof(reply), NULL);
	if (bo->cpu)
		munmap(bo->cpu, bo->base.size);
	pthread_mutex_destroy(&bo->lock);
	free(bo);
}
