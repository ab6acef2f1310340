// SPDX-License-Identifier: MIT
/*
 * Contexts: one tern_device_open() of a device, the counterpart of an
 * open file of tern.ko: its own address space and queues. Closing one,
 * whether the process asked or went away, ends its jobs at once (those
 * not started are dropped, a running one stops at its next step) and
 * frees what it held, as closing a file does. A device's engines run
 * while any context of it is open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "machine.h"
#include "tern_model.h"

int machine_context_open(struct machine_client *client, uint32_t device,
			 uint32_t flags, struct machine_context **out)
{
	struct machine *m = client->machine;
	struct machine_context *ctx;
	struct machine_device *dev;

	if (device >= (uint32_t)m->device_count)
		return TERN_ERROR_INVALID_DEVICE;
	dev = &m->devices[device];
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return TERN_ERROR_OUT_OF_MEMORY;
	ctx->id = machine_next_id(m);
	ctx->dev = dev;
	ctx->client = client;
	ctx->model_clock = flags & SIM_CTX_MODEL_CLOCK;
	ctx->skip_data = flags & SIM_CTX_SKIP_DATA;
	pthread_rwlock_init(&ctx->va_lock, NULL);

	/* Listed last, so that tern-inspect shows contexts in open order. */
	pthread_mutex_lock(&m->lock);
	{
		struct machine_context **link = &client->contexts;

		while (*link)
			link = &(*link)->next;
		*link = ctx;
	}
	pthread_mutex_unlock(&m->lock);
	*out = ctx;
	return TERN_SUCCESS;
}

struct machine_context *machine_context_find(struct machine_client *client,
					     uint64_t id)
{
	struct machine_context *ctx;

	for (ctx = client->contexts; ctx; ctx = ctx->next)
		if (ctx->id == id)
			return ctx;
	return NULL;
}

void machine_context_kill(struct machine_context *ctx)
{
	atomic_store(&ctx->dead, true);
	for (unsigned int e = 0; e < ctx->dev->engine_count; e++)
		machine_engine_kick(&ctx->dev->engines[e]);
}

/* Waits until every job of @ctx (dead) has ended, and frees its queues. */
static void machine_context_drain(struct machine_context *ctx)
{
	struct timespec pause = { 0, 100000 };
	struct machine_queue *q;

	for (q = ctx->queues; q; q = q->ctx_next) {
		struct machine_fence *last;

		pthread_mutex_lock(&q->engine->lock);
		last = q->last ? machine_fence_get(q->last) : NULL;
		q->destroyed = true;
		pthread_mutex_unlock(&q->engine->lock);
		if (last) {
			machine_fence_wait(last);
			machine_fence_put(last);
		}
	}
	/* A job's fence signals just after its engine lets go of it. */
	for (machine_queues_reap(ctx); ctx->queues; machine_queues_reap(ctx))
		nanosleep(&pause, NULL);
}

void machine_context_close(struct machine_context *ctx)
{
	struct machine *m = ctx->dev->machine;
	struct machine_context **link;

	machine_context_kill(ctx);
	machine_context_drain(ctx);
	while (ctx->bo_count)
		machine_bo_free(ctx, ctx->bos[ctx->bo_count - 1]->va);

	pthread_mutex_lock(&m->lock);
	for (link = &ctx->client->contexts; *link; link = &(*link)->next) {
		if (*link == ctx) {
			*link = ctx->next;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	free(ctx->bos);
	for (unsigned int c = 0; c < MACHINE_MAX_CORES; c++) {
		free(atomic_load(&ctx->onchip[c][0]));
		free(atomic_load(&ctx->onchip[c][1]));
	}
	pthread_rwlock_destroy(&ctx->va_lock);
	free(ctx);
}

/*
 * The model's onchip(): @ctx's SBUF or PSUM of @core, zeroed, made when an
 * engine first asks. Two engines of the core may ask at once: the first
 * to publish its memory wins and the other frees its own.
 */
u8 *machine_context_onchip(void *opaque, u32 core, u32 space)
{
	struct machine_context *ctx = opaque;
	const struct tern_core_shape *shape = &ctx->dev->machine->cores;
	uint8_t *_Atomic *slot = &ctx->onchip[core][space == DRM_TERN_SPACE_PSUM];
	uint8_t *mem = atomic_load(slot), *none = NULL;

	if (mem)
		return mem;
	mem = calloc(DRM_TERN_PARTITIONS,
		     tern_space_partition_bytes(shape, space));
	if (!mem)
		return NULL;
	if (!atomic_compare_exchange_strong(slot, &none, mem)) {
		free(mem);
		mem = none;
	}
	return mem;
}

uint64_t machine_device_caps(struct machine *m, int index)
{
	uint64_t caps = TERN_DEVICE_CAP_MOCK | TERN_DEVICE_CAP_HOST_MEMORY |
			TERN_DEVICE_CAP_SEMAPHORE | TERN_DEVICE_CAP_TIMESTAMP |
			TERN_DEVICE_CAP_PEER_MEMORY |
			TERN_DEVICE_CAP_ABORTABLE_WAIT;

	if (m->fabric.port_count[index])
		caps |= TERN_DEVICE_CAP_FABRIC;
	if (m->has_reduce)
		caps |= TERN_DEVICE_CAP_REDUCE | TERN_DEVICE_CAP_REDUCE_DIVIDE;
	if (m->cores.cores)
		caps |= TERN_DEVICE_CAP_COMPUTE;
	return caps;
}

void machine_context_query(struct machine_context *ctx,
			   struct sim_query_reply *reply)
{
	struct machine *m = ctx->dev->machine;
	int index = ctx->dev->index;

	snprintf(reply->node, sizeof(reply->node), "sim:%d", index);
	reply->memory_bytes = ctx->dev->mem_total;
	reply->capabilities = machine_device_caps(m, index);
	if (ctx->model_clock)
		reply->capabilities |= TERN_DEVICE_CAP_MODELLED_CLOCK;
	reply->clock_hz = TERN_MODEL_CLOCK_HZ;
	reply->engine_count = ctx->dev->engine_count;
	reply->dma_engine_count = ctx->dev->dma_engine_count;
	/* as tern.ko's INFO: no memories without cores */
	reply->cores = m->cores.cores;
	if (m->cores.cores) {
		reply->sbuf_partition_bytes = m->cores.sbuf_partition_bytes;
		reply->psum_partition_bytes = m->cores.psum_partition_bytes;
	}
	reply->fabric_port_count = m->fabric.port_count[index];
	reply->fabric_id = index;
	reply->max_submit_bytes = TERN_MODEL_MAX_SUBMIT_BYTES;
	reply->max_waits = TERN_MODEL_MAX_IN_SYNCOBJS;
}

void machine_ports(struct machine *m, uint32_t device,
		   struct sim_ports_reply *reply)
{
	u32 port, n;

	if (device >= (uint32_t)m->device_count) {
		reply->r.status = TERN_ERROR_INVALID_DEVICE;
		return;
	}
	n = m->fabric.port_count[device];
	for (port = 0; port < n && port < SIM_MAX_PORTS; port++) {
		struct tern_fabric_port_view view;
		tern_port_info_t *info = &reply->ports[port];

		if (tern_fabric_port_view(&m->fabric, device, port, &view)) {
			reply->r.status = TERN_ERROR_BACKEND;
			return;
		}
		info->port = port;
		info->state = (tern_link_state_t)view.state;
		info->peer_device = view.state == DRM_TERN_PORT_UNCONNECTED ?
				    -1 : (int)view.peer_device;
		info->peer_port = view.peer_port;
		info->bandwidth = view.bandwidth;
		info->latency_ns = view.latency_ns;
		info->tx_bytes = view.tx_bytes;
		info->rx_bytes = view.rx_bytes;
		info->tx_packets = view.tx_packets;
		info->rx_packets = view.rx_packets;
		info->errors = view.errors;
	}
	reply->count = n;
}
