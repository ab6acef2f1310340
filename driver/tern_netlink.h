/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern generic netlink family "tern": devices, links and link events.
 */
#ifndef TERN_NETLINK_H
#define TERN_NETLINK_H

#include <linux/types.h>

struct tern_fabric;

int tern_netlink_init(void);
void tern_netlink_fini(void);
void tern_netlink_link_event(struct tern_fabric *fabric, u32 link, u8 cmd);

#endif /* TERN_NETLINK_H */
