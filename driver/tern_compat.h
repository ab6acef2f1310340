/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels tern.ko builds for lives here.
 *
 * Built and tested against Debian 12 (6.1.y) and Debian 13 (6.12.y). Some
 * interfaces changed inside those stable series (drm_sched_init() and
 * drm_sched_job_init() were backported from 6.15 and 6.16), so a few tests
 * below name the exact stable release that brought the change.
 */
#ifndef TERN_COMPAT_H
#define TERN_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/version.h>
#include <net/genetlink.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_prime.h>
#include <drm/gpu_scheduler.h>

/* True when building for kernel @major.@minor.@patch or a later one. */
#define TERN_KERNEL_AT_LEAST(major, minor, patch) \
	(KERNEL_VERSION(major, minor, patch) <= LINUX_VERSION_CODE)

#if TERN_KERNEL_AT_LEAST(6, 2, 0) && IS_ENABLED(CONFIG_DRM_ACCEL)
#include <drm/drm_accel.h>

/* 6.2 added compute accelerator nodes: /dev/accel/accelN. */
#define TERN_DRIVER_NODE	DRIVER_COMPUTE_ACCEL
#define tern_node_open		accel_open
#else
/* Before 6.2 the node userspace uses is the render node. */
#define TERN_DRIVER_NODE	DRIVER_RENDER
#define tern_node_open		drm_open
#endif

/*
 * The node userspace opens, "/dev/accel/accelN" or "/dev/dri/renderDN", and
 * the DRM debugfs directory that goes with it: accel/N on 6.12 (the
 * device's own directory since 6.7), dri/N of the render minor on 6.1.
 */
#if TERN_KERNEL_AT_LEAST(6, 2, 0) && IS_ENABLED(CONFIG_DRM_ACCEL)
static inline void tern_node_path(struct drm_device *drm, char *buf,
				  size_t size)
{
	snprintf(buf, size, "/dev/accel/accel%d", drm->accel->index);
}
#else
static inline void tern_node_path(struct drm_device *drm, char *buf,
				  size_t size)
{
	snprintf(buf, size, "/dev/dri/renderD%d", drm->render->index);
}
#endif

#if TERN_KERNEL_AT_LEAST(6, 7, 0)
static inline struct dentry *tern_debugfs_root(struct drm_device *drm)
{
	return drm->debugfs_root;
}
#else
static inline struct dentry *tern_debugfs_root(struct drm_device *drm)
{
	return drm->render->debugfs_root;
}
#endif

/*
 * platform_driver.remove returns void from 6.11, an int nobody reads
 * before: tern_mock_platform_remove is the mock driver's void
 * tern_mock_remove(), as the kernel wants it.
 */
struct platform_device;
void tern_mock_remove(struct platform_device *pdev);
#if TERN_KERNEL_AT_LEAST(6, 11, 0)
#define tern_mock_platform_remove	tern_mock_remove
#else
static inline int tern_mock_platform_remove(struct platform_device *pdev)
{
	tern_mock_remove(pdev);
	return 0;
}
#endif

/* 6.13 made symbol namespaces strings. */
#if TERN_KERNEL_AT_LEAST(6, 13, 0)
#define TERN_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#else
#define TERN_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#endif

/* A dump request's parsed attributes; 6.2 moved them into a genl_info. */
static inline struct nlattr **tern_genl_dump_attrs(struct netlink_callback *cb)
{
#if TERN_KERNEL_AT_LEAST(6, 2, 0)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * A multicast group only a process with a capability may join: the flags
 * of struct genl_multicast_group came in 6.7 and were backported to
 * 6.1.68 (Debian 12's 6.1 has them), so the flag itself is the test.
 * Without them any process may join.
 */
#ifdef GENL_MCAST_CAP_SYS_ADMIN
#define TERN_MCGRP_SYS_ADMIN_FIELDS \
	.flags = GENL_MCAST_CAP_SYS_ADMIN,
#else
#define TERN_MCGRP_SYS_ADMIN_FIELDS
#endif

/* Fields of struct drm_driver that only some kernels have or need. */
#if !TERN_KERNEL_AT_LEAST(6, 6, 0)
/* PRIME became the default for GEM drivers in 6.6. */
#define TERN_DRIVER_COMPAT_FIELDS \
	.date = "20250101", \
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd, \
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle, \
	.gem_prime_mmap = drm_gem_prime_mmap
#elif !TERN_KERNEL_AT_LEAST(6, 14, 0)
/* The date went away in 6.14. */
#define TERN_DRIVER_COMPAT_FIELDS \
	.date = "20250101"
#else
#define TERN_DRIVER_COMPAT_FIELDS
#endif

/*
 * DRM fdinfo came in 6.5: drm_show_fdinfo() prints drm-driver and
 * drm-client-id (&drm_file.client_id) and calls drm_driver.show_fdinfo.
 * Before, a file has no client id of DRM's and fdinfo shows nothing.
 */
#if TERN_KERNEL_AT_LEAST(6, 5, 0)
#define TERN_HAVE_FDINFO	1
#define TERN_DRIVER_FDINFO_FIELDS \
	.show_fdinfo = tern_show_fdinfo,
#define TERN_FOPS_FDINFO_FIELDS \
	.show_fdinfo = drm_show_fdinfo,
#else
#define TERN_HAVE_FDINFO	0
#define TERN_DRIVER_FDINFO_FIELDS
#define TERN_FOPS_FDINFO_FIELDS
#endif

/*
 * A new file's client id: DRM's own where it has one, so that netlink and
 * fdinfo agree; else the next of @ids. Both are unique, never reused.
 */
static inline u64 tern_file_client_id(struct drm_file *file, atomic64_t *ids)
{
#if TERN_HAVE_FDINFO
	return file->client_id;
#else
	return atomic64_inc_return(ids);
#endif
}

/* 6.12 wants DRM files to declare that their mmap offsets are unsigned. */
#ifdef FOP_UNSIGNED_OFFSET
#define TERN_FOPS_COMPAT_FIELDS \
	.fop_flags = FOP_UNSIGNED_OFFSET
#else
#define TERN_FOPS_COMPAT_FIELDS
#endif

/* Since 6.2 the reservation lock guards vmap; the _unlocked calls take it. */
static inline int tern_gem_vmap(struct drm_gem_shmem_object *shmem,
				struct iosys_map *map)
{
#if TERN_KERNEL_AT_LEAST(6, 2, 0)
	return drm_gem_vmap_unlocked(&shmem->base, map);
#else
	return drm_gem_shmem_vmap(shmem, map);
#endif
}

static inline void tern_gem_vunmap(struct drm_gem_shmem_object *shmem,
				   struct iosys_map *map)
{
#if TERN_KERNEL_AT_LEAST(6, 2, 0)
	drm_gem_vunmap_unlocked(&shmem->base, map);
#else
	drm_gem_shmem_vunmap(shmem, map);
#endif
}

/* drm_sched_init() takes struct drm_sched_init_args since 6.15. */
#if TERN_KERNEL_AT_LEAST(6, 15, 0) || \
	(TERN_KERNEL_AT_LEAST(6, 12, 114) && !TERN_KERNEL_AT_LEAST(6, 13, 0)) || \
	(TERN_KERNEL_AT_LEAST(6, 1, 191) && !TERN_KERNEL_AT_LEAST(6, 2, 0))
#define TERN_SCHED_INIT_ARGS	1
#else
#define TERN_SCHED_INIT_ARGS	0
#endif

/* drm_sched_job_init() takes the file's client id since 6.16. */
#if TERN_KERNEL_AT_LEAST(6, 16, 0) || \
	(TERN_KERNEL_AT_LEAST(6, 12, 103) && !TERN_KERNEL_AT_LEAST(6, 13, 0))
#define TERN_SCHED_JOB_CLIENT_ID	1
#else
#define TERN_SCHED_JOB_CLIENT_ID	0
#endif

/* 6.7 moved drm_sched to workqueues and made the run queue count a choice. */
#define TERN_SCHED_WORKQUEUE	TERN_KERNEL_AT_LEAST(6, 7, 0)
/* 6.8 replaced the hardware queue depth with job credits. */
#define TERN_SCHED_CREDITS	TERN_KERNEL_AT_LEAST(6, 8, 0)

static inline int tern_sched_init(struct drm_gpu_scheduler *sched,
				  const struct drm_sched_backend_ops *ops,
				  u32 credit_limit, long timeout,
				  const char *name, struct device *dev)
{
#if TERN_SCHED_INIT_ARGS
	const struct drm_sched_init_args args = {
		.ops = ops,
#if TERN_SCHED_WORKQUEUE
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
#endif
		.credit_limit = credit_limit,
		.timeout = timeout,
		.name = name,
		.dev = dev,
	};

	return drm_sched_init(sched, &args);
#elif TERN_SCHED_WORKQUEUE
	return drm_sched_init(sched, ops, NULL, DRM_SCHED_PRIORITY_COUNT,
			      credit_limit, 0, timeout, NULL, NULL, name, dev);
#else
	return drm_sched_init(sched, ops, credit_limit, 0, timeout, NULL, NULL,
			      name, dev);
#endif
}

static inline int tern_sched_job_init(struct drm_sched_job *job,
				      struct drm_sched_entity *entity,
				      struct drm_file *file, void *owner)
{
#if TERN_SCHED_JOB_CLIENT_ID
	return drm_sched_job_init(job, entity, 1, owner, file->client_id);
#elif TERN_SCHED_CREDITS
	return drm_sched_job_init(job, entity, 1, owner);
#else
	return drm_sched_job_init(job, entity, owner);
#endif
}

static inline void tern_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *))
{
#if TERN_KERNEL_AT_LEAST(6, 13, 0)
	hrtimer_setup(timer, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	timer->function = fn;
#endif
}

#endif /* TERN_COMPAT_H */
