// SPDX-License-Identifier: MIT
/*
 * Simulator queues and submission. A queue lives on one of the machine's
 * engines; a submission is one record with no reply, in the submission
 * ring (ring.c) or on the socket: the job's fence is a slot of this
 * process's fence table, which the machine ends when the job does
 * (fence.c). Packets are checked here as tern.ko
 * checks them in its SUBMIT ioctl, so that a malformed stream is refused
 * at once; the machine checks them again, trusting no process.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tern_model.h"

static struct sim_context *sim_context(struct tern_be_device *bdev)
{
	return tern_container_of(bdev, struct sim_context, base);
}

static struct sim_queue *sim_queue(struct tern_be_queue *bqueue)
{
	return tern_container_of(bqueue, struct sim_queue, base);
}

tern_status_t sim_queue_create(struct tern_be_device *bdev, uint32_t engine,
			       struct tern_be_queue **out)
{
	struct sim_queue_create req = { .ctx = sim_context(bdev)->id,
					.engine = engine };
	struct sim_queue_reply reply;
	tern_status_t status;
	struct sim_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return TERN_ERROR_OUT_OF_MEMORY;
	status = sim_call(SIM_MSG_QUEUE_CREATE, &req, sizeof(req), -1, &reply,
			  sizeof(reply), NULL);
	if (status) {
		free(q);
		return status;
	}
	q->base.engine = engine;
	q->id = reply.queue;
	pthread_mutex_init(&q->lock, NULL);
	*out = &q->base;
	return TERN_SUCCESS;
}

void sim_queue_destroy(struct tern_be_device *bdev,
		       struct tern_be_queue *bqueue)
{
	struct sim_queue *q = sim_queue(bqueue);
	struct sim_queue_destroy req = { .ctx = sim_context(bdev)->id,
					 .queue = q->id };
	struct sim_queue_reply reply;

	/* Submitted jobs still run: wait here rather than in the machine. */
	if (q->last) {
		sim_fence_wait(&q->last->base, TERN_WAIT_FOREVER);
		tern_fence_put(&q->last->base);
	}
	sim_call(SIM_MSG_QUEUE_DESTROY, &req, sizeof(req), -1, &reply,
		 sizeof(reply), NULL);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

tern_status_t sim_submit(struct tern_be_device *bdev,
			 struct tern_be_queue *bqueue, const void *packets,
			 uint32_t size, struct tern_fence *const *waits,
			 uint32_t wait_count, struct tern_fence **out)
{
	struct sim_queue *q = sim_queue(bqueue);
	struct {
		struct sim_submit head;
		struct sim_fence_ref waits[TERN_MODEL_MAX_IN_SYNCOBJS];
	} req;
	struct sim_conn *conn = sim_conn_get();
	struct sim_fence *fence;
	tern_status_t status;
	uint32_t i;

	if (!conn)
		return TERN_ERROR_BACKEND;
	if (tern_model_validate_on(packets, size, &bqueue->target, NULL) ||
	    wait_count > TERN_MODEL_MAX_IN_SYNCOBJS)
		return TERN_ERROR_INVALID_ARGUMENT;
	fence = sim_fence_create(conn);
	if (!fence)
		return TERN_ERROR_OUT_OF_MEMORY;
	memset(&req.head, 0, sizeof(req.head));
	req.head.ctx = sim_context(bdev)->id;
	req.head.queue = q->id;
	req.head.fence.slot = fence->slot;
	req.head.fence.gen = fence->gen;
	req.head.size = size;
	req.head.wait_count = wait_count;
	req.head.host_ns = __atomic_load_n(&conn->host_ns, __ATOMIC_RELAXED);
	for (i = 0; i < wait_count; i++) {
		struct sim_fence *w = tern_container_of(waits[i],
							struct sim_fence, base);

		req.waits[i].slot = w->slot;
		req.waits[i].gen = w->gen;
	}
	/* In the queue's order: one submission at a time per queue. */
	pthread_mutex_lock(&q->lock);
	status = sim_send(conn, SIM_MSG_SUBMIT, &req,
			  (uint32_t)(sizeof(req.head) +
				     wait_count * sizeof(req.waits[0])),
			  packets, size);
	if (status == TERN_SUCCESS) {
		if (q->last)
			tern_fence_put(&q->last->base);
		q->last = fence;
		tern_fence_get(&fence->base);
	}
	pthread_mutex_unlock(&q->lock);
	if (status) {
		tern_fence_put(&fence->base);
		return status;
	}
	*out = &fence->base;
	return TERN_SUCCESS;
}
