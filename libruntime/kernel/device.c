// SPDX-License-Identifier: MIT
/*
 * The kernel backend: tern.ko through libdrm.
 *
 * Devices are found by opening every /dev/accel/accel* and
 * /dev/dri/renderD* node and keeping those whose DRM driver is "tern",
 * ordered by the index the driver reports. Each device open is a fresh
 * open file: its own address space, buffers and queues, all released by
 * the kernel when the file closes. Buffers are in memory.c, queues and
 * jobs in submit.c, fences (syncobjs) in fence.c, PRIME and the fabric in
 * share.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "kernel.h"
#include "settings.h"

struct kbe_node {
	char path[64];
	uint32_t index;
};

static struct kbe_node *kbe_nodes;
static int kbe_node_count;
static int kbe_denied_count;	/* Tern nodes this process may not open */

tern_status_t kbe_errno_status(int err)
{
	switch (err) {
	case EINVAL:
	case ENOENT:
		return TERN_ERROR_INVALID_ARGUMENT;
	case ENOMEM:
	case E2BIG:
	case ENOSPC:
		return TERN_ERROR_OUT_OF_MEMORY;
	case EACCES:
	case EPERM:
		return TERN_ERROR_PERMISSION;
	case ENODEV:
	case ENXIO:
		return TERN_ERROR_NO_DEVICE;
	default:
		return TERN_ERROR_BACKEND;
	}
}

static int kbe_get_info(int fd, struct drm_tern_info *info)
{
	memset(info, 0, sizeof(*info));
	return drmIoctl(fd, DRM_IOCTL_TERN_GET_INFO, info) ? errno : 0;
}

static bool kbe_is_tern(int fd)
{
	drmVersionPtr version = drmGetVersion(fd);
	bool tern = version && version->name &&
		    strcmp(version->name, "tern") == 0;

	drmFreeVersion(version);
	return tern;
}

/* Whether sysfs says an unopenable node belongs to tern.ko. */
static bool kbe_sysfs_is_tern(const char *class, const char *name)
{
	char link[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/class/%s/%s/device/driver/module",
		 class, name);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		/* Mock devices may have no driver: look at the device name. */
		snprintf(link, sizeof(link), "/sys/class/%s/%s/device",
			 class, name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			return false;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return strncmp(base, "tern", 4) == 0;
}

static void kbe_probe(const char *dir, const char *class, const char *prefix)
{
	struct dirent *entry;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((entry = readdir(d))) {
		struct drm_tern_info info;
		struct kbe_node *bigger;
		char path[64];
		int fd;

		if (strncmp(entry->d_name, prefix, strlen(prefix)))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     entry->d_name) >= sizeof(path))
			continue;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if ((errno == EACCES || errno == EPERM) &&
			    kbe_sysfs_is_tern(class, entry->d_name))
				kbe_denied_count++;
			continue;
		}
		if (!kbe_is_tern(fd) || kbe_get_info(fd, &info)) {
			close(fd);
			continue;
		}
		close(fd);
		bigger = realloc(kbe_nodes, (kbe_node_count + 1) *
				 sizeof(*bigger));
		if (!bigger)
			break;
		kbe_nodes = bigger;
		memcpy(kbe_nodes[kbe_node_count].path, path, sizeof(path));
		kbe_nodes[kbe_node_count].index = info.device_index;
		kbe_node_count++;
		tern_debug("found %s (tern device %u)", path, info.device_index);
	}
	closedir(d);
}

static int kbe_node_cmp(const void *a, const void *b)
{
	const struct kbe_node *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static tern_status_t kbe_init(void)
{
	kbe_probe("/dev/accel", "accel", "accel");
	kbe_probe("/dev/dri", "drm", "renderD");
	if (kbe_node_count > 1)
		qsort(kbe_nodes, (size_t)kbe_node_count, sizeof(*kbe_nodes),
		      kbe_node_cmp);
	return TERN_SUCCESS;
}

static tern_status_t kbe_count(int *count)
{
	*count = kbe_node_count;
	if (kbe_node_count)
		return TERN_SUCCESS;
	return kbe_denied_count ? TERN_ERROR_PERMISSION : TERN_ERROR_NO_DEVICE;
}

/*
 * Whether queues are user rings: when the driver has them, unless
 * TERN_KERNEL_RINGS=off asks for SUBMIT (to compare the two). -1 for a
 * value that is neither on nor off.
 */
static int kbe_rings_wanted(const struct drm_tern_info *info)
{
	bool on = true;

	if (tern_setting_on("TERN_KERNEL_RINGS", &on))
		return -1;
	return (info->capabilities & DRM_TERN_CAP_USER_RING) && on;
}

static void kbe_close(struct tern_be_device *bdev);

static tern_status_t kbe_open(int index, struct tern_be_device **out)
{
	struct kbe_device *dev;
	int err;

	if (index < 0 || index >= kbe_node_count)
		return TERN_ERROR_INVALID_DEVICE;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return TERN_ERROR_OUT_OF_MEMORY;
	dev->base.index = index;
	memcpy(dev->node, kbe_nodes[index].path, sizeof(dev->node));
	dev->fd = open(dev->node, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = errno;
		free(dev);
		return err == ENOENT ? TERN_ERROR_NO_DEVICE :
				       kbe_errno_status(err);
	}
	err = kbe_get_info(dev->fd, &dev->info);
	if (err) {
		close(dev->fd);
		free(dev);
		return kbe_errno_status(err);
	}
	dev->fabric_id = kbe_fabric_id(dev->fd);
	pthread_mutex_init(&dev->handles_lock, NULL);
	pthread_mutex_init(&dev->syncobjs_lock, NULL);
	err = kbe_rings_wanted(&dev->info);
	if (err < 0) {
		kbe_close(&dev->base);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	dev->rings = err;
	if (dev->rings) {
		tern_status_t status = kbe_fence_table_init(dev);

		if (status) {
			kbe_close(&dev->base);
			return status;
		}
	}
	*out = &dev->base;
	return TERN_SUCCESS;
}

static void kbe_close(struct tern_be_device *bdev)
{
	struct kbe_device *dev = kbe_device(bdev);

	if (dev->rings)
		kbe_fence_table_fini(dev);
	/* closing the file destroys its syncobjs, the spare ones too */
	close(dev->fd);
	free(dev->handle_refs);
	pthread_mutex_destroy(&dev->handles_lock);
	pthread_mutex_destroy(&dev->syncobjs_lock);
	free(dev);
}

static tern_status_t kbe_query(struct tern_be_device *bdev,
			       struct tern_be_info *info)
{
	struct kbe_device *dev = kbe_device(bdev);
	const struct drm_tern_info *k = &dev->info;

	memcpy(info->node, dev->node, sizeof(info->node));
	info->memory_bytes = k->device_memory_size;
	info->capabilities =
		((k->capabilities & DRM_TERN_CAP_MOCK) ? TERN_DEVICE_CAP_MOCK : 0) |
		((k->capabilities & DRM_TERN_CAP_HOST_MEMORY) ?
		 TERN_DEVICE_CAP_HOST_MEMORY : 0) |
		((k->capabilities & DRM_TERN_CAP_SEMAPHORE) ?
		 TERN_DEVICE_CAP_SEMAPHORE : 0) |
		((k->capabilities & DRM_TERN_CAP_TIMESTAMP) ?
		 TERN_DEVICE_CAP_TIMESTAMP : 0) |
		((k->capabilities & DRM_TERN_CAP_FABRIC) ?
		 TERN_DEVICE_CAP_FABRIC : 0) |
		((k->capabilities & DRM_TERN_CAP_REDUCE) ?
		 TERN_DEVICE_CAP_REDUCE : 0) |
		((k->capabilities & DRM_TERN_CAP_PEER_MEMORY) ?
		 TERN_DEVICE_CAP_PEER_MEMORY : 0) |
		((k->capabilities & DRM_TERN_CAP_SEM_WAIT_ABORT) ?
		 TERN_DEVICE_CAP_ABORTABLE_WAIT : 0) |
		((k->capabilities & DRM_TERN_CAP_REDUCE_DIVIDE) ?
		 TERN_DEVICE_CAP_REDUCE_DIVIDE : 0) |
		((k->capabilities & DRM_TERN_CAP_COMPUTE) ?
		 TERN_DEVICE_CAP_COMPUTE : 0);
	info->clock_hz = k->engine_clock_hz;
	info->engine_count = k->engine_count;
	/* 0 from a driver before cores: libtern takes them all as DMA */
	info->dma_engine_count = k->dma_engine_count;
	info->cores.cores = k->core_count;
	info->cores.sbuf_partition_bytes = k->sbuf_partition_bytes;
	info->cores.psum_partition_bytes = k->psum_partition_bytes;
	info->fabric_port_count = k->fabric_port_count;
	/* A ring job's waits are packets in front of its own (ring.c). */
	info->max_submit_bytes = k->max_submit_bytes -
				 (dev->rings ? KBE_RING_WAIT_BYTES : 0);
	info->max_waits = k->max_in_syncobjs;
	info->fabric_id = dev->fabric_id;
	return TERN_SUCCESS;
}

static tern_status_t kbe_memory_usage(struct tern_be_device *bdev,
				      uint64_t *used, uint64_t *total)
{
	struct drm_tern_info info;
	int err = kbe_get_info(kbe_device(bdev)->fd, &info);

	if (err)
		return kbe_errno_status(err);
	*used = info.device_memory_used;
	*total = info.device_memory_size;
	return TERN_SUCCESS;
}

const struct tern_backend_ops tern_kernel_backend = {
	.kind = TERN_BACKEND_KERNEL,
	.init = kbe_init,
	.device_count = kbe_count,
	.device_open = kbe_open,
	.device_close = kbe_close,
	.device_query = kbe_query,
	.memory_usage = kbe_memory_usage,
	.buffer_create = kbe_buffer_create,
	.buffer_map = kbe_buffer_map,
	.buffer_free = kbe_buffer_free,
	.buffer_export = kbe_buffer_export,
	.buffer_import = kbe_buffer_import,
	.ports = kbe_ports,
	.queue_create = kbe_queue_create,
	.queue_destroy = kbe_queue_destroy,
	.submit = kbe_submit,
	.fence_wait = kbe_fence_wait,
	.fence_status = kbe_fence_status,
	.fence_import = kbe_fence_import,
};
