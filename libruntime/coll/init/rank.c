// SPDX-License-Identifier: MIT
/*
 * Communicators across processes, one rank per process (like
 * ncclGetUniqueId + ncclCommInitRank), on one host or several.
 *
 * The ranks meet over TCP at the address the unique id carries
 * (bootstrap.c): each tells rank 0 its fabric id, ports and host and
 * learns everyone's. The ranks of each host then make a comm of their
 * own: they trade the fds of their scratch and semaphore areas
 * (handoff.c), and every rank imports its host peers' areas and plans the
 * rings tern_comm_init_all would. Across hosts (hosts/hosts.c) each rank
 * then connects over the network to the ranks at its position on the
 * other hosts. The ranks return together, once all are ready, with one
 * verdict. The TCP connections stay, to carry failures (comm/link.c). A
 * rank that does not arrive within TERN_COMM_INIT_TIMEOUT_MS (default
 * 30000), or the caller's timeout (tern_comm_init_rank_timeout), fails
 * every rank's init with TERN_ERROR_PEER_FAILED. On both backends: the
 * simulated machine's devices are every process's, as tern.ko's are.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "coll/init/internal.h"
#include "settings.h"
#include "submit.h"

/* Meets the others (bootstrap.c) and learns who shares our host. */
static tern_status_t coll_meet(struct coll_table *t, const struct coll_id *cid,
			       int rank, int64_t deadline)
{
	tern_status_t status;
	int first = -1;

	if (rank != 0)
		status = coll_meet_peer(cid, t->key, rank, t->nranks, t->info,
					&t->chan[rank], deadline);
	else
		status = coll_meet_root(cid, t->key, t->nranks, t->info,
					t->chan, deadline);
	if (status)
		return status;
	coll_map_hosts(t->nranks, t->info, &t->map);
	/* Rank 0 refuses this; a rank 0 that lies is refused here. */
	if (!t->map.local_size) {
		tern_set_last_error("bootstrap: rank %d: the hosts hold different numbers of ranks; a communicator across hosts needs as many on each",
				    rank);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	t->lhost = t->map.host_of[rank];
	t->lrank = t->map.local_rank[rank];
	t->nlocal = t->map.local_size;
	for (int r = 0; r < t->nranks; r++) {
		if (t->map.host_of[r] != t->lhost)
			continue;
		t->local_node[t->map.local_rank[r]] = t->info[r].node;
		if (first < 0)
			first = r;
	}
	/* Its host's first rank keeps its hand-off socket; we no longer. */
	if (first != rank && t->handoff >= 0) {
		close(t->handoff);
		t->handoff = -1;
	}
	return TERN_SUCCESS;
}

/* Which files @fds are; zeros where none. */
static void coll_area_ids_of(const int fds[2], struct coll_area_ids *ids)
{
	struct stat st;

	memset(ids, 0, sizeof(*ids));
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0 && fstat(fds[i], &st) == 0) {
			ids->dev[i] = st.st_dev;
			ids->ino[i] = st.st_ino;
		}
	}
}

/*
 * Every rank tells the others which files its areas are, and each checks
 * that what its host's first rank handed it for each host peer is that
 * peer's own: a member in the middle cannot pass one rank's areas off as
 * another's. Every rank that met takes part, whatever @status, so that
 * none waits for another.
 */
static tern_status_t coll_check_areas(struct coll_table *t, int rank,
				      tern_status_t status, int64_t deadline)
{
	tern_status_t said;

	if (status == TERN_SUCCESS && t->nlocal > 1)
		coll_area_ids_of(t->fds[t->lrank], &t->area[rank]);
	said = coll_star_allgather(rank, t->nranks, t->chan, t->area,
				   sizeof(t->area[0]), deadline);
	if (status)
		return status;
	if (said)
		return said;
	for (int p = 0; t->nlocal > 1 && p < t->nlocal; p++) {
		int owner = coll_host_member(&t->map, t->nranks, t->lhost, p);
		struct coll_area_ids got;

		static const struct coll_area_ids none;

		coll_area_ids_of(t->fds[p], &got);
		if (owner == rank)
			continue;
		if (memcmp(&t->area[owner], &none, sizeof(none)) == 0) {
			tern_set_last_error("bootstrap: rank %d: rank %d has no areas to hand over: its init failed",
					    rank, owner);
			return TERN_ERROR_PEER_FAILED;
		}
		if (memcmp(&got, &t->area[owner], sizeof(got)) != 0) {
			tern_set_last_error("bootstrap: rank %d was handed areas for rank %d that are not rank %d's",
					    rank, owner, owner);
			return TERN_ERROR_PEER_FAILED;
		}
	}
	return TERN_SUCCESS;
}

int64_t coll_init_timeout_ms(void)
{
	int64_t ms = 0;

	return tern_setting_number("TERN_COMM_INIT_TIMEOUT_MS", &ms) ? -1 : ms;
}

int64_t coll_cut_ms(void)
{
	int64_t ms = 0;

	return tern_setting_number("TERN_COMM_CUT_MS", &ms) ? -1 : ms;
}

/* Moves the channels the star keeps from @t into @c's link. */
static tern_status_t coll_keep_links(struct tern_comm *c, struct coll_table *t)
{
	struct coll_chan *mine = &t->chan[c->rank];
	tern_status_t status;

	status = coll_link_create(c, c->rank == 0 ? t->chan : mine);
	if (status)
		return status;
	/* The link has them now. */
	for (int r = 0; r < t->nranks; r++)
		if (c->rank == 0 || r == c->rank)
			t->chan[r].fd = -1;
	return TERN_SUCCESS;
}

static void coll_table_close(struct coll_table *t)
{
	for (int r = 0; r < t->nranks; r++) {
		for (int i = 0; i < 2; i++)
			if (t->fds[r][i] >= 0)
				close(t->fds[r][i]);
		if (t->chan[r].fd >= 0)
			coll_chan_close(&t->chan[r]);
	}
	if (t->handoff >= 0)
		close(t->handoff);
	/* The link took its channels' fds; their keys stay with it alone. */
	OPENSSL_cleanse(t->chan, sizeof(t->chan));
	OPENSSL_cleanse(t->key, sizeof(t->key));
}

/*
 * Imports a host peer's area from @fd, which must be the size of our own
 * @like (to the page an export rounds it to): areas handed over swapped
 * or twice are refused rather than written through.
 */
static tern_status_t coll_import_area(struct tern_device *dev, int fd,
				      struct tern_buffer *like,
				      struct tern_buffer **out)
{
	const size_t page = 4096;
	size_t want = 0, got = 0;
	tern_status_t status;

	status = tern_buffer_import(dev, fd, out);
	if (status)
		return status;
	if (tern_buffer_size(like, &want) || tern_buffer_size(*out, &got) ||
	    (want + page - 1) / page != (got + page - 1) / page) {
		tern_buffer_free(*out);
		*out = NULL;
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

/*
 * Our host's comm: its areas, its host peers' imported, checked as
 * tern_comm_init_all checks its devices.
 */
static tern_status_t coll_make_local(struct tern_device *dev,
				     struct coll_table *t, int64_t deadline,
				     struct tern_comm **out)
{
	struct tern_comm *c = NULL;
	tern_status_t status;
	int algo;

	status = coll_forced_algo(&algo);
	if (status == TERN_SUCCESS)
		status = coll_comm_create(dev, t->lrank, t->nlocal,
					  coll_scratch_bytes(t->nlocal), &c);
	if (status == TERN_SUCCESS)
		c->forced_algo = algo;
	if (status == TERN_SUCCESS && t->nlocal > 1) {
		status = tern_buffer_export(c->scratch, &t->fds[t->lrank][0]);
		if (status == TERN_SUCCESS)
			status = tern_buffer_export(c->sem,
						    &t->fds[t->lrank][1]);
		if (status == TERN_SUCCESS)
			status = coll_handoff(t, deadline);
	}
	for (int p = 0; status == TERN_SUCCESS && p < t->nlocal; p++) {
		if (p == t->lrank)
			continue;
		status = coll_import_area(dev, t->fds[p][0], c->scratch,
					  &c->peers[p].scratch);
		if (status == TERN_SUCCESS)
			status = coll_import_area(dev, t->fds[p][1], c->sem,
						  &c->peers[p].sem);
		if (status)
			tern_set_last_error("bootstrap: local rank %d cannot import local rank %d's areas (%s)",
					    t->lrank, p,
					    tern_status_name(status));
	}
	/* Every rank of a host sees the same table, so all refuse this alike. */
	for (int p = 0; status == TERN_SUCCESS && p < t->nlocal; p++)
		for (int q = 0; q < p; q++)
			if (t->local_node[p].fabric_id ==
			    t->local_node[q].fabric_id) {
				tern_set_last_error("bootstrap: local ranks %d and %d of one host share device %d",
						    q, p,
						    t->local_node[p].fabric_id);
				status = TERN_ERROR_INVALID_ARGUMENT;
			}
	/* Ranks that would choose differently would never meet. */
	for (int p = 1; status == TERN_SUCCESS && p < t->nranks; p++)
		if (t->info[p].node.algo != t->info[0].node.algo) {
			tern_set_last_error("rank %d has a TERN_ALGO of its own: every rank needs the same",
					    p);
			status = TERN_ERROR_INVALID_ARGUMENT;
		}
	if (status == TERN_SUCCESS) {
		coll_plan_rings(c, t->local_node);
		coll_measure_fabric(c, t->local_node);
		*out = c;
	} else if (c) {
		coll_comm_free(c);
	}
	return status;
}

/*
 * Across hosts: wraps @local (which it then owns) and connects the rail;
 * every rank takes part in the exchange of handles, whatever it found.
 */
static tern_status_t coll_make_across(struct coll_table *t, int rank,
				      struct tern_comm *local, int64_t deadline,
				      struct tern_comm **top)
{
	tern_status_t status, mine;

	mine = coll_hosts_create(local, rank, t->nranks, &t->map,
				 &t->card[rank], top);
	if (mine)
		*top = NULL;	/* @local went with it */
	status = coll_agree(rank, t->nranks, t->chan, mine, NULL, deadline);
	if (status == TERN_SUCCESS)
		status = coll_star_allgather(rank, t->nranks, t->chan,
					     t->card, sizeof(t->card[0]),
					     deadline);
	if (status == TERN_SUCCESS)
		status = coll_cards_fit(t->card, t->nranks);
	if (status == TERN_SUCCESS)
		status = coll_hosts_connect(*top, t->card, t->key, deadline);
	if (status && mine == TERN_SUCCESS) {
		coll_comm_free(*top);
		*top = NULL;
	}
	return status;
}

/* tern_comm_init_rank, the others waited for up to @timeout_ms (-1: bad). */
static tern_status_t coll_init_rank(tern_comm_t *comm, int nranks,
				    const tern_unique_id_t *id, int rank,
				    tern_device_t device, int64_t timeout_ms)
{
	struct tern_device *dev = device;
	struct tern_comm *c = NULL;
	struct coll_table *t;
	struct coll_id cid;
	tern_status_t status;
	int64_t deadline;
	bool met = false;

	if (!comm || !id || nranks < 1 || nranks > COLL_MAX_RANKS ||
	    rank < 0 || rank >= nranks ||
	    !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(&cid, id->internal, sizeof(cid));
	if (memcmp(cid.magic, COLL_ID_MAGIC, sizeof(cid.magic)) != 0 ||
	    (cid.family != AF_INET && cid.family != AF_INET6))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (nranks > 1 &&
	    (!(dev->info.capabilities & TERN_DEVICE_CAP_PEER_MEMORY) ||
	     tern_device_fabric_id(dev) < 0))
		return TERN_ERROR_NOT_SUPPORTED;
	if (timeout_ms < 0 || coll_cut_ms() < 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	deadline = coll_now_ms() + timeout_ms;

	t = calloc(1, sizeof(*t));
	if (!t)
		return TERN_ERROR_OUT_OF_MEMORY;
	t->nranks = nranks;
	t->nlocal = 1;
	t->handoff = -1;
	memset(t->fds, -1, sizeof(t->fds));
	for (int r = 0; r < nranks; r++)
		t->chan[r].fd = -1;
	status = coll_describe(dev, &t->info[rank].node);
	t->local_node[0] = t->info[rank].node;
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_id_key(&cid, t->key);
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_handoff_listen(t, rank);
	if (status == TERN_SUCCESS && nranks > 1) {
		status = coll_meet(t, &cid, rank, deadline);
		met = status == TERN_SUCCESS;
	}
	if (status == TERN_SUCCESS)
		status = coll_make_local(dev, t, deadline, &c);
	/*
	 * On the simulator an area lives only while its process does, so
	 * none may return before all have imported; and all fail alike.
	 */
	if (met)
		status = coll_check_areas(t, rank, status, deadline);
	if (met)
		status = coll_agree(rank, nranks, t->chan, status, t->info,
				    deadline);
	if (status == TERN_SUCCESS && t->map.nhosts > 1)
		status = coll_make_across(t, rank, c, deadline, &c);
	if (status == TERN_SUCCESS && t->map.nhosts > 1)
		status = coll_agree(rank, nranks, t->chan, status, NULL,
				    deadline);
	if (status == TERN_SUCCESS && nranks > 1)
		status = coll_keep_links(c, t);
	coll_table_close(t);
	if (rank == 0)
		coll_id_release(id);	/* one rank: the port was never needed */
	OPENSSL_cleanse(&cid, sizeof(cid));
	if (status == TERN_SUCCESS) {
		coll_register(c);
		*comm = c;
	} else if (c) {
		coll_comm_free(c);
	}
	free(t);
	return status;
}

TERN_API tern_status_t tern_comm_init_rank(tern_comm_t *comm, int nranks,
					   const tern_unique_id_t *id,
					   int rank, tern_device_t device)
{
	return coll_init_rank(comm, nranks, id, rank, device,
			      coll_init_timeout_ms());
}

TERN_API tern_status_t tern_comm_init_rank_timeout(tern_comm_t *comm,
						   int nranks,
						   const tern_unique_id_t *id,
						   int rank,
						   tern_device_t device,
						   int timeout_ms)
{
	if (timeout_ms < 1 || timeout_ms > TERN_COMM_INIT_TIMEOUT_MAX_MS) {
		tern_set_last_error("tern_comm_init_rank_timeout: %d ms: want 1 to %d",
				    timeout_ms, TERN_COMM_INIT_TIMEOUT_MAX_MS);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return coll_init_rank(comm, nranks, id, rank, device, timeout_ms);
}
