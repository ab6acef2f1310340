// SPDX-License-Identifier: MIT
/*
 * Simulator peer memory, the counterpart of PRIME on tern.ko. A buffer's
 * memfd is what export hands out (a new descriptor for it); any process
 * of the user that is given it can import it on any simulated device,
 * which maps the same memory into that context (simd/share.c). The
 * machine refuses a descriptor that names none of its buffers.
 *
 * A buffer keeps no descriptor in the process (as a GEM handle on tern.ko
 * holds none): a communicator imports two areas of every peer on its
 * host, which at 32 ranks a host would be 62 open files a process. Where
 * one is needed, to map an import or export a buffer, the machine hands
 * its own over again (BO_FD).
 */
#include <unistd.h>

#include "sim.h"

tern_status_t sim_bo_fd(struct tern_be_device *bdev, struct sim_bo *bo,
		       int *fd)
{
	struct sim_context *ctx = tern_container_of(bdev, struct sim_context,
						    base);
	struct sim_bo_free req = { .ctx = ctx->id, .va = bo->base.va };
	struct sim_reply reply;
	tern_status_t status;

	*fd = -1;
	status = sim_call(SIM_MSG_BO_FD, &req, sizeof(req), -1, &reply,
			  sizeof(reply), fd);
	if (status == TERN_SUCCESS && *fd < 0)
		status = TERN_ERROR_BACKEND;
	return status;
}

tern_status_t sim_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd)
{
	return sim_bo_fd(bdev, tern_container_of(bbuf, struct sim_bo, base),
			 fd);
}

tern_status_t sim_buffer_import(struct tern_be_device *bdev, int fd,
				struct tern_be_buffer **out,
				tern_memory_kind_t *kind)
{
	struct sim_context *ctx = tern_container_of(bdev, struct sim_context,
						    base);
	struct sim_bo_import req = { .ctx = ctx->id };
	struct sim_bo_reply reply;
	tern_status_t status;
	struct sim_bo *bo;

	if (fd < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = sim_call(SIM_MSG_BO_IMPORT, &req, sizeof(req), fd, &reply,
			  sizeof(reply), NULL);
	if (status)
		return status;
	/* The caller keeps @fd; we keep none (BO_FD gets one back). */
	bo = sim_bo_new(reply.va, reply.size);
	if (!bo) {
		struct sim_bo_free undo = { .ctx = ctx->id, .va = reply.va };
		struct sim_reply r;

		sim_call(SIM_MSG_BO_FREE, &undo, sizeof(undo), -1, &r,
			 sizeof(r), NULL);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	*kind = (tern_memory_kind_t)reply.kind;
	*out = &bo->base;
	return TERN_SUCCESS;
}
