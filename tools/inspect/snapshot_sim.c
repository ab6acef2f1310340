// SPDX-License-Identifier: MIT
/*
 * Snapshots through libtern. From the simulated machine: its answers to
 * tern.ko's dumps (tern_sim_netlink_dump()), read by the one parser that
 * reads tern.ko's (snapshot_parse.c), with the engine clock and the
 * capabilities this process sees from each device's properties. When
 * libtern chose tern.ko's nodes but its netlink family is out of reach (a
 * container without generic netlink): devices from their properties,
 * links from pairs of connected ports (one link per pair, end A the lower
 * device and port), health from the links.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "snapshot.h"
#include "tern_accel.h"
#include "tern_sim.h"
#include <netlink/msg.h>

#define SIM_MAX_PORTS 64

/* What libtern says of one device: its properties and ports. */
struct sim_device {
	tern_device_properties_t props;
	uint64_t mem_used, mem_total;
	tern_port_info_t ports[SIM_MAX_PORTS];
	uint32_t port_count;
};

static tern_status_t sim_read_device(int index, struct sim_device *out)
{
	tern_device_t device;
	tern_status_t status;

	status = tern_device_open(index, &device);
	if (status != TERN_SUCCESS)
		return status;
	status = tern_device_get_properties(device, &out->props);
	if (status == TERN_SUCCESS)
		status = tern_device_memory_usage(device, &out->mem_used,
						  &out->mem_total);
	if (status == TERN_SUCCESS)
		status = tern_device_get_ports(device, out->ports, SIM_MAX_PORTS,
					       &out->port_count);
	tern_device_close(device);
	if (out->port_count > SIM_MAX_PORTS)
		out->port_count = SIM_MAX_PORTS;
	return status;
}

/*
 * The machine's answer to dump @cmd, into @snap; a message the parser
 * refuses leaves its error in *@refused.
 */
static tern_status_t sim_dump(struct snapshot *snap, int cmd, int *refused)
{
	tern_status_t status;
	struct nlmsghdr *nlh;
	size_t len;
	void *msgs;
	int rem;

	status = tern_sim_netlink_dump(cmd, -1, &msgs, &len);
	if (status)
		return status;
	rem = (int)len;
	for (nlh = msgs; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
		*refused = snapshot_add(snap, nlh);
		if (*refused) {
			status = TERN_ERROR_BACKEND;
			break;
		}
	}
	free(msgs);
	return status;
}

/* The machine's devices, links and clients; what this process sees. */
static tern_status_t sim_from_machine(struct snapshot *snap,
				      const struct sim_device *seen, int count,
				      int *refused)
{
	tern_status_t status = sim_dump(snap, DRM_TERN_CMD_DEVICE_GET, refused);

	if (!status)
		status = sim_dump(snap, DRM_TERN_CMD_LINK_GET, refused);
	if (!status)
		status = sim_dump(snap, DRM_TERN_CMD_CLIENT_GET, refused);
	if (status)
		return status;
	for (int i = 0; i < snap->device_count; i++) {
		struct snapshot_device *dev = &snap->devices[i];

		if (dev->index >= (uint32_t)count)
			continue;
		/* Its view: TERN_SIM_CLOCK=model adds the modelled clock. */
		dev->capabilities = seen[dev->index].props.capabilities;
		dev->clock_hz = seen[dev->index].props.clock_hz;
	}
	return TERN_SUCCESS;
}

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
		link->state = link->up ? DRM_TERN_PORT_UP : DRM_TERN_PORT_DOWN;
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

/* tern.ko's devices as libtern sees them, without its netlink family. */
static tern_status_t sim_from_properties(struct snapshot *snap,
					 const struct sim_device *seen,
					 int count, int *refused)
{
	snap->devices = calloc((size_t)count, sizeof(*snap->devices));
	if (!snap->devices)
		return TERN_ERROR_OUT_OF_MEMORY;
	snap->device_count = count;
	for (int i = 0; i < count; i++) {
		const tern_device_properties_t *props = &seen[i].props;
		struct snapshot_device *dev = &snap->devices[i];

		dev->index = (uint32_t)props->index;
		dev->fabric_id = (uint32_t)props->fabric_id;
		snprintf(dev->name, sizeof(dev->name), "tern.%d", props->index);
		/* No bus: the node is the only name it has. */
		snprintf(dev->node, sizeof(dev->node), "%s", props->node);
		dev->capabilities = props->capabilities;
		dev->clock_hz = props->clock_hz;
		dev->engine_count = props->engine_count;
		dev->port_count = props->fabric_port_count;
		dev->memory_used_bytes = seen[i].mem_used;
		dev->memory_total_bytes = seen[i].mem_total;
		/* Without netlink, what each engine is is not known. */
		if (dev->engine_count > SNAPSHOT_MAX_ENGINES) {
			dev->engine_count = 0;
			*refused = SNAPSHOT_TOO_MANY_ENGINES;
			return TERN_ERROR_BACKEND;
		}
		if (snapshot_device_alloc_engines(dev) ||
		    sim_add_links(snap, dev->fabric_id, seen[i].ports,
				  seen[i].port_count))
			return TERN_ERROR_OUT_OF_MEMORY;
	}
	for (int i = 0; i < count; i++)
		snapshot_derive_link_health(snap, &snap->devices[i]);
	return TERN_SUCCESS;
}

int snapshot_sim_take(const char *prog, struct snapshot *snap)
{
	tern_status_t status = TERN_SUCCESS;
	struct sim_device *seen;
	struct timespec now;
	char what[48];
	int count, ret, i, refused = 0;

	snap->source = SNAPSHOT_SOURCE_SIM;
	ret = cli_count_devices(prog, &snap->backend, &count);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &now);
	snap->taken_ns = (uint64_t)now.tv_sec * 1000000000ull +
			 (uint64_t)now.tv_nsec;
	seen = calloc((size_t)count, sizeof(*seen));
	if (!seen) {
		cli_report_error(prog, "reading devices", TERN_ERROR_OUT_OF_MEMORY);
		return 1;
	}
	/* Properties first: the devices this opens are closed before a dump. */
	for (i = 0; i < count && status == TERN_SUCCESS; i++)
		status = sim_read_device(i, &seen[i]);
	if (status != TERN_SUCCESS) {
		snprintf(what, sizeof(what), "reading device %d", i - 1);
		cli_report_error(prog, what, status);
		free(seen);
		return 1;
	}
	if (snap->backend == TERN_BACKEND_SIM)
		status = sim_from_machine(snap, seen, count, &refused);
	else
		status = sim_from_properties(snap, seen, count, &refused);
	free(seen);
	if (status != TERN_SUCCESS) {
		tern_backend_t backend = snap->backend;

		if (refused)
			fprintf(stderr, "%s: reading the machine: %s\n", prog,
				snapshot_error(refused));
		else
			cli_report_error(prog, "reading the machine", status);
		snapshot_free(snap);
		snap->source = SNAPSHOT_SOURCE_SIM;
		snap->backend = backend;	/* still worth stating */
		return 1;
	}
	snapshot_finish(snap);
	return 0;
}
