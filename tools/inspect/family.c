// SPDX-License-Identifier: MIT
/*
 * The "tern" generic netlink family: connecting, and the attribute
 * policies tern-inspect parses it with.
 */
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "family.h"

struct nla_policy family_device_policy[DRM_TERN_A_DEV_MAX + 1];
struct nla_policy family_engine_policy[DRM_TERN_A_ENGINE_MAX + 1];
struct nla_policy family_link_policy[DRM_TERN_A_LINK_MAX + 1];
struct nla_policy family_client_policy[DRM_TERN_A_CLIENT_MAX + 1];

#define FAMILY_SET(policy, list, type_) \
	for (size_t i_ = 0; i_ < sizeof(list) / sizeof(list[0]); i_++) \
		policy[list[i_]].type = type_

/* Every integer attribute is u32 or u64; the rest are strings or nests. */
void family_init_policies(void)
{
	static const int dev_u64[] = {
		DRM_TERN_A_DEV_MEM_SIZE, DRM_TERN_A_DEV_MEM_USED,
		DRM_TERN_A_DEV_CAPABILITIES, DRM_TERN_A_DEV_MEM_HOST_USED,
		DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED,
		DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED, DRM_TERN_A_DEV_JOBS_COMPLETED,
		DRM_TERN_A_DEV_JOBS_FAILED, DRM_TERN_A_DEV_JOB_TIMEOUTS,
		DRM_TERN_A_DEV_ENGINE_RESETS, DRM_TERN_A_DEV_MEM_ERROR_ADDR,
		DRM_TERN_A_DEV_ENGINE_HANG_RESETS,
	};
	static const int dev_string[] = {
		DRM_TERN_A_DEV_NAME, DRM_TERN_A_DEV_NODE, DRM_TERN_A_DEV_BUS_ID,
		DRM_TERN_A_DEV_DRIVER_VERSION, DRM_TERN_A_DEV_TOPOLOGY,
	};
	static const int engine_u64[] = {
		DRM_TERN_A_ENGINE_BUSY_NS, DRM_TERN_A_ENGINE_JOBS_COMPLETED,
		DRM_TERN_A_ENGINE_JOBS_FAILED, DRM_TERN_A_ENGINE_TIMEOUTS,
		DRM_TERN_A_ENGINE_RESETS, DRM_TERN_A_ENGINE_HANG_RESETS,
		DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID,
	};
	static const int engine_string[] = { DRM_TERN_A_ENGINE_GUILTY_COMM };
	static const int link_u64[] = {
		DRM_TERN_A_LINK_BYTES_A_TO_B, DRM_TERN_A_LINK_BYTES_B_TO_A,
		DRM_TERN_A_LINK_PACKETS_A_TO_B, DRM_TERN_A_LINK_PACKETS_B_TO_A,
		DRM_TERN_A_LINK_ERRORS, DRM_TERN_A_LINK_BANDWIDTH,
	};
	static const int client_u64[] = {
		DRM_TERN_A_CLIENT_ID, DRM_TERN_A_CLIENT_MEM_DEVICE,
		DRM_TERN_A_CLIENT_MEM_HOST, DRM_TERN_A_CLIENT_JOBS_SUBMITTED,
		DRM_TERN_A_CLIENT_BUSY_NS,
	};
	static const int client_string[] = { DRM_TERN_A_CLIENT_COMM };
	static bool done;

	if (done)
		return;
	done = true;
	for (int a = DRM_TERN_A_DEV_INDEX; a <= DRM_TERN_A_DEV_MAX; a++)
		family_device_policy[a].type = NLA_U32;
	FAMILY_SET(family_device_policy, dev_u64, NLA_U64);
	FAMILY_SET(family_device_policy, dev_string, NLA_STRING);
	family_device_policy[DRM_TERN_A_DEV_ENGINE].type = NLA_NESTED;

	for (int a = DRM_TERN_A_ENGINE_INDEX; a <= DRM_TERN_A_ENGINE_MAX; a++)
		family_engine_policy[a].type = NLA_U32;
	FAMILY_SET(family_engine_policy, engine_u64, NLA_U64);
	FAMILY_SET(family_engine_policy, engine_string, NLA_STRING);

	for (int a = DRM_TERN_A_LINK_INDEX; a <= DRM_TERN_A_LINK_MAX; a++)
		family_link_policy[a].type = NLA_U32;
	FAMILY_SET(family_link_policy, link_u64, NLA_U64);

	for (int a = DRM_TERN_A_CLIENT_DEVICE; a <= DRM_TERN_A_CLIENT_MAX; a++)
		family_client_policy[a].type = NLA_U32;
	FAMILY_SET(family_client_policy, client_u64, NLA_U64);
	FAMILY_SET(family_client_policy, client_string, NLA_STRING);
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
