// SPDX-License-Identifier: MIT
/*
 * The "tern" generic netlink family: connecting, and the attribute
 * policies tern-inspect parses it with, tern.ko's and the simulated
 * machine's alike.
 */
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "family.h"
#include "tern_state.h"

struct nla_policy family_device_policy[DRM_TERN_A_DEV_MAX + 1];
struct nla_policy family_engine_policy[DRM_TERN_A_ENGINE_MAX + 1];
struct nla_policy family_link_policy[DRM_TERN_A_LINK_MAX + 1];
struct nla_policy family_client_policy[DRM_TERN_A_CLIENT_MAX + 1];

#define FAMILY_NLA_U32	NLA_U32
#define FAMILY_NLA_U64	NLA_U64

/*
 * Every value of the model's lists as its type says (model/
 * tern_state_list.h); names, nests and what only events carry by hand.
 */
void family_init_policies(void)
{
	static bool done;

	if (done)
		return;
	done = true;
#define FAMILY_POLICY(policy, kind, attr) \
	policy[attr].type = attr ? FAMILY_NLA_##kind : NLA_UNSPEC;
#define TERN_DEVICE_VALUE(name, kind, attr, ...) \
	FAMILY_POLICY(family_device_policy, kind, attr)
#define TERN_ENGINE_VALUE(name, kind, attr, ...) \
	FAMILY_POLICY(family_engine_policy, kind, attr)
#define TERN_LINK_VALUE(name, kind, attr, ...) \
	FAMILY_POLICY(family_link_policy, kind, attr)
#define TERN_CLIENT_VALUE(name, kind, attr, ...) \
	FAMILY_POLICY(family_client_policy, kind, attr)
#include "tern_state_list.h"
	family_device_policy[DRM_TERN_A_DEV_NAME].type = NLA_STRING;
	family_device_policy[DRM_TERN_A_DEV_NODE].type = NLA_STRING;
	family_device_policy[DRM_TERN_A_DEV_BUS_ID].type = NLA_STRING;
	family_device_policy[DRM_TERN_A_DEV_DRIVER_VERSION].type = NLA_STRING;
	family_device_policy[DRM_TERN_A_DEV_TOPOLOGY].type = NLA_STRING;
	family_device_policy[DRM_TERN_A_DEV_ENGINE].type = NLA_NESTED;
	family_device_policy[DRM_TERN_A_DEV_MEM_ERROR_KIND].type = NLA_U32;
	family_device_policy[DRM_TERN_A_DEV_MEM_ERROR_ADDR].type = NLA_U64;
	family_engine_policy[DRM_TERN_A_ENGINE_GUILTY_PID].type = NLA_U32;
	family_engine_policy[DRM_TERN_A_ENGINE_GUILTY_COMM].type = NLA_STRING;
	family_engine_policy[DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID].type = NLA_U64;
	family_client_policy[DRM_TERN_A_CLIENT_COMM].type = NLA_STRING;
}

/* The controller's answer: the family's id and its commands. */
static int family_ctrl_cb(struct nl_msg *msg, void *arg)
{
	static struct nla_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = { .type = NLA_U16 },
		[CTRL_ATTR_OPS] = { .type = NLA_NESTED },
	};
	static struct nla_policy op_policy[CTRL_ATTR_OP_MAX + 1] = {
		[CTRL_ATTR_OP_ID] = { .type = NLA_U32 },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op;
	struct family_conn *conn = arg;
	int rem;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, ctrl_policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return NL_SKIP;
	conn->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_OPS])
		return NL_OK;
	nla_for_each_nested(op, tb[CTRL_ATTR_OPS], rem) {
		struct nlattr *otb[CTRL_ATTR_OP_MAX + 1];

		if (nla_parse_nested(otb, CTRL_ATTR_OP_MAX, op, op_policy) >= 0 &&
		    otb[CTRL_ATTR_OP_ID] &&
		    nla_get_u32(otb[CTRL_ATTR_OP_ID]) == DRM_TERN_CMD_CLIENT_GET)
			conn->has_client_get = true;
	}
	return NL_OK;
}

int family_connect(struct family_conn *conn)
{
	struct nl_msg *msg;
	int err;

	conn->id = -1;
	conn->has_client_get = false;
	conn->sock = nl_socket_alloc();
	if (!conn->sock)
		return -NLE_NOMEM;
	if (genl_connect(conn->sock) < 0) {
		family_close(conn);
		return FAMILY_ABSENT;
	}
	msg = nlmsg_alloc();
	if (!msg) {
		family_close(conn);
		return -NLE_NOMEM;
	}
	err = -NLE_NOMEM;
	if (genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
			CTRL_CMD_GETFAMILY, 1) &&
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, DRM_TERN_GENL_NAME) == 0)
		err = nl_socket_modify_cb(conn->sock, NL_CB_VALID, NL_CB_CUSTOM,
					  family_ctrl_cb, conn);
	if (err >= 0)
		err = nl_send_auto(conn->sock, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs_default(conn->sock);
	/* libnl asked for an ACK too: read it, or the next dump would. */
	if (err >= 0)
		err = nl_wait_for_ack(conn->sock);
	if (err > 0)
		err = 0;
	/* The controller answers ENOENT for a family nobody registered. */
	if (err == -NLE_OBJ_NOTFOUND || (err >= 0 && conn->id < 0))
		err = FAMILY_ABSENT;
	if (err)
		family_close(conn);
	return err;
}

void family_close(struct family_conn *conn)
{
	nl_socket_free(conn->sock);
	conn->sock = NULL;
	conn->id = -1;
}
