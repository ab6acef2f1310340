// SPDX-License-Identifier: GPL-2.0
/*
 * Tern device health.
 *
 * A device's health follows from its state, computed afresh whenever it is
 * asked for (enum tern_health, TERN_HEALTH_REASON_* in the uapi header):
 *  - a link of the device is down: LINK_DOWN; a link counted errors:
 *    LINK_ERRORS (both ends of the link);
 *  - an engine was ever reset: ENGINE_RESET; one is hung now: ENGINE_HUNG;
 *  - an uncorrectable memory error was seen: MEM_UNCORRECTED.
 * MEM_UNCORRECTED makes the device FAILED, any other reason DEGRADED.
 * Correctable memory errors are counted but are no reason. Counters never
 * go back, so a device stays unhealthy until the module is reloaded.
 *
 * Whatever can change a reason (link state and errors, memory errors,
 * hangs, resets) calls tern_health_update() for the devices it touched,
 * which announces TERN_CMD_HEALTH_NTF when the reasons changed.
 */
#include <linux/atomic.h>
#include <linux/mutex.h>

#include <drm/drm_managed.h>

#include "model/tern_fabric.h"
#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink.h"

static const char *const tern_health_names[] = {
	[TERN_HEALTH_OK] = "ok",
	[TERN_HEALTH_DEGRADED] = "degraded",
	[TERN_HEALTH_FAILED] = "failed",
};

int tern_health_init(struct tern_device *tdev)
{
	tdev->health_reasons = 0;
	return drmm_mutex_init(&tdev->drm, &tdev->health_lock);
}

static u32 tern_health_link_reasons(struct tern_device *tdev)
{
	struct tern_fabric_port_view view;
	u32 reasons = 0;
	u32 port;

	for (port = 0; port < tern_device_port_count(tdev); port++) {
		if (tern_fabric_port_view(tdev->fabric, tdev->fabric_id, port,
					  &view))
			continue;
		if (view.state == TERN_PORT_DOWN)
			reasons |= TERN_HEALTH_REASON_LINK_DOWN;
		if (view.errors)
			reasons |= TERN_HEALTH_REASON_LINK_ERRORS;
	}
	return reasons;
}

/* TERN_HEALTH_REASON_* bits that apply to @tdev now. */
u32 tern_health_reasons(struct tern_device *tdev)
{
	u32 reasons = tern_health_link_reasons(tdev);
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine *engine = &tdev->engines[i];

		if (atomic64_read(&engine->resets))
			reasons |= TERN_HEALTH_REASON_ENGINE_RESET;
		if (READ_ONCE(engine->hung))
			reasons |= TERN_HEALTH_REASON_ENGINE_HUNG;
	}
	if (atomic64_read(&tdev->mem_errors_uncorrected))
		reasons |= TERN_HEALTH_REASON_MEM_UNCORRECTED;
	return reasons;
}

/* The enum tern_health that @reasons make. */
u32 tern_health_of(u32 reasons)
{
	if (reasons & TERN_HEALTH_REASON_MEM_UNCORRECTED)
		return TERN_HEALTH_FAILED;
	return reasons ? TERN_HEALTH_DEGRADED : TERN_HEALTH_OK;
}

/* "ok", "degraded" or "failed", as sysfs spells them. */
const char *tern_health_name(u32 health)
{
	if (health >= ARRAY_SIZE(tern_health_names))
		return "unknown";
	return tern_health_names[health];
}

/* Recomputes @tdev's health and announces it if it changed. */
void tern_health_update(struct tern_device *tdev)
{
	u32 reasons;

	/* Under the lock, so that announcements follow the changes' order. */
	mutex_lock(&tdev->health_lock);
	reasons = tern_health_reasons(tdev);
	if (reasons != tdev->health_reasons) {
		tdev->health_reasons = reasons;
		tern_netlink_health_event(tdev, reasons);
	}
	mutex_unlock(&tdev->health_lock);
}

/* Updates the devices at both ends of @fabric's link @link. */
void tern_health_update_link(struct tern_fabric *fabric, u32 link)
{
	unsigned int end;

	for (end = 0; end < 2; end++) {
		struct tern_device *tdev =
			tern_mock_device(fabric->links[link].end[end].device);

		if (tdev)
			tern_health_update(tdev);
	}
}
