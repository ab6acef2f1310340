// SPDX-License-Identifier: MIT
/*
 * Snapshots through libtern, normally its simulator: devices from their
 * properties, links from pairs of connected ports (one link per pair, end
 * A the lower device and port), and from the simulated machine its
 * engines, memory and error counters and every process's opens of each
 * device (tern_sim_device_state), with the health the machine derives
 * from them as tern.ko does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "snapshot.h"
#include "tern_accel.h"

#define SIM_MAX_PORTS 64

/* Whether end (@dev, @port) sorts before its peer: it is then end A. */
static bool sim_is_end_a(uint32_t dev, const tern_port_info_t *port)
{
	if (dev != (uint32_t)port->peer_device)
		return dev < (uint32_t)port->peer_device;
	return port->port < port->peer_port;
}

static int sim_add_links(struct snapshot *snap, uint32_t fabric_id,
			 const tern_port_info_t *ports, uint32_t count)
{
	for (uint32_t p = 0; p < count; p++) {
		const tern_port_info_t *port = &ports[p];
		struct snapshot_link *link, *grown;

		if (port->state == TERN_LINK_UNCONNECTED || port->peer_device < 0 ||
		    !sim_is_end_a(fabric_id, port))
			continue;
		grown = realloc(snap->links, (size_t)(snap->link_count + 1) *
				sizeof(*snap->links));
		if (!grown)
			return -1;
		snap->links = grown;
		link = &snap->links[snap->link_count];
		memset(link, 0, sizeof(*link));
		link->index = (uint32_t)snap->link_count++;
		link->device_a = fabric_id;
		link->port_a = port->port;
		link->device_b = (uint32_t)port->peer_device;
		link->port_b = port->peer_port;
		link->up = port->state == TERN_LINK_UP;
		link->bytes_a_to_b = port->tx_bytes;
		link->bytes_b_to_a = port->rx_bytes;
		link->packets_a_to_b = port->tx_packets;
		link->packets_b_to_a = port->rx_packets;
		link->errors = port->errors;
		link->bandwidth = port->bandwidth;
		link->latency_ns = port->latency_ns;
	}
	return 0;
}

/* The opens of the device, appended to the snapshot's clients. */
static int sim_add_clients(struct snapshot *snap, uint32_t device,
			   const tern_sim_device_state_t *state)
{
	uint32_t n = state->client_count < TERN_SIM_MAX_CLIENTS ?
		     state->client_count : TERN_SIM_MAX_CLIENTS;
	struct snapshot_client *grown;

	if (!n)
		return 0;
	grown = realloc(snap->clients, (size_t)(snap->client_count + (int)n) *
			sizeof(*snap->clients));
	if (!grown)
		return -1;
	snap->clients = grown;
	for (uint32_t i = 0; i < n; i++) {
		const tern_sim_client_state_t *in = &state->clients[i];
		struct snapshot_client *c = &snap->clients[snap->client_count++];

		memset(c, 0, sizeof(*c));
		c->device = device;
		c->id = in->id;
		c->pid = (uint32_t)in->pid;
		snprintf(c->comm, sizeof(c->comm), "%s", in->comm);
		c->mem_device = in->mem_device;
		c->mem_host = in->mem_host;
		c->buffers = in->buffers;
		c->queues = in->queues;
		c->jobs_active = in->jobs_active;
		c->jobs_submitted = in->jobs_submitted;
		c->busy_ns = in->busy_ns;
	}
	return 0;
}

/* Engines, counters and health from the machine. */
static void sim_apply_state(struct snapshot_device *dev,
			    const tern_sim_device_state_t *state)
{
	dev->mem_total = state->mem_total;
	dev->mem_used = state->mem_used;
	dev->mem_host_used = state->mem_host_used;
	dev->buffer_count = state->buffer_count;
	dev->mem_errors_corrected = state->mem_errors_corrected;
	dev->mem_errors_uncorrected = state->mem_errors_uncorrected;
	dev->client_count = state->client_count;
	for (uint32_t e = 0; e < state->engine_count &&
	     e < dev->engine_count && e < SNAPSHOT_MAX_ENGINES; e++) {
		const tern_sim_engine_state_t *in = &state->engines[e];
		struct snapshot_engine *out = &dev->engines[e];

		out->busy = in->busy;
		out->hung = in->hung;
		out->busy_ns = in->busy_ns;
		out->jobs_queued = in->jobs_queued;
		out->jobs_completed = in->jobs_completed;
		out->jobs_failed = in->jobs_failed;
		out->timeouts = in->timeouts;
		out->resets = in->resets;
		out->hang_resets = in->hang_resets;
		dev->engines_busy += in->busy != 0;
		dev->jobs_completed += in->jobs_completed;
		dev->jobs_failed += in->jobs_failed;
		dev->job_timeouts += in->timeouts;
		dev->engine_resets += in->resets;
		dev->engine_hang_resets += in->hang_resets;
	}
	/* The machine derives health as tern.ko does (simd/event.c). */
	dev->health_reasons = state->health_reasons;
	dev->health = snapshot_health_of(state->health_reasons);
}

static tern_status_t sim_read_device(struct snapshot *snap, int index)
{
	struct snapshot_device *dev = &snap->devices[index];
	tern_port_info_t ports[SIM_MAX_PORTS];
	tern_device_properties_t props;
	tern_device_t device;
	tern_status_t status;
	uint32_t port_count = 0;

	status = tern_device_open(index, &device);
	if (status != TERN_SUCCESS)
		return status;
	status = tern_device_get_properties(device, &props);
	if (status == TERN_SUCCESS)
		status = tern_device_memory_usage(device, &dev->mem_used,
						  &dev->mem_total);
	if (status == TERN_SUCCESS)
		status = tern_device_get_ports(device, ports, SIM_MAX_PORTS,
					       &port_count);
	tern_device_close(device);
	if (status != TERN_SUCCESS)
		return status;

	dev->index = (uint32_t)props.index;
	dev->fabric_id = (uint32_t)props.fabric_id;
	snprintf(dev->name, sizeof(dev->name), "%s.%d",
		 snap->backend == TERN_BACKEND_SIM ? "sim" : "tern", props.index);
	snprintf(dev->node, sizeof(dev->node), "%s", props.node);
	/* No bus: the node ("sim:N") is the only name it has. */
	dev->capabilities = props.capabilities;
	dev->clock_hz = props.clock_hz;
	dev->engine_count = props.engine_count;
	dev->port_count = props.fabric_port_count;
	for (uint32_t e = 0; e < dev->engine_count && e < SNAPSHOT_MAX_ENGINES; e++)
		dev->engines[e].index = e;
	if (port_count > SIM_MAX_PORTS)
		port_count = SIM_MAX_PORTS;
	if (sim_add_links(snap, dev->fabric_id, ports, port_count))
		return TERN_ERROR_OUT_OF_MEMORY;
	return TERN_SUCCESS;
}

int snapshot_sim_take(const char *prog, struct snapshot *snap)
{
	tern_status_t status = TERN_SUCCESS;
	struct timespec now;
	char what[48];
	int count, ret, i;

	snap->source = SNAPSHOT_SOURCE_SIM;
	ret = cli_count_devices(prog, &snap->backend, &count);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &now);
	snap->taken_ns = (uint64_t)now.tv_sec * 1000000000ull +
			 (uint64_t)now.tv_nsec;
	snap->devices = calloc((size_t)count, sizeof(*snap->devices));
	if (!snap->devices) {
		cli_report_error(prog, "reading devices", TERN_ERROR_OUT_OF_MEMORY);
		return 1;
	}
	snap->device_count = count;
	for (i = 0; i < count && status == TERN_SUCCESS; i++)
		status = sim_read_device(snap, i);
	if (status != TERN_SUCCESS) {
		tern_backend_t backend = snap->backend;

		snprintf(what, sizeof(what), "reading device %d", i - 1);
		cli_report_error(prog, what, status);
		snapshot_free(snap);
		snap->source = SNAPSHOT_SOURCE_SIM;
		snap->backend = backend;	/* still worth stating */
		return 1;
	}
	for (i = 0; i < count && status == TERN_SUCCESS; i++) {
		tern_sim_device_state_t *state = malloc(sizeof(*state));

		snapshot_derive_link_health(snap, &snap->devices[i]);
		if (!state) {
			status = TERN_ERROR_OUT_OF_MEMORY;
			break;
		}
		/* Not the simulator (a kernel backend without its family). */
		if (tern_sim_device_state(i, state) == TERN_SUCCESS) {
			sim_apply_state(&snap->devices[i], state);
			if (sim_add_clients(snap, (uint32_t)i, state))
				status = TERN_ERROR_OUT_OF_MEMORY;
		}
		free(state);
	}
	if (status != TERN_SUCCESS) {
		cli_report_error(prog, "reading the machine", status);
		snapshot_free(snap);
		return 1;
	}
	snapshot_finish(snap);
	return 0;
}
