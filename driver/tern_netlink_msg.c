// SPDX-License-Identifier: GPL-2.0
/*
 * Tern netlink messages: a device, with its engines, a link and a client,
 * as the "tern" family's dumps report them. Events reuse the link message
 * and the engine and health attributes, so that a dump and an event say
 * the same thing the same way.
 */
#include <linux/lockdep.h>
#include <net/genetlink.h>

#include "tern_fabric.h"
#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink_internal.h"
#include "tern_stats.h"

int tern_nl_put_health(struct sk_buff *msg, u32 reasons)
{
	if (nla_put_u32(msg, DRM_TERN_A_DEV_HEALTH, tern_health_of(reasons)) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_HEALTH_REASONS, reasons))
		return -EMSGSIZE;
	return 0;
}

/*
 * One DRM_TERN_A_DEV_ENGINE nest; with @guilty (an engine reset event), the
 * owner of the job that was failed: its client id and command, no pid.
 */
int tern_nl_put_engine(struct sk_buff *msg, struct tern_engine *engine,
		       const struct tern_engine_guilty *guilty)
{
	struct tern_engine_stats stats;
	struct nlattr *nest;

	tern_engine_stats_read(engine, &stats);
	nest = nla_nest_start(msg, DRM_TERN_A_DEV_ENGINE);
	if (!nest)
		return -EMSGSIZE;

	if (nla_put_u32(msg, DRM_TERN_A_ENGINE_INDEX, engine->index) ||
	    nla_put_u32(msg, DRM_TERN_A_ENGINE_BUSY, stats.busy) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_BUSY_NS, stats.busy_ns,
			    DRM_TERN_A_ENGINE_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_ENGINE_JOBS_QUEUED, stats.jobs_queued) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_JOBS_COMPLETED,
			    stats.jobs_completed, DRM_TERN_A_ENGINE_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_JOBS_FAILED, stats.jobs_failed,
			    DRM_TERN_A_ENGINE_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_TIMEOUTS, stats.timeouts,
			    DRM_TERN_A_ENGINE_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_RESETS, stats.resets,
			    DRM_TERN_A_ENGINE_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_ENGINE_HUNG, stats.hung) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_HANG_RESETS, stats.hang_resets,
			    DRM_TERN_A_ENGINE_PAD))
		goto cancel;
	if (guilty &&
	    (tern_nl_put_u64(msg, DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID,
			     guilty->client_id, DRM_TERN_A_ENGINE_PAD) ||
	     nla_put_string(msg, DRM_TERN_A_ENGINE_GUILTY_COMM, guilty->comm)))
		goto cancel;

	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* DRM_TERN_A_DEV_BUS_ID: "<bus>:<device>", e.g. "platform:tern.0". */
static int tern_nl_put_bus_id(struct sk_buff *msg, struct tern_drm_device *tdev)
{
	struct device *dev = tdev->drm.dev;
	char bus_id[64];

	snprintf(bus_id, sizeof(bus_id), "%s:%s",
		 dev->bus ? dev->bus->name : "none", dev_name(dev));
	return nla_put_string(msg, DRM_TERN_A_DEV_BUS_ID, bus_id);
}

static int tern_nl_put_counters(struct sk_buff *msg,
				const struct tern_device_stats *stats)
{
	if (tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_HOST_USED,
			    stats->mem_host_used, DRM_TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_BUFFER_COUNT, stats->buffers) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED,
			    stats->mem_errors_corrected, DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
			    stats->mem_errors_uncorrected, DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_JOBS_COMPLETED,
			    stats->jobs_completed, DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_JOBS_FAILED, stats->jobs_failed,
			    DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_JOB_TIMEOUTS, stats->job_timeouts,
			    DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_ENGINE_RESETS,
			    stats->engine_resets, DRM_TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_ENGINES_BUSY, stats->engines_busy) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_CLIENT_COUNT, stats->clients) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_ENGINE_HANG_RESETS,
			    stats->engine_hang_resets, DRM_TERN_A_DEV_PAD))
		return -EMSGSIZE;
	return 0;
}

int tern_nl_fill_device(struct sk_buff *msg, struct tern_drm_device *tdev,
			u32 portid, u32 seq, int flags)
{
	struct tern_device_stats stats;
	char node[32];
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  DRM_TERN_CMD_DEVICE_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_device_stats_read(tdev, &stats);
	tern_node_path(&tdev->drm, node, sizeof(node));
	if (nla_put_u32(msg, DRM_TERN_A_DEV_INDEX, tdev->index) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_FABRIC_ID, tdev->fabric_id) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_NAME, dev_name(tdev->drm.dev)) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_NODE, node) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_SIZE, tdev->mem_size,
			    DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_USED, stats.mem_used,
			    DRM_TERN_A_DEV_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_ENGINE_COUNT, tdev->engine_count) ||
	    nla_put_u32(msg, DRM_TERN_A_DEV_PORT_COUNT,
			tern_device_port_count(tdev)) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_DEV_CAPABILITIES, tdev->capabilities,
			    DRM_TERN_A_DEV_PAD) ||
	    tern_nl_put_bus_id(msg, tdev) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_DRIVER_VERSION,
			   TERN_DRIVER_VERSION) ||
	    tern_nl_put_health(msg, stats.health_reasons) ||
	    tern_nl_put_counters(msg, &stats) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_TOPOLOGY,
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
				 DRM_TERN_A_LINK_PAD);
}

int tern_nl_fill_link(struct sk_buff *msg, struct tern_fabric *fabric,
		      u32 index, u8 cmd, u32 portid, u32 seq, int flags)
{
	struct tern_fabric_link *link = &fabric->links[index];
	u32 state = tern_load_u32(&link->up) ? DRM_TERN_PORT_UP : DRM_TERN_PORT_DOWN;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(msg, DRM_TERN_A_LINK_INDEX, index) ||
	    nla_put_u32(msg, DRM_TERN_A_LINK_DEVICE_A, link->end[0].device) ||
	    nla_put_u32(msg, DRM_TERN_A_LINK_PORT_A, link->end[0].port) ||
	    nla_put_u32(msg, DRM_TERN_A_LINK_DEVICE_B, link->end[1].device) ||
	    nla_put_u32(msg, DRM_TERN_A_LINK_PORT_B, link->end[1].port) ||
	    nla_put_u32(msg, DRM_TERN_A_LINK_STATE, state) ||
	    tern_nl_put_counter(msg, DRM_TERN_A_LINK_BYTES_A_TO_B, &link->bytes[0]) ||
	    tern_nl_put_counter(msg, DRM_TERN_A_LINK_BYTES_B_TO_A, &link->bytes[1]) ||
	    tern_nl_put_counter(msg, DRM_TERN_A_LINK_PACKETS_A_TO_B,
				&link->packets[0]) ||
	    tern_nl_put_counter(msg, DRM_TERN_A_LINK_PACKETS_B_TO_A,
				&link->packets[1]) ||
	    tern_nl_put_counter(msg, DRM_TERN_A_LINK_ERRORS, &link->errors) ||
	    nla_put_u64_64bit(msg, DRM_TERN_A_LINK_BANDWIDTH, link->bandwidth,
			      DRM_TERN_A_LINK_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_LINK_LATENCY_NS, link->latency_ns)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

int tern_nl_fill_client(struct sk_buff *msg, struct tern_drm_device *tdev,
			const struct tern_usage *usage, u32 portid, u32 seq,
			int flags)
{
	struct tern_client_stats stats;
	void *hdr;

	lockdep_assert_held(&tdev->clients.xa_lock);
	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  DRM_TERN_CMD_CLIENT_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_client_stats_read(tdev, usage, &stats);
	if (nla_put_u32(msg, DRM_TERN_A_CLIENT_DEVICE, tdev->index) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_CLIENT_ID, stats.id,
			    DRM_TERN_A_CLIENT_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_CLIENT_PID, stats.pid) ||
	    nla_put_string(msg, DRM_TERN_A_CLIENT_COMM, stats.comm) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_CLIENT_MEM_DEVICE, stats.mem_device,
			    DRM_TERN_A_CLIENT_PAD) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_CLIENT_MEM_HOST, stats.mem_host,
			    DRM_TERN_A_CLIENT_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_CLIENT_BUFFERS, stats.buffers) ||
	    nla_put_u32(msg, DRM_TERN_A_CLIENT_QUEUES, stats.queues) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_CLIENT_JOBS_SUBMITTED,
			    stats.jobs_submitted, DRM_TERN_A_CLIENT_PAD) ||
	    nla_put_u32(msg, DRM_TERN_A_CLIENT_JOBS_ACTIVE, stats.jobs_active) ||
	    tern_nl_put_u64(msg, DRM_TERN_A_CLIENT_BUSY_NS, stats.busy_ns,
			    DRM_TERN_A_CLIENT_PAD)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}
