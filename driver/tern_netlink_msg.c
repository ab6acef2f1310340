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

/* How tern_state_put() writes an attribute into a message. */
static int tern_nl_put_value(void *msg, u16 attr, u8 type, u64 value, u16 pad)
{
	if (type == TERN_STATE_U32)
		return nla_put_u32(msg, attr, value);
	return nla_put_u64_64bit(msg, attr, value, pad);
}

/*
 * One DRM_TERN_A_DEV_ENGINE nest; with @guilty (an engine reset event), the
 * owner of the job that was failed: its client id and command, no pid.
 */
int tern_nl_put_engine(struct sk_buff *msg, struct tern_engine *engine,
		       const struct tern_engine_guilty *guilty)
{
	struct tern_state_engine state;
	struct nlattr *nest;

	tern_engine_state_read(engine, &state);
	nest = nla_nest_start(msg, DRM_TERN_A_DEV_ENGINE);
	if (!nest)
		return -EMSGSIZE;

	if (tern_state_put(&tern_state_engine_set, &state, tern_nl_put_value,
			   msg))
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

/* The device's names: what its message says beside its values. */
static int tern_nl_put_names(struct sk_buff *msg, struct tern_drm_device *tdev)
{
	char node[32];

	tern_node_path(&tdev->drm, node, sizeof(node));
	if (nla_put_string(msg, DRM_TERN_A_DEV_NAME, dev_name(tdev->drm.dev)) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_NODE, node) ||
	    tern_nl_put_bus_id(msg, tdev) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_DRIVER_VERSION,
			   TERN_DRIVER_VERSION) ||
	    nla_put_string(msg, DRM_TERN_A_DEV_TOPOLOGY,
			   tdev->fabric ? tdev->fabric->spec : "none"))
		return -EMSGSIZE;
	return 0;
}

/*
 * Room @tdev's message may take: its values and names, well inside
 * NLMSG_GOODSIZE, and a nest for each engine, which a chip of many
 * cores has hundreds of.
 */
u32 tern_nl_device_size(const struct tern_drm_device *tdev)
{
	u32 engine = nla_total_size(0) + tern_state_engine_set.count *
				       nla_total_size_64bit(sizeof(u64));

	return NLMSG_GOODSIZE + tdev->engine_count * engine;
}

int tern_nl_fill_device(struct sk_buff *msg, struct tern_drm_device *tdev,
			u32 portid, u32 seq, int flags)
{
	struct tern_state_device state;
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  DRM_TERN_CMD_DEVICE_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_device_state_read(tdev, &state);
	if (tern_state_put(&tern_state_device_set, &state, tern_nl_put_value,
			   msg) ||
	    tern_nl_put_names(msg, tdev))
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

int tern_nl_fill_link(struct sk_buff *msg, struct tern_fabric *fabric,
		      u32 index, u8 cmd, u32 portid, u32 seq, int flags)
{
	struct tern_state_link state;
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	tern_fabric_link_state(fabric, index, &state);
	if (tern_state_put(&tern_state_link_set, &state, tern_nl_put_value,
			   msg)) {
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
	struct tern_state_client state;
	char comm[TASK_COMM_LEN];
	void *hdr;

	lockdep_assert_held(&tdev->clients.xa_lock);
	hdr = genlmsg_put(msg, portid, seq, &tern_nl_family, flags,
			  DRM_TERN_CMD_CLIENT_GET);
	if (!hdr)
		return -EMSGSIZE;

	tern_client_state_read(tdev, usage, &state, comm);
	if (tern_state_put(&tern_state_client_set, &state, tern_nl_put_value,
			   msg) ||
	    nla_put_string(msg, DRM_TERN_A_CLIENT_COMM, comm)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}
