// SPDX-License-Identifier: MIT
/*
 * What tern-inspect sees of the machine: its devices with their engines,
 * its fabric's links and the contexts every process has open, in the
 * structs of the model's state lists (model/tern_state.h), written as
 * tern.ko's netlink family writes its dumps (netlink.h). Locks are taken
 * one at a time, in the machine's order (machine, then a context's
 * address space, then an engine), so a dump never holds up the engines
 * for more than a count.
 */
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "netlink.h"

void machine_engine_state(struct machine_engine *e,
			  struct tern_state_engine *state)
{
	memset(state, 0, sizeof(*state));
	state->index = e->index;
	tern_state_engine_target(state, &e->target);
	pthread_mutex_lock(&e->lock);
	state->busy_ns = e->stats.busy_ns;
	state->jobs_completed = e->stats.jobs_completed;
	state->jobs_failed = e->stats.jobs_failed;
	state->timeouts = e->stats.timeouts;
	state->resets = e->stats.resets;
	state->hang_resets = e->stats.hang_resets;
	state->steps = e->stats.steps;
	state->step_max_ns = e->stats.longest_step_ns;
	state->busy = e->running != 0;
	for (struct machine_queue *q = e->queues; q; q = q->next)
		for (struct machine_job *job = q->head; job; job = job->next)
			state->jobs_queued++;
	pthread_mutex_unlock(&e->lock);
	state->hung = atomic_load(&e->hung);
}

/* Called with the machine lock held: @ctx cannot go meanwhile. */
static void machine_context_state(struct machine_context *ctx,
				  struct tern_state_client *state)
{
	memset(state, 0, sizeof(*state));
	state->device = (uint32_t)ctx->dev->index;
	state->id = ctx->id;
	state->pid = (uint32_t)ctx->client->pid;
	pthread_rwlock_rdlock(&ctx->va_lock);
	state->memory_device_bytes = ctx->mem_device;
	state->memory_host_bytes = ctx->mem_host;
	state->buffers = (uint32_t)ctx->bo_count;
	pthread_rwlock_unlock(&ctx->va_lock);
	/* The engines' lists are theirs to lock; the context's the client's. */
	for (unsigned int e = 0; e < ctx->dev->engine_count; e++) {
		struct machine_engine *engine = &ctx->dev->engines[e];

		pthread_mutex_lock(&engine->lock);
		for (struct machine_queue *q = engine->queues; q; q = q->next)
			state->queues += q->ctx == ctx && !q->destroyed;
		pthread_mutex_unlock(&engine->lock);
	}
	state->jobs_submitted = atomic_load(&ctx->jobs_submitted);
	state->jobs_active = (uint32_t)atomic_load(&ctx->jobs_active);
	state->busy_ns = atomic_load(&ctx->busy_ns);
}

/* Contexts open on @dev, every process's. */
static uint32_t machine_context_count(struct machine *m,
				      struct machine_device *dev)
{
	uint32_t n = 0;

	pthread_mutex_lock(&m->lock);
	for (struct machine_client *c = m->clients; c; c = c->next)
		for (struct machine_context *ctx = c->contexts; ctx;
		     ctx = ctx->next)
			n += ctx->dev == dev;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void machine_device_state(struct machine *m, struct machine_device *dev,
			  struct tern_state_device *state)
{
	memset(state, 0, sizeof(*state));
	state->index = (uint32_t)dev->index;
	state->fabric_id = (uint32_t)dev->index;
	state->capabilities = machine_device_caps(m, dev->index);
	state->engine_count = dev->engine_count;
	state->port_count = m->fabric.port_count[dev->index];
	state->health_reasons = machine_health_reasons(m, dev);
	state->health = tern_health_of(state->health_reasons);
	for (unsigned int e = 0; e < dev->engine_count; e++) {
		struct tern_state_engine engine;

		machine_engine_state(&dev->engines[e], &engine);
		tern_state_device_add_engine(state, &engine);
	}
	pthread_mutex_lock(&dev->lock);
	state->memory_total_bytes = dev->mem_total;
	state->memory_used_bytes = dev->mem_used;
	state->memory_host_used_bytes = dev->mem_host_used;
	state->buffers = dev->buffer_count;
	state->mem_errors_corrected = dev->mem_errors_corrected;
	state->mem_errors_uncorrected = dev->mem_errors_uncorrected;
	pthread_mutex_unlock(&dev->lock);
	state->client_count = machine_context_count(m, dev);
}

void machine_put_engine(struct sim_nl *nl, struct machine_engine *engine,
			const struct machine_guilty *guilty)
{
	struct tern_state_engine state;
	uint32_t nest;

	machine_engine_state(engine, &state);
	nest = sim_nl_nest_begin(nl, DRM_TERN_A_DEV_ENGINE);
	sim_nl_put_state(nl, &tern_state_engine_set, &state);
	if (guilty) {
		sim_nl_put_u64(nl, DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID,
			       guilty->client_id);
		sim_nl_put_u32(nl, DRM_TERN_A_ENGINE_GUILTY_PID,
			       (uint32_t)guilty->pid);
		sim_nl_put_string(nl, DRM_TERN_A_ENGINE_GUILTY_COMM,
				  guilty->comm);
	}
	sim_nl_nest_end(nl, nest);
}

static bool machine_dump_device(struct machine *m, struct machine_device *dev,
				struct sim_nl *nl)
{
	struct tern_state_device state;
	char name[32];

	machine_device_state(m, dev, &state);
	sim_nl_begin(nl, DRM_TERN_CMD_DEVICE_GET);
	sim_nl_put_state(nl, &tern_state_device_set, &state);
	snprintf(name, sizeof(name), "sim.%d", dev->index);
	sim_nl_put_string(nl, DRM_TERN_A_DEV_NAME, name);
	snprintf(name, sizeof(name), "sim:%d", dev->index);
	sim_nl_put_string(nl, DRM_TERN_A_DEV_NODE, name);
	for (unsigned int e = 0; e < dev->engine_count; e++)
		machine_put_engine(nl, &dev->engines[e], NULL);
	return sim_nl_end(nl);
}

void machine_link_message(struct sim_nl *nl, struct machine *m, uint32_t link,
			  uint8_t cmd)
{
	struct tern_state_link state;

	tern_fabric_link_state(&m->fabric, link, &state);
	sim_nl_begin(nl, cmd);
	sim_nl_put_state(nl, &tern_state_link_set, &state);
}

/* The contexts open on @dev, while they fit. */
static void machine_dump_clients(struct machine *m, struct machine_device *dev,
				 struct sim_nl *nl)
{
	pthread_mutex_lock(&m->lock);
	for (struct machine_client *c = m->clients; c && !nl->full;
	     c = c->next) {
		for (struct machine_context *ctx = c->contexts; ctx;
		     ctx = ctx->next) {
			struct tern_state_client state;

			if (ctx->dev != dev)
				continue;
			machine_context_state(ctx, &state);
			sim_nl_begin(nl, DRM_TERN_CMD_CLIENT_GET);
			sim_nl_put_state(nl, &tern_state_client_set, &state);
			sim_nl_put_string(nl, DRM_TERN_A_CLIENT_COMM, c->comm);
			if (!sim_nl_end(nl))
				break;
		}
	}
	pthread_mutex_unlock(&m->lock);
}

tern_status_t machine_dump(struct machine *m, const struct sim_dump *req,
			   struct sim_nl *nl)
{
	int first = 0, last = m->device_count - 1;

	if (req->device != SIM_DUMP_ALL) {
		if (req->device >= (uint32_t)m->device_count)
			return TERN_ERROR_INVALID_DEVICE;
		first = last = (int)req->device;
	}
	switch (req->cmd) {
	case DRM_TERN_CMD_DEVICE_GET:
		for (int d = first; d <= last; d++)
			if (!machine_dump_device(m, &m->devices[d], nl))
				return TERN_ERROR_OUT_OF_MEMORY;
		return TERN_SUCCESS;
	case DRM_TERN_CMD_LINK_GET:
		if (req->device != SIM_DUMP_ALL)
			return TERN_ERROR_INVALID_ARGUMENT;
		for (uint32_t l = 0; l < m->fabric.link_count; l++) {
			machine_link_message(nl, m, l, DRM_TERN_CMD_LINK_GET);
			if (!sim_nl_end(nl))
				return TERN_ERROR_OUT_OF_MEMORY;
		}
		return TERN_SUCCESS;
	case DRM_TERN_CMD_CLIENT_GET:
		/* Those that fit: the devices' client counts say how many. */
		for (int d = first; d <= last; d++)
			machine_dump_clients(m, &m->devices[d], nl);
		return TERN_SUCCESS;
	default:
		return TERN_ERROR_INVALID_ARGUMENT;
	}
}
