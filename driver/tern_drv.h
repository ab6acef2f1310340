/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern accelerator driver: the device and the open file.
 */
#ifndef TERN_DRV_H
#define TERN_DRV_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_mm.h>

#include "tern_tile.h"

#define TERN_DRIVER_NAME	"tern"
#define TERN_DRIVER_DESC	"Tern accelerator"
/* TERN_DRIVER_VERSION comes from the top VERSION file (driver/Kbuild). */

/* DMA engines (mock_engines) and cores (mock_cores) a device may have. */
#define TERN_MAX_DMA_ENGINES	16
#define TERN_MAX_CORES		64

struct dentry;
struct tern_engine;
struct tern_engine_client;
struct tern_fabric;
struct tern_user;
struct tern_vm;

/**
 * struct tern_device_config - what a device is made of
 * @mock: the device is mock hardware
 * @mem_size: bytes of device memory
 * @dma_engine_count: DMA engines, the device's first engines
 * @shape: the chip's cores, each with TERN_CORE_ENGINES engines after the
 *	DMA engines
 * @job_timeout_ms: how long a job may run before it is failed
 * @fabric: the fabric joining the devices, or NULL for none; it outlives
 *	every device
 */
struct tern_device_config {
	bool mock;
	u64 mem_size;
	unsigned int dma_engine_count;
	struct tern_core_shape shape;
	unsigned int job_timeout_ms;
	struct tern_fabric *fabric;
};

/**
 * struct tern_health_baseline - the counters behind a device's lasting
 * health reasons, as they were when its health was last cleared
 * @link_errors: errors counted by the links on the device's ports
 * @engine_hang_resets: resets of its engines while they were hung
 * @mem_errors_uncorrected: its uncorrectable memory errors
 *
 * Written under &tern_drm_device.health_lock, read without it: atomics.
 */
struct tern_health_baseline {
	atomic64_t link_errors;
	atomic64_t engine_hang_resets;
	atomic64_t mem_errors_uncorrected;
};

/**
 * struct tern_drm_device - one Tern chip
 * @drm: the DRM device
 * @index: index among Tern devices, reported to userspace
 * @capabilities: DRM_TERN_CAP_* bits
 * @fabric: the fabric the device is on, or NULL
 * @fabric_id: the device's id on @fabric (its index there)
 * @mem_lock: protects @mem and @mem_used
 * @mem: allocator of device memory, [0, @mem_size)
 * @mem_size: bytes of device memory
 * @mem_used: bytes of device memory held by buffers
 * @unplug_lock: protects @unplug_pages
 * @unplug_pages: the pages mappings of device memory were given once the
 *	device was unplugged, one per mapping (tern_gem.c); freed with it
 * @mem_host_used: bytes of host-placement buffers made on this device
 * @buffer_count: buffers (GEM objects, imports included) of this device
 * @client_count: open files of the device
 * @clients: the &tern_usage of each open file, by client id
 * @mem_errors_corrected: correctable device memory errors seen
 * @mem_errors_uncorrected: uncorrectable device memory errors seen
 * @engine_count: entries in @engines
 * @dma_engine_count: the first of them, DMA engines; then each core's
 * @shape: the chip's cores
 * @engines: the engines
 * @users_lock: protects @users
 * @users: the &struct tern_user of each uid with a file open, which the
 *	engines share their time among
 * @free_wq: frees rings, and takes their records that need on-chip
 *	memory made (tern_ring.c); destroyed once they are all freed
 * @live_jobs: jobs and rings created and not yet freed; teardown waits
 *	for zero
 * @health_lock: protects @health_reasons; orders health events and clears
 * @health_reasons: DRM_TERN_HEALTH_REASON_* bits last announced
 * @health_baseline: the counters when health was last cleared; lasting
 *	reasons count only what is above them
 * @run_job_delay_ms: fault injection (debugfs): run_job sleeps this long
 *	after handing a job over, holding the scheduler's hands
 * @timeout_delay_ms: fault injection (debugfs): the job timeout sleeps
 *	this long after resetting the engine, as on a loaded machine
 */
struct tern_drm_device {
	struct drm_device drm;
	unsigned int index;
	u64 capabilities;
	struct tern_fabric *fabric;
	u32 fabric_id;

	struct mutex mem_lock;		/* protects mem, mem_used */
	struct drm_mm mem;
	u64 mem_size;
	u64 mem_used;
	spinlock_t unplug_lock;		/* protects unplug_pages */
	struct list_head unplug_pages;
	atomic64_t mem_host_used;
	atomic_t buffer_count;
	atomic_t client_count;
	struct xarray clients;
	atomic64_t mem_errors_corrected;
	atomic64_t mem_errors_uncorrected;

	unsigned int engine_count;
	unsigned int dma_engine_count;
	struct tern_core_shape shape;
	struct tern_engine *engines;
	spinlock_t users_lock;		/* protects users */
	struct list_head users;
	struct workqueue_struct *free_wq;
	atomic_t live_jobs;

	struct mutex health_lock;	/* protects health_reasons */
	u32 health_reasons;
	struct tern_health_baseline health_baseline;

	u32 run_job_delay_ms;
	u32 timeout_delay_ms;
};

/**
 * struct tern_file - what one open file of a device owns
 * @ref: held by the DRM file until it is closed and by each queue; queues
 *	and their jobs outlive the file's closing
 * @vm: the file's device virtual address space; it also holds what the
 *	file uses (&tern_vm.usage), which its jobs may update after it closed
 * @queues: the file's queues by id, from QUEUE_CREATE until each is freed
 * @next_queue_id: where xa_alloc_cyclic() looks for the next id
 * @rings: the file's user rings by id, from RING_CREATE until each is
 *	freed (tern_ring.c)
 * @next_ring_id: where xa_alloc_cyclic() looks for the next ring id
 * @ring_count: rings in @rings (DRM_TERN_MAX_RINGS_PER_FILE)
 * @user: the files of its uid, whose share of the engines it has; held
 * @clients: the file's share of each engine (&struct tern_engine_client)
 */
struct tern_file {
	struct kref ref;
	struct tern_vm *vm;
	struct xarray queues;
	u32 next_queue_id;
	struct xarray rings;
	u32 next_ring_id;
	atomic_t ring_count;
	struct tern_user *user;
	struct tern_engine_client *clients;
};

struct tern_file *tern_file_get(struct tern_file *tfile);
void tern_file_put(struct tern_file *tfile);

/* Module parameters the device's parts read. */
extern unsigned int tern_queue_ban_timeouts;

static inline struct tern_drm_device *to_tern_drm_device(struct drm_device *drm)
{
	return container_of(drm, struct tern_drm_device, drm);
}

extern const struct drm_driver tern_drm_driver;

int tern_device_init(struct tern_drm_device *tdev, unsigned int index,
		     const struct tern_device_config *config);

u32 tern_device_port_count(struct tern_drm_device *tdev);
const char *tern_port_state_name(u32 state);

int tern_mock_init(unsigned int count, const char *topology,
		   const struct tern_device_config *config);
void tern_mock_fini(void);
unsigned int tern_mock_device_count(void);
struct tern_drm_device *tern_mock_device_get(unsigned int index);
struct tern_fabric *tern_mock_fabric(void);

int tern_topology_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);

void tern_debugfs_init(struct tern_drm_device *tdev);
void tern_fault_debugfs_init(struct tern_drm_device *tdev, struct dentry *root);
int tern_mem_error_inject(struct tern_drm_device *tdev, bool uncorrectable,
			  u64 offset);

extern const struct attribute_group *tern_sysfs_groups[];
void tern_sysfs_setup(void);

struct drm_printer;
void tern_show_fdinfo(struct drm_printer *p, struct drm_file *file);

#endif /* TERN_DRV_H */
