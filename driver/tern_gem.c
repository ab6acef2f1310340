// SPDX-License-Identifier: GPL-2.0
/*
 * Tern buffers.
 *
 * Every buffer is a GEM shmem object, mapped into the kernel for its whole
 * life so that engines reach it without faulting. A buffer placed in device
 * memory also takes its size out of the device's memory, which is what the
 * chip would have to hold. Host-placement buffers pin host memory, in no
 * process's RSS, so all of them together get a budget (host_mem_mb, half
 * of RAM by default): BO_CREATE past it fails with -ENOMEM, and -E2BIG for
 * a size above the whole budget. Their pages are charged to the memory
 * cgroup of the process that made them, like any shmem.
 */
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include "tern_accel.h"
#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_vm.h"

/* Bytes all host-placement buffers may pin, and bytes they pin now. */
static u64 tern_host_mem_limit;
static atomic64_t tern_host_mem_used = ATOMIC64_INIT(0);

/* @mb MiB of host memory for host buffers; 0: half of RAM. */
void tern_host_mem_init(unsigned int mb)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	tern_host_mem_limit = mb ? min_t(u64, (u64)mb << 20, ram) : ram / 2;
	tern_host_mem_limit = PAGE_ALIGN_DOWN(tern_host_mem_limit);
}

u64 tern_host_mem_budget(void)
{
	return tern_host_mem_limit;
}

u64 tern_host_mem_pinned(void)
{
	return atomic64_read(&tern_host_mem_used);
}

/*
 * Takes @size bytes of the budget: -ENOMEM when they are not left. Host
 * buffers and files' on-chip memories (tern_onchip.c) share it.
 */
int tern_host_mem_reserve(u64 size)
{
	if (atomic64_add_return(size, &tern_host_mem_used) >
	    tern_host_mem_limit) {
		atomic64_sub(size, &tern_host_mem_used);
		return -ENOMEM;
	}
	return 0;
}

void tern_host_mem_release(u64 size)
{
	atomic64_sub(size, &tern_host_mem_used);
}

/* drm_gem_shmem_free() and its error paths kfree() the shmem object. */
static_assert(offsetof(struct tern_bo, base.base) == 0);

static void tern_devmem_fini(struct drm_device *drm, void *arg)
{
	struct tern_drm_device *tdev = arg;
	struct page *page, *next;

	drm_WARN_ON(drm, tdev->mem_used);
	drm_mm_takedown(&tdev->mem);
	/* Every mapping is gone: each holds the device (tern_gem_fault()). */
	list_for_each_entry_safe(page, next, &tdev->unplug_pages, lru)
		__free_page(page);
}

int tern_devmem_init(struct tern_drm_device *tdev, u64 size)
{
	int ret;

	ret = drmm_mutex_init(&tdev->drm, &tdev->mem_lock);
	if (ret)
		return ret;

	spin_lock_init(&tdev->unplug_lock);
	INIT_LIST_HEAD(&tdev->unplug_pages);
	tdev->mem_size = size;
	drm_mm_init(&tdev->mem, 0, size);
	return drmm_add_action_or_reset(&tdev->drm, tern_devmem_fini, tdev);
}

u64 tern_devmem_used(struct tern_drm_device *tdev)
{
	u64 used;

	mutex_lock(&tdev->mem_lock);
	used = tdev->mem_used;
	mutex_unlock(&tdev->mem_lock);
	return used;
}

static int tern_devmem_reserve(struct tern_drm_device *tdev, struct tern_bo *bo)
{
	int ret;

	mutex_lock(&tdev->mem_lock);
	ret = drm_mm_insert_node(&tdev->mem, &bo->mem_node, bo->base.base.size);
	if (!ret)
		tdev->mem_used += bo->mem_node.size;
	mutex_unlock(&tdev->mem_lock);

	/* No hole large enough: the memory is taken, not the request wrong. */
	return ret == -ENOSPC ? -ENOMEM : ret;
}

static void tern_devmem_release(struct tern_drm_device *tdev, struct tern_bo *bo)
{
	mutex_lock(&tdev->mem_lock);
	tdev->mem_used -= bo->mem_node.size;
	drm_mm_remove_node(&bo->mem_node);
	mutex_unlock(&tdev->mem_lock);
}

static void tern_gem_free(struct drm_gem_object *obj)
{
	struct tern_drm_device *tdev = to_tern_drm_device(obj->dev);
	struct tern_bo *bo = to_tern_bo(obj);

	/* Every mapping holds a reference: none can be left. */
	drm_WARN_ON(obj->dev, !list_empty(&bo->mappings));

	if (bo->vaddr) {
		struct iosys_map map = IOSYS_MAP_INIT_VADDR(bo->vaddr);

		tern_gem_vunmap(&bo->base, &map);
	}
	if (drm_mm_node_allocated(&bo->mem_node))
		tern_devmem_release(tdev, bo);
	if (bo->host_mem_reserved) {
		atomic64_sub(obj->size, &tdev->mem_host_used);
		tern_host_mem_release(obj->size);
	}
	atomic_dec(&tdev->buffer_count);
	mutex_destroy(&bo->lock);
	drm_gem_shmem_free(&bo->base);
}

/* A file that gets a handle to a buffer gets addresses for it. */
int tern_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;

	return tern_vm_map(tfile->vm, to_tern_bo(obj));
}

void tern_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;

	tern_vm_unmap(tfile->vm, to_tern_bo(obj));
}

/*
 * A CPU access to a device-placement buffer of an unplugged device, whose
 * memory is gone: the whole mapping (@vmf's VMA) gets a zeroed page of its
 * own, so that a process still touching it does not crash, reads zeros
 * and learns of the unplug from its next ioctl (-ENODEV), as amdgpu does
 * (TTM's dummy page). Its own writes land there, seen by that mapping
 * alone: never by another process's. The page is charged to the faulting
 * process's memory cgroup and freed with the device, which every mapping
 * holds (through its file or dma-buf); as each mapping faults once, and
 * none is made after the unplug (tern_gem_mmap()), a device holds about a
 * page per mapping it had.
 */
static vm_fault_t tern_gem_fault_unplugged(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct tern_drm_device *tdev = to_tern_drm_device(obj->dev);
	vm_fault_t ret = VM_FAULT_NOPAGE;
	unsigned long address;
	struct page *page;

	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!page)
		return VM_FAULT_OOM;
	spin_lock(&tdev->unplug_lock);
	list_add(&page->lru, &tdev->unplug_pages);
	spin_unlock(&tdev->unplug_lock);
	for (address = vma->vm_start; address < vma->vm_end;
	     address += PAGE_SIZE) {
		vm_fault_t one = vmf_insert_pfn(vma, address,
						page_to_pfn(page));

		if (address == (vmf->address & PAGE_MASK))
			ret = one;
		if (one & VM_FAULT_ERROR)
			break;
		/* A mapping of gigabytes: let others run meanwhile. */
		if (!((address >> PAGE_SHIFT) % 512))
			cond_resched();
	}
	return ret;
}

/*
 * A CPU access to a mapped buffer. Host-placement buffers are host memory
 * and stay as they are after an unplug; device-placement buffers then
 * fault to a page of the mapping's own (above). drm_dev_unplug() unmaps
 * every mapping of the device, so each page faults here again.
 */
static vm_fault_t tern_gem_fault(struct vm_fault *vmf)
{
	struct drm_gem_object *obj = vmf->vma->vm_private_data;
	vm_fault_t ret;
	int idx;

	if (to_tern_bo(obj)->placement != DRM_TERN_PLACEMENT_DEVICE)
		return drm_gem_shmem_vm_ops.fault(vmf);
	if (!drm_dev_enter(obj->dev, &idx))
		return tern_gem_fault_unplugged(vmf);
	ret = drm_gem_shmem_vm_ops.fault(vmf);
	drm_dev_exit(idx);
	return ret;
}

/*
 * No new mapping of device memory once the device is gone: each would
 * hold a page of its own (above) until the device is freed.
 */
static int tern_gem_mmap(struct drm_gem_object *obj,
			 struct vm_area_struct *vma)
{
	int idx, ret;

	if (to_tern_bo(obj)->placement != DRM_TERN_PLACEMENT_DEVICE)
		return drm_gem_shmem_object_mmap(obj, vma);
	if (!drm_dev_enter(obj->dev, &idx))
		return -ENODEV;
	ret = drm_gem_shmem_object_mmap(obj, vma);
	drm_dev_exit(idx);
	return ret;
}

static void tern_gem_vm_open(struct vm_area_struct *vma)
{
	drm_gem_shmem_vm_ops.open(vma);
}

static void tern_gem_vm_close(struct vm_area_struct *vma)
{
	drm_gem_shmem_vm_ops.close(vma);
}

static const struct vm_operations_struct tern_gem_vm_ops = {
	.fault = tern_gem_fault,
	.open = tern_gem_vm_open,
	.close = tern_gem_vm_close,
};

/*
 * The shmem helpers' own table, plus mapping on open and close and the
 * fault that knows of unplugs.
 */
static const struct drm_gem_object_funcs tern_gem_funcs = {
	.free = tern_gem_free,
	.open = tern_gem_open,
	.close = tern_gem_close,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = tern_gem_mmap,
	.vm_ops = &tern_gem_vm_ops,
};

struct drm_gem_object *tern_gem_create_object(struct drm_device *drm,
					      size_t size)
{
	struct tern_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->base.base.funcs = &tern_gem_funcs;
	bo->owner = to_tern_drm_device(drm)->fabric_id;
	mutex_init(&bo->lock);
	INIT_LIST_HEAD(&bo->mappings);
	return &bo->base.base;
}

static int tern_bo_vmap(struct tern_bo *bo)
{
	struct iosys_map map;
	int ret;

	ret = tern_gem_vmap(&bo->base, &map);
	if (ret)
		return ret;

	bo->vaddr = map.vaddr;
	return 0;
}

int tern_bo_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	struct tern_bo *bo;
	u64 limit;
	u32 handle;
	int ret;

	if (args->flags || args->pad || !args->size)
		return -EINVAL;

	switch (args->placement) {
	case DRM_TERN_PLACEMENT_DEVICE:
		limit = tdev->mem_size;
		break;
	case DRM_TERN_PLACEMENT_HOST:
		limit = tern_host_mem_limit;
		break;
	default:
		return -EINVAL;
	}
	/* @limit is page aligned, so rounding up cannot cross it. */
	if (args->size > limit)
		return -E2BIG;

	shmem = drm_gem_shmem_create(drm, PAGE_ALIGN(args->size));
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);

	/* Counted from here: tern_gem_free() uncounts. */
	bo = to_tern_bo(&shmem->base);
	bo->placement = args->placement;
	atomic_inc(&tdev->buffer_count);

	if (bo->placement == DRM_TERN_PLACEMENT_DEVICE) {
		ret = tern_devmem_reserve(tdev, bo);
	} else {
		ret = tern_host_mem_reserve(shmem->base.size);
		if (!ret) {
			bo->host_mem_reserved = true;
			atomic64_add(shmem->base.size, &tdev->mem_host_used);
		}
	}
	if (ret)
		goto out_put;

	ret = tern_bo_vmap(bo);
	if (ret)
		goto out_put;

	/* Maps the buffer into the file through tern_gem_open(). */
	ret = drm_gem_handle_create(file, &shmem->base, &handle);
	if (ret)
		goto out_put;

	args->size = shmem->base.size;
	args->handle = handle;
	args->device_va = tern_vm_address(tfile->vm, bo);
	args->mmap_offset = drm_vma_node_offset_addr(&shmem->base.vma_node);
out_put:
	/* On success the handle holds the buffer. */
	drm_gem_object_put(&shmem->base);
	return ret;
}

int tern_bo_info_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct tern_file *tfile = file->driver_priv;
	struct drm_tern_bo_info *args = data;
	struct drm_gem_object *obj;
	struct tern_bo *bo;

	if (args->flags || args->pad)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	bo = to_tern_bo(obj);
	args->size = obj->size;
	args->device_va = tern_vm_address(tfile->vm, bo);
	args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	args->placement = bo->placement;
	drm_gem_object_put(obj);
	return 0;
}
