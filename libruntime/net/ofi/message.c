// SPDX-License-Identifier: MIT
/*
 * Sends and receives on a connection: tagged messages whose tag is the
 * receiver's id of the connection and the message's number on it, so the
 * n-th receive posted takes the n-th message sent whatever order the
 * provider delivers them in. A send posted before the receiver's id came
 * back waits for it, in order. A request lives from its post to the test that sees
 * it end; one whose connection closes first is cancelled and freed when
 * the provider gives it back.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ofi.h"

struct tern_net_req *ofi_req_new(enum ofi_req_kind kind)
{
	struct tern_net_req *req = calloc(1, sizeof(*req));

	if (req)
		req->kind = kind;
	return req;
}

void ofi_req_free(struct tern_net_req *req)
{
	free(req);
}

static void ofi_list_add(struct tern_net_req **head, struct tern_net_req *req)
{
	req->head = head;
	req->prev = NULL;
	req->next = *head;
	if (*head)
		(*head)->prev = req;
	*head = req;
}

static void ofi_list_remove(struct tern_net_req *req)
{
	if (!req->head)
		return;
	if (req->prev)
		req->prev->next = req->next;
	else
		*req->head = req->next;
	if (req->next)
		req->next->prev = req->prev;
	req->head = NULL;
}

void ofi_req_complete(struct tern_net *net, struct tern_net_req *req,
		      size_t len, int err)
{
	if (req->orphan) {
		ofi_list_remove(req);
		ofi_req_free(req);
		return;
	}
	if (req->kind == OFI_REQ_LISTEN) {
		ofi_listen_complete(net, req, err);
		return;
	}
	if (req->kind == OFI_REQ_ACCEPT_RECV) {
		ofi_accept_complete(net, req, err);
		return;
	}
	if (req->comm && !req->comm->sender)
		req->len = len;
	if (!err) {
		req->state = OFI_REQ_DONE;
		return;
	}
	req->state = OFI_REQ_FAILED;
	if (req->comm)
		req->comm->count.errors++;
	if (err == FI_ETRUNC || err == -FI_ETRUNC) {
		req->status = TERN_ERROR_OUT_OF_RANGE;
		tern_set_last_error("network: a message on %s was longer than the receive posted for it",
				    net->description);
		return;
	}
	req->status = TERN_ERROR_PEER_FAILED;
	tern_set_last_error("network: a %s on %s failed: %s",
			    req->comm && req->comm->sender ? "send" : "receive",
			    net->description, ofi_strerror(err));
}

void ofi_list_move(struct tern_net_req **head, struct tern_net_req *req)
{
	ofi_list_remove(req);
	if (head)
		ofi_list_add(head, req);
}

void ofi_req_adopt(struct tern_net *net, struct tern_net_req *req)
{
	ofi_list_remove(req);
	req->comm = NULL;
	req->orphan = true;
	ofi_list_add(&net->orphans, req);
}

void ofi_req_orphan(struct tern_net *net, struct tern_net_req *req)
{
	ofi_req_adopt(net, req);
	fi_cancel(&net->ep->fid, &req->ctx);
}

void ofi_comm_orphan(struct tern_net_comm *comm)
{
	while (comm->inflight) {
		struct tern_net_req *req = comm->inflight;

		if (req->state != OFI_REQ_POSTED || req->waiting) {
			ofi_list_remove(req);
			ofi_req_free(req);
		} else {
			ofi_req_orphan(comm->net, req);
		}
	}
}

void ofi_orphans_free(struct tern_net *net)
{
	struct tern_net_req **lists[] = { &net->orphans, &net->deferred };

	for (int i = 0; i < 2; i++) {
		while (*lists[i]) {
			struct tern_net_req *req = *lists[i];

			ofi_list_remove(req);
			ofi_req_free(req);
		}
	}
}

static uint64_t ofi_data_tag(const struct tern_net_comm *comm, uint32_t seq)
{
	return ((uint64_t)comm->tag_id << OFI_TAG_COMM_SHIFT) | seq;
}

/* @comm's oldest waiting send, or NULL. Lock held. */
static struct tern_net_req *ofi_oldest_waiting(struct tern_net_comm *comm)
{
	struct tern_net_req *oldest = NULL;

	for (struct tern_net_req *r = comm->inflight; r; r = r->next)
		if (r->waiting && (!oldest || r->seq < oldest->seq))
			oldest = r;
	return oldest;
}

void ofi_post_waiting(struct tern_net *net)
{
	for (struct tern_net_comm *comm = net->comms; comm; comm = comm->next) {
		struct tern_net_req *req;

		while (comm->waiting && !comm->accept &&
		       (req = ofi_oldest_waiting(comm))) {
			ssize_t ret = -FI_ENOTCONN;

			if (comm->tag_id != OFI_TAG_ID_UNKNOWN)
				ret = fi_tsend(net->ep, req->ptr, req->len,
					       req->desc, comm->peer,
					       ofi_data_tag(comm, req->seq),
					       &req->ctx);
			if (ret == -FI_EAGAIN)
				break;	/* the next progress tries again */
			req->waiting = false;
			comm->waiting--;
			if (ret) {
				req->state = OFI_REQ_FAILED;
				req->status = TERN_ERROR_PEER_FAILED;
				comm->count.errors++;
			}
		}
	}
}

/* Posts one message of @comm; NOT_READY when the provider has no room. */
static tern_status_t ofi_post(struct tern_net_comm *comm, void *ptr,
			      size_t len, struct tern_net_mr *mr,
			      struct tern_net_req **out)
{
	struct tern_net *net = comm->net;
	struct tern_net_req *req;
	uint64_t tag;
	ssize_t ret;

	if ((!ptr && len) || !out || (net->mr_local && len && !mr) ||
	    (mr && len && ((uint8_t *)ptr < (uint8_t *)mr->ptr ||
			   (uint8_t *)ptr + len > (uint8_t *)mr->ptr + mr->len)))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (len > net->info->ep_attr->max_msg_size) {
		tern_set_last_error("network: a message of %zu bytes is over %s's limit of %zu",
				    len, net->description,
				    net->info->ep_attr->max_msg_size);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	req = ofi_req_new(OFI_REQ_USER);
	if (!req)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&net->lock);
	if (comm->sender && (comm->accept || comm->waiting)) {
		/* The receiver's id has not come: wait for it, in order. */
		req->waiting = true;
		req->seq = comm->seq;
		req->ptr = ptr;
		req->desc = mr ? mr->desc : NULL;
		comm->waiting++;
		ret = 0;
	} else if (comm->sender) {
		tag = ofi_data_tag(comm, comm->seq);
		ret = fi_tsend(net->ep, ptr, len, mr ? mr->desc : NULL,
			       comm->peer, tag, &req->ctx);
	} else {
		tag = ofi_data_tag(comm, comm->seq);
		ret = fi_trecv(net->ep, ptr, len, mr ? mr->desc : NULL,
			       comm->peer, tag, 0, &req->ctx);
	}
	if (ret == 0) {
		req->len = len;	/* a send's completion gives no length */
		comm->seq++;
		req->comm = comm;
		ofi_list_add(&comm->inflight, req);
	} else {
		ofi_progress(net);
	}
	pthread_mutex_unlock(&net->lock);
	if (ret == 0) {
		*out = req;
		return TERN_SUCCESS;
	}
	ofi_req_free(req);
	if (ret == -FI_EAGAIN)
		return TERN_ERROR_NOT_READY;
	tern_set_last_error("network: posting a %s on %s failed: %s",
			    comm->sender ? "send" : "receive",
			    net->description, ofi_strerror((int)ret));
	return TERN_ERROR_PEER_FAILED;
}

tern_status_t ofi_isend(struct tern_net_comm *comm, const void *ptr,
			size_t len, struct tern_net_mr *mr,
			struct tern_net_req **req)
{
	if (!comm || !comm->sender)
		return TERN_ERROR_INVALID_ARGUMENT;
	return ofi_post(comm, (void *)ptr, len, mr, req);
}

tern_status_t ofi_irecv(struct tern_net_comm *comm, void *ptr, size_t len,
			struct tern_net_mr *mr, struct tern_net_req **req)
{
	if (!comm || comm->sender)
		return TERN_ERROR_INVALID_ARGUMENT;
	return ofi_post(comm, ptr, len, mr, req);
}

tern_status_t ofi_test(struct tern_net_req *req, bool *done, size_t *len)
{
	struct tern_net *net;
	tern_status_t status = TERN_SUCCESS;

	if (!req || !done || !req->comm)
		return TERN_ERROR_INVALID_ARGUMENT;
	net = req->comm->net;
	pthread_mutex_lock(&net->lock);
	if (req->state == OFI_REQ_POSTED)
		ofi_progress(net);
	*done = req->state != OFI_REQ_POSTED;
	if (*done) {
		struct tern_net_comm *comm = req->comm;

		status = req->status;
		if (status == TERN_SUCCESS) {
			comm->count.bytes += req->len;
			comm->count.messages++;
		}
		if (len)
			*len = req->len;
		ofi_list_remove(req);
		ofi_req_free(req);
	}
	pthread_mutex_unlock(&net->lock);
	return status;
}

void ofi_counters(const struct tern_net_comm *comm,
		  struct tern_net_counters *out)
{
	pthread_mutex_lock(&comm->net->lock);
	*out = comm->count;
	pthread_mutex_unlock(&comm->net->lock);
}
