/* SPDX-License-Identifier: MIT */
/*
 * The network seam: how the ranks of a communicator on different hosts
 * reach each other (not installed).
 *
 * The shape is that of NCCL's net plugins, which every cluster network
 * already has an implementation of: a process opens the transport once;
 * a receiver listens, handing out a handle (an address the bootstrap
 * carries to the peer); the sender connects to the handle and the
 * receiver accepts, each getting one direction of the connection. Memory
 * a message moves through is registered first. Sends and receives are
 * non-blocking and complete in the order they were posted on their
 * connection; test() reports a request's end, which frees it.
 *
 * One implementation, over libfabric (ofi/), as AWS's own plugin is: its
 * provider (FI_PROVIDER: tcp or shm on any machine, efa or verbs on a
 * cluster) is libfabric's choice, nothing here depends on it.
 *
 * Unlike NCCL's, a listen accepts any number of connections, so a rank
 * needs one handle however many peers it has: the bootstrap carries one
 * handle a rank, not one a pair. Each end counts what it moved, for
 * tern-inspect.
 */
#ifndef TERN_NET_H
#define TERN_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tern.h"

/* Bytes of a listen handle: an endpoint's name and which listen. */
#define TERN_NET_HANDLE_BYTES	128

struct tern_net_handle {
	uint8_t bytes[TERN_NET_HANDLE_BYTES];
};

struct tern_net;		/* the transport, opened once per process */
struct tern_net_listen;
struct tern_net_comm;		/* one direction of one connection */
struct tern_net_mr;		/* registered memory */
struct tern_net_req;		/* a send or receive in flight */

/* What one direction of a connection has moved. */
struct tern_net_counters {
	uint64_t bytes, messages, errors;
};

struct tern_net_ops {
	const char *name;
	/*
	 * Opens the transport. NOT_SUPPORTED, with a sentence in
	 * tern_get_last_error(), where nothing usable is found (a provider
	 * FI_PROVIDER names that does not exist, say).
	 */
	tern_status_t (*open)(struct tern_net **net);
	/* Every listen, comm and registration is closed already. */
	void (*close)(struct tern_net *net);
	/* Which provider and domain it runs on, for messages and tools. */
	const char *(*describe)(const struct tern_net *net);

	tern_status_t (*listen)(struct tern_net *net,
				struct tern_net_handle *handle,
				struct tern_net_listen **listen);
	/* A listen's pending connections are refused when it closes. */
	void (*close_listen)(struct tern_net_listen *listen);
	/*
	 * The sending side of a connection to @handle, at once (what the
	 * peer cannot be reached by shows at the first send's end).
	 * INVALID_ARGUMENT for a handle that is not one.
	 */
	tern_status_t (*connect)(struct tern_net *net,
				 const struct tern_net_handle *handle,
				 struct tern_net_comm **comm);
	/* The receiving side of the next connection; NOT_READY if none yet. */
	tern_status_t (*accept)(struct tern_net_listen *listen,
				struct tern_net_comm **comm);
	/* Requests still in flight on @comm are cancelled and freed. */
	void (*close_comm)(struct tern_net_comm *comm);

	/* A registration of [@ptr, @ptr + @len); the same range is shared. */
	tern_status_t (*reg_mr)(struct tern_net *net, void *ptr, size_t len,
				struct tern_net_mr **mr);
	void (*dereg_mr)(struct tern_net *net, struct tern_net_mr *mr);

	/*
	 * Posts a send or a receive of at most @len bytes at @ptr (inside
	 * @mr). NOT_READY when the transport has no room now: test a
	 * request and post again. A receive takes the next message sent on
	 * the connection, which must not be longer than @len: what a provider
	 * does then is its own (tcp drops the connection).
	 */
	tern_status_t (*isend)(struct tern_net_comm *comm, const void *ptr,
			       size_t len, struct tern_net_mr *mr,
			       struct tern_net_req **req);
	tern_status_t (*irecv)(struct tern_net_comm *comm, void *ptr,
			       size_t len, struct tern_net_mr *mr,
			       struct tern_net_req **req);
	/*
	 * Makes progress and tells whether @req ended: *@done true frees it
	 * and gives the bytes moved in *@len (a receive's message size).
	 * A request that failed is freed too and its status returned
	 * (PEER_FAILED: the peer cannot be reached or went away).
	 */
	tern_status_t (*test)(struct tern_net_req *req, bool *done,
			      size_t *len);
	/* Sleeps until some request may have ended, or @timeout_ms passed. */
	void (*wait)(struct tern_net *net, int timeout_ms);
	void (*counters)(const struct tern_net_comm *comm,
			 struct tern_net_counters *out);
};

extern const struct tern_net_ops tern_net_ofi;

#endif /* TERN_NET_H */
