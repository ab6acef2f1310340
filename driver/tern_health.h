/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern device health: what the error counters and links say of a device.
 */
#ifndef TERN_HEALTH_H
#define TERN_HEALTH_H

#include <linux/types.h>

#include "tern_state.h"

struct tern_drm_device;
struct tern_fabric;

int tern_health_init(struct tern_drm_device *tdev);
u32 tern_device_health_reasons(struct tern_drm_device *tdev);
void tern_health_update(struct tern_drm_device *tdev);
void tern_health_clear(struct tern_drm_device *tdev);
void tern_health_update_link(struct tern_fabric *fabric, u32 link);

#endif /* TERN_HEALTH_H */
