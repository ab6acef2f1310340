// SPDX-License-Identifier: MIT
/*
 * What tern-inspect sees of a device of the machine: its memory and
 * error counters, its engines, and the contexts every process has open
 * on it, as tern.ko's netlink family reports them for an open file.
 * Locks are taken one at a time, in the machine's order (machine, then
 * a context's address space, then an engine), so a snapshot never holds
 * up the engines for more than a count.
 */
#include <string.h>

#include "machine.h"

static void machine_inspect_engine(struct machine_engine *e,
				   struct sim_inspect_engine *out)
{
	pthread_mutex_lock(&e->lock);
	out->busy_ns = e->stats.busy_ns;
	out->jobs_completed = e->stats.jobs_completed;
	out->jobs_failed = e->stats.jobs_failed;
	out->timeouts = e->stats.timeouts;
	out->resets = e->stats.resets;
	out->hang_resets = e->stats.hang_resets;
	out->steps = e->stats.steps;
	out->longest_step_ns = e->stats.longest_step_ns;
	out->busy = e->running != 0;
	for (struct machine_queue *q = e->queues; q; q = q->next)
		for (struct machine_job *job = q->head; job; job = job->next)
			out->jobs_queued++;
	pthread_mutex_unlock(&e->lock);
	out->hung = atomic_load(&e->hung);
}

/* Called with the machine lock held: @ctx cannot go meanwhile. */
static void machine_inspect_context(struct machine_context *ctx,
				    struct sim_inspect_client *out)
{
	struct machine_client *client = ctx->client;

	out->id = ctx->id;
	out->pid = client->pid;
	memcpy(out->comm, client->comm, sizeof(out->comm));
	out->comm[sizeof(out->comm) - 1] = '\0';
	pthread_rwlock_rdlock(&ctx->va_lock);
	out->mem_device = ctx->mem_device;
	out->mem_host = ctx->mem_host;
	out->buffers = (uint32_t)ctx->bo_count;
	pthread_rwlock_unlock(&ctx->va_lock);
	/* The engines' lists are theirs to lock; the context's the client's. */
	for (unsigned int e = 0; e < MACHINE_ENGINES; e++) {
		struct machine_engine *engine = &ctx->dev->engines[e];

		pthread_mutex_lock(&engine->lock);
		for (struct machine_queue *q = engine->queues; q; q = q->next)
			out->queues += q->ctx == ctx && !q->destroyed;
		pthread_mutex_unlock(&engine->lock);
	}
	out->jobs_submitted = atomic_load(&ctx->jobs_submitted);
	out->jobs_active = (uint32_t)atomic_load(&ctx->jobs_active);
	out->busy_ns = atomic_load(&ctx->busy_ns);
}

void machine_inspect(struct machine *m, uint32_t device,
		     struct sim_inspect_reply *reply)
{
	struct machine_device *dev;
	uint32_t n = 0;

	if (device >= (uint32_t)m->device_count) {
		reply->r.status = TERN_ERROR_INVALID_DEVICE;
		return;
	}
	dev = &m->devices[device];
	reply->r.status = TERN_SUCCESS;
	reply->health_reasons = machine_health_reasons(m, dev);
	pthread_mutex_lock(&dev->lock);
	reply->mem_total = dev->mem_total;
	reply->mem_used = dev->mem_used;
	reply->mem_host_used = dev->mem_host_used;
	reply->buffer_count = dev->buffer_count;
	reply->mem_errors_corrected = dev->mem_errors_corrected;
	reply->mem_errors_uncorrected = dev->mem_errors_uncorrected;
	pthread_mutex_unlock(&dev->lock);
	reply->engine_count = MACHINE_ENGINES;
	for (unsigned int e = 0; e < MACHINE_ENGINES; e++)
		machine_inspect_engine(&dev->engines[e], &reply->engines[e]);

	pthread_mutex_lock(&m->lock);
	for (struct machine_client *c = m->clients; c; c = c->next) {
		for (struct machine_context *ctx = c->contexts; ctx;
		     ctx = ctx->next) {
			if (ctx->dev != dev)
				continue;
			if (n < SIM_INSPECT_MAX_CLIENTS)
				machine_inspect_context(ctx,
							&reply->clients[n]);
			n++;
		}
	}
	pthread_mutex_unlock(&m->lock);
	reply->client_count = n;
}
