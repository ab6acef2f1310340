// SPDX-License-Identifier: MIT
/*
 * Connections over one reliable datagram endpoint. A listen is a number
 * and a receive always posted for connect messages to it; its handle is
 * the endpoint's name and that number. Connecting inserts the listener's
 * address, sends it a connect message naming ours and the new
 * connection's id, and posts a receive for the answer; accepting takes the
 * next connect message, inserts the sender's address, gives the
 * connection an id of the receiver's and sends it back in an accept
 * message. Data is tagged with the receiver's id (ofi.h).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ofi.h"

#define OFI_HANDLE_MAGIC	"ternofh1"
#define OFI_CONNECT_MAGIC	"ternofc1"

int ofi_post_own(struct tern_net *net, struct tern_net_req *req)
{
	ssize_t ret;

	if (req->kind == OFI_REQ_LISTEN)
		ret = fi_trecv(net->ep, &req->msg, sizeof(req->msg), NULL,
			       FI_ADDR_UNSPEC, OFI_TAG_CONNECT | req->listen->id,
			       0, &req->ctx);
	else if (req->kind == OFI_REQ_ACCEPT_RECV)
		ret = fi_trecv(net->ep, &req->msg, sizeof(req->msg), NULL,
			       req->peer, req->tag, 0, &req->ctx);
	else
		ret = fi_tsend(net->ep, &req->msg, sizeof(req->msg), NULL,
			       req->peer, req->tag, &req->ctx);
	if (ret == -FI_EAGAIN) {
		ofi_list_move(&net->deferred, req);
		return 0;
	}
	/* Posted: a connect message is the net's until its end. */
	if (req->kind == OFI_REQ_LISTEN || req->kind == OFI_REQ_ACCEPT_RECV)
		ofi_list_move(NULL, req);
	else if (ret == 0)
		ofi_req_adopt(net, req);
	return (int)ret;
}

void ofi_post_deferred(struct tern_net *net)
{
	struct tern_net_req *req = net->deferred, *next;

	/* Oldest last on the list: post from the tail so order holds. */
	while (req && req->next)
		req = req->next;
	for (; req; req = next) {
		next = req->prev;
		if (ofi_post_own(net, req)) {
			/* The peer never hears of it: its comm's sends fail. */
			ofi_list_move(NULL, req);
			if (req->kind == OFI_REQ_LISTEN)
				ofi_listen_complete(net, req, FI_EIO);
			else
				ofi_req_free(req);
		}
		if (net->deferred == req)
			break;		/* still no room */
	}
}

void ofi_listen_complete(struct tern_net *net, struct tern_net_req *req,
			 int err)
{
	struct tern_net_listen *listen = req->listen;
	struct ofi_pending *p;

	if (!err && memcmp(req->msg.magic, OFI_CONNECT_MAGIC, 8) == 0 &&
	    req->msg.name_len <= OFI_NAME_BYTES &&
	    (p = calloc(1, sizeof(*p)))) {
		if (listen->npending == OFI_PENDING_MAX) {
			struct ofi_pending *oldest = listen->pending;

			listen->pending = oldest->next;
			if (!listen->pending)
				listen->pending_tail = &listen->pending;
			listen->npending--;
			free(oldest);
		}
		p->msg = req->msg;
		*listen->pending_tail = p;
		listen->pending_tail = &p->next;
		listen->npending++;
	}
	if (ofi_post_own(net, req))
		tern_set_last_error("network: a listen on %s stopped taking connections",
				    net->description);
}

tern_status_t ofi_listen(struct tern_net *net, struct tern_net_handle *handle,
			 struct tern_net_listen **out)
{
	struct tern_net_listen *listen;
	struct ofi_handle h = { 0 };
	int err;

	if (!net || !handle || !out)
		return TERN_ERROR_INVALID_ARGUMENT;
	listen = calloc(1, sizeof(*listen));
	if (!listen)
		return TERN_ERROR_OUT_OF_MEMORY;
	listen->recv = ofi_req_new(OFI_REQ_LISTEN);
	if (!listen->recv) {
		free(listen);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	listen->net = net;
	listen->pending_tail = &listen->pending;
	listen->recv->listen = listen;
	pthread_mutex_lock(&net->lock);
	listen->id = net->next_listen_id++;
	err = ofi_post_own(net, listen->recv);
	if (!err) {
		listen->next = net->listens;
		net->listens = listen;
		net->users++;
	}
	pthread_mutex_unlock(&net->lock);
	if (err) {
		tern_set_last_error("network: listening on %s failed: %s",
				    net->description, ofi_strerror(err));
		ofi_req_free(listen->recv);
		free(listen);
		return TERN_ERROR_BACKEND;
	}
	memcpy(h.magic, OFI_HANDLE_MAGIC, sizeof(h.magic));
	h.listen_id = listen->id;
	h.name_len = (uint32_t)net->name_len;
	memcpy(h.name, net->name, net->name_len);
	memset(handle, 0, sizeof(*handle));
	memcpy(handle->bytes, &h, sizeof(h));
	*out = listen;
	return TERN_SUCCESS;
}

void ofi_close_listen(struct tern_net_listen *listen)
{
	struct tern_net *net;
	struct tern_net_listen **p;

	if (!listen)
		return;
	net = listen->net;
	pthread_mutex_lock(&net->lock);
	for (p = &net->listens; *p; p = &(*p)->next) {
		if (*p == listen) {
			*p = listen->next;
			break;
		}
	}
	/* Its receive comes back cancelled, and is freed then. */
	listen->recv->listen = NULL;
	ofi_req_orphan(net, listen->recv);
	ofi_progress(net);
	while (listen->pending) {
		struct ofi_pending *q = listen->pending;

		listen->pending = q->next;
		free(q);
	}
	net->users--;
	pthread_mutex_unlock(&net->lock);
	free(listen);
}

static struct tern_net_comm *ofi_comm_new(struct tern_net *net, bool sender)
{
	struct tern_net_comm *comm = calloc(1, sizeof(*comm));

	if (comm) {
		comm->net = net;
		comm->sender = sender;
		comm->tag_id = OFI_TAG_ID_UNKNOWN;
	}
	return comm;
}

void ofi_accept_complete(struct tern_net *net, struct tern_net_req *req,
			 int err)
{
	struct tern_net_comm *comm = req->comm;

	comm->accept = NULL;
	if (!err && memcmp(req->msg.magic, OFI_CONNECT_MAGIC, 8) == 0 &&
	    req->msg.comm_id <= OFI_COMM_ID_MAX)
		comm->tag_id = req->msg.comm_id;
	else
		tern_set_last_error("network: a connection on %s was never accepted: %s",
				    net->description,
				    err ? ofi_strerror(err) : "a malformed answer");
	ofi_req_free(req);
	/* Its sends go now, or fail with it. */
	ofi_post_waiting(net);
}

/* Lock held. */
static void ofi_comm_add(struct tern_net *net, struct tern_net_comm *comm)
{
	comm->next = net->comms;
	net->comms = comm;
	net->users++;
}

tern_status_t ofi_connect(struct tern_net *net,
			  const struct tern_net_handle *handle,
			  struct tern_net_comm **out)
{
	struct tern_net_comm *comm;
	struct tern_net_req *req, *answer;
	struct ofi_handle h;
	ssize_t ret;

	if (!net || !handle || !out)
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(&h, handle->bytes, sizeof(h));
	if (memcmp(h.magic, OFI_HANDLE_MAGIC, sizeof(h.magic)) ||
	    h.name_len == 0 || h.name_len > OFI_NAME_BYTES)
		return TERN_ERROR_INVALID_ARGUMENT;
	comm = ofi_comm_new(net, true);
	req = ofi_req_new(OFI_REQ_CONNECT_SEND);
	answer = ofi_req_new(OFI_REQ_ACCEPT_RECV);
	if (!comm || !req || !answer) {
		free(comm);
		ofi_req_free(req);
		ofi_req_free(answer);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_lock(&net->lock);
	comm->peer = ofi_peer_addr(net, h.name, h.name_len);
	if (comm->peer == FI_ADDR_NOTAVAIL || net->next_comm_id > OFI_COMM_ID_MAX) {
		pthread_mutex_unlock(&net->lock);
		tern_set_last_error("network: %s cannot take the peer's address",
				    net->description);
		free(comm);
		ofi_req_free(req);
		ofi_req_free(answer);
		return TERN_ERROR_BACKEND;
	}
	comm->id = net->next_comm_id++;
	/* The answer's receive first: the accept may come at once. */
	answer->comm = comm;
	answer->peer = comm->peer;
	answer->tag = OFI_TAG_ACCEPT | comm->id;
	ret = ofi_post_own(net, answer);
	if (ret) {
		pthread_mutex_unlock(&net->lock);
		tern_set_last_error("network: connecting over %s failed: %s",
				    net->description, ofi_strerror((int)ret));
		free(comm);
		ofi_req_free(req);
		ofi_req_free(answer);
		return TERN_ERROR_PEER_FAILED;
	}
	comm->accept = answer;
	memcpy(req->msg.magic, OFI_CONNECT_MAGIC, sizeof(req->msg.magic));
	req->msg.comm_id = comm->id;
	req->msg.name_len = (uint32_t)net->name_len;
	memcpy(req->msg.name, net->name, net->name_len);
	req->peer = comm->peer;
	req->tag = OFI_TAG_CONNECT | h.listen_id;
	ret = ofi_post_own(net, req);
	if (ret == 0)
		ofi_comm_add(net, comm);
	else
		ofi_req_orphan(net, answer);
	pthread_mutex_unlock(&net->lock);
	if (ret) {
		tern_set_last_error("network: connecting over %s failed: %s",
				    net->description, ofi_strerror((int)ret));
		free(comm);
		ofi_req_free(req);
		return TERN_ERROR_PEER_FAILED;
	}
	*out = comm;
	return TERN_SUCCESS;
}

tern_status_t ofi_accept(struct tern_net_listen *listen,
			 struct tern_net_comm **out)
{
	struct tern_net *net;
	struct tern_net_comm *comm;
	struct tern_net_req *answer;
	struct ofi_pending *p;
	int ret = 0;

	if (!listen || !out)
		return TERN_ERROR_INVALID_ARGUMENT;
	net = listen->net;
	comm = ofi_comm_new(net, false);
	answer = ofi_req_new(OFI_REQ_CONNECT_SEND);
	if (!comm || !answer) {
		free(comm);
		ofi_req_free(answer);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_lock(&net->lock);
	if (!listen->pending)
		ofi_progress(net);
	p = listen->pending;
	if (!p) {
		pthread_mutex_unlock(&net->lock);
		free(comm);
		ofi_req_free(answer);
		return TERN_ERROR_NOT_READY;
	}
	listen->pending = p->next;
	listen->npending--;
	if (!listen->pending)
		listen->pending_tail = &listen->pending;
	comm->peer = ofi_peer_addr(net, p->msg.name, p->msg.name_len);
	if (comm->peer != FI_ADDR_NOTAVAIL &&
	    net->next_comm_id <= OFI_COMM_ID_MAX) {
		/* Our id for it, unique here, back to the sender. */
		comm->id = comm->tag_id = net->next_comm_id++;
		memcpy(answer->msg.magic, OFI_CONNECT_MAGIC, 8);
		answer->msg.comm_id = comm->id;
		answer->peer = comm->peer;
		answer->tag = OFI_TAG_ACCEPT | p->msg.comm_id;
		ret = ofi_post_own(net, answer);
		if (ret == 0)
			ofi_comm_add(net, comm);
	} else {
		comm->peer = FI_ADDR_NOTAVAIL;
	}
	pthread_mutex_unlock(&net->lock);
	free(p);
	if (comm->peer == FI_ADDR_NOTAVAIL || ret) {
		tern_set_last_error("network: %s cannot take a connecting peer's address",
				    net->description);
		free(comm);
		ofi_req_free(answer);
		return TERN_ERROR_BACKEND;
	}
	*out = comm;
	return TERN_SUCCESS;
}

void ofi_close_comm(struct tern_net_comm *comm)
{
	struct tern_net *net;
	struct tern_net_comm **p;

	if (!comm)
		return;
	net = comm->net;
	pthread_mutex_lock(&net->lock);
	for (p = &net->comms; *p; p = &(*p)->next) {
		if (*p == comm) {
			*p = comm->next;
			break;
		}
	}
	ofi_comm_orphan(comm);
	if (comm->accept)
		ofi_req_orphan(net, comm->accept);
	ofi_progress(net);
	net->users--;
	pthread_mutex_unlock(&net->lock);
	free(comm);
}
