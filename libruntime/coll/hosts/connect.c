// SPDX-License-Identifier: MIT
/*
 * The connections of a comm across hosts to the ranks on other hosts:
 * each rank connects to its rail (the ranks at its position on the other
 * hosts) and accepts the rail's connections at init; the others' are
 * made when a send or recv first needs them (coll_hosts_reach, from the
 * proxy), so that a process holds what it uses (over tcp a connection
 * becomes a socket). A connection's first message says whose it is and
 * proves it is of this comm (trust/auth.c); a stranger's is closed.
 */
#include <string.h>

#include "coll/hosts/internal.h"

/*
 * Sends our proof to @to on @comm, its first message: the acceptor learns
 * who, and that we are of this comm.
 */
static tern_status_t coll_hosts_hello(struct tern_comm *top,
				      struct tern_net_comm *comm, int to,
				      struct tern_net_req **req)
{
	struct coll_hosts *h = top->hosts;
	struct coll_rail_hello *at = &h->hello_out[to];
	tern_status_t status;

	at->rank = top->rank;
	at->to = to;
	if (!coll_auth_rail(h->key, top->rank, to, h->nonce[to],
			    h->nonce[top->rank], at->mac))
		return TERN_ERROR_BACKEND;
	do {
		status = h->ops->isend(comm, at, sizeof(*at), h->tmp_mr,
				       req);
		if (status == TERN_ERROR_NOT_READY)
			h->ops->wait(h->net, 1);
	} while (status == TERN_ERROR_NOT_READY);
	return status;
}

/* Waits for @req by @deadline; NULLs it once done. */
static tern_status_t coll_hosts_finish(struct coll_hosts *h,
				       struct tern_net_req **req,
				       int64_t deadline)
{
	tern_status_t status = TERN_SUCCESS;
	bool done = false;
	size_t len;

	while (*req && status == TERN_SUCCESS) {
		status = h->ops->test(*req, &done, &len);
		if (status || done) {
			*req = NULL;
			break;
		}
		if (coll_now_ms() >= deadline)
			return TERN_ERROR_PEER_FAILED;
		h->ops->wait(h->net, 10);
	}
	return status;
}

/*
 * Whose connection a first message of @len bytes says it is: a rank on
 * another host, not yet connected, that proved it is of this comm and
 * meant us; -1 for anything else.
 */
static int coll_hosts_whose(struct tern_comm *top,
			    const struct coll_rail_hello *hello, size_t len)
{
	struct coll_hosts *h = top->hosts;
	const int who = hello->rank;

	if (len != sizeof(*hello) || who < 0 || who >= top->nranks ||
	    hello->to != top->rank || h->host_of[who] == h->host ||
	    h->from[who] ||
	    !coll_auth_rail_check(h->key, who, top->rank, h->nonce[top->rank],
				  h->nonce[who], hello->mac)) {
		h->refused++;
		return -1;
	}
	return who;
}

/* Accepts a connection and learns, from its hello, whose it is. */
static tern_status_t coll_hosts_accept(struct tern_comm *top,
				       struct coll_rail_hello *slot,
				       int64_t deadline)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_comm *comm = NULL;
	struct tern_net_req *req = NULL;
	tern_status_t status;
	bool done = false;
	size_t len = 0;
	int who;

	while ((status = h->ops->accept(h->listen, &comm)) ==
	       TERN_ERROR_NOT_READY) {
		if (coll_now_ms() >= deadline) {
			tern_set_last_error("bootstrap: rank %d: a rank on another host did not connect over the network in time (%u connections did not prove they are of this comm)",
					    top->rank, h->refused);
			return TERN_ERROR_PEER_FAILED;
		}
		h->ops->wait(h->net, 10);
	}
	if (status)
		return status;
	do {
		status = h->ops->irecv(comm, slot, sizeof(*slot), h->tmp_mr,
				       &req);
		if (status == TERN_ERROR_NOT_READY)
			h->ops->wait(h->net, 1);
	} while (status == TERN_ERROR_NOT_READY);
	while (status == TERN_SUCCESS && !done) {
		status = h->ops->test(req, &done, &len);
		if (status == TERN_SUCCESS && !done) {
			if (coll_now_ms() >= deadline)
				status = TERN_ERROR_PEER_FAILED;
			else
				h->ops->wait(h->net, 10);
		}
	}
	who = status == TERN_SUCCESS ? coll_hosts_whose(top, slot, len) : -1;
	if (who < 0) {
		h->ops->close_comm(comm);
		/* Not one of ours: the next connection may be. */
		return status == TERN_ERROR_PEER_FAILED ? status :
		       TERN_ERROR_NOT_READY;
	}
	h->from[who] = comm;
	return TERN_SUCCESS;
}

/* Takes the next connection in, a step at a time. Proxy thread. */
static tern_status_t coll_hosts_take(struct tern_comm *top)
{
	struct coll_hosts *h = top->hosts;
	tern_status_t status;
	bool done = false;
	size_t len = 0;
	int who;

	if (!h->accepting) {
		status = h->ops->accept(h->listen, &h->accepting);
		if (status)
			return status;
		status = h->ops->irecv(h->accepting, h->hello_in,
				       sizeof(*h->hello_in), h->tmp_mr,
				       &h->accepting_req);
		if (status) {
			h->ops->close_comm(h->accepting);
			h->accepting = NULL;
			return status == TERN_ERROR_NOT_READY ?
			       TERN_ERROR_PEER_FAILED : status;
		}
	}
	status = h->ops->test(h->accepting_req, &done, &len);
	if (status == TERN_SUCCESS && !done)
		return TERN_ERROR_NOT_READY;
	who = status == TERN_SUCCESS ? coll_hosts_whose(top, h->hello_in, len) :
	      -1;
	if (who < 0) {
		h->ops->close_comm(h->accepting);
		h->accepting = NULL;
		/* A stranger fails nothing: the next connection may be ours. */
		return status ? status : TERN_ERROR_NOT_READY;
	}
	h->from[who] = h->accepting;
	h->accepting = NULL;
	return TERN_SUCCESS;
}

tern_status_t coll_hosts_reach(struct tern_comm *top, int peer, bool send)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_req *req = NULL;
	tern_status_t status;

	if (send) {
		if (h->to[peer])
			return TERN_SUCCESS;
		status = h->ops->connect(h->net, &h->handle[peer],
					 &h->to[peer]);
		/* Its hello ends with the connection; nobody waits for it. */
		if (status == TERN_SUCCESS)
			status = coll_hosts_hello(top, h->to[peer], peer, &req);
		return status;
	}
	while (!h->from[peer]) {
		status = coll_hosts_take(top);
		if (status)
			return status;
	}
	return TERN_SUCCESS;
}

tern_status_t coll_hosts_connect(struct tern_comm *top,
				 const struct coll_net_card *cards,
				 const uint8_t key[COLL_KEY_BYTES],
				 int64_t deadline)
{
	struct coll_hosts *h = top->hosts;
	struct tern_net_req *req[COLL_MAX_RANKS] = { NULL };
	/* The rail's hellos land in the receive area, one a host. */
	struct coll_rail_hello *in = (struct coll_rail_hello *)h->tmp;
	tern_status_t status = TERN_SUCCESS;

	/* Rank 0's view of the network, so that every rank chooses alike. */
	h->net_bandwidth = (double)cards[0].net_bandwidth;
	h->net_latency_ns = cards[0].net_latency_ns;
	h->forced_rail = cards[0].rail_algo;
	memcpy(h->key, key, sizeof(h->key));
	for (int r = 0; r < top->nranks; r++) {
		h->handle[r] = cards[r].handle;
		memcpy(h->nonce[r], cards[r].nonce, sizeof(h->nonce[r]));
	}
	for (int j = 0; j < h->nhosts && status == TERN_SUCCESS; j++) {
		const int r = h->rail[j];

		if (j == h->host)
			continue;
		status = h->ops->connect(h->net, &cards[r].handle, &h->to[r]);
		if (status == TERN_SUCCESS)
			status = coll_hosts_hello(top, h->to[r], r, &req[r]);
	}
	/* Strangers' connections are closed, and the next one taken. */
	for (int i = 1; i < h->nhosts && (status == TERN_SUCCESS ||
					   status == TERN_ERROR_NOT_READY);) {
		status = coll_hosts_accept(top, &in[i], deadline);
		if (status == TERN_SUCCESS)
			i++;
	}
	for (int r = 0; r < top->nranks; r++) {
		tern_status_t done = coll_hosts_finish(h, &req[r], deadline);

		if (status == TERN_SUCCESS)
			status = done;
	}
	if (status == TERN_SUCCESS) {
		coll_hosts_counters_open(top, cards);
		coll_hosts_count(top);
		status = coll_proxy_start(top);
	}
	return status;
}
