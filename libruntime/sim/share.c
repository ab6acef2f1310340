// SPDX-License-Identifier: MIT
/*
 * Simulator peer memory, the counterpart of PRIME on tern.ko. A buffer's
 * memfd is what export hands out (a new descriptor for it); any process
 * of the user that is given it can import it on any simulated device,
 * which maps the same memory into that context (machine/share.c). The
 * machine refuses a descriptor that names none of its buffers.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sim.h"

tern_status_t sim_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd)
{
	struct sim_bo *bo = tern_container_of(bbuf, struct sim_bo, base);
	int dup = fcntl(bo->fd, F_DUPFD_CLOEXEC, 0);

	(void)bdev;
	if (dup < 0)
		return TERN_ERROR_BACKEND;
	*fd = dup;
	return TERN_SUCCESS;
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
	int mine;

	if (fd < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = sim_call(SIM_MSG_BO_IMPORT, &req, sizeof(req), fd, &reply,
			  sizeof(reply), NULL);
	if (status)
		return status;
	/* The caller keeps @fd: the mapping gets a descriptor of its own. */
	mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	bo = mine >= 0 ? sim_bo_new(reply.va, reply.size, mine) : NULL;
	if (!bo) {
		struct sim_bo_free undo = { .ctx = ctx->id, .va = reply.va };
		struct sim_reply r;

		if (mine >= 0)
			close(mine);
		sim_call(SIM_MSG_BO_FREE, &undo, sizeof(undo), -1, &r,
			 sizeof(r), NULL);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	*kind = (tern_memory_kind_t)reply.kind;
	*out = &bo->base;
	return TERN_SUCCESS;
}
