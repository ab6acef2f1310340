// SPDX-License-Identifier: GPL-2.0
/*
 * Tern fabric topology: a device's ports and the links on them, as the
 * TOPOLOGY ioctl reports them.
 */
#include <linux/minmax.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>

#include "tern_fabric.h"
#include "tern_accel.h"
#include "tern_drv.h"

u32 tern_device_port_count(struct tern_drm_device *tdev)
{
	if (!tdev->fabric)
		return 0;
	return tdev->fabric->port_count[tdev->fabric_id];
}

/* "up", "down" or "unconnected", as debugfs and sysfs spell a port's state. */
const char *tern_port_state_name(u32 state)
{
	switch (state) {
	case DRM_TERN_PORT_UP:
		return "up";
	case DRM_TERN_PORT_DOWN:
		return "down";
	default:
		return "unconnected";
	}
}

static void tern_port_info(struct tern_drm_device *tdev, u32 port,
			   struct drm_tern_port_info *info)
{
	struct tern_fabric_port_view view;

	memset(info, 0, sizeof(*info));
	info->port = port;
	if (tern_fabric_port_view(tdev->fabric, tdev->fabric_id, port, &view))
		return;	/* unconnected: zero state and counters */

	info->state = view.state;
	if (view.state == DRM_TERN_PORT_UNCONNECTED)
		return;

	info->peer_fabric_id = view.peer_device;
	info->peer_port = view.peer_port;
	info->bandwidth = view.bandwidth;
	info->latency_ns = view.latency_ns;
	info->tx_bytes = view.tx_bytes;
	info->rx_bytes = view.rx_bytes;
	info->tx_packets = view.tx_packets;
	info->rx_packets = view.rx_packets;
	info->errors = view.errors;
}

int tern_topology_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct drm_tern_topology *args = data;
	struct drm_tern_port_info __user *ports = u64_to_user_ptr(args->ports);
	struct drm_tern_port_info info;
	u32 count = tern_device_port_count(tdev);
	u32 port;

	if (args->flags || args->pad)
		return -EINVAL;

	for (port = 0; port < min(args->port_count, count); port++) {
		tern_port_info(tdev, port, &info);
		if (copy_to_user(&ports[port], &info, sizeof(info)))
			return -EFAULT;
	}

	args->fabric_id = tdev->fabric_id;
	args->port_count = count;
	return 0;
}
