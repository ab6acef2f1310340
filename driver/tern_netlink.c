// SPDX-License-Identifier: GPL-2.0
/*
 * Tern generic netlink family "tern", as Documentation/netlink/tern.yaml
 * specifies it: DEVICE_GET, LINK_GET and CLIENT_GET dumps, and the
 * "events" multicast group announcing link state changes and errors,
 * memory errors, engine resets and health changes.
 *
 * Written by hand with .ops for 6.1, which has no split ops. The family is
 * registered once every device exists and unregistered before any goes, so
 * a dump sees a fixed set of devices; dumps run under the genetlink lock
 * (no parallel_ops), which unregistering waits for. A filter naming no
 * device or link fails the dump's start with -ENODEV.
 *
 * A client's pid is its number in the pid namespace of the task the dump
 * runs in, the reader (0 where the client's process is not visible); an
 * event has no single reader, so an engine reset names the guilty pid of
 * the initial namespace.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <net/genetlink.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include "model/tern_fabric.h"
#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink.h"
#include "tern_stats.h"
#include "tern_vm.h"

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

static const struct nla_policy tern_nl_client_get_policy[TERN_A_CLIENT_DEVICE + 1] = {
	[TERN_A_CLIENT_DEVICE] = { .type = NLA_U32 },
};

static struct genl_family tern_nl_family;

/* Guards @tern_nl_registered: events are only sent while it is true. */
static DEFINE_MUTEX(tern_nl_lock);
static bool tern_nl_registered;

static int tern_nl_put_u64(struct sk_buff *msg, int attr, u64 value, int pad)
{
	return nla_put_u64_64bit(msg, attr, value, pad);
}

static int tern_nl_put_health(struct sk_buff *msg, u32 reasons)
{
	if (nla_put_u32(msg, TERN_A_DEV_HEALTH, tern_health_of(reasons)) ||
	    nla_put_u32(msg, TERN_A_DEV_HEALTH_REASONS, reasons))
		return -EMSGSIZE;
	return 0;
}

/*
 * One TERN_A_DEV_ENGINE nest; with @guilty (an engine reset event), the
 * owner of the job that was failed.
 */
static int tern_nl_put_engine(struct sk_buff *msg, struct tern_engine *engine,
			      const struct tern_engine_guilty *guilty)
{
	struct tern_engine_stats stats;
	struct nlattr *nest;

	tern_engine_stats_read(engine, &stats);
	nest = nla_nest_start(msg, TERN_A_DEV_ENGINE);
	if (!nest)
		return -EMSGSIZE;

	if (nla_put_u32(msg, TERN_A_ENGINE_INDEX, engine->index) ||
	    nla_put_u32(msg, TERN_A_ENGINE_BUSY, stats.busy) ||
	    tern_nl_put_u64(msg, TERN_A_ENGINE_BUSY_NS, stats.busy_ns,
			    TERN_A_ENGINE_PAD) ||
	    nla_put_u32(msg, TERN_A_ENGINE_JOBS_QUEUED, stats.jobs_queued) ||
	    tern_nl_put_u64(msg, TERN_A_ENGINE_JOBS_COMPLETED,
			    stats.jobs_completed, TERN_A_ENGINE_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_ENGINE_JOBS_FAILED, stats.jobs_failed,
			    TERN_A_ENGINE_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_ENGINE_TIMEOUTS, stats.timeouts,
			    TERN_A_ENGINE_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_ENGINE_RESETS, stats.resets,
			    TERN_A_ENGINE_PAD) ||
	    nla_put_u32(msg, TERN_A_ENGINE_HUNG, stats.hung) ||
	    tern_nl_put_u64(msg, TERN_A_ENGINE_HANG_RESETS, stats.hang_resets,
			    TERN_A_ENGINE_PAD))
		goto cancel;
	if (guilty &&
	    (nla_put_u32(msg, TERN_A_ENGINE_GUILTY_PID, guilty->pid) ||
	     nla_put_string(msg, TERN_A_ENGINE_GUILTY_COMM, guilty->comm)))
		goto cancel;

	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* TERN_A_DEV_BUS_ID: "<bus>:<device>", e.g. "platform:tern.0". */
static int tern_nl_put_bus_id(struct sk_buff *msg, struct tern_device *tdev)
{
	struct device *dev = tdev->drm.dev;
	char bus_id[64];

	snprintf(bus_id, sizeof(bus_id), "%s:%s",
		 dev->bus ? dev->bus->name : "none", dev_name(dev));
	return nla_put_string(msg, TERN_A_DEV_BUS_ID, bus_id);
}

static int tern_nl_put_counters(struct sk_buff *msg,
				const struct tern_device_stats *stats)
{
	if (tern_nl_put_u64(msg, TERN_A_DEV_MEM_HOST_USED,
			    stats->mem_host_used, TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, TERN_A_DEV_BUFFER_COUNT, stats->buffers) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_MEM_ERRORS_CORRECTED,
			    stats->mem_errors_corrected, TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
			    stats->mem_errors_uncorrected, TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_JOBS_COMPLETED,
			    stats->jobs_completed, TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_JOBS_FAILED, stats->jobs_failed,
			    TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_JOB_TIMEOUTS, stats->job_timeouts,
			    TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_ENGINE_RESETS,
			    stats->engine_resets, TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, TERN_A_DEV_ENGINES_BUSY, stats->engines_busy) ||
	    nla_put_u32(msg, TERN_A_DEV_CLIENT_COUNT, stats->clients) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_ENGINE_HANG_RESETS,
			    stats->engine_hang_resets, TERN_A_DEV_PAD))
		return -EMSGSIZE;
	return 0;
}

static int tern_nl_fill_device(struct sk_buff *msg, struct tern_device *tdev,
			       u32 portid, u32 seq, int flags)
{
	struct tern_device_stats stats;
	char node[32];
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  TERN_CMD_DEVICE_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_device_stats_read(tdev, &stats);
	tern_node_path(&tdev->drm, node, sizeof(node));
	if (nla_put_u32(msg, TERN_A_DEV_INDEX, tdev->index) ||
	    nla_put_u32(msg, TERN_A_DEV_FABRIC_ID, tdev->fabric_id) ||
	    nla_put_string(msg, TERN_A_DEV_NAME, dev_name(tdev->drm.dev)) ||
	    nla_put_string(msg, TERN_A_DEV_NODE, node) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_MEM_SIZE, tdev->mem_size,
			    TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_MEM_USED, stats.mem_used,
			    TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, TERN_A_DEV_ENGINE_COUNT, tdev->engine_count) ||
	    nla_put_u32(msg, TERN_A_DEV_PORT_COUNT,
			tern_device_port_count(tdev)) ||
	    tern_nl_put_u64(msg, TERN_A_DEV_CAPABILITIES, tdev->capabilities,
			    TERN_A_DEV_PAD) ||
	    tern_nl_put_bus_id(msg, tdev) ||
	    nla_put_string(msg, TERN_A_DEV_DRIVER_VERSION,
			   TERN_DRIVER_VERSION) ||
	    tern_nl_put_health(msg, stats.health_reasons) ||
	    tern_nl_put_counters(msg, &stats) ||
	    nla_put_string(msg, TERN_A_DEV_TOPOLOGY,
			   tdev->fabric ? tdev->fabric->spec : "none"))
		goto cancel;

	for (i = 0; i < tdev->engine_count; i++) {
		if (tern_nl_put_engine(msg, &tdev->engines[i], NULL))
			goto cancel;
	}
	genlmsg_end(msg, hdr);
	return 0;

cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
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

static int tern_nl_fill_client(struct sk_buff *msg, struct tern_device *tdev,
			       const struct tern_usage *usage, u32 portid,
			       u32 seq, int flags)
{
	struct tern_client_stats stats;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  TERN_CMD_CLIENT_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_client_stats_read(tdev, usage, &stats);
	if (nla_put_u32(msg, TERN_A_CLIENT_DEVICE, tdev->index) ||
	    tern_nl_put_u64(msg, TERN_A_CLIENT_ID, stats.id,
			    TERN_A_CLIENT_PAD) ||
	    nla_put_u32(msg, TERN_A_CLIENT_PID, stats.pid) ||
	    nla_put_string(msg, TERN_A_CLIENT_COMM, stats.comm) ||
	    tern_nl_put_u64(msg, TERN_A_CLIENT_MEM_DEVICE, stats.mem_device,
			    TERN_A_CLIENT_PAD) ||
	    tern_nl_put_u64(msg, TERN_A_CLIENT_MEM_HOST, stats.mem_host,
			    TERN_A_CLIENT_PAD) ||
	    nla_put_u32(msg, TERN_A_CLIENT_BUFFERS, stats.buffers) ||
	    nla_put_u32(msg, TERN_A_CLIENT_QUEUES, stats.queues) ||
	    tern_nl_put_u64(msg, TERN_A_CLIENT_JOBS_SUBMITTED,
			    stats.jobs_submitted, TERN_A_CLIENT_PAD) ||
	    nla_put_u32(msg, TERN_A_CLIENT_JOBS_ACTIVE, stats.jobs_active) ||
	    tern_nl_put_u64(msg, TERN_A_CLIENT_BUSY_NS, stats.busy_ns,
			    TERN_A_CLIENT_PAD)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

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
	u32 index;

	if (tern_nl_filter(cb, attr, &index) && !tern_mock_device(index)) {
		NL_SET_ERR_MSG_ATTR(cb->extack, tern_genl_dump_attrs(cb)[attr],
				    "no Tern device has this index");
		return -ENODEV;
	}
	return 0;
}

static int tern_nl_device_start(struct netlink_callback *cb)
{
	return tern_nl_check_device_filter(cb, TERN_A_DEV_INDEX);
}

static int tern_nl_client_start(struct netlink_callback *cb)
{
	return tern_nl_check_device_filter(cb, TERN_A_CLIENT_DEVICE);
}

static int tern_nl_link_start(struct netlink_callback *cb)
{
	struct tern_fabric *fabric = tern_mock_fabric();
	u32 index;

	if (tern_nl_filter(cb, TERN_A_LINK_INDEX, &index) &&
	    (!fabric || index >= fabric->link_count)) {
		NL_SET_ERR_MSG_ATTR(cb->extack,
				    tern_genl_dump_attrs(cb)[TERN_A_LINK_INDEX],
				    "the fabric has no link of this index");
		return -ENODEV;
	}
	return 0;
}

/* cb->args[0]: the next device or link to report. */
static int tern_nl_device_dumpit(struct sk_buff *msg,
				 struct netlink_callback *cb)
{
	struct tern_device *tdev;
	unsigned int i;
	u32 only;
	bool filtered = tern_nl_filter(cb, TERN_A_DEV_INDEX, &only);

	for (i = cb->args[0]; (tdev = tern_mock_device(i)); i++) {
		if (filtered && i != only)
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
	unsigned int i;
	u32 only;
	bool filtered = tern_nl_filter(cb, TERN_A_LINK_INDEX, &only);

	if (!fabric)
		return 0;

	for (i = cb->args[0]; i < fabric->link_count; i++) {
		if (filtered && i != only)
			continue;
		if (tern_nl_fill_link(msg, fabric, i, TERN_CMD_LINK_GET,
				      NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

/*
 * The open file of @drm with the smallest client id above @after, or NULL.
 * Called with drm->filelist_mutex held.
 */
static struct tern_usage *tern_nl_next_client(struct drm_device *drm,
					      u64 after)
{
	struct tern_usage *next = NULL;
	struct drm_file *file;

	lockdep_assert_held(&drm->filelist_mutex);
	list_for_each_entry(file, &drm->filelist, lhead) {
		struct tern_file *tfile = file->driver_priv;
		struct tern_usage *usage;

		if (!tfile)
			continue;
		usage = &tfile->vm->usage;
		if (usage->client_id > after &&
		    (!next || usage->client_id < next->client_id))
			next = usage;
	}
	return next;
}

/*
 * Reports @tdev's clients in the order of their ids, from the one after
 * cb->args[1], the last one reported: files opened or closed between two
 * parts of a dump do not shift the others.
 */
static int tern_nl_dump_clients(struct sk_buff *msg,
				struct netlink_callback *cb,
				struct tern_device *tdev)
{
	struct drm_device *drm = &tdev->drm;
	struct tern_usage *usage;
	int ret = 0;

	mutex_lock(&drm->filelist_mutex);
	while ((usage = tern_nl_next_client(drm, cb->args[1]))) {
		ret = tern_nl_fill_client(msg, tdev, usage,
					  NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
		cb->args[1] = usage->client_id;
	}
	mutex_unlock(&drm->filelist_mutex);
	return ret;
}

/* cb->args[0]: the device being reported; cb->args[1]: its last client. */
static int tern_nl_client_dumpit(struct sk_buff *msg,
				 struct netlink_callback *cb)
{
	struct tern_device *tdev;
	unsigned int i;
	u32 only;
	bool filtered = tern_nl_filter(cb, TERN_A_CLIENT_DEVICE, &only);

	for (i = cb->args[0]; (tdev = tern_mock_device(i));
	     i++, cb->args[1] = 0) {
		if (filtered && i != only)
			continue;
		if (tern_nl_dump_clients(msg, cb, tdev))
			break;
	}
	cb->args[0] = i;
	return msg->len;
}

static const struct genl_ops tern_nl_ops[] = {
	{
		.cmd = TERN_CMD_DEVICE_GET,
		.start = tern_nl_device_start,
		.dumpit = tern_nl_device_dumpit,
		.policy = tern_nl_device_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_device_get_policy) - 1,
	},
	{
		.cmd = TERN_CMD_LINK_GET,
		.start = tern_nl_link_start,
		.dumpit = tern_nl_link_dumpit,
		.policy = tern_nl_link_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_link_get_policy) - 1,
	},
	{
		.cmd = TERN_CMD_CLIENT_GET,
		.start = tern_nl_client_start,
		.dumpit = tern_nl_client_dumpit,
		.policy = tern_nl_client_get_policy,
		.maxattr = ARRAY_SIZE(tern_nl_client_get_policy) - 1,
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

/* ---- events ---- */

/**
 * struct tern_nl_event - what an event announces
 * @cmd: TERN_CMD_*_NTF
 * @tdev: the device (device events)
 * @fabric: the fabric (link events)
 * @link: the link (link events)
 * @kind: enum tern_mem_error_kind (memory errors)
 * @offset: device memory offset (memory errors)
 * @engine: the engine reset (engine resets)
 * @guilty: the owner of the job that was failed (engine resets)
 * @reasons: the device's TERN_HEALTH_REASON_* bits
 */
struct tern_nl_event {
	u8 cmd;
	struct tern_device *tdev;
	struct tern_fabric *fabric;
	u32 link;
	u32 kind;
	u64 offset;
	struct tern_engine *engine;
	const struct tern_engine_guilty *guilty;
	u32 reasons;
};

static int tern_nl_fill_device_event(struct sk_buff *msg,
				     const struct tern_nl_event *event)
{
	struct tern_device *tdev = event->tdev;
	void *hdr;

	hdr = genlmsg_put(msg, 0, 0, &tern_nl_family, 0, event->cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(msg, TERN_A_DEV_INDEX, tdev->index) ||
	    tern_nl_put_health(msg, event->reasons))
		goto cancel;

	if (event->cmd == TERN_CMD_MEM_ERROR_NTF &&
	    (nla_put_u32(msg, TERN_A_DEV_MEM_ERROR_KIND, event->kind) ||
	     tern_nl_put_u64(msg, TERN_A_DEV_MEM_ERROR_ADDR, event->offset,
			     TERN_A_DEV_PAD) ||
	     tern_nl_put_u64(msg, TERN_A_DEV_MEM_ERRORS_CORRECTED,
			     atomic64_read(&tdev->mem_errors_corrected),
			     TERN_A_DEV_PAD) ||
	     tern_nl_put_u64(msg, TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
			     atomic64_read(&tdev->mem_errors_uncorrected),
			     TERN_A_DEV_PAD)))
		goto cancel;

	if (event->cmd == TERN_CMD_ENGINE_RESET_NTF &&
	    tern_nl_put_engine(msg, event->engine, event->guilty))
		goto cancel;

	genlmsg_end(msg, hdr);
	return 0;

cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

/* Sends @event to the "events" group, if anyone listens. */
static void tern_nl_multicast(const struct tern_nl_event *event)
{
	struct sk_buff *msg;
	int ret;

	mutex_lock(&tern_nl_lock);
	if (!tern_nl_registered ||
	    !genl_has_listeners(&tern_nl_family, &init_net,
				TERN_NL_MCGRP_EVENTS))
		goto unlock;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto unlock;
	if (event->tdev)
		ret = tern_nl_fill_device_event(msg, event);
	else
		ret = tern_nl_fill_link(msg, event->fabric, event->link,
					event->cmd, 0, 0, 0);
	if (ret) {
		nlmsg_free(msg);
		goto unlock;
	}
	genlmsg_multicast(&tern_nl_family, msg, 0, TERN_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
unlock:
	mutex_unlock(&tern_nl_lock);
}

/* Announces link @link of @fabric: @cmd is a TERN_CMD_LINK_*_NTF. */
void tern_netlink_link_event(struct tern_fabric *fabric, u32 link, u8 cmd)
{
	const struct tern_nl_event event = {
		.cmd = cmd,
		.fabric = fabric,
		.link = link,
	};

	tern_nl_multicast(&event);
}

/* Announces a memory error of @tdev, already counted. */
void tern_netlink_mem_error(struct tern_device *tdev, u32 kind, u64 offset)
{
	const struct tern_nl_event event = {
		.cmd = TERN_CMD_MEM_ERROR_NTF,
		.tdev = tdev,
		.kind = kind,
		.offset = offset,
		.reasons = tern_health_reasons(tdev),
	};

	tern_nl_multicast(&event);
}

/*
 * Announces the reset of @engine, already counted, and whose job failed.
 * Process context: not from the job timeout, as this allocates.
 */
void tern_netlink_engine_reset(struct tern_engine *engine,
			       const struct tern_engine_guilty *guilty)
{
	const struct tern_nl_event event = {
		.cmd = TERN_CMD_ENGINE_RESET_NTF,
		.tdev = engine->tdev,
		.engine = engine,
		.guilty = guilty,
		.reasons = tern_health_reasons(engine->tdev),
	};

	tern_nl_multicast(&event);
}

/* Announces that @tdev's health reasons are now @reasons. */
void tern_netlink_health_event(struct tern_device *tdev, u32 reasons)
{
	const struct tern_nl_event event = {
		.cmd = TERN_CMD_HEALTH_NTF,
		.tdev = tdev,
		.reasons = reasons,
	};

	tern_nl_multicast(&event);
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
