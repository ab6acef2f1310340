// SPDX-License-Identifier: MIT
/*
 * Reading the fabric ports' counters for tern-bench's fabric-eff column.
 */
#include "coll_fabric.h"

static tern_status_t coll_fabric_ports(tern_device_t device,
				       tern_port_info_t *ports,
				       uint32_t *count)
{
	tern_status_t status;

	status = tern_device_get_ports(device, ports, COLL_FABRIC_MAX_PORTS,
				       count);
	if (status == TERN_SUCCESS && *count > COLL_FABRIC_MAX_PORTS)
		*count = COLL_FABRIC_MAX_PORTS;
	return status;
}

tern_status_t coll_fabric_min_links(const tern_device_t *devices, int nranks,
				    uint32_t *links)
{
	tern_port_info_t ports[COLL_FABRIC_MAX_PORTS];
	uint32_t fewest = UINT32_MAX;

	for (int r = 0; r < nranks; r++) {
		uint32_t count = 0, up = 0;
		tern_status_t status;

		status = coll_fabric_ports(devices[r], ports, &count);
		if (status != TERN_SUCCESS)
			return status;
		for (uint32_t p = 0; p < count; p++)
			if (ports[p].state == TERN_LINK_UP &&
			    ports[p].peer_device >= 0)
				up++;
		if (up < fewest)
			fewest = up;
	}
	*links = nranks > 0 ? fewest : 0;
	return TERN_SUCCESS;
}

tern_status_t coll_fabric_read(const tern_device_t *devices, int nranks,
			       struct coll_fabric_snapshot *snap)
{
	tern_port_info_t ports[COLL_FABRIC_MAX_PORTS];

	snap->nranks = nranks;
	for (int r = 0; r < nranks; r++) {
		uint32_t count = 0;
		tern_status_t status;

		status = coll_fabric_ports(devices[r], ports, &count);
		if (status != TERN_SUCCESS)
			return status;
		snap->ports[r] = count;
		for (uint32_t p = 0; p < count; p++)
			snap->tx[r][p] = ports[p].tx_bytes;
	}
	return TERN_SUCCESS;
}

uint64_t coll_fabric_busiest(const struct coll_fabric_snapshot *before,
			     const struct coll_fabric_snapshot *after)
{
	uint64_t busiest = 0;

	for (int r = 0; r < after->nranks; r++)
		for (uint32_t p = 0; p < after->ports[r] &&
		     p < before->ports[r]; p++) {
			uint64_t moved = after->tx[r][p] - before->tx[r][p];

			if (moved > busiest)
				busiest = moved;
		}
	return busiest;
}
