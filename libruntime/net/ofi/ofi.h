/* SPDX-License-Identifier: MIT */
/*
 * The network seam over libfabric: one reliable datagram endpoint
 * (FI_EP_RDM) per process with tagged messages, one completion queue and
 * one address vector. A connection is a pair of numbers in the tags, not
 * a socket of its own, so a process holds one endpoint however many peers
 * it talks to; the provider makes the connections it needs underneath.
 *
 * Tags: bit 63 set marks a connect message, sent to the listen whose id
 * is in the low bits and carrying the sender's endpoint name and the id
 * of its new connection. Accepting answers with an accept message (bit
 * 62, and the sender's connection id in the low bits) carrying the id the
 * receiver gave the connection. Data messages carry that receiver's id in
 * bits 32-61 and the connection's message sequence in bits 0-31: ids the
 * receiver gave are unique at the receiver, so no provider needs to tell
 * two senders apart by their addresses (shm does not, whatever
 * FI_DIRECTED_RECV says), and messages of one connection match in order.
 * A send posted before the accept message came waits for it.
 */
#ifndef TERN_NET_OFI_H
#define TERN_NET_OFI_H

#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "../net.h"

#define OFI_TAG_CONNECT		(1ull << 63)
#define OFI_TAG_ACCEPT		(1ull << 62)
#define OFI_TAG_COMM_SHIFT	32
#define OFI_COMM_ID_MAX		((1u << 30) - 1)
#define OFI_TAG_ID_UNKNOWN	UINT32_MAX
/* An endpoint's name, as fi_getname gives it (efa's is 32 bytes). */
#define OFI_NAME_BYTES		96

struct tern_net_req;

enum ofi_req_kind {
	OFI_REQ_USER,		/* isend / irecv: the caller tests it */
	OFI_REQ_CONNECT_SEND,	/* a connect or accept message: the net's orphan */
	OFI_REQ_LISTEN,		/* a listen's receive of connect messages */
	OFI_REQ_ACCEPT_RECV,	/* a connection's receive of its accept message */
};

enum ofi_req_state {
	OFI_REQ_POSTED,
	OFI_REQ_DONE,
	OFI_REQ_FAILED,
};

/* What a connect message says (an accept message: the magic, the id). */
struct ofi_connect_msg {
	char magic[8];
	uint32_t comm_id;	/* the sender's connection; accept: the receiver's */
	uint32_t name_len;
	uint8_t name[OFI_NAME_BYTES];
};

/* What a listen handle holds. */
struct ofi_handle {
	char magic[8];
	uint32_t listen_id;
	uint32_t name_len;
	uint8_t name[OFI_NAME_BYTES];
};

_Static_assert(sizeof(struct ofi_handle) <= TERN_NET_HANDLE_BYTES,
	       "a handle fits tern_net_handle");

struct ofi_peer {
	uint8_t name[OFI_NAME_BYTES];
	size_t name_len;
	fi_addr_t addr;
	struct ofi_peer *next;
};

struct tern_net_mr {
	void *ptr;
	size_t len;
	unsigned int refs;
	struct fid_mr *mr;
	void *desc;
	struct tern_net_mr *next;
};

struct tern_net {
	pthread_mutex_t lock;		/* everything below */
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	int wait_fd;			/* the queue's, to poll; -1: none */
	bool mr_local, mr_endpoint, mr_prov_key;
	uint8_t name[OFI_NAME_BYTES];
	size_t name_len;
	char description[96];
	uint32_t next_listen_id, next_comm_id;
	uint64_t next_key;
	struct ofi_peer *peers;		/* addresses inserted, one each */
	struct tern_net_mr *mrs;	/* registrations, shared by range */
	struct tern_net_listen *listens;
	struct tern_net_comm *comms;
	struct tern_net_req *orphans;	/* cancelled, not yet given back */
	struct tern_net_req *deferred;	/* our own posts the provider put off */
	unsigned int users;		/* listens, comms, registrations */
	struct tern_net *parked;	/* the next kept open (endpoint.c) */
};

struct tern_net_req {
	struct fi_context2 ctx;		/* first: the provider's op_context */
	enum ofi_req_kind kind;
	enum ofi_req_state state;
	bool orphan;			/* its comm closed: free it at its end */
	size_t len;
	tern_status_t status;
	struct tern_net_comm *comm;	/* USER; NULL once orphaned */
	struct tern_net_listen *listen;	/* LISTEN */
	fi_addr_t peer;			/* CONNECT_SEND, ACCEPT_RECV: where, which tag */
	uint64_t tag;
	/* A send that waits for its connection's accept message. */
	bool waiting;
	uint32_t seq;
	void *ptr, *desc;
	/* The list it is on: its comm's in flight, or the net's orphans. */
	struct tern_net_req **head, *next, *prev;
	struct ofi_connect_msg msg;	/* CONNECT_SEND, LISTEN */
};

/*
 * Connect messages a listen keeps until they are accepted: past this, the
 * oldest goes, so that a flood of them neither grows without bound nor
 * keeps a real peer's out for good (it connects again, or its comm fails).
 */
#define OFI_PENDING_MAX		256

struct ofi_pending {
	struct ofi_connect_msg msg;
	struct ofi_pending *next;
};

struct tern_net_listen {
	struct tern_net *net;
	uint32_t id;
	struct tern_net_req *recv;		/* the connect message receive posted */
	struct ofi_pending *pending, **pending_tail;
	unsigned int npending;		/* at most OFI_PENDING_MAX */
	struct tern_net_listen *next;
};

struct tern_net_comm {
	struct tern_net *net;
	bool sender;
	uint32_t id;			/* ours: an accept message's tag, or data's */
	uint32_t tag_id;		/* the receiver's, in data tags; or UNKNOWN */
	struct tern_net_req *accept;	/* a sender's receive of its accept message */
	unsigned int waiting;		/* sends waiting for it */
	fi_addr_t peer;
	uint32_t seq;			/* messages posted */
	struct tern_net_req *inflight;	/* requests posted, not yet tested */
	struct tern_net_counters count;
	struct tern_net_comm *next;
};

/* endpoint.c */
/* The peer @name names, inserted once; FI_ADDR_NOTAVAIL on failure. */
fi_addr_t ofi_peer_addr(struct tern_net *net, const uint8_t *name,
			size_t len);
/* Reads the completion queue and ends the requests in it. Lock held. */
void ofi_progress(struct tern_net *net);
const char *ofi_strerror(int err);

/* message.c */
struct tern_net_req *ofi_req_new(enum ofi_req_kind kind);
void ofi_req_free(struct tern_net_req *req);
/* A completion or an error for @req. Lock held. */
void ofi_req_complete(struct tern_net *net, struct tern_net_req *req,
		      size_t len, int err);
/* Leaves @req to the net, to free at its end. Lock held. */
void ofi_req_adopt(struct tern_net *net, struct tern_net_req *req);
/* Cancels @req; it is freed when the provider gives it back. Lock held. */
void ofi_req_orphan(struct tern_net *net, struct tern_net_req *req);
/* Cancels what @comm has in flight. Lock held. */
void ofi_comm_orphan(struct tern_net_comm *comm);
/* Puts @req on @head (NULL: on none). */
void ofi_list_move(struct tern_net_req **head, struct tern_net_req *req);
/* Frees the orphans and the deferred, once the endpoint is closed. */
void ofi_orphans_free(struct tern_net *net);
/* Posts the sends of connections whose accept has come. Lock held. */
void ofi_post_waiting(struct tern_net *net);
/* A connection's accept message came (or failed, @err). Lock held. */
void ofi_accept_complete(struct tern_net *net, struct tern_net_req *req,
			 int err);

/* connect.c: the seam's listen, connect and accept */
/*
 * Posts a connect message send or a listen's receive; one the provider
 * has no room for now waits on net->deferred for the next progress.
 * Lock held.
 */
int ofi_post_own(struct tern_net *net, struct tern_net_req *req);
/* Posts what was deferred. Lock held. */
void ofi_post_deferred(struct tern_net *net);
/* @req, a listen's connect receive, ended: queue it and post again. */
void ofi_listen_complete(struct tern_net *net, struct tern_net_req *req, int err);
tern_status_t ofi_listen(struct tern_net *net, struct tern_net_handle *handle,
			 struct tern_net_listen **out);
void ofi_close_listen(struct tern_net_listen *listen);
tern_status_t ofi_connect(struct tern_net *net,
			  const struct tern_net_handle *handle,
			  struct tern_net_comm **out);
tern_status_t ofi_accept(struct tern_net_listen *listen,
			 struct tern_net_comm **out);
void ofi_close_comm(struct tern_net_comm *comm);

/* memory.c */
tern_status_t ofi_reg_mr(struct tern_net *net, void *ptr, size_t len,
			 struct tern_net_mr **out);
void ofi_dereg_mr(struct tern_net *net, struct tern_net_mr *mr);

/* message.c: the seam's sends and receives */
tern_status_t ofi_isend(struct tern_net_comm *comm, const void *ptr,
			size_t len, struct tern_net_mr *mr,
			struct tern_net_req **req);
tern_status_t ofi_irecv(struct tern_net_comm *comm, void *ptr, size_t len,
			struct tern_net_mr *mr, struct tern_net_req **req);
tern_status_t ofi_test(struct tern_net_req *req, bool *done, size_t *len);
void ofi_counters(const struct tern_net_comm *comm,
		  struct tern_net_counters *out);

#endif /* TERN_NET_OFI_H */
