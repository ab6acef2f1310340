// SPDX-License-Identifier: GPL-2.0
/*
 * Tern device health.
 *
 * A device's health follows from its state, computed afresh whenever it is
 * asked for (enum tern_health, DRM_TERN_HEALTH_REASON_* in the uapi header):
 *  - a link of the device is down: LINK_DOWN; its links counted errors:
 *    LINK_ERRORS (both ends of the link);
 *  - an engine was reset while hung: ENGINE_RESET; one is hung now:
 *    ENGINE_HUNG (a job that timed out on its own semaphore is no reason);
 *  - an uncorrectable memory error was seen: MEM_UNCORRECTED.
 * MEM_UNCORRECTED makes the device FAILED, any other reason DEGRADED.
 * Correctable memory errors are counted but are no reason.
 *
 * LINK_ERRORS, ENGINE_RESET and MEM_UNCORRECTED come from counters, which
 * never go back; they count only what is above the device's baseline.
 * Clearing the health (sysfs health_clear, like devlink health's recover)
 * moves the baseline up to the counters, which ends those reasons until
 * the next error. LINK_DOWN and ENGINE_HUNG are states: a clear leaves
 * them.
 *
 * Whatever can change a reason (link state and errors, memory errors,
 * hangs, resets, clears) calls tern_health_update() for the devices it
 * touched, or clears under the same lock, which announces
 * DRM_TERN_CMD_HEALTH_NTF when the reasons changed. Not from the job timeout:
 * the engine leaves it to a work item (tern_engine.c).
 */
#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "tern_fabric.h"
#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink.h"

static const char *const tern_health_names[] = {
	[DRM_TERN_HEALTH_OK] = "ok",
	[DRM_TERN_HEALTH_DEGRADED] = "degraded",
	[DRM_TERN_HEALTH_FAILED] = "failed",
};

/**
 * struct tern_health_state - what a device's health follows from, now
 * @links_down: ports whose link is down
 * @link_errors: errors counted by the links on its ports
 * @engines_hung: engines hung now
 * @engine_hang_resets: resets of its engines while they were hung
 * @mem_errors_uncorrected: uncorrectable memory errors
 */
struct tern_health_state {
	u32 links_down;
	u64 link_errors;
	u32 engines_hung;
	u64 engine_hang_resets;
	u64 mem_errors_uncorrected;
};

int tern_health_init(struct tern_drm_device *tdev)
{
	tdev->health_reasons = 0;
	atomic64_set(&tdev->health_baseline.link_errors, 0);
	atomic64_set(&tdev->health_baseline.engine_hang_resets, 0);
	atomic64_set(&tdev->health_baseline.mem_errors_uncorrected, 0);
	return drmm_mutex_init(&tdev->drm, &tdev->health_lock);
}

static void tern_health_state_read(struct tern_drm_device *tdev,
				   struct tern_health_state *state)
{
	struct tern_fabric_port_view view;
	unsigned int i;
	u32 port;

	memset(state, 0, sizeof(*state));
	for (port = 0; port < tern_device_port_count(tdev); port++) {
		if (tern_fabric_port_view(tdev->fabric, tdev->fabric_id, port,
					  &view))
			continue;
		state->links_down += view.state == DRM_TERN_PORT_DOWN;
		state->link_errors += view.errors;
	}
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine_stats stats;

		tern_engine_stats_read(&tdev->engines[i], &stats);
		state->engines_hung += stats.hung;
		state->engine_hang_resets += stats.hang_resets;
	}
	state->mem_errors_uncorrected =
		atomic64_read(&tdev->mem_errors_uncorrected);
}

/* DRM_TERN_HEALTH_REASON_* bits that apply to @tdev now. */
u32 tern_health_reasons(struct tern_drm_device *tdev)
{
	const struct tern_health_baseline *base = &tdev->health_baseline;
	struct tern_health_state state;
	u32 reasons = 0;

	tern_health_state_read(tdev, &state);
	if (state.links_down)
		reasons |= DRM_TERN_HEALTH_REASON_LINK_DOWN;
	if (state.link_errors > atomic64_read(&base->link_errors))
		reasons |= DRM_TERN_HEALTH_REASON_LINK_ERRORS;
	if (state.engine_hang_resets >
	    atomic64_read(&base->engine_hang_resets))
		reasons |= DRM_TERN_HEALTH_REASON_ENGINE_RESET;
	if (state.engines_hung)
		reasons |= DRM_TERN_HEALTH_REASON_ENGINE_HUNG;
	if (state.mem_errors_uncorrected >
	    atomic64_read(&base->mem_errors_uncorrected))
		reasons |= DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED;
	return reasons;
}

/* The enum tern_health that @reasons make. */
u32 tern_health_of(u32 reasons)
{
	if (reasons & DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED)
		return DRM_TERN_HEALTH_FAILED;
	return reasons ? DRM_TERN_HEALTH_DEGRADED : DRM_TERN_HEALTH_OK;
}

/* "ok", "degraded" or "failed", as sysfs spells them. */
const char *tern_health_name(u32 health)
{
	if (health >= ARRAY_SIZE(tern_health_names))
		return "unknown";
	return tern_health_names[health];
}

/* Announces @tdev's reasons if they changed. */
static void tern_health_announce(struct tern_drm_device *tdev)
{
	u32 reasons;

	lockdep_assert_held(&tdev->health_lock);
	reasons = tern_health_reasons(tdev);
	if (reasons != tdev->health_reasons) {
		tdev->health_reasons = reasons;
		tern_netlink_health_event(tdev, reasons);
	}
}

/* Recomputes @tdev's health and announces it if it changed. */
void tern_health_update(struct tern_drm_device *tdev)
{
	/* Under the lock, so that announcements follow the changes' order. */
	mutex_lock(&tdev->health_lock);
	tern_health_announce(tdev);
	mutex_unlock(&tdev->health_lock);
}

/*
 * Acknowledges what made @tdev unhealthy: the baseline moves up to the
 * counters, which stay as they are, so the lasting reasons end; links
 * down and hung engines remain reasons. Announced if the health changed.
 */
void tern_health_clear(struct tern_drm_device *tdev)
{
	struct tern_health_baseline *base = &tdev->health_baseline;
	struct tern_health_state state;

	mutex_lock(&tdev->health_lock);
	tern_health_state_read(tdev, &state);
	atomic64_set(&base->link_errors, state.link_errors);
	atomic64_set(&base->engine_hang_resets, state.engine_hang_resets);
	atomic64_set(&base->mem_errors_uncorrected,
		     state.mem_errors_uncorrected);
	drm_info(&tdev->drm, "health cleared\n");
	tern_health_announce(tdev);
	mutex_unlock(&tdev->health_lock);
}

/* Updates the devices at both ends of @fabric's link @link. */
void tern_health_update_link(struct tern_fabric *fabric, u32 link)
{
	unsigned int end;

	for (end = 0; end < 2; end++) {
		struct tern_drm_device *tdev =
			tern_mock_device_get(fabric->links[link].end[end].device);

		if (tdev) {
			tern_health_update(tdev);
			drm_dev_put(&tdev->drm);
		}
	}
}
