// SPDX-License-Identifier: GPL-2.0
/*
 * Tern device health.
 *
 * A device's health follows from its state, computed afresh whenever it is
 * asked for by the model's rule (tern_health_reasons(), model/tern_state.h,
 * which the simulated machine applies too): a link down or an engine hung
 * now are states; link errors, resets of a hung engine and uncorrectable
 * memory errors are counters, of which only the growth above the device's
 * baseline counts. Clearing the health (sysfs health_clear, like devlink
 * health's recover) moves the baseline up to the counters, which ends
 * those reasons until the next error; a clear leaves the states.
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

int tern_health_init(struct tern_drm_device *tdev)
{
	tdev->health_reasons = 0;
	atomic64_set(&tdev->health_baseline.link_errors, 0);
	atomic64_set(&tdev->health_baseline.engine_hang_resets, 0);
	atomic64_set(&tdev->health_baseline.mem_errors_uncorrected, 0);
	return drmm_mutex_init(&tdev->drm, &tdev->health_lock);
}

/* What @tdev's health follows from, now. */
static void tern_health_input_read(struct tern_drm_device *tdev,
				   struct tern_health_input *in)
{
	unsigned int i;

	memset(in, 0, sizeof(*in));
	if (tdev->fabric)
		tern_fabric_health_input(tdev->fabric, tdev->fabric_id, in);
	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_state_engine engine;

		tern_engine_state_read(&tdev->engines[i], &engine);
		tern_health_input_add_engine(in, &engine);
	}
	in->mem_errors_uncorrected =
		atomic64_read(&tdev->mem_errors_uncorrected);
}

/* DRM_TERN_HEALTH_REASON_* bits that apply to @tdev now. */
u32 tern_device_health_reasons(struct tern_drm_device *tdev)
{
	const struct tern_health_baseline *base = &tdev->health_baseline;
	struct tern_health_input now, cleared = {
		.link_errors = atomic64_read(&base->link_errors),
		.engine_hang_resets = atomic64_read(&base->engine_hang_resets),
		.mem_errors_uncorrected =
			atomic64_read(&base->mem_errors_uncorrected),
	};

	tern_health_input_read(tdev, &now);
	return tern_health_reasons(&now, &cleared);
}

/* Announces @tdev's reasons if they changed. */
static void tern_health_announce(struct tern_drm_device *tdev)
{
	u32 reasons;

	lockdep_assert_held(&tdev->health_lock);
	reasons = tern_device_health_reasons(tdev);
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
	struct tern_health_input now;

	mutex_lock(&tdev->health_lock);
	tern_health_input_read(tdev, &now);
	atomic64_set(&base->link_errors, now.link_errors);
	atomic64_set(&base->engine_hang_resets, now.engine_hang_resets);
	atomic64_set(&base->mem_errors_uncorrected,
		     now.mem_errors_uncorrected);
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
