/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern generic netlink family "tern": devices, links, clients and events.
 */
#ifndef TERN_NETLINK_H
#define TERN_NETLINK_H

#include <linux/types.h>

struct tern_drm_device;
struct tern_engine;
struct tern_engine_guilty;
struct tern_fabric;

int tern_netlink_init(void);
void tern_netlink_fini(void);
void tern_netlink_link_event(struct tern_fabric *fabric, u32 link, u8 cmd);
void tern_netlink_mem_error(struct tern_drm_device *tdev, u32 kind, u64 offset);
void tern_netlink_engine_reset(struct tern_engine *engine,
			       const struct tern_engine_guilty *guilty);
void tern_netlink_health_event(struct tern_drm_device *tdev, u32 reasons);

#endif /* TERN_NETLINK_H */
