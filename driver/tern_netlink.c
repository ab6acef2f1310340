// SPDX-License-Identifier: GPL-2.0
/*
 * Tern generic netlink family "tern", as Documentation/netlink/tern.yaml
 * specifies it: DEVICE_GET, LINK_GET and CLIENT_GET dumps and the "events"
 * multicast group. Here are the family and its dumps; the messages are
 * filled in tern_netlink_msg.c, which events share, and the events are
 * sent from tern_netlink_events.c.
 *
 * Written by hand with .ops for 6.1, which has no split ops. The family is
 * registered once every device exists and unregistered before any goes, so
 * a dump sees a fixed set of devices; dumps run under the genetlink lock
 * (no parallel_ops), which unregistering waits for. A filter naming no
 * device or link fails the dump's start with -ENODEV.
 *
 * A client's pid is its number in the pid namespace of the task the dump
 * runs in, the reader (0 where the client's process is not visible).
 *
 * CLIENT_GET shows every client to a caller with CAP_PERFMON or
 * CAP_SYS_ADMIN, and to any other caller only its own clients: files
 * opened by a process whose effective uid was the caller's. The caller is
 * judged once, when the dump starts, by netlink's rule for capabilities:
 * both the socket's opener and the task that sent the request must
 * qualify. A client not shown is not hinted at; the device message counts
 * them all (DRM_TERN_A_DEV_CLIENT_COUNT).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <drm/drm_device.h>

#include "tern_fabric.h"
#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_netlink.h"
#include "tern_netlink_internal.h"
#include "tern_vm.h"

/*
 * Events name devices' faults and the command of a guilty process: only
 * CAP_SYS_ADMIN, which also sees every client, may join, where the kernel
 * can check (tern_compat.h).
 */
static const struct genl_multicast_group tern_nl_mcgrps[] = {
	[TERN_NL_MCGRP_EVENTS] = {
		.name = DRM_TERN_MCGRP_EVENTS,
		TERN_MCGRP_SYS_ADMIN_FIELDS
	},
};

/* What a request may carry: a filter to one device or one link. */
static const struct nla_policy tern_nl_device_get_policy[DRM_TERN_A_DEV_INDEX + 1] = {
	[DRM_TERN_A_DEV_INDEX] = { .type = NLA_U32 },
};

static const struct nla_policy tern_nl_link_get_policy[DRM_TERN_A_LINK_INDEX + 1] = {
	[DRM_TERN_A_LINK_INDEX] = { .type = NLA_U32 },
};

static const struct nla_policy tern_nl_client_get_policy[DRM_TERN_A_CLIENT_DEVICE + 1] = {
	[DRM_TERN_A_CLIENT_DEVICE] = { .type = NLA_U32 },
};

/* The request's u32 filter @attr: true with it in *@value, false if none. */
static bool tern_nl_filter(struct netlink_callback *cb, int attr, u32 *value)
{
	struct nlattr **attrs = tern_genl_dump_attrs(cb);

	if (!attrs || !attrs[attr])
		return false;
	*value = nla_get_u32(attrs[attr]);
	return true;
}

/*
 * Dump starts: a filter must name something that exists. The message goes
 * with the error where the kernel hands the start an extack (6.12, not
 * 6.1); the errno always does.
 */
static int tern_nl_check_device_filter(struct netlink_callback *cb, int attr)
{
	struct tern_drm_device *tdev;
	u32 index;

	if (!tern_nl_filter(cb, attr, &index))
		return 0;
	tdev = tern_mock_device_get(index);
	if (!tdev) {
		NL_SET_ERR_MSG_ATTR(cb->extack, tern_genl_dump_attrs(cb)[attr],
				    "no Tern device has this index");
		return -ENODEV;
	}
	drm_dev_put(&tdev->drm);
	return 0;
}

/*
 * Each part of a dump holds whole device messages: room for the largest
 * (a reader's buffer smaller than that sees MSG_TRUNC and may grow it).
 */
static int tern_nl_device_start(struct netlink_callback *cb)
{
	unsigned int i;

	for (i = 0; i < tern_mock_device_count(); i++) {
		struct tern_drm_device *tdev = tern_mock_device_get(i);

		if (!tdev)
			continue;
		cb->min_dump_alloc = max(cb->min_dump_alloc,
					 tern_nl_device_size(tdev));
		drm_dev_put(&tdev->drm);
	}
	return tern_nl_check_device_filter(cb, DRM_TERN_A_DEV_INDEX);
}

/* Whom a CLIENT_GET dump shows (cb->args[2]); the caller's euid in args[3]. */
enum tern_nl_viewer {
	TERN_NL_SEES_NONE,	/* the socket was opened by another euid */
	TERN_NL_SEES_OWN,	/* clients opened with the caller's euid */
	TERN_NL_SEES_ALL,	/* CAP_PERFMON or CAP_SYS_ADMIN */
};

/*
 * Runs in the caller's context, as the dump's .start does: the sender of
 * the request is current, the socket's opener the file's credentials.
 */
static void tern_nl_judge_viewer(struct netlink_callback *cb)
{
	const struct socket *sock = NETLINK_CB(cb->skb).sk->sk_socket;
	kuid_t euid = current_euid();

	if (netlink_capable(cb->skb, CAP_PERFMON) ||
	    netlink_capable(cb->skb, CAP_SYS_ADMIN))
		cb->args[2] = TERN_NL_SEES_ALL;
	else if (sock && sock->file && uid_eq(sock->file->f_cred->euid, euid))
		cb->args[2] = TERN_NL_SEES_OWN;
	else
		cb->args[2] = TERN_NL_SEES_NONE;
	cb->args[3] = __kuid_val(euid);
}

static bool tern_nl_viewer_sees(struct netlink_callback *cb,
				const struct tern_usage *usage)
{
	switch (cb->args[2]) {
	case TERN_NL_SEES_ALL:
		return true;
	case TERN_NL_SEES_OWN:
		return uid_eq(usage->uid, KUIDT_INIT(cb->args[3]));
	default:
		return false;
	}
}

static int tern_nl_client_start(struct netlink_callback *cb)
{
	int ret = tern_nl_check_device_filter(cb, DRM_TERN_A_CLIENT_DEVICE);

	if (!ret)
		tern_nl_judge_viewer(cb);
	return ret;
}

static int tern_nl_link_start(struct netlink_callback *cb)
{
	struct tern_fabric *fabric = tern_mock_fabric();
	u32 index;

	if (tern_nl_filter(cb, DRM_TERN_A_LINK_INDEX, &index) &&
	    (!fabric || index >= fabric->link_count)) {
		NL_SET_ERR_MSG_ATTR(cb->extack,
				    tern_genl_dump_attrs(cb)[DRM_TERN_A_LINK_INDEX],
				    "the fabric has no link of this index");
		return -ENODEV;
	}
	return 0;
}

/* cb->args[0]: the next device or link to report. */
static int tern_nl_device_dumpit(struct sk_buff *msg,
				 struct netlink_callback *cb)
{
	struct tern_drm_device *tdev;
	unsigned int i;
	u32 only;
	bool filtered = tern_nl_filter(cb, DRM_TERN_A_DEV_INDEX, &only);

	for (i = cb->args[0]; i < tern_mock_device_count(); i++) {
		int ret;

		if (filtered && i != only)
			continue;
		/* An unbound device is not reported. */
		tdev = tern_mock_device_get(i);
		if (!tdev)
			continue;
		ret = tern_nl_fill_device(msg, tdev, NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI);
		drm_dev_put(&tdev->drm);
		/* Not even alone: an error, rather than a dump that ends here. */
		if (ret && !msg->len)
			return ret;
		if (ret)
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

static int tern_nl_link_dumpit(struct sk_buff *msg, struct netlink_callback *cb)
{
	struct tern_fabric *fabric = tern_mock_fabric();
	unsigned int i;
	u32 only;
	bool filtered = tern_nl_filter(cb, DRM_TERN_A_LINK_INDEX, &only);

	if (!fabric)
		return 0;

	for (i = cb->args[0]; i < fabric->link_count; i++) {
		if (filtered && i != only)
			continue;
		if (tern_nl_fill_link(msg, fabric, i, DRM_TERN_CMD_LINK_GET,
				      NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

/*
 * Reports @tdev's clients the caller sees, in the order of their ids, from
 * the one after cb->args[1], the last one reported: files opened or closed
 * between two parts of a dump do not shift the others. Each is found in
 * the device's xarray in O(log n) and filled under its lock, which closing
 * a file takes before the client goes (filling allocates nothing).
 */
static int tern_nl_dump_clients(struct sk_buff *msg,
				struct netlink_callback *cb,
				struct tern_drm_device *tdev)
{
	unsigned long id = (u64)cb->args[1] + 1;
	struct tern_usage *usage;
	int ret = 0;

	xa_lock(&tdev->clients);
	xa_for_each_start(&tdev->clients, id, usage, id) {
		if (!tern_nl_viewer_sees(cb, usage))
			continue;
		ret = tern_nl_fill_client(msg, tdev, usage,
					  NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		cb->args[1] = usage->client_id;
	}
	xa_unlock(&tdev->clients);
	return ret;
}

/*
 * cb->args[0]: the device being reported; cb->args[1]: its last client;
 * cb->args[2] and [3]: whom the caller sees.
 */
static int tern_nl_client_dumpit(struct sk_buff *msg,
				 struct netlink_callback *cb)
{
	struct tern_drm_device *tdev;
	unsigned int i;
	u32 only;
	bool filtered = tern_nl_filter(cb, DRM_TERN_A_CLIENT_DEVICE, &only);

	for (i = cb->args[0]; i < tern_mock_device_count();
	     i++, cb->args[1] = 0) {
		int ret;

		if (filtered && i != only)
			continue;
		tdev = tern_mock_device_get(i);
		if (!tdev)
			continue;
		ret = tern_nl_dump_clients(msg, cb, tdev);
		drm_dev_put(&tdev->drm);
		if (ret)
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

static const struct genl_ops tern_nl_ops[] = {
	{
		.cmd = DRM_TERN_CMD_DEVICE_GET,
		.start = tern_nl_device_start,
		.dumpit = tern_nl_device_dumpit,
		.policy = tern_nl_device_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_device_get_policy) - 1,
	},
	{
		.cmd = DRM_TERN_CMD_LINK_GET,
		.start = tern_nl_link_start,
		.dumpit = tern_nl_link_dumpit,
		.policy = tern_nl_link_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_link_get_policy) - 1,
	},
	{
		.cmd = DRM_TERN_CMD_CLIENT_GET,
		.start = tern_nl_client_start,
		.dumpit = tern_nl_client_dumpit,
		.policy = tern_nl_client_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_client_get_policy) - 1,
	},
};

struct genl_family tern_nl_family __ro_after_init = {
	.name = DRM_TERN_GENL_NAME,
	.version = DRM_TERN_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = tern_nl_ops,
	.n_ops = ARRAY_SIZE(tern_nl_ops),
	/* Every command is strict: reserved header fields and attributes. */
	.resv_start_op = DRM_TERN_CMD_DEVICE_GET,
	.mcgrps = tern_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(tern_nl_mcgrps),
};

int tern_netlink_init(void)
{
	int ret;

	ret = genl_register_family(&tern_nl_family);
	if (ret)
		return ret;

	tern_nl_events_enable(true);
	return 0;
}

void tern_netlink_fini(void)
{
	tern_nl_events_enable(false);
	genl_unregister_family(&tern_nl_family);
}
