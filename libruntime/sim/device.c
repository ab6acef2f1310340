// SPDX-License-Identifier: MIT
/*
 * Simulator devices: configuration, contexts, and the backend ops table.
 *
 * TERN_SIM_DEVICES (1..64, default 4) devices of TERN_SIM_MEM_MB (1..1048576,
 * default 256) MiB each; TERN_SIM_JOB_TIMEOUT_MS (1..3600000, default 5000,
 * like tern.ko's job_timeout_ms) bounds each job; TERN_SIM_TOPOLOGY (as
 * tern_fabric_init() takes it, default auto) joins the devices, whose
 * fabric ids are their indexes. A value that is not a plain decimal number
 * in range, or a topology the devices cannot have, is a configuration
 * error: init fails with TERN_ERROR_INVALID_ARGUMENT and every call reports
 * it, rather than running with settings the user did not ask for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "tern_model.h"

static struct sim_device sim_devices[SIM_MAX_DEVICES];
static int sim_device_count;
struct tern_fabric sim_fabric;
/* Whether the model knows REDUCE (TERN_DEVICE_CAP_REDUCE). */
static bool sim_has_reduce;
uint64_t sim_job_timeout_ns = SIM_DEFAULT_TIMEOUT_MS * 1000000ull;

uint64_t sim_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reads @name as a decimal in [@min, @max]; false if set but malformed. */
static bool sim_env_number(const char *name, unsigned long min,
			   unsigned long max, unsigned long *value)
{
	const char *text = getenv(name);
	unsigned long v = 0;
	const char *p;

	if (!text || !*text)
		return true;
	for (p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > max)
			goto bad;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < min || v > max)
		goto bad;
	*value = v;
	return true;
bad:
	tern_debug("%s=\"%s\" is not a number in %lu..%lu", name, text, min,
		   max);
	return false;
}

/* Asks the model whether a REDUCE packet is one it accepts. */
static bool sim_model_has_reduce(void)
{
	struct drm_tern_packet_reduce p = {
		.header = {
			.opcode = TERN_OP_REDUCE,
			.length = sizeof(p) / 8,
		},
		.src0 = SIM_VA_BASE,
		.src1 = SIM_VA_BASE,
		.dst = SIM_VA_BASE,
	};

	return tern_model_validate(&p, sizeof(p), NULL) == 0;
}

static tern_status_t sim_init(void)
{
	unsigned long devices = SIM_DEFAULT_DEVICES, mem_mb = SIM_DEFAULT_MEM_MB;
	unsigned long timeout_ms = SIM_DEFAULT_TIMEOUT_MS;
	const char *topology;
	int i, e;

	if (!sim_env_number("TERN_SIM_DEVICES", 1, SIM_MAX_DEVICES, &devices) ||
	    !sim_env_number("TERN_SIM_MEM_MB", 1, 1ul << 20, &mem_mb) ||
	    !sim_env_number("TERN_SIM_JOB_TIMEOUT_MS", 1, 3600000, &timeout_ms))
		return TERN_ERROR_INVALID_ARGUMENT;
	sim_job_timeout_ns = timeout_ms * 1000000ull;
	topology = getenv("TERN_SIM_TOPOLOGY");
	if (tern_fabric_init(&sim_fabric, (u32)devices, topology)) {
		tern_debug("TERN_SIM_TOPOLOGY=\"%s\" does not fit %lu devices",
			   topology, devices);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	sim_has_reduce = sim_model_has_reduce();
	for (i = 0; i < (int)devices; i++) {
		struct sim_device *dev = &sim_devices[i];

		dev->index = i;
		dev->mem_total = (uint64_t)mem_mb << 20;
		pthread_mutex_init(&dev->lock, NULL);
		for (e = 0; e < SIM_ENGINES; e++) {
			pthread_mutex_init(&dev->engines[e].lock, NULL);
			pthread_cond_init(&dev->engines[e].cond, NULL);
		}
	}
	sim_device_count = (int)devices;
	return TERN_SUCCESS;
}

static tern_status_t sim_count(int *count)
{
	*count = sim_device_count;
	return sim_device_count ? TERN_SUCCESS : TERN_ERROR_NO_DEVICE;
}

static struct sim_context *sim_context(struct tern_be_device *bdev)
{
	return tern_container_of(bdev, struct sim_context, base);
}

static tern_status_t sim_open(int index, struct tern_be_device **out)
{
	struct sim_device *dev;
	struct sim_context *ctx;
	tern_status_t status = TERN_SUCCESS;

	if (index < 0 || index >= sim_device_count)
		return TERN_ERROR_INVALID_DEVICE;
	dev = &sim_devices[index];
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return TERN_ERROR_OUT_OF_MEMORY;
	ctx->base.index = index;
	ctx->dev = dev;
	pthread_rwlock_init(&ctx->va_lock, NULL);

	/* Engines run while any context of the device is open. */
	pthread_mutex_lock(&dev->lock);
	if (dev->open_count == 0)
		status = sim_engines_start(dev);
	if (status == TERN_SUCCESS)
		dev->open_count++;
	pthread_mutex_unlock(&dev->lock);
	if (status) {
		pthread_rwlock_destroy(&ctx->va_lock);
		free(ctx);
		return status;
	}
	*out = &ctx->base;
	return TERN_SUCCESS;
}

static void sim_close(struct tern_be_device *bdev)
{
	struct sim_context *ctx = sim_context(bdev);
	struct sim_device *dev = ctx->dev;

	/* Like a file closing: whatever is left goes with it. */
	while (ctx->bo_count)
		sim_buffer_free(bdev, &ctx->bos[ctx->bo_count - 1]->base);
	free(ctx->bos);
	pthread_rwlock_destroy(&ctx->va_lock);
	free(ctx);

	pthread_mutex_lock(&dev->lock);
	if (--dev->open_count == 0)
		sim_engines_stop(dev);
	pthread_mutex_unlock(&dev->lock);
}

static tern_status_t sim_query(struct tern_be_device *bdev,
			       struct tern_be_info *info)
{
	struct sim_context *ctx = sim_context(bdev);

	snprintf(info->node, sizeof(info->node), "sim:%d", ctx->dev->index);
	info->memory_bytes = ctx->dev->mem_total;
	info->capabilities = TERN_DEVICE_CAP_MOCK | TERN_DEVICE_CAP_HOST_MEMORY |
			     TERN_DEVICE_CAP_SEMAPHORE | TERN_DEVICE_CAP_TIMESTAMP |
			     TERN_DEVICE_CAP_PEER_MEMORY |
			     TERN_DEVICE_CAP_ABORTABLE_WAIT;
	if (sim_fabric.port_count[ctx->dev->index])
		info->capabilities |= TERN_DEVICE_CAP_FABRIC;
	if (sim_has_reduce)
		info->capabilities |= TERN_DEVICE_CAP_REDUCE |
				      TERN_DEVICE_CAP_REDUCE_DIVIDE;
	info->clock_hz = TERN_MODEL_CLOCK_HZ;
	info->engine_count = SIM_ENGINES;
	info->fabric_port_count = sim_fabric.port_count[ctx->dev->index];
	info->fabric_id = ctx->dev->index;
	info->max_submit_bytes = TERN_MODEL_MAX_SUBMIT_BYTES;
	info->max_waits = TERN_MODEL_MAX_IN_SYNCOBJS;
	return TERN_SUCCESS;
}

static tern_status_t sim_memory_usage(struct tern_be_device *bdev,
				      uint64_t *used, uint64_t *total)
{
	struct sim_device *dev = sim_context(bdev)->dev;

	pthread_mutex_lock(&dev->lock);
	*used = dev->mem_used;
	*total = dev->mem_total;
	pthread_mutex_unlock(&dev->lock);
	return TERN_SUCCESS;
}

static tern_status_t sim_ports(struct tern_be_device *bdev,
			       tern_port_info_t *ports, uint32_t capacity,
			       uint32_t *count)
{
	u32 device = (u32)sim_context(bdev)->dev->index;
	u32 port, n = sim_fabric.port_count[device];

	for (port = 0; port < n && port < capacity; port++) {
		struct tern_fabric_port_view view;
		tern_port_info_t *info = &ports[port];

		if (tern_fabric_port_view(&sim_fabric, device, port, &view))
			return TERN_ERROR_BACKEND;
		memset(info, 0, sizeof(*info));
		info->port = port;
		info->state = (tern_link_state_t)view.state;
		info->peer_device = view.state == TERN_PORT_UNCONNECTED ?
				    -1 : (int)view.peer_device;
		info->peer_port = view.peer_port;
		info->bandwidth = TERN_FABRIC_LINK_BANDWIDTH;
		info->latency_ns = TERN_FABRIC_LINK_LATENCY_NS;
		info->tx_bytes = view.tx_bytes;
		info->rx_bytes = view.rx_bytes;
		info->tx_packets = view.tx_packets;
		info->rx_packets = view.rx_packets;
		info->errors = view.errors;
	}
	*count = n;
	return TERN_SUCCESS;
}

static tern_status_t sim_set_link(int device_index, uint32_t port, bool up)
{
	if (device_index < 0 || device_index >= sim_device_count)
		return TERN_ERROR_INVALID_DEVICE;
	if (tern_fabric_set_link(&sim_fabric, (u32)device_index, port, up) < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	return TERN_SUCCESS;
}

const struct tern_backend_ops tern_sim_backend = {
	.kind = TERN_BACKEND_SIM,
	.init = sim_init,
	.device_count = sim_count,
	.device_open = sim_open,
	.device_close = sim_close,
	.device_query = sim_query,
	.memory_usage = sim_memory_usage,
	.buffer_create = sim_buffer_create,
	.buffer_map = sim_buffer_map,
	.buffer_free = sim_buffer_free,
	.buffer_export = sim_buffer_export,
	.buffer_import = sim_buffer_import,
	.ports = sim_ports,
	.set_link = sim_set_link,
	.queue_create = sim_queue_create,
	.queue_destroy = sim_queue_destroy,
	.submit = sim_submit,
	.fence_wait = sim_fence_wait,
	.fence_status = sim_fence_status,
	.fence_import = sim_fence_import,
};
