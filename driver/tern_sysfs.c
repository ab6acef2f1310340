// SPDX-License-Identifier: GPL-2.0
/*
 * Tern sysfs: a "tern" directory on the device the driver binds (the
 * platform device of a mock device), one value per file, the fabric ports'
 * files named port<P>_<name> as hwmon names its channels;
 * Documentation/ABI/testing/sysfs-driver-tern describes each file. All
 * read-only, but health_clear, which root writes. Tools reach it from the
 * node too: /sys/class/accel/accelN/device/tern,
 * /sys/class/drm/renderDN/device/tern.
 *
 * One attribute group, the driver's dev_groups: the driver core makes it
 * once probe has succeeded, before the bind uevent, and removes it before
 * remove runs, waiting for reads in progress, so no read sees a device
 * that is gone. Files of ports the device does not have are hidden.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>

#include "tern_fabric.h"
#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_health.h"
#include "tern_stats.h"

static struct tern_drm_device *to_tdev(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/* ---- the device ---- */

/* Defines a read-only attribute printing @expr of the device's state. */
#define TERN_DEVICE_STAT(_name, fmt, expr)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct tern_state_device state;					\
									\
	tern_device_state_read(to_tdev(dev), &state);			\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static DEVICE_ATTR_RO(_name)

TERN_DEVICE_STAT(health, "%s", tern_health_name(state.health));
TERN_DEVICE_STAT(health_reasons, "0x%x", state.health_reasons);
TERN_DEVICE_STAT(mem_used_bytes, "%llu", state.memory_used_bytes);
TERN_DEVICE_STAT(mem_host_used_bytes, "%llu", state.memory_host_used_bytes);
TERN_DEVICE_STAT(buffers, "%u", state.buffers);
TERN_DEVICE_STAT(engines_busy, "%u", state.engines_busy);
TERN_DEVICE_STAT(clients, "%u", state.client_count);
TERN_DEVICE_STAT(jobs_completed, "%llu", state.jobs_completed);
TERN_DEVICE_STAT(jobs_failed, "%llu", state.jobs_failed);
TERN_DEVICE_STAT(job_timeouts, "%llu", state.job_timeouts);
TERN_DEVICE_STAT(engine_resets, "%llu", state.engine_resets);
TERN_DEVICE_STAT(engine_hang_resets, "%llu", state.engine_hang_resets);
TERN_DEVICE_STAT(mem_errors_corrected, "%llu", state.mem_errors_corrected);
TERN_DEVICE_STAT(mem_errors_uncorrected, "%llu",
		 state.mem_errors_uncorrected);

/* Defines a read-only attribute printing @expr of the device. */
#define TERN_DEVICE_ATTR(_name, fmt, expr)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct tern_drm_device *tdev = to_tdev(dev);			\
									\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static DEVICE_ATTR_RO(_name)

TERN_DEVICE_ATTR(index, "%u", tdev->index);
TERN_DEVICE_ATTR(fabric_id, "%u", tdev->fabric_id);
TERN_DEVICE_ATTR(mem_total_bytes, "%llu", tdev->mem_size);
TERN_DEVICE_ATTR(engines, "%u", tdev->engine_count);

/*
 * Root only (0200): "1" acknowledges the device's faults, ending its
 * lasting health reasons (tern_health_clear()); anything else -EINVAL.
 */
static ssize_t health_clear_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct tern_drm_device *tdev = to_tdev(dev);
	int idx;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;
	tern_health_clear(tdev);
	drm_dev_exit(idx);
	return count;
}

static DEVICE_ATTR_WO(health_clear);

/* ---- the ports: port<P>_<name> ---- */

enum tern_port_field {
	TERN_PORT_STATE,
	TERN_PORT_PEER_DEVICE,
	TERN_PORT_PEER_PORT,
	TERN_PORT_TX_BYTES,
	TERN_PORT_RX_BYTES,
	TERN_PORT_TX_PACKETS,
	TERN_PORT_RX_PACKETS,
	TERN_PORT_ERRORS,
};

/**
 * struct tern_port_attribute - one file of one fabric port
 * @attr: the file
 * @port: the port
 * @field: what the file shows
 */
struct tern_port_attribute {
	struct device_attribute attr;
	u8 port;
	u8 field;
};

static ssize_t tern_port_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	const struct tern_port_attribute *pattr =
		container_of(attr, struct tern_port_attribute, attr);
	struct tern_drm_device *tdev = to_tdev(dev);
	struct tern_fabric_port_view view;

	if (tern_fabric_port_view(tdev->fabric, tdev->fabric_id, pattr->port,
				  &view))
		memset(&view, 0, sizeof(view));

	switch (pattr->field) {
	case TERN_PORT_STATE:
		return sysfs_emit(buf, "%s\n", tern_port_state_name(view.state));
	case TERN_PORT_PEER_DEVICE:
	case TERN_PORT_PEER_PORT:
		/* "-" on an unconnected port. */
		if (view.state == DRM_TERN_PORT_UNCONNECTED)
			return sysfs_emit(buf, "-\n");
		return sysfs_emit(buf, "%u\n",
				  pattr->field == TERN_PORT_PEER_DEVICE ?
				  view.peer_device : view.peer_port);
	case TERN_PORT_TX_BYTES:
		return sysfs_emit(buf, "%llu\n", view.tx_bytes);
	case TERN_PORT_RX_BYTES:
		return sysfs_emit(buf, "%llu\n", view.rx_bytes);
	case TERN_PORT_TX_PACKETS:
		return sysfs_emit(buf, "%llu\n", view.tx_packets);
	case TERN_PORT_RX_PACKETS:
		return sysfs_emit(buf, "%llu\n", view.rx_packets);
	default:
		return sysfs_emit(buf, "%llu\n", view.errors);
	}
}

static const char *const tern_port_field_names[] = {
	[TERN_PORT_STATE] = "state",
	[TERN_PORT_PEER_DEVICE] = "peer_device",
	[TERN_PORT_PEER_PORT] = "peer_port",
	[TERN_PORT_TX_BYTES] = "tx_bytes",
	[TERN_PORT_RX_BYTES] = "rx_bytes",
	[TERN_PORT_TX_PACKETS] = "tx_packets",
	[TERN_PORT_RX_PACKETS] = "rx_packets",
	[TERN_PORT_ERRORS] = "errors",
};

#define TERN_PORT_FIELDS	ARRAY_SIZE(tern_port_field_names)

/* Every port's files, named by tern_sysfs_setup(). */
static struct tern_port_attribute
	tern_port_attrs[TERN_FABRIC_MAX_PORTS][TERN_PORT_FIELDS];
static char tern_port_attr_names[TERN_FABRIC_MAX_PORTS][TERN_PORT_FIELDS][24];

/* ---- the group ---- */

static struct attribute *tern_device_attrs[] = {
	&dev_attr_index.attr,
	&dev_attr_fabric_id.attr,
	&dev_attr_health.attr,
	&dev_attr_health_reasons.attr,
	&dev_attr_health_clear.attr,
	&dev_attr_mem_total_bytes.attr,
	&dev_attr_mem_used_bytes.attr,
	&dev_attr_mem_host_used_bytes.attr,
	&dev_attr_buffers.attr,
	&dev_attr_engines.attr,
	&dev_attr_engines_busy.attr,
	&dev_attr_clients.attr,
	&dev_attr_jobs_completed.attr,
	&dev_attr_jobs_failed.attr,
	&dev_attr_job_timeouts.attr,
	&dev_attr_engine_resets.attr,
	&dev_attr_engine_hang_resets.attr,
	&dev_attr_mem_errors_corrected.attr,
	&dev_attr_mem_errors_uncorrected.attr,
};

/* The device's files, then every port's; NULL-terminated. */
static struct attribute *tern_attrs[ARRAY_SIZE(tern_device_attrs) +
				    TERN_FABRIC_MAX_PORTS * TERN_PORT_FIELDS +
				    1];

/* Fills tern_attrs; module init calls it before any device binds. */
void tern_sysfs_setup(void)
{
	unsigned int n = 0, port, field;

	for (; n < ARRAY_SIZE(tern_device_attrs); n++)
		tern_attrs[n] = tern_device_attrs[n];

	for (port = 0; port < TERN_FABRIC_MAX_PORTS; port++) {
		for (field = 0; field < TERN_PORT_FIELDS; field++) {
			struct tern_port_attribute *pattr =
				&tern_port_attrs[port][field];
			char *name = tern_port_attr_names[port][field];

			snprintf(name, sizeof(tern_port_attr_names[0][0]),
				 "port%u_%s", port,
				 tern_port_field_names[field]);
			sysfs_attr_init(&pattr->attr.attr);
			pattr->attr.attr.name = name;
			pattr->attr.attr.mode = 0444;
			pattr->attr.show = tern_port_show;
			pattr->port = port;
			pattr->field = field;
			tern_attrs[n++] = &pattr->attr.attr;
		}
	}
	tern_attrs[n] = NULL;
}

/* A port's files show only on devices that have the port. */
static umode_t tern_attr_visible(struct kobject *kobj, struct attribute *attr,
				 int n)
{
	struct device *dev = kobj_to_dev(kobj);
	struct device_attribute *dattr =
		container_of(attr, struct device_attribute, attr);
	const struct tern_port_attribute *pattr;

	if (dattr->show != tern_port_show)
		return attr->mode;
	pattr = container_of(dattr, struct tern_port_attribute, attr);
	return pattr->port < tern_device_port_count(to_tdev(dev)) ?
	       attr->mode : 0;
}

static const struct attribute_group tern_group = {
	.name = "tern",
	.attrs = tern_attrs,
	.is_visible = tern_attr_visible,
};

const struct attribute_group *tern_sysfs_groups[] = {
	&tern_group,
	NULL,
};
