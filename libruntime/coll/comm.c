// SPDX-License-Identifier: MIT
/*
 * Communicators: one per rank, each with its scratch and semaphore areas
 * and every peer's areas imported, and the ring orders planned from the
 * ranks' fabric ports.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "submit.h"

/* Live communicators, so that a stale or bogus handle is refused. */
static pthread_mutex_t coll_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tern_comm *coll_registry;

bool coll_comm_valid(const struct tern_comm *comm)
{
	const struct tern_comm *c;
	bool found = false;

	if (!comm)
		return false;
	pthread_mutex_lock(&coll_registry_lock);
	for (c = coll_registry; c && !found; c = c->next)
		found = c == comm;
	pthread_mutex_unlock(&coll_registry_lock);
	return found;
}

void coll_register(struct tern_comm *comm)
{
	pthread_mutex_lock(&coll_registry_lock);
	comm->next = coll_registry;
	coll_registry = comm;
	pthread_mutex_unlock(&coll_registry_lock);
}

/* Removes @comm from the registry; false if it was not there. */
static bool coll_unregister(struct tern_comm *comm)
{
	struct tern_comm **link;
	bool found = false;

	pthread_mutex_lock(&coll_registry_lock);
	for (link = &coll_registry; *link; link = &(*link)->next) {
		if (*link == comm) {
			*link = comm->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&coll_registry_lock);
	return found;
}

void coll_comm_free(struct tern_comm *comm)
{
	/* Every job ends, at worst at the job timeout. */
	for (int i = 0; i < comm->last_count; i++) {
		comm->ops->fence_wait(comm->lasts[i].fence, TERN_WAIT_FOREVER);
		tern_fence_put(comm->lasts[i].fence);
	}
	free(comm->lasts);
	for (int p = 0; comm->peers && p < comm->nranks; p++) {
		if (comm->peers[p].scratch)
			tern_buffer_free(comm->peers[p].scratch);
		if (comm->peers[p].sem)
			tern_buffer_free(comm->peers[p].sem);
	}
	if (comm->scratch)
		tern_buffer_free(comm->scratch);
	if (comm->sem)
		tern_buffer_free(comm->sem);
	free(comm->peers);
	pthread_mutex_destroy(&comm->lock);
	free(comm);
}

tern_status_t coll_comm_create(struct tern_device *dev, int rank, int nranks,
			       struct tern_comm **out)
{
	struct tern_comm *comm = calloc(1, sizeof(*comm));
	size_t scratch_bytes = (size_t)nranks * COLL_SLOTS * COLL_CHUNK_BYTES;
	tern_status_t status;

	if (!comm)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_init(&comm->lock, NULL);
	comm->rank = rank;
	comm->nranks = nranks;
	comm->dev = dev;
	comm->ops = dev->ops;
	comm->peers = calloc((size_t)nranks, sizeof(*comm->peers));
	if (!comm->peers) {
		coll_comm_free(comm);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	if (nranks == 1)
		scratch_bytes = 8;	/* nobody sends to a lone rank */
	status = tern_buffer_alloc_internal(dev, TERN_MEMORY_DEVICE,
					    scratch_bytes, &comm->scratch, NULL);
	if (status == TERN_SUCCESS)
		status = tern_buffer_alloc_internal(dev, TERN_MEMORY_DEVICE,
						    16u * (size_t)nranks,
						    &comm->sem, NULL);
	if (status) {
		coll_comm_free(comm);
		return status;
	}
	*out = comm;
	return TERN_SUCCESS;
}

tern_status_t coll_describe(struct tern_device *dev, struct coll_node *node)
{
	tern_port_info_t ports[16];
	uint32_t count = 0;
	tern_status_t status;

	memset(node, 0, sizeof(*node));
	node->fabric_id = tern_device_fabric_id(dev);
	if (!(dev->info.capabilities & TERN_DEVICE_CAP_FABRIC))
		return TERN_SUCCESS;
	status = tern_device_get_ports(dev, ports, 16, &count);
	if (status)
		return status;
	node->port_count = count < 16 ? count : 16;
	for (uint32_t p = 0; p < node->port_count; p++)
		node->neighbour[p] = ports[p].state == TERN_LINK_UNCONNECTED ?
				     -1 : ports[p].peer_device;
	return TERN_SUCCESS;
}

static tern_status_t coll_check_devices(int ndev, const tern_device_t *devices,
					struct coll_node *nodes)
{
	for (int i = 0; i < ndev; i++) {
		struct tern_device *dev = devices[i];
		tern_status_t status;

		if (!tern_handle_valid(dev, TERN_HANDLE_DEVICE))
			return TERN_ERROR_INVALID_ARGUMENT;
		status = coll_describe(dev, &nodes[i]);
		if (status)
			return status;
		if (ndev > 1 &&
		    (!(dev->info.capabilities & TERN_DEVICE_CAP_PEER_MEMORY) ||
		     !(dev->info.capabilities & TERN_DEVICE_CAP_SEMAPHORE) ||
		     nodes[i].fabric_id < 0))
			return TERN_ERROR_NOT_SUPPORTED;
		/* Two ranks on one chip would share its engines: refused. */
		for (int j = 0; j < i; j++)
			if (devices[j] == dev ||
			    (ndev > 1 && nodes[j].fabric_id == nodes[i].fabric_id))
				return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

/* Imports every peer's scratch and semaphores into every rank. */
static tern_status_t coll_connect(struct tern_comm **comms, int n)
{
	for (int r = 0; r < n; r++) {
		for (int p = 0; p < n; p++) {
			struct coll_peer *cp = &comms[r]->peers[p];
			tern_status_t status;

			if (p == r)
				continue;
			status = tern_buffer_import_peer(comms[r]->dev,
							 comms[p]->scratch,
							 &cp->scratch);
			if (status == TERN_SUCCESS)
				status = tern_buffer_import_peer(comms[r]->dev,
								 comms[p]->sem,
								 &cp->sem);
			if (status)
				return status;
		}
	}
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_init_all(tern_comm_t *comms, int ndev,
					  const tern_device_t *devices)
{
	struct coll_node nodes[COLL_MAX_RANKS];
	struct tern_comm *made[COLL_MAX_RANKS] = { NULL };
	tern_status_t status;
	int i;

	if (!comms || !devices || ndev < 1 || ndev > COLL_MAX_RANKS)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = coll_check_devices(ndev, devices, nodes);
	if (status)
		return status;
	for (i = 0; i < ndev && status == TERN_SUCCESS; i++)
		status = coll_comm_create(devices[i], i, ndev, &made[i]);
	if (status == TERN_SUCCESS)
		status = coll_connect(made, ndev);
	if (status) {
		for (i = 0; i < ndev; i++)
			if (made[i])
				coll_comm_free(made[i]);
		return status;
	}
	for (i = 0; i < ndev; i++) {
		coll_plan_rings(made[i], nodes);
		coll_register(made[i]);
		comms[i] = made[i];
	}
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_destroy(tern_comm_t comm)
{
	if (!coll_unregister(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	coll_comm_free(comm);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_count(tern_comm_t comm, int *count)
{
	if (!count || !coll_comm_valid(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	*count = comm->nranks;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_rank(tern_comm_t comm, int *rank)
{
	if (!rank || !coll_comm_valid(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	*rank = comm->rank;
	return TERN_SUCCESS;
}
