// SPDX-License-Identifier: GPL-2.0
/*
 * Tern netlink events: the "tern" family's "events" multicast group
 * announces link state changes and errors, memory errors, engine resets
 * and health changes. An event goes out only while the family is
 * registered and someone listens. It has no single reader, so no pid
 * could be right for all: an engine reset names the guilty file by its
 * client id, which a listener turns into a pid of its own pid namespace
 * with CLIENT_GET.
 */
#include <linux/mutex.h>
#include <net/genetlink.h>

#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink.h"
#include "tern_netlink_internal.h"

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
 * @reasons: the device's DRM_TERN_HEALTH_REASON_* bits
 */
struct tern_nl_event {
	u8 cmd;
	struct tern_drm_device *tdev;
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
	struct tern_drm_device *tdev = event->tdev;
	void *hdr;

	hdr = genlmsg_put(msg, 0, 0, &tern_nl_family, 0, event->cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(msg, DRM_TERN_A_DEV_INDEX, tdev->index) ||
	    tern_nl_put_health(msg, event->reasons))
		goto cancel;

	if (event->cmd == DRM_TERN_CMD_MEM_ERROR_NTF &&
	    (nla_put_u32(msg, DRM_TERN_A_DEV_MEM_ERROR_KIND, event->kind) ||
	     tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_ERROR_ADDR, event->offset,
			     DRM_TERN_A_DEV_PAD) ||
	     tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED,
			     atomic64_read(&tdev->mem_errors_corrected),
			     DRM_TERN_A_DEV_PAD) ||
	     tern_nl_put_u64(msg, DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
			     atomic64_read(&tdev->mem_errors_uncorrected),
			     DRM_TERN_A_DEV_PAD)))
		goto cancel;

	if (event->cmd == DRM_TERN_CMD_ENGINE_RESET_NTF &&
	    tern_nl_put_engine(msg, event->engine, event->guilty))
		goto cancel;

	genlmsg_end(msg, hdr);
	return 0;

cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

/* Guards @tern_nl_registered: events are only sent while it is true. */
static DEFINE_MUTEX(tern_nl_lock);
static bool tern_nl_registered;

/* Called once the family is registered, and before it is unregistered. */
void tern_nl_events_enable(bool enable)
{
	mutex_lock(&tern_nl_lock);
	tern_nl_registered = enable;
	mutex_unlock(&tern_nl_lock);
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
	tern_nl_multicast(&(const struct tern_nl_event){
		.cmd = cmd, .fabric = fabric, .link = link,
	});
}

/* Announces a memory error of @tdev, already counted. */
void tern_netlink_mem_error(struct tern_drm_device *tdev, u32 kind, u64 offset)
{
	tern_nl_multicast(&(const struct tern_nl_event){
		.cmd = DRM_TERN_CMD_MEM_ERROR_NTF, .tdev = tdev,
		.kind = kind, .offset = offset,
		.reasons = tern_device_health_reasons(tdev),
	});
}

/*
 * Announces the reset of @engine, already counted, and whose job failed.
 * Process context: not from the job timeout, as this allocates.
 */
void tern_netlink_engine_reset(struct tern_engine *engine,
			       const struct tern_engine_guilty *guilty)
{
	tern_nl_multicast(&(const struct tern_nl_event){
		.cmd = DRM_TERN_CMD_ENGINE_RESET_NTF, .tdev = engine->tdev,
		.engine = engine, .guilty = guilty,
		.reasons = tern_device_health_reasons(engine->tdev),
	});
}

/* Announces that @tdev's health reasons are now @reasons. */
void tern_netlink_health_event(struct tern_drm_device *tdev, u32 reasons)
{
	tern_nl_multicast(&(const struct tern_nl_event){
		.cmd = DRM_TERN_CMD_HEALTH_NTF, .tdev = tdev, .reasons = reasons,
	});
}
