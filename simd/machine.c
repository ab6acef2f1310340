// SPDX-License-Identifier: MIT
/*
 * The machine as a whole: its shape (devices, memory, job timeout,
 * fabric), fixed when it starts; its clients, one thread each; and when it
 * ends. A machine started on demand ends once it has had no client for
 * its idle time; one started with --persistent stays until
 * stopped. STOP ends it, refused while other processes use it unless
 * forced; an idle machine also ends for a process of another shape that
 * named no machine (client.c, SIM_HELLO_GIVE_WAY).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "machine.h"
#include "tern_model.h"

uint64_t machine_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Asks the model whether a REDUCE packet is one it accepts. */
static bool machine_model_has_reduce(void)
{
	struct drm_tern_packet_reduce p = {
		.header = {
			.opcode = DRM_TERN_OP_REDUCE,
			.length = sizeof(p) / 8,
		},
		.src0 = MACHINE_VA_BASE,
		.src1 = MACHINE_VA_BASE,
		.dst = MACHINE_VA_BASE,
	};

	return tern_model_validate(&p, sizeof(p), NULL) == 0;
}

int machine_init(struct machine *m, const struct sim_shape *shape,
		 char *reason, size_t reason_len)
{
	struct timespec now;
	int i, e;

	if (shape->devices < 1 || shape->devices > MACHINE_MAX_DEVICES ||
	    shape->mem_mb < 1 || shape->mem_mb > (1u << 20) ||
	    shape->job_timeout_ms < 1 || shape->job_timeout_ms > 3600000) {
		snprintf(reason, reason_len,
			 "devices 1-%d, memory 1-1048576 MiB and a job timeout "
			 "of 1-3600000 ms, not %u, %u and %u",
			 MACHINE_MAX_DEVICES, shape->devices, shape->mem_mb,
			 shape->job_timeout_ms);
		return -EINVAL;
	}
	if (shape->cores > MACHINE_MAX_CORES || shape->sbuf_kb < 1 ||
	    shape->sbuf_kb > 1024 || shape->psum_kb < 2 ||
	    shape->psum_kb > 64 || shape->psum_kb % 2) {
		snprintf(reason, reason_len,
			 "0-%d cores, 1-1024 KiB of SBUF and an even 2-64 KiB "
			 "of PSUM a partition, not %u, %u and %u",
			 MACHINE_MAX_CORES, shape->cores, shape->sbuf_kb,
			 shape->psum_kb);
		return -EINVAL;
	}
	if (tern_fabric_init(&m->fabric, shape->devices,
			     shape->topology[0] ? shape->topology : NULL)) {
		snprintf(reason, reason_len,
			 "topology '%.100s' does not fit %u devices",
			 shape->topology, shape->devices);
		return -EINVAL;
	}
	m->timing = malloc(sizeof(*m->timing));
	if (!m->timing) {
		snprintf(reason, reason_len, "out of memory");
		return -ENOMEM;
	}
	tern_timing_init(m->timing, &m->fabric);
	m->shape = *shape;
	m->cores.cores = shape->cores;
	m->cores.sbuf_partition_bytes = shape->sbuf_kb << 10;
	m->cores.psum_partition_bytes = shape->psum_kb << 10;
	m->job_timeout_ns = (uint64_t)shape->job_timeout_ms * 1000000ull;
	m->has_reduce = machine_model_has_reduce();
	clock_gettime(CLOCK_REALTIME, &now);
	m->started_ns = (uint64_t)now.tv_sec * 1000000000ull +
			(uint64_t)now.tv_nsec;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	m->next_id = 1;
	m->idle_since_ns = machine_clock_ns();
	for (i = 0; i < (int)shape->devices; i++) {
		struct machine_device *dev = &m->devices[i];

		dev->machine = m;
		dev->index = i;
		dev->mem_total = (uint64_t)shape->mem_mb << 20;
		pthread_mutex_init(&dev->lock, NULL);
		dev->dma_engine_count = MACHINE_DMA_ENGINES;
		if (MACHINE_DMA_PER_CORE * shape->cores > MACHINE_DMA_ENGINES)
			dev->dma_engine_count = MACHINE_DMA_PER_CORE *
						shape->cores;
		dev->engine_count = dev->dma_engine_count +
				    TERN_CORE_ENGINES * shape->cores;
		for (e = 0; e < (int)dev->engine_count; e++) {
			struct machine_engine *engine = &dev->engines[e];

			engine->dev = dev;
			engine->index = (uint32_t)e;
			tern_model_engine_target(dev->dma_engine_count,
						 (uint32_t)e,
						 &m->cores, &engine->target);
			pthread_mutex_init(&engine->lock, NULL);
		}
	}
	m->device_count = (int)shape->devices;
	if (machine_sched_start(m)) {
		snprintf(reason, reason_len, "cannot start the engines' workers");
		return -ENOMEM;
	}
	return 0;
}

uint64_t machine_next_id(struct machine *m)
{
	uint64_t id;

	pthread_mutex_lock(&m->lock);
	id = m->next_id++;
	pthread_mutex_unlock(&m->lock);
	return id;
}

int machine_client_start(struct machine *m, int sock)
{
	struct machine_client *client = calloc(1, sizeof(*client));
	pthread_attr_t attr;
	int ret;

	if (!client)
		return -ENOMEM;
	if (machine_usage_init(&client->usage)) {
		free(client);
		return -EMFILE;
	}
	client->machine = m;
	client->sock = sock;
	client->ring.slot = -1;
	pthread_mutex_init(&client->lock, NULL);
	client->id = machine_next_id(m);
	pthread_mutex_lock(&m->lock);
	client->next = m->clients;
	m->clients = client;
	m->client_count++;
	m->idle_since_ns = 0;
	pthread_mutex_unlock(&m->lock);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&client->thread, &attr, machine_client_main,
			     client);
	pthread_attr_destroy(&attr);
	if (ret) {
		pthread_mutex_lock(&m->lock);
		m->clients = client->next;
		if (--m->client_count == 0)
			m->idle_since_ns = machine_clock_ns();
		pthread_mutex_unlock(&m->lock);
		pthread_mutex_destroy(&client->lock);
		machine_usage_fini(&client->usage);
		free(client);
		return -ret;
	}
	return 0;
}

void machine_wait_until_done(struct machine *m)
{
	pthread_mutex_lock(&m->lock);
	while (!m->stopping) {
		struct timespec tick;
		uint64_t now = machine_clock_ns();

		if (!m->persistent && m->client_count == 0 &&
		    now - m->idle_since_ns >= m->idle_ns)
			break;
		/* The condition variable's clock is CLOCK_REALTIME: tick. */
		clock_gettime(CLOCK_REALTIME, &tick);
		tick.tv_nsec += 100000000;
		if (tick.tv_nsec >= 1000000000) {
			tick.tv_sec++;
			tick.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&m->cond, &m->lock, &tick);
	}
	m->stopping = true;
	pthread_mutex_unlock(&m->lock);
}
