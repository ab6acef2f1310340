// SPDX-License-Identifier: MIT
/*
 * Communicators: one per rank, each with its scratch and semaphore areas
 * (of the size and layout fabric/prog.c gives them) and every peer's
 * imported; the registry of live ones, their errors, destruction and
 * abort. Those who make them (init/) plan their rings.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/comm/comm.h"
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
	coll_monitor_wake();
}

bool coll_registry_visit(void (*visit)(struct tern_comm *comm))
{
	bool any;

	pthread_mutex_lock(&coll_registry_lock);
	any = coll_registry != NULL;
	for (struct tern_comm *c = coll_registry; c; c = c->next)
		visit(c);
	pthread_mutex_unlock(&coll_registry_lock);
	return any;
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
	coll_inflight_drain(comm, TERN_WAIT_FOREVER);
	free(comm->inflight.fences);
	tern_fence_put(comm->last);
	coll_team_leave(comm);
	coll_link_close(comm);
	if (comm->free_hosts)
		comm->free_hosts(comm);
	if (comm->local)
		coll_comm_free(comm->local);
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
	if (comm->ctl)
		tern_buffer_free(comm->ctl);
	free(comm->peers);
	pthread_mutex_destroy(&comm->lock);
	free(comm);
}

tern_status_t coll_comm_create(struct tern_device *dev, int rank, int nranks,
			       size_t scratch_bytes, struct tern_comm **out)
{
	struct tern_comm *comm = calloc(1, sizeof(*comm));
	tern_status_t status;
	void *ctl = NULL;

	if (!comm)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_init(&comm->lock, NULL);
	atomic_init(&comm->error, TERN_SUCCESS);
	comm->rank = rank;
	comm->nranks = nranks;
	comm->dev = dev;
	comm->ops = dev->ops;
	comm->peers = calloc((size_t)nranks, sizeof(*comm->peers));
	if (!comm->peers) {
		coll_comm_free(comm);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	comm->forced_algo = -1;
	status = coll_monitor_start();
	if (status == TERN_SUCCESS)
		status = tern_buffer_alloc_internal(dev, TERN_MEMORY_DEVICE,
						    scratch_bytes,
						    &comm->scratch, NULL);
	if (status == TERN_SUCCESS)
		status = tern_buffer_alloc_internal(dev, TERN_MEMORY_DEVICE,
						    16u * (size_t)nranks,
						    &comm->sem, NULL);
	if (status == TERN_SUCCESS)
		status = tern_buffer_alloc_internal(dev, TERN_MEMORY_HOST,
						    sizeof(struct coll_ctl),
						    &comm->ctl, &ctl);
	if (status) {
		coll_comm_free(comm);
		return status;
	}
	comm->ctl_cpu = ctl;
	*out = comm;
	return TERN_SUCCESS;
}

void coll_comm_fail(struct tern_comm *comm, tern_status_t status,
		    bool from_peer)
{
	int none = TERN_SUCCESS;

	if (status == TERN_SUCCESS ||
	    !atomic_compare_exchange_strong(&comm->error, &none, (int)status))
		return;
	tern_debug("coll: rank %d/%d in error: %s%s", comm->rank, comm->nranks,
		   tern_status_name(status), from_peer ? " (a peer's)" : "");
	/*
	 * Our jobs stop at their next wait, without the job timeout, with
	 * PEER_FAILED where a peer's failure is the cause.
	 */
	if (comm->ctl_cpu)
		__atomic_store_n(&comm->ctl_cpu->abort,
				 from_peer || status == TERN_ERROR_PEER_FAILED ?
				 COLL_ABORT_PEER : COLL_ABORT_LOCAL,
				 __ATOMIC_SEQ_CST);
	/* Across hosts, the jobs are those of the comm of our host's ranks. */
	if (comm->local)
		coll_comm_fail(comm->local, status, from_peer);
	if (comm->parent)
		coll_comm_fail(comm->parent, status, from_peer);
	if (!from_peer) {
		coll_team_tell(comm);
		coll_link_tell(comm, status);
	}
}

/* Waits for a call of another thread that is still enqueueing. */
static void coll_quiesce(struct tern_comm *comm)
{
	pthread_mutex_lock(&comm->lock);
	pthread_mutex_unlock(&comm->lock);
}

TERN_API tern_status_t tern_comm_destroy(tern_comm_t comm)
{
	tern_status_t status;

	if (!coll_unregister(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	coll_quiesce(comm);
	/* A failure found here still stops the rest and reaches the peers. */
	coll_inflight_drain(comm, TERN_WAIT_FOREVER);
	status = coll_comm_error(comm);
	coll_comm_free(comm);
	return status;
}

/* How long an abort waits for its jobs to end before leaving it to the watchdog. */
#define COLL_ABORT_WAIT_NS	(1000ll * 1000 * 1000)

TERN_API tern_status_t tern_comm_abort(tern_comm_t comm)
{
	if (!coll_unregister(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	coll_comm_fail(comm, TERN_ERROR_CANCELLED, false);
	coll_quiesce(comm);
	if (coll_inflight_drain(comm, COLL_ABORT_WAIT_NS))
		coll_comm_free(comm);
	else
		coll_monitor_adopt(comm);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_comm_get_async_error(tern_comm_t comm,
						 tern_status_t *status)
{
	if (!status || !coll_comm_valid(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	/* Never waits: a comm busy enqueueing is checked by the watchdog. */
	if (pthread_mutex_trylock(&comm->lock) == 0) {
		coll_inflight_reap(comm);
		pthread_mutex_unlock(&comm->lock);
	}
	*status = coll_comm_error(comm);
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
