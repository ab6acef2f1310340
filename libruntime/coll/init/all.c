// SPDX-License-Identifier: MIT
/*
 * tern_comm_init_all (like ncclCommInitAll): one communicator per device,
 * all in this process, as one team. Each rank allocates its areas and
 * imports every peer's directly; each plans the same rings from the
 * devices' fabric ports.
 */
#include "coll/fabric/fabric.h"
#include "coll/init/init.h"
#include "submit.h"

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

tern_status_t coll_init_team(struct tern_comm **comms, int n,
			     struct tern_device *const *devices)
{
	struct coll_node nodes[COLL_MAX_RANKS];
	struct tern_comm *made[COLL_MAX_RANKS] = { NULL };
	tern_status_t status;
	int i, algo;

	status = coll_check_devices(n, (const tern_device_t *)devices, nodes);
	if (status == TERN_SUCCESS)
		status = coll_forced_algo(&algo);
	if (status)
		return status;
	for (i = 0; i < n && status == TERN_SUCCESS; i++) {
		status = coll_comm_create(devices[i], i, n,
					  coll_scratch_bytes(n), &made[i]);
		if (status == TERN_SUCCESS)
			made[i]->forced_algo = algo;
	}
	if (status == TERN_SUCCESS)
		status = coll_connect(made, n);
	if (status == TERN_SUCCESS)
		status = coll_team_create(made, n);
	if (status) {
		for (i = 0; i < n; i++)
			if (made[i])
				coll_comm_free(made[i]);
		return status;
	}
	for (i = 0; i < n; i++) {
		coll_plan_rings(made[i], nodes);
		coll_measure_fabric(made[i], nodes);
		coll_register(made[i]);
		comms[i] = made[i];
	}
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_init_all(tern_comm_t *comms, int ndev,
					  const tern_device_t *devices)
{
	if (!comms || !devices || ndev < 1 || ndev > COLL_MAX_RANKS)
		return TERN_ERROR_INVALID_ARGUMENT;
	return coll_init_team(comms, ndev, (struct tern_device *const *)devices);
}

