// SPDX-License-Identifier: GPL-2.0
/*
 * Tern sysfs: a "tern" directory on the device's parent (the platform or
 * PCI device), one value per file, and a port<P> directory per fabric
 * port; Documentation/ABI/testing/sysfs-driver-tern describes each file.
 * All read-only, but health_clear, which root writes.
 * Tools reach it from the node too: /sys/class/accel/accelN/device/tern,
 * /sys/class/drm/renderDN/device/tern.
 *
 * The directories go with a devm action on the parent, before the device
 * is released; removing a kobject waits for reads in progress, so no read
 * sees a device that is gone.
 */
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>

#include "model/tern_fabric.h"
#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_health.h"
#include "tern_stats.h"

/**
 * struct tern_sysfs_dir - a directory of a device's attributes
 * @kobj: the directory
 * @tdev: the device
 * @port: the fabric port (port directories)
 */
struct tern_sysfs_dir {
	struct kobject kobj;
	struct tern_device *tdev;
	u32 port;
};

/**
 * struct tern_sysfs - a device's directories
 * @root: "tern"
 * @port_count: entries in @ports
 * @ports: "tern/port<P>", NULL where not made
 */
struct tern_sysfs {
	struct tern_sysfs_dir *root;
	u32 port_count;
	struct tern_sysfs_dir **ports;
};

static struct tern_sysfs_dir *to_dir(struct kobject *kobj)
{
	return container_of(kobj, struct tern_sysfs_dir, kobj);
}

static void tern_sysfs_dir_release(struct kobject *kobj)
{
	kfree(to_dir(kobj));
}

/* ---- tern/ ---- */

/* Defines a read-only attribute printing @expr of the device's stats. */
#define TERN_DEVICE_STAT(_name, fmt, expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct tern_device_stats stats;					\
									\
	tern_device_stats_read(to_dir(kobj)->tdev, &stats);		\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static struct kobj_attribute tern_attr_##_name = __ATTR_RO(_name)

TERN_DEVICE_STAT(health, "%s", tern_health_name(stats.health));
TERN_DEVICE_STAT(health_reasons, "0x%x", stats.health_reasons);
TERN_DEVICE_STAT(mem_used_bytes, "%llu", stats.mem_used);
TERN_DEVICE_STAT(mem_host_used_bytes, "%llu", stats.mem_host_used);
TERN_DEVICE_STAT(buffers, "%u", stats.buffers);
TERN_DEVICE_STAT(engines_busy, "%u", stats.engines_busy);
TERN_DEVICE_STAT(clients, "%u", stats.clients);
TERN_DEVICE_STAT(jobs_completed, "%llu", stats.jobs_completed);
TERN_DEVICE_STAT(jobs_failed, "%llu", stats.jobs_failed);
TERN_DEVICE_STAT(job_timeouts, "%llu", stats.job_timeouts);
TERN_DEVICE_STAT(engine_resets, "%llu", stats.engine_resets);
TERN_DEVICE_STAT(engine_hang_resets, "%llu", stats.engine_hang_resets);
TERN_DEVICE_STAT(mem_errors_corrected, "%llu", stats.mem_errors_corrected);
TERN_DEVICE_STAT(mem_errors_uncorrected, "%llu",
		 stats.mem_errors_uncorrected);

/* Defines a read-only attribute printing @expr of the device. */
#define TERN_DEVICE_ATTR(_name, fmt, expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct tern_device *tdev = to_dir(kobj)->tdev;			\
									\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static struct kobj_attribute tern_attr_##_name = __ATTR_RO(_name)

TERN_DEVICE_ATTR(index, "%u", tdev->index);
TERN_DEVICE_ATTR(fabric_id, "%u", tdev->fabric_id);
TERN_DEVICE_ATTR(mem_total_bytes, "%llu", tdev->mem_size);
TERN_DEVICE_ATTR(engines, "%u", tdev->engine_count);

/*
 * Root only (0200): "1" acknowledges the device's faults, ending its
 * lasting health reasons (tern_health_clear()); anything else -EINVAL.
 */
static ssize_t health_clear_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct tern_device *tdev = to_dir(kobj)->tdev;
	int idx;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;
	tern_health_clear(tdev);
	drm_dev_exit(idx);
	return count;
}

static struct kobj_attribute tern_attr_health_clear = __ATTR_WO(health_clear);

static struct attribute *tern_device_attrs[] = {
	&tern_attr_index.attr,
	&tern_attr_fabric_id.attr,
	&tern_attr_health.attr,
	&tern_attr_health_reasons.attr,
	&tern_attr_health_clear.attr,
	&tern_attr_mem_total_bytes.attr,
	&tern_attr_mem_used_bytes.attr,
	&tern_attr_mem_host_used_bytes.attr,
	&tern_attr_buffers.attr,
	&tern_attr_engines.attr,
	&tern_attr_engines_busy.attr,
	&tern_attr_clients.attr,
	&tern_attr_jobs_completed.attr,
	&tern_attr_jobs_failed.attr,
	&tern_attr_job_timeouts.attr,
	&tern_attr_engine_resets.attr,
	&tern_attr_engine_hang_resets.attr,
	&tern_attr_mem_errors_corrected.attr,
	&tern_attr_mem_errors_uncorrected.attr,
	NULL,
};
ATTRIBUTE_GROUPS(tern_device);

static const struct kobj_type tern_device_ktype = {
	.release = tern_sysfs_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = tern_device_groups,
};

/* ---- tern/port<P>/ ---- */

/* The port as seen from its device; all zero (unconnected) on error. */
static void tern_sysfs_port_view(struct kobject *kobj,
				 struct tern_fabric_port_view *view)
{
	struct tern_sysfs_dir *dir = to_dir(kobj);

	if (tern_fabric_port_view(dir->tdev->fabric, dir->tdev->fabric_id,
				  dir->port, view))
		memset(view, 0, sizeof(*view));
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct tern_fabric_port_view view;

	tern_sysfs_port_view(kobj, &view);
	return sysfs_emit(buf, "%s\n", tern_port_state_name(view.state));
}

static struct kobj_attribute tern_attr_state = __ATTR_RO(state);

/* Peer device and port: "-" on an unconnected port. */
#define TERN_PORT_PEER(_name, field)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct tern_fabric_port_view view;				\
									\
	tern_sysfs_port_view(kobj, &view);				\
	if (view.state == TERN_PORT_UNCONNECTED)			\
		return sysfs_emit(buf, "-\n");				\
	return sysfs_emit(buf, "%u\n", view.field);			\
}									\
static struct kobj_attribute tern_attr_##_name = __ATTR_RO(_name)

TERN_PORT_PEER(peer_device, peer_device);
TERN_PORT_PEER(peer_port, peer_port);

#define TERN_PORT_COUNTER(_name, field)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct tern_fabric_port_view view;				\
									\
	tern_sysfs_port_view(kobj, &view);				\
	return sysfs_emit(buf, "%llu\n", view.field);			\
}									\
static struct kobj_attribute tern_attr_##_name = __ATTR_RO(_name)

TERN_PORT_COUNTER(tx_bytes, tx_bytes);
TERN_PORT_COUNTER(rx_bytes, rx_bytes);
TERN_PORT_COUNTER(tx_packets, tx_packets);
TERN_PORT_COUNTER(rx_packets, rx_packets);
TERN_PORT_COUNTER(errors, errors);

static struct attribute *tern_port_attrs[] = {
	&tern_attr_state.attr,
	&tern_attr_peer_device.attr,
	&tern_attr_peer_port.attr,
	&tern_attr_tx_bytes.attr,
	&tern_attr_rx_bytes.attr,
	&tern_attr_tx_packets.attr,
	&tern_attr_rx_packets.attr,
	&tern_attr_errors.attr,
	NULL,
};
ATTRIBUTE_GROUPS(tern_port);

static const struct kobj_type tern_port_ktype = {
	.release = tern_sysfs_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = tern_port_groups,
};

/* ---- life ---- */

static struct tern_sysfs_dir *tern_sysfs_dir_add(struct tern_device *tdev,
						 const struct kobj_type *ktype,
						 struct kobject *parent,
						 const char *name, u32 port)
{
	struct tern_sysfs_dir *dir;
	int ret;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return ERR_PTR(-ENOMEM);

	dir->tdev = tdev;
	dir->port = port;
	ret = kobject_init_and_add(&dir->kobj, ktype, parent, "%s", name);
	if (ret) {
		/* The kobject is initialized: its release frees @dir. */
		kobject_put(&dir->kobj);
		return ERR_PTR(ret);
	}
	return dir;
}

static void tern_sysfs_fini(void *arg)
{
	struct tern_sysfs *sysfs = arg;
	u32 port;

	/* Ports first: each holds its parent. */
	for (port = 0; port < sysfs->port_count; port++) {
		if (sysfs->ports[port])
			kobject_put(&sysfs->ports[port]->kobj);
	}
	kobject_put(&sysfs->root->kobj);
	kfree(sysfs->ports);
	kfree(sysfs);
}

/* Makes the device's sysfs directories, removed with its parent's devres. */
int tern_sysfs_init(struct tern_device *tdev)
{
	struct device *parent = tdev->drm.dev;
	u32 count = tern_device_port_count(tdev);
	struct tern_sysfs *sysfs;
	char name[16];
	u32 port;

	sysfs = kzalloc(sizeof(*sysfs), GFP_KERNEL);
	if (!sysfs)
		return -ENOMEM;
	sysfs->ports = kcalloc(count, sizeof(*sysfs->ports), GFP_KERNEL);
	if (count && !sysfs->ports) {
		kfree(sysfs);
		return -ENOMEM;
	}

	sysfs->root = tern_sysfs_dir_add(tdev, &tern_device_ktype,
					 &parent->kobj, "tern", 0);
	if (IS_ERR(sysfs->root)) {
		int ret = PTR_ERR(sysfs->root);

		kfree(sysfs->ports);
		kfree(sysfs);
		return ret;
	}

	/* From here tern_sysfs_fini() undoes whatever was made. */
	sysfs->port_count = count;
	for (port = 0; port < count; port++) {
		struct tern_sysfs_dir *dir;

		snprintf(name, sizeof(name), "port%u", port);
		dir = tern_sysfs_dir_add(tdev, &tern_port_ktype,
					 &sysfs->root->kobj, name, port);
		if (IS_ERR(dir)) {
			tern_sysfs_fini(sysfs);
			return PTR_ERR(dir);
		}
		sysfs->ports[port] = dir;
	}

	return devm_add_action_or_reset(parent, tern_sysfs_fini, sysfs);
}
