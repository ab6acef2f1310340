/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern counters of a device and of a client, as netlink and sysfs report
 * them: the structs of model/tern_state.h, filled from the driver.
 */
#ifndef TERN_STATS_H
#define TERN_STATS_H

#include <linux/sched.h>
#include <linux/types.h>

#include "tern_state.h"

struct tern_drm_device;
struct tern_usage;

void tern_device_state_read(struct tern_drm_device *tdev,
			    struct tern_state_device *state);
u64 tern_client_engine_busy_ns(struct tern_drm_device *tdev,
			       const struct tern_usage *usage,
			       unsigned int index);
void tern_client_state_read(struct tern_drm_device *tdev,
			    const struct tern_usage *usage,
			    struct tern_state_client *state,
			    char comm[TASK_COMM_LEN]);

#endif /* TERN_STATS_H */
