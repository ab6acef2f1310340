// SPDX-License-Identifier: GPL-2.0
/*
 * Tern generic netlink family "tern", as Documentation/netlink/tern.yaml
 * specifies it: DEVICE_GET and LINK_GET dumps, and the "events" multicast
 * group announcing link state changes and link errors.
 *
 * Written by hand with .ops for 6.1, which has no split ops. The family is
 * registered once every device exists and unregistered before any goes, so
 * a dump sees a fixed set of devices; dumps run under the genetlink lock
 * (no parallel_ops), which unregistering waits for.
 */
#include <linux/mutex.h>
#include <net/genetlink.h>

#include <drm/drm_device.h>

#include "model/tern_fabric.h"
#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_netlink.h"

enum tern_nl_mcgrp {
	TERN_NL_MCGRP_EVENTS,
};

static const struct genl_multicast_group tern_nl_mcgrps[] = {
	[TERN_NL_MCGRP_EVENTS] = { .name = TERN_MCGRP_EVENTS },
};

/* What a request may carry: a filter to one device or one link. */
static const struct nla_policy tern_nl_device_get_policy[TERN_A_DEV_INDEX + 1] = {
	[TERN_A_DEV_INDEX] = { .type = NLA_U32 },
};

static const struct nla_policy tern_nl_link_get_policy[TERN_A_LINK_INDEX + 1] = {
	[TERN_A_LINK_INDEX] = { .type = NLA_U32 },
};

static struct genl_family tern_nl_family;

/* Guards @tern_nl_registered: events are only sent while it is true. */
static DEFINE_MUTEX(tern_nl_lock);
static bool tern_nl_registered;

static int tern_nl_fill_device(struct sk_buff *msg, struct tern_device *tdev,
			       u32 portid, u32 seq, int flags)
{
	char node[32];
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  TERN_CMD_DEVICE_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_node_path(&tdev->drm, node, sizeof(node));
	if (nla_put_u32(msg, TERN_A_DEV_INDEX, tdev->index) ||
	    nla_put_u32(msg, TERN_A_DEV_FABRIC_ID, tdev->fabric_id) ||
	    nla_put_string(msg, TERN_A_DEV_NAME, dev_name(tdev->drm.dev)) ||
	    nla_put_string(msg, TERN_A_DEV_NODE, node) ||
	    nla_put_u64_64bit(msg, TERN_A_DEV_MEM_SIZE, tdev->mem_size,
			      TERN_A_DEV_PAD) ||
	    nla_put_u64_64bit(msg, TERN_A_DEV_MEM_USED, tern_devmem_used(tdev),
			      TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, TERN_A_DEV_ENGINE_COUNT, tdev->engine_count) ||
	    nla_put_u32(msg, TERN_A_DEV_PORT_COUNT,
			tern_device_port_count(tdev))) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static int tern_nl_put_counter(struct sk_buff *msg, int attr,
			       tern_counter_t *counter)
{
	return nla_put_u64_64bit(msg, attr, tern_counter_read(counter),
				 TERN_A_LINK_PAD);
}

static int tern_nl_fill_link(struct sk_buff *msg, struct tern_fabric *fabric,
			     u32 index, u8 cmd, u32 portid, u32 seq, int flags)
{
	struct tern_fabric_link *link = &fabric->links[index];
	u32 state = tern_load_u32(&link->up) ? TERN_PORT_UP : TERN_PORT_DOWN;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(msg, TERN_A_LINK_INDEX, index) ||
	    nla_put_u32(msg, TERN_A_LINK_DEVICE_A, link->end[0].device) ||
	    nla_put_u32(msg, TERN_A_LINK_PORT_A, link->end[0].port) ||
	    nla_put_u32(msg, TERN_A_LINK_DEVICE_B, link->end[1].device) ||
	    nla_put_u32(msg, TERN_A_LINK_PORT_B, link->end[1].port) ||
	    nla_put_u32(msg, TERN_A_LINK_STATE, state) ||
	    tern_nl_put_counter(msg, TERN_A_LINK_BYTES_A_TO_B, &link->bytes[0]) ||
	    tern_nl_put_counter(msg, TERN_A_LINK_BYTES_B_TO_A, &link->bytes[1]) ||
	    tern_nl_put_counter(msg, TERN_A_LINK_PACKETS_A_TO_B,
				&link->packets[0]) ||
	    tern_nl_put_counter(msg, TERN_A_LINK_PACKETS_B_TO_A,
				&link->packets[1]) ||
	    tern_nl_put_counter(msg, TERN_A_LINK_ERRORS, &link->errors) ||
	    nla_put_u64_64bit(msg, TERN_A_LINK_BANDWIDTH,
			      TERN_FABRIC_LINK_BANDWIDTH, TERN_A_LINK_PAD) ||
	    nla_put_u32(msg, TERN_A_LINK_LATENCY_NS,
			TERN_FABRIC_LINK_LATENCY_NS)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* The request's u32 filter @attr, or U32_MAX when it has none. */
static u32 tern_nl_filter(struct netlink_callback *cb, int attr)
{
	struct nlattr **attrs = tern_genl_dump_attrs(cb);

	return attrs && attrs[attr] ? nla_get_u32(attrs[attr]) : U32_MAX;
}

/* cb->args[0]: the next device or link to report. */
static int tern_nl_device_dumpit(struct sk_buff *msg,
				 struct netlink_callback *cb)
{
	u32 only = tern_nl_filter(cb, TERN_A_DEV_INDEX);
	struct tern_device *tdev;
	unsigned int i;

	for (i = cb->args[0]; (tdev = tern_mock_device(i)); i++) {
		if (only != U32_MAX && i != only)
			continue;
		if (tern_nl_fill_device(msg, tdev, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

static int tern_nl_link_dumpit(struct sk_buff *msg, struct netlink_callback *cb)
{
	struct tern_fabric *fabric = tern_mock_fabric();
	u32 only = tern_nl_filter(cb, TERN_A_LINK_INDEX);
	unsigned int i;

	if (!fabric)
		return 0;

	for (i = cb->args[0]; i < fabric->link_count; i++) {
		if (only != U32_MAX && i != only)
			continue;
		if (tern_nl_fill_link(msg, fabric, i, TERN_CMD_LINK_GET,
				      NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

static const struct genl_ops tern_nl_ops[] = {
	{
		.cmd = TERN_CMD_DEVICE_GET,
		.dumpit = tern_nl_device_dumpit,
		.policy = tern_nl_device_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_device_get_policy) - 1,
	},
	{
		.cmd = TERN_CMD_LINK_GET,
		.dumpit = tern_nl_link_dumpit,
		.policy = tern_nl_link_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_link_get_policy) - 1,
	},
};

static struct genl_family tern_nl_family __ro_after_init = {
	.name = TERN_GENL_NAME,
	.version = TERN_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = tern_nl_ops,
	.n_ops = ARRAY_SIZE(tern_nl_ops),
	/* Every command is strict: reserved header fields and attributes. */
	.resv_start_op = TERN_CMD_DEVICE_GET,
	.mcgrps = tern_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(tern_nl_mcgrps),
};

/* Announces link @link of @fabric on "events": @cmd is a TERN_CMD_*_NTF. */
void tern_netlink_link_event(struct tern_fabric *fabric, u32 link, u8 cmd)
{
	struct sk_buff *msg;

	mutex_lock(&tern_nl_lock);
	if (!tern_nl_registered ||
	    !genl_has_listeners(&tern_nl_family, &init_net,
				TERN_NL_MCGRP_EVENTS))
		goto unlock;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto unlock;
	if (tern_nl_fill_link(msg, fabric, link, cmd, 0, 0, 0)) {
		nlmsg_free(msg);
		goto unlock;
	}
	genlmsg_multicast(&tern_nl_family, msg, 0, TERN_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
unlock:
	mutex_unlock(&tern_nl_lock);
}

int tern_netlink_init(void)
{
	int ret;

	ret = genl_register_family(&tern_nl_family);
	if (ret)
		return ret;

	mutex_lock(&tern_nl_lock);
	tern_nl_registered = true;
	mutex_unlock(&tern_nl_lock);
	return 0;
}

void tern_netlink_fini(void)
{
	mutex_lock(&tern_nl_lock);
	tern_nl_registered = false;
	mutex_unlock(&tern_nl_lock);
	genl_unregister_family(&tern_nl_family);
}
