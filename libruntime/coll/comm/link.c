// SPDX-License-Identifier: MIT
/*
 * Links: the TCP connections between the ranks of a communicator made by
 * tern_comm_init_rank, kept open after the bootstrap to carry failures. A
 * star, as the bootstrap made it: rank 0 holds one connection per peer,
 * every other rank one to rank 0, so a machine's connections grow with
 * the ranks, not with their square.
 *
 * A rank whose comm fails tells rank 0, which tells the others; a rank
 * that destroys its comm says goodbye first. A connection that closes
 * without a goodbye means its process has gone (killed, crashed): to rank
 * 0 that is a failure of that peer, which it passes on; to the others,
 * rank 0 has gone. Either way the comm fails with TERN_ERROR_PEER_FAILED,
 * within one watchdog interval. A host cut off from the network is found
 * by the kernel: the links carry keepalives and a user timeout
 * (coll_tune_connection), so one unanswered for TERN_COMM_CUT_MS ends as
 * a closed one does. A process that exits without destroying
 * its comms says goodbye for those whose work has ended. After rank 0 has
 * said goodbye, failures
 * are no longer passed on; the job timeout still ends any wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coll/comm/comm.h"

#define COLL_LINK_MAGIC		"ternlnk2"

enum coll_link_kind { COLL_LINK_FAILED = 1, COLL_LINK_BYE = 2 };

struct coll_link_msg {
	char magic[8];
	int32_t kind;			/* enum coll_link_kind */
	int32_t rank;			/* whose news it is */
};

/* A message and its MAC, as they cross. */
#define COLL_LINK_WIRE	(sizeof(struct coll_link_msg) + COLL_MAC_BYTES)

struct coll_link {
	pthread_mutex_t lock;		/* the channels' send counters */
	/* rank 0: one per peer; else chan[0], to rank 0 */
	struct coll_chan chan[COLL_MAX_RANKS];
	/* What has come of each one's next message, never waited for. */
	uint8_t in[COLL_MAX_RANKS][COLL_LINK_WIRE];
	size_t got[COLL_MAX_RANKS];
};

static void coll_link_send(struct coll_link *link, int r,
			   enum coll_link_kind kind, int rank);

/*
 * A process that returns from main without destroying its comms has still
 * done its part once its jobs have ended: it says goodbye for them, so
 * that its peers do not take the closing connections for a crash.
 */
static void coll_link_goodbye(struct tern_comm *comm)
{
	bool idle;

	if (!comm->link)
		return;
	idle = coll_inflight_drain(comm, 0) &&
	       coll_comm_error(comm) == TERN_SUCCESS;
	if (idle)
		for (int r = 0; r < COLL_MAX_RANKS; r++)
			coll_link_send(comm->link, r, COLL_LINK_BYE,
				       comm->rank);
}

static void coll_link_at_exit(void)
{
	coll_registry_visit(coll_link_goodbye);
}

static void coll_link_register_exit(void)
{
	atexit(coll_link_at_exit);
}

tern_status_t coll_link_create(struct tern_comm *comm, struct coll_chan *chan)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct coll_link *link = calloc(1, sizeof(*link));

	if (!link)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_init(&link->lock, NULL);
	for (int r = 0; r < COLL_MAX_RANKS; r++)
		link->chan[r].fd = -1;
	if (comm->rank == 0) {
		for (int r = 1; r < comm->nranks; r++)
			link->chan[r] = chan[r];
	} else {
		link->chan[0] = *chan;
	}
	/* Reads never wait: a peer that sends half a message stalls no one. */
	for (int r = 0; r < COLL_MAX_RANKS; r++)
		if (link->chan[r].fd >= 0)
			fcntl(link->chan[r].fd, F_SETFL,
			      fcntl(link->chan[r].fd, F_GETFL) | O_NONBLOCK);
	comm->link = link;
	pthread_once(&once, coll_link_register_exit);
	return TERN_SUCCESS;
}

/* Never waits: a link message is small, and a full socket a dead peer. */
static void coll_link_send(struct coll_link *link, int r,
			   enum coll_link_kind kind, int rank)
{
	struct coll_link_msg msg = { .kind = kind, .rank = rank };
	uint8_t wire[COLL_LINK_WIRE];
	struct coll_chan *ch = &link->chan[r];

	memcpy(msg.magic, COLL_LINK_MAGIC, sizeof(msg.magic));
	memcpy(wire, &msg, sizeof(msg));
	pthread_mutex_lock(&link->lock);
	if (ch->fd >= 0 &&
	    coll_chan_seal(ch, &msg, sizeof(msg), wire + sizeof(msg)))
		(void)send(ch->fd, wire, sizeof(wire),
			   MSG_DONTWAIT | MSG_NOSIGNAL);
	pthread_mutex_unlock(&link->lock);
}

/* Sends to every connection but the one to @except. */
static void coll_link_send_all(struct coll_link *link, enum coll_link_kind kind,
			       int rank, int except)
{
	for (int r = 0; r < COLL_MAX_RANKS; r++)
		if (r != except)
			coll_link_send(link, r, kind, rank);
}

void coll_link_tell(struct tern_comm *comm, tern_status_t status)
{
	(void)status;	/* the peers fail with PEER_FAILED whatever ours was */
	if (comm->link)
		coll_link_send_all(comm->link, COLL_LINK_FAILED, comm->rank, -1);
}

/* News of @rank's failure (or departure unannounced) has come. */
static void coll_link_peer_failed(struct tern_comm *comm, int rank)
{
	tern_debug("coll: rank %d/%d: rank %d failed or went away", comm->rank,
		   comm->nranks, rank);
	/* Rank 0 passes it on: the others have no connection to that rank. */
	if (comm->rank == 0 && coll_comm_error(comm) == TERN_SUCCESS)
		coll_link_send_all(comm->link, COLL_LINK_FAILED, rank, rank);
	coll_comm_fail(comm, TERN_ERROR_PEER_FAILED, true);
}

static void coll_link_drop(struct coll_link *link, int r)
{
	pthread_mutex_lock(&link->lock);
	coll_chan_close(&link->chan[r]);
	pthread_mutex_unlock(&link->lock);
	link->got[r] = 0;
}

/* Reads what connection @r has to say; closes it once it has ended. */
static void coll_link_read(struct tern_comm *comm, int r)
{
	struct coll_link *link = comm->link;
	struct coll_link_msg msg;
	ssize_t got;

	for (;;) {
		got = recv(link->chan[r].fd, link->in[r] + link->got[r],
			   COLL_LINK_WIRE - link->got[r], MSG_DONTWAIT);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (got > 0) {
			link->got[r] += (size_t)got;
			if (link->got[r] < COLL_LINK_WIRE)
				continue;	/* the rest, when it comes */
			link->got[r] = 0;
			memcpy(&msg, link->in[r], sizeof(msg));
		}
		if (got <= 0 ||
		    !coll_chan_open(&link->chan[r], &msg, sizeof(msg),
				    link->in[r] + sizeof(msg)) ||
		    memcmp(msg.magic, COLL_LINK_MAGIC, sizeof(msg.magic)) ||
		    msg.rank < 0 || msg.rank >= comm->nranks) {
			/* Closed (or forged) without a goodbye: it has gone. */
			coll_link_drop(link, r);
			coll_link_peer_failed(comm, r);
			return;
		}
		if (msg.kind == COLL_LINK_BYE) {
			coll_link_drop(link, r);
			return;
		}
		coll_link_peer_failed(comm, msg.rank);
	}
}

void coll_link_poll(struct tern_comm *comm)
{
	if (!comm->link)
		return;
	for (int r = 0; r < COLL_MAX_RANKS; r++)
		if (comm->link->chan[r].fd >= 0)
			coll_link_read(comm, r);
}

void coll_link_close(struct tern_comm *comm)
{
	struct coll_link *link = comm->link;

	if (!link)
		return;
	coll_link_send_all(link, COLL_LINK_BYE, comm->rank, -1);
	for (int r = 0; r < COLL_MAX_RANKS; r++)
		if (link->chan[r].fd >= 0)
			coll_chan_close(&link->chan[r]);
	pthread_mutex_destroy(&link->lock);
	free(link);
	comm->link = NULL;
}
