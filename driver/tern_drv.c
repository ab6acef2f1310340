// SPDX-License-Identifier: GPL-2.0
/*
 * Tern accelerator driver: module, DRM driver, open files, GET_INFO.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_job_fence.h"
#include "tern_gem.h"
#include "tern_health.h"
#include "tern_job.h"
#include "tern_netlink.h"
#include "tern_queue.h"
#include "tern_ring.h"
#include "tern_vm.h"

#define TERN_MAX_MOCK_DEVICES		64
#define TERN_MAX_MOCK_MEM_MB		65536
#define TERN_MAX_SBUF_KB		1024
#define TERN_MAX_PSUM_KB		1024
#define TERN_MAX_JOB_TIMEOUT_MS		600000
#define TERN_MAX_QUEUE_BAN_TIMEOUTS	1000
/* One ring (tern_ring.c) to 4 GiB of them. */
#define TERN_MIN_RING_MEM_KB		260
#define TERN_MAX_RING_MEM_KB		4194304

static unsigned int mock_devices = 1;
module_param(mock_devices, uint, 0444);
MODULE_PARM_DESC(mock_devices, "Mock devices to create (0-64, default 1)");

static unsigned int mock_mem_mb = 256;
module_param(mock_mem_mb, uint, 0444);
MODULE_PARM_DESC(mock_mem_mb,
		 "Device memory of each mock device in MiB (1-65536, default 256)");

static unsigned int mock_engines = 4;
module_param(mock_engines, uint, 0444);
MODULE_PARM_DESC(mock_engines, "DMA engines of each mock device (1-16, default 4)");

static unsigned int mock_cores;
module_param(mock_cores, uint, 0444);
MODULE_PARM_DESC(mock_cores,
		 "Cores of each mock device, each with a tensor, a vector and a scalar engine (0-64, default 0: no compute)");

static unsigned int mock_sbuf_kb = TERN_TRN2_SBUF_PARTITION_BYTES >> 10;
module_param(mock_sbuf_kb, uint, 0444);
MODULE_PARM_DESC(mock_sbuf_kb,
		 "SBUF of each partition of a mock core in KiB (1-1024, default 192)");

static unsigned int mock_psum_kb = TERN_TRN2_PSUM_PARTITION_BYTES >> 10;
module_param(mock_psum_kb, uint, 0444);
MODULE_PARM_DESC(mock_psum_kb,
		 "PSUM of each partition of a mock core in KiB, whole 2 KiB banks (2-1024, default 16)");

static char *mock_topology = "auto";
module_param(mock_topology, charp, 0444);
MODULE_PARM_DESC(mock_topology,
		 "Fabric of the mock devices: auto, none, ring, torus:RxC, full, trn2, trn2-ultra, custom:A-B[@GBPS[/NSns]],... (default auto)");

static unsigned int job_timeout_ms = 5000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Time a job may run before it fails with -ETIMEDOUT (1-600000, default 5000)");

unsigned int tern_queue_ban_timeouts = 3;
module_param_named(queue_ban_timeouts, tern_queue_ban_timeouts, uint, 0444);
MODULE_PARM_DESC(queue_ban_timeouts,
		 "Job timeouts after which a queue is banned (1-1000, default 3)");

static unsigned int host_mem_mb;
module_param(host_mem_mb, uint, 0444);
MODULE_PARM_DESC(host_mem_mb,
		 "Host memory all host-placement buffers together may pin, in MiB (default 0: half of RAM)");

static unsigned int ring_mem_kb = 65536;
module_param(ring_mem_kb, uint, 0444);
MODULE_PARM_DESC(ring_mem_kb,
		 "Kernel memory all user rings together may hold, in KiB (260-4194304, default 65536)");

/* Client ids where DRM has none (tern_compat.h): unique, never reused. */
static atomic64_t tern_client_ids = ATOMIC64_INIT(0);

int tern_device_init(struct tern_drm_device *tdev, unsigned int index,
		     const struct tern_device_config *config)
{
	int ret;

	tdev->index = index;
	tdev->fabric = config->fabric;
	tdev->fabric_id = index;
	tdev->capabilities = DRM_TERN_CAP_HOST_MEMORY | DRM_TERN_CAP_SEMAPHORE |
			     DRM_TERN_CAP_TIMESTAMP | DRM_TERN_CAP_REDUCE |
			     DRM_TERN_CAP_SEM_WAIT_ABORT | DRM_TERN_CAP_REDUCE_DIVIDE |
			     DRM_TERN_CAP_USER_RING;
	if (config->mock)
		tdev->capabilities |= DRM_TERN_CAP_MOCK;
	if (tdev->fabric)
		tdev->capabilities |= DRM_TERN_CAP_PEER_MEMORY;
	if (config->shape.cores)
		tdev->capabilities |= DRM_TERN_CAP_COMPUTE;
	if (tern_device_port_count(tdev))
		tdev->capabilities |= DRM_TERN_CAP_FABRIC;

	xa_init(&tdev->clients);
	ret = tern_health_init(tdev);
	if (ret)
		return ret;

	ret = tern_devmem_init(tdev, config->mem_size);
	if (ret)
		return ret;

	return tern_engines_init(tdev, config->dma_engine_count, &config->shape,
				 config->job_timeout_ms);
}

static int tern_info_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct drm_tern_info *args = data;

	if (args->flags || args->pad || args->pad2)
		return -EINVAL;

	args->device_index = tdev->index;
	args->engine_count = tdev->engine_count;
	args->fabric_port_count = tern_device_port_count(tdev);
	args->capabilities = tdev->capabilities;
	args->device_memory_size = tdev->mem_size;
	args->device_memory_used = tern_devmem_used(tdev);
	args->va_base = TERN_VA_BASE;
	args->va_size = TERN_VA_SIZE;
	args->engine_clock_hz = TERN_MODEL_CLOCK_HZ;
	args->packet_version = DRM_TERN_PACKET_VERSION;
	args->max_submit_bytes = TERN_MODEL_MAX_SUBMIT_BYTES;
	args->max_in_syncobjs = TERN_MODEL_MAX_IN_SYNCOBJS;
	args->max_jobs_in_flight = DRM_TERN_MAX_JOBS_PER_FILE;
	args->queue_ban_timeouts = tern_queue_ban_timeouts;
	args->max_packet_bytes_in_flight = DRM_TERN_MAX_PACKET_BYTES_PER_FILE;
	args->host_memory_budget = tern_host_mem_budget();
	args->host_memory_pinned = tern_host_mem_pinned();
	args->dma_engine_count = tdev->dma_engine_count;
	args->core_count = tdev->shape.cores;
	/* Without cores there is no on-chip memory to describe. */
	if (tdev->shape.cores) {
		args->partitions = DRM_TERN_PARTITIONS;
		args->sbuf_partition_bytes = tdev->shape.sbuf_partition_bytes;
		args->psum_partition_bytes = tdev->shape.psum_partition_bytes;
	}
	return 0;
}

struct tern_file *tern_file_get(struct tern_file *tfile)
{
	kref_get(&tfile->ref);
	return tfile;
}

static void tern_file_release(struct kref *ref)
{
	struct tern_file *tfile = container_of(ref, struct tern_file, ref);

	/* Each queue and ring left its table as it went. */
	xa_destroy(&tfile->queues);
	xa_destroy(&tfile->rings);
	/* ... and the engines' turns. */
	kfree(tfile->clients);
	tern_user_put(tfile->user);
	/* Jobs still running hold the address space until they end. */
	tern_vm_put(tfile->vm);
	kfree(tfile);
}

void tern_file_put(struct tern_file *tfile)
{
	kref_put(&tfile->ref, tern_file_release);
}

static int tern_open(struct drm_device *drm, struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct tern_file *tfile;
	struct tern_usage *usage;
	unsigned int i;
	int ret = 0;

	tfile = kzalloc(sizeof(*tfile), GFP_KERNEL_ACCOUNT);
	if (!tfile)
		return -ENOMEM;
	kref_init(&tfile->ref);

	tfile->vm = tern_vm_create(drm);
	if (!tfile->vm)
		goto err_free_file;
	usage = &tfile->vm->usage;
	/* The engines share their time among uids, then files (tern_engine.c). */
	tfile->user = tern_user_get(tdev, usage->uid);
	if (!tfile->user)
		goto err_put_vm;
	tfile->clients = kcalloc(tdev->engine_count, sizeof(*tfile->clients),
				 GFP_KERNEL_ACCOUNT);
	if (!tfile->clients)
		goto err_put_user;
	for (i = 0; i < tdev->engine_count; i++) {
		INIT_LIST_HEAD(&tfile->clients[i].link);
		INIT_LIST_HEAD(&tfile->clients[i].runnables);
		tfile->clients[i].user = &tfile->user->engines[i];
	}
	usage->client_id = tern_file_client_id(file, &tern_client_ids);
	/* The client dump walks them in id order (tern_netlink.c). */
	ret = xa_insert(&tdev->clients, usage->client_id, usage,
			GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free_clients;
	xa_init_flags(&tfile->queues, XA_FLAGS_ALLOC1);
	xa_init_flags(&tfile->rings, XA_FLAGS_ALLOC1);
	file->driver_priv = tfile;
	atomic_inc(&to_tern_drm_device(drm)->client_count);
	return 0;

err_free_clients:
	kfree(tfile->clients);
err_put_user:
	tern_user_put(tfile->user);
err_put_vm:
	tern_vm_put(tfile->vm);
err_free_file:
	kfree(tfile);
	return ret ? ret : -ENOMEM;
}

/* Runs after DRM has closed the file's handles and syncobjs. */
static void tern_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;

	/* Waits for a client dump reading it. */
	xa_erase(&to_tern_drm_device(drm)->clients, tfile->vm->usage.client_id);
	tern_queues_close(tfile);
	tern_rings_close(tfile);
	tern_file_put(tfile);
	atomic_dec(&to_tern_drm_device(drm)->client_count);
}

/*
 * DRM closes a file's buffer handles, which unmaps the buffers, before
 * postclose. Cancel the file's jobs first, so that a job still running
 * ends with -ECANCELED rather than faulting on a vanished buffer.
 */
static int tern_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;
	struct tern_file *tfile = file->driver_priv;

	tern_vm_close(tfile->vm);
	return drm_release(inode, filp);
}

static const struct drm_ioctl_desc tern_ioctls[] = {
	DRM_IOCTL_DEF_DRV(TERN_GET_INFO, tern_info_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_BO_CREATE, tern_bo_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_BO_INFO, tern_bo_info_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_QUEUE_CREATE, tern_queue_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_QUEUE_DESTROY, tern_queue_destroy_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_SUBMIT, tern_submit_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_TOPOLOGY, tern_topology_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_RING_CREATE, tern_ring_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_RING_DESTROY, tern_ring_destroy_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_RING_KICK, tern_ring_kick_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TERN_RING_WAIT, tern_ring_wait_ioctl,
			  DRM_RENDER_ALLOW),
};

static const struct file_operations tern_fops = {
	.owner = THIS_MODULE,
	.open = tern_node_open,
	.release = tern_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	TERN_FOPS_FDINFO_FIELDS
	TERN_FOPS_COMPAT_FIELDS
};

const struct drm_driver tern_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_SYNCOBJ | TERN_DRIVER_NODE,
	.open = tern_open,
	.postclose = tern_postclose,
	.gem_create_object = tern_gem_create_object,
	.gem_prime_import = tern_gem_prime_import,
	.ioctls = tern_ioctls,
	.num_ioctls = ARRAY_SIZE(tern_ioctls),
	.fops = &tern_fops,
	.name = TERN_DRIVER_NAME,
	.desc = TERN_DRIVER_DESC,
	.major = 1,
	.minor = 0,
	TERN_DRIVER_FDINFO_FIELDS
	TERN_DRIVER_COMPAT_FIELDS
};

static bool tern_param_ok(const char *name, unsigned int value,
			  unsigned int min, unsigned int max)
{
	if (value >= min && value <= max)
		return true;

	pr_err("%s=%u is out of range %u-%u\n", name, value, min, max);
	return false;
}

/* PSUM is made of whole banks. */
static bool tern_param_banks_ok(unsigned int kb)
{
	if (!((kb << 10) % DRM_TERN_PSUM_BANK_BYTES))
		return true;

	pr_err("mock_psum_kb=%u is not a multiple of a PSUM bank, %u KiB\n",
	       kb, DRM_TERN_PSUM_BANK_BYTES >> 10);
	return false;
}

static int __init tern_init(void)
{
	const struct tern_device_config config = {
		.mock = true,
		.mem_size = (u64)mock_mem_mb << 20,
		.dma_engine_count = mock_engines,
		.shape = {
			.cores = mock_cores,
			.sbuf_partition_bytes = mock_sbuf_kb << 10,
			.psum_partition_bytes = mock_psum_kb << 10,
		},
		.job_timeout_ms = job_timeout_ms,
	};
	int ret;

	if (!tern_param_ok("mock_devices", mock_devices, 0,
			   TERN_MAX_MOCK_DEVICES) ||
	    !tern_param_ok("mock_mem_mb", mock_mem_mb, 1,
			   TERN_MAX_MOCK_MEM_MB) ||
	    !tern_param_ok("mock_engines", mock_engines, 1,
			   TERN_MAX_DMA_ENGINES) ||
	    !tern_param_ok("mock_cores", mock_cores, 0, TERN_MAX_CORES) ||
	    !tern_param_ok("mock_sbuf_kb", mock_sbuf_kb, 1, TERN_MAX_SBUF_KB) ||
	    !tern_param_ok("mock_psum_kb", mock_psum_kb,
			   DRM_TERN_PSUM_BANK_BYTES >> 10, TERN_MAX_PSUM_KB) ||
	    !tern_param_banks_ok(mock_psum_kb) ||
	    !tern_param_ok("job_timeout_ms", job_timeout_ms, 1,
			   TERN_MAX_JOB_TIMEOUT_MS) ||
	    !tern_param_ok("queue_ban_timeouts", tern_queue_ban_timeouts, 1,
			   TERN_MAX_QUEUE_BAN_TIMEOUTS) ||
	    !tern_param_ok("ring_mem_kb", ring_mem_kb, TERN_MIN_RING_MEM_KB,
			   TERN_MAX_RING_MEM_KB))
		return -EINVAL;
	tern_host_mem_init(host_mem_mb);
	tern_ring_mem_init(ring_mem_kb);

	ret = tern_mock_init(mock_devices, mock_topology, &config);
	if (ret)
		return ret;

	/* Last in, first out: netlink reports only devices that exist. */
	ret = tern_netlink_init();
	if (ret) {
		pr_err("generic netlink family: error %d\n", ret);
		tern_mock_fini();
	}
	return ret;
}

static void __exit tern_exit(void)
{
	tern_netlink_fini();
	tern_mock_fini();
	tern_job_fence_fini();
}

module_init(tern_init);
module_exit(tern_exit);

MODULE_DESCRIPTION(TERN_DRIVER_DESC);
MODULE_VERSION(TERN_DRIVER_VERSION);
MODULE_LICENSE("GPL");
