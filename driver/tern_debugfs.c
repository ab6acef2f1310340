// SPDX-License-Identifier: GPL-2.0
/*
 * Tern fault injection on mock hardware, in debugfs.
 *
 * fabric_link, in the device's DRM debugfs directory (tern_debugfs_root()):
 *  - read: one line per port of the device: port, state, peer device and
 *    port, and the counters seen from this end;
 *  - write "<port> down", "<port> up" or "<port> error": take the link on
 *    that port down or up, or count one error on it.
 * Each change of state and each error is announced on the netlink
 * "events" group, and the health of both ends recomputed. Jobs routing to
 * a peer over a link that is down take another route, or fail with
 * -ENOLINK when none is left.
 *
 * The device's other faults (mem_error, engine_hang) are in tern_fault.c.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>

#include "tern_fabric.h"
#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink.h"

/* Orders changes to links, so their events go out in the same order. */
static DEFINE_MUTEX(tern_link_lock);

static int tern_fabric_link_show(struct seq_file *m, void *unused)
{
	struct tern_drm_device *tdev = m->private;
	struct tern_fabric_port_view view;
	u32 port;

	seq_puts(m, "port state peer_device peer_port tx_bytes rx_bytes tx_packets rx_packets errors\n");
	for (port = 0; port < tern_device_port_count(tdev); port++) {
		if (tern_fabric_port_view(tdev->fabric, tdev->fabric_id, port,
					  &view))
			continue;
		if (view.state == DRM_TERN_PORT_UNCONNECTED) {
			seq_printf(m, "%u unconnected - - 0 0 0 0 0\n", port);
			continue;
		}
		seq_printf(m, "%u %s %u %u %llu %llu %llu %llu %llu\n", port,
			   tern_port_state_name(view.state), view.peer_device,
			   view.peer_port, view.tx_bytes, view.rx_bytes,
			   view.tx_packets, view.rx_packets, view.errors);
	}
	return 0;
}

static int tern_fabric_link_open(struct inode *inode, struct file *file)
{
	return single_open(file, tern_fabric_link_show, inode->i_private);
}

/* Applies "<port> up|down|error"; returns 0 or -EINVAL. */
static int tern_fabric_link_apply(struct tern_drm_device *tdev, u32 port,
				  const char *action)
{
	struct tern_fabric *fabric = tdev->fabric;
	u32 id = tdev->fabric_id;
	bool changed;
	u8 cmd;
	int ret;

	if (port >= tern_device_port_count(tdev))
		return -EINVAL;

	if (!strcmp(action, "up") || !strcmp(action, "down"))
		cmd = DRM_TERN_CMD_LINK_STATE_NTF;
	else if (!strcmp(action, "error"))
		cmd = DRM_TERN_CMD_LINK_ERROR_NTF;
	else
		return -EINVAL;

	mutex_lock(&tern_link_lock);
	if (cmd == DRM_TERN_CMD_LINK_ERROR_NTF) {
		ret = tern_fabric_link_error(fabric, id, port);
		changed = !ret;
	} else {
		/* 1: the state changed; 0: it already was so. */
		ret = tern_fabric_set_link(fabric, id, port,
					   !strcmp(action, "up"));
		changed = ret > 0;
	}
	if (changed) {
		u32 link = fabric->port_link[id][port];

		tern_netlink_link_event(fabric, link, cmd);
		tern_health_update_link(fabric, link);
	}
	mutex_unlock(&tern_link_lock);
	return ret < 0 ? ret : 0;
}

static ssize_t tern_fabric_link_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *pos)
{
	struct tern_drm_device *tdev = ((struct seq_file *)file->private_data)->private;
	char buf[32], action[8];
	u32 port;
	int ret, idx;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %7s", &port, action) != 2)
		return -EINVAL;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;
	ret = tern_fabric_link_apply(tdev, port, action);
	drm_dev_exit(idx);
	return ret ? ret : len;
}

DEFINE_SHOW_ATTRIBUTE(tern_engines);

static int tern_engine_steps_open(struct inode *inode, struct file *file)
{
	return single_open(file, tern_engine_steps_show, inode->i_private);
}

/* Only "0": the counts start again. */
static ssize_t tern_engine_steps_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *pos)
{
	struct tern_drm_device *tdev = ((struct seq_file *)file->private_data)->private;
	unsigned int value;

	if (kstrtouint_from_user(ubuf, len, 0, &value) || value)
		return -EINVAL;
	tern_engine_steps_reset(tdev);
	return len;
}

static const struct file_operations tern_engine_steps_fops = {
	.owner = THIS_MODULE,
	.open = tern_engine_steps_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = tern_engine_steps_write,
	.release = single_release,
};

static const struct file_operations tern_fabric_link_fops = {
	.owner = THIS_MODULE,
	.open = tern_fabric_link_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = tern_fabric_link_write,
	.release = single_release,
};

/* Called once the device is registered, which made its debugfs root. */
void tern_debugfs_init(struct tern_drm_device *tdev)
{
	struct dentry *root = tern_debugfs_root(&tdev->drm);

	if (IS_ERR_OR_NULL(root))
		return;
	tern_fault_debugfs_init(tdev, root);
	debugfs_create_file("engines", 0400, root, tdev, &tern_engines_fops);
	debugfs_create_file("steps", 0600, root, tdev, &tern_engine_steps_fops);
	if (tdev->fabric)
		debugfs_create_file("fabric_link", 0600, root, tdev,
				    &tern_fabric_link_fops);
}
