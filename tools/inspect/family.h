/* SPDX-License-Identifier: MIT */
/*
 * tern.ko's "tern" generic netlink family as tern-inspect talks to it: a
 * connection that knows the family's id and which commands it has, and
 * the attribute policies that every message is parsed with (types,
 * minimum sizes, NUL-terminated strings), shared by the snapshot dumps
 * and the event listener.
 */
#ifndef TOOLS_INSPECT_FAMILY_H
#define TOOLS_INSPECT_FAMILY_H

#include <stdbool.h>

#include <netlink/attr.h>
#include <netlink/socket.h>

#include "tern_accel.h"

struct family_conn {
	struct nl_sock *sock;	/* NULL when not connected */
	int id;			/* the family's id */
	bool has_client_get;	/* DRM_TERN_CMD_CLIENT_GET is one of its commands */
};

/* Returned by family_connect() when tern.ko's family is not registered. */
#define FAMILY_ABSENT 1

/*
 * Opens a generic netlink socket and asks the controller for the family:
 * its id and its commands (an older tern.ko lacks some). Returns 0,
 * FAMILY_ABSENT (no generic netlink at all counts too: a restricted
 * container), or a negative libnl error; @conn is closed on failure.
 */
int family_connect(struct family_conn *conn);

void family_close(struct family_conn *conn);

/* Policies for DRM_TERN_A_DEV_*, DRM_TERN_A_ENGINE_*, DRM_TERN_A_LINK_*, DRM_TERN_A_CLIENT_*. */
extern struct nla_policy family_device_policy[DRM_TERN_A_DEV_MAX + 1];
extern struct nla_policy family_engine_policy[DRM_TERN_A_ENGINE_MAX + 1];
extern struct nla_policy family_link_policy[DRM_TERN_A_LINK_MAX + 1];
extern struct nla_policy family_client_policy[DRM_TERN_A_CLIENT_MAX + 1];

/* Fills the policies; call before parsing (idempotent). */
void family_init_policies(void);

#endif /* TOOLS_INSPECT_FAMILY_H */
