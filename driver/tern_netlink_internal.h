/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the "tern" netlink family share: the family and its
 * multicast group (tern_netlink.c), the messages dumps and events both send
 * (tern_netlink_msg.c) and the switch that lets events out while the family
 * is registered (tern_netlink_events.c). Only for driver/tern_netlink*.c.
 */
#ifndef TERN_NETLINK_INTERNAL_H
#define TERN_NETLINK_INTERNAL_H

#include <net/genetlink.h>

struct tern_drm_device;
struct tern_engine;
struct tern_engine_guilty;
struct tern_fabric;
struct tern_usage;

enum tern_nl_mcgrp {
	TERN_NL_MCGRP_EVENTS,
};

extern struct genl_family tern_nl_family;

static inline int tern_nl_put_u64(struct sk_buff *msg, int attr, u64 value,
				  int pad)
{
	return nla_put_u64_64bit(msg, attr, value, pad);
}

int tern_nl_put_health(struct sk_buff *msg, u32 reasons);
int tern_nl_put_engine(struct sk_buff *msg, struct tern_engine *engine,
		       const struct tern_engine_guilty *guilty);
u32 tern_nl_device_size(const struct tern_drm_device *tdev);
int tern_nl_fill_device(struct sk_buff *msg, struct tern_drm_device *tdev,
			u32 portid, u32 seq, int flags);
int tern_nl_fill_link(struct sk_buff *msg, struct tern_fabric *fabric,
		      u32 index, u8 cmd, u32 portid, u32 seq, int flags);
int tern_nl_fill_client(struct sk_buff *msg, struct tern_drm_device *tdev,
			const struct tern_usage *usage, u32 portid, u32 seq,
			int flags);

void tern_nl_events_enable(bool enable);

#endif /* TERN_NETLINK_INTERNAL_H */
