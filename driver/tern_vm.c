// SPDX-License-Identifier: GPL-2.0
/*
 * Tern device virtual address spaces.
 *
 * Each open file has its own address space. A buffer is mapped into a file's
 * space when the file gets a handle to it and unmapped when that handle is
 * closed. Engines translate every access of a job through the space of the
 * job's file, so a job can reach its own file's buffers and nothing else.
 */
#include <linux/cred.h>
#include <linux/lockdep.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "tern_accel.h"
#include "tern_gem.h"
#include "tern_vm.h"

/**
 * struct tern_mapping - a buffer mapped into an address space
 * @node: the addresses, in &tern_vm.mm
 * @vm: the address space
 * @bo: the buffer; the mapping holds a reference to it
 * @bo_link: entry in &tern_bo.mappings
 * @handles: handles of the file that refer to this buffer
 */
struct tern_mapping {
	struct drm_mm_node node;
	struct tern_vm *vm;
	struct tern_bo *bo;
	struct list_head bo_link;
	unsigned int handles;
};

struct tern_vm *tern_vm_create(struct drm_device *drm)
{
	struct tern_drm_device *tdev = to_tern_drm_device(drm);
	struct tern_vm *vm;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL_ACCOUNT);
	if (!vm)
		return NULL;
	vm->usage.engine_busy_ns = kcalloc(tdev->engine_count,
					   sizeof(*vm->usage.engine_busy_ns),
					   GFP_KERNEL_ACCOUNT);
	if (!vm->usage.engine_busy_ns)
		goto err_free_vm;
	if (tern_onchip_init(&vm->onchip, &tdev->shape))
		goto err_free_busy;

	vm->drm = drm;
	kref_init(&vm->ref);
	init_rwsem(&vm->lock);
	drm_mm_init(&vm->mm, TERN_VA_BASE, TERN_VA_SIZE);
	vm->usage.pid = get_pid(task_tgid(current));
	vm->usage.uid = current_euid();
	get_task_comm(vm->usage.comm, current);
	return vm;

err_free_busy:
	kfree(vm->usage.engine_busy_ns);
err_free_vm:
	kfree(vm);
	return NULL;
}

static void tern_mapping_free(struct tern_mapping *mapping)
{
	drm_gem_object_put(&mapping->bo->base.base);
	kfree(mapping);
}

static void tern_vm_release(struct kref *ref)
{
	struct tern_vm *vm = container_of(ref, struct tern_vm, ref);
	struct drm_mm_node *node, *next;

	/* Closing the last handle unmaps; nothing should be left here. */
	drm_mm_for_each_node_safe(node, next, &vm->mm) {
		struct tern_mapping *mapping =
			container_of(node, struct tern_mapping, node);

		drm_WARN_ONCE(vm->drm, 1, "buffer still mapped at 0x%llx\n",
			      node->start);
		mutex_lock(&mapping->bo->lock);
		list_del(&mapping->bo_link);
		mutex_unlock(&mapping->bo->lock);
		drm_mm_remove_node(node);
		tern_mapping_free(mapping);
	}
	drm_mm_takedown(&vm->mm);
	tern_onchip_fini(&vm->onchip);
	put_pid(vm->usage.pid);
	kfree(vm->usage.engine_busy_ns);
	kfree(vm);
}

/*
 * Counts a job of @bytes of packets in the file's in-flight limits:
 * -EBUSY if it would go past either. Scheduler jobs and ring jobs alike.
 */
int tern_usage_reserve(struct tern_usage *usage, u32 bytes)
{
	if (atomic_inc_return(&usage->jobs_active) > DRM_TERN_MAX_JOBS_PER_FILE ||
	    atomic64_add_return(bytes, &usage->packet_bytes_active) >
	    DRM_TERN_MAX_PACKET_BYTES_PER_FILE) {
		tern_usage_release(usage, bytes);
		return -EBUSY;
	}
	return 0;
}

/* The job has ended: it leaves the limits. */
void tern_usage_release(struct tern_usage *usage, u32 bytes)
{
	atomic_dec(&usage->jobs_active);
	atomic64_sub(bytes, &usage->packet_bytes_active);
}

void tern_vm_put(struct tern_vm *vm)
{
	kref_put(&vm->ref, tern_vm_release);
}

/*
 * Marks the file as closing. Once this returns no step of its jobs is
 * running and none will start: engines cancel them. So its on-chip
 * memory, which only steps use, goes now.
 */
void tern_vm_close(struct tern_vm *vm)
{
	down_write(&vm->lock);
	WRITE_ONCE(vm->closed, true);
	up_write(&vm->lock);
	tern_onchip_free(&vm->onchip);
}

/*
 * Counts a handle of @vm's file to @bo coming (@sign 1) or going (-1); a
 * buffer's bytes count once per file, from its first handle to its last.
 */
static void tern_vm_account(struct tern_vm *vm, struct tern_bo *bo, int sign,
			    bool first_or_last)
{
	struct tern_usage *usage = &vm->usage;
	s64 bytes = sign * (s64)bo->base.base.size;

	atomic_add(sign, &usage->buffers);
	if (!first_or_last)
		return;
	if (bo->placement == DRM_TERN_PLACEMENT_HOST)
		atomic64_add(bytes, &usage->mem_host);
	else
		atomic64_add(bytes, &usage->mem_device);
}

static struct tern_mapping *tern_vm_find(struct tern_vm *vm,
					 struct tern_bo *bo)
{
	struct tern_mapping *mapping;

	lockdep_assert_held(&bo->lock);
	list_for_each_entry(mapping, &bo->mappings, bo_link) {
		if (mapping->vm == vm)
			return mapping;
	}
	return NULL;
}

/*
 * Gives @bo addresses in @vm, or counts one more handle if it has them.
 * Returns 0, -ENOMEM, or -ENOSPC when the address space is full.
 */
int tern_vm_map(struct tern_vm *vm, struct tern_bo *bo)
{
	struct tern_mapping *mapping, *fresh;
	int ret = 0;

	/* Allocate before locking: engines take this lock to finish jobs. */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;

	down_write(&vm->lock);
	mutex_lock(&bo->lock);
	mapping = tern_vm_find(vm, bo);
	if (mapping) {
		mapping->handles++;
		tern_vm_account(vm, bo, 1, false);
		goto unlock;
	}

	ret = drm_mm_insert_node_in_range(&vm->mm, &fresh->node,
					  bo->base.base.size, 0, 0,
					  TERN_VA_BASE,
					  TERN_VA_BASE + TERN_VA_SIZE,
					  DRM_MM_INSERT_LOW);
	if (ret)
		goto unlock;

	drm_gem_object_get(&bo->base.base);
	fresh->vm = vm;
	fresh->bo = bo;
	fresh->handles = 1;
	list_add_tail(&fresh->bo_link, &bo->mappings);
	fresh = NULL;
	tern_vm_account(vm, bo, 1, true);
unlock:
	mutex_unlock(&bo->lock);
	up_write(&vm->lock);
	kfree(fresh);
	return ret;
}

/* Drops one handle's hold on @bo's mapping; the last one unmaps it. */
void tern_vm_unmap(struct tern_vm *vm, struct tern_bo *bo)
{
	struct tern_mapping *mapping;

	down_write(&vm->lock);
	mutex_lock(&bo->lock);
	mapping = tern_vm_find(vm, bo);
	if (drm_WARN_ON_ONCE(vm->drm, !mapping))
		goto unlock;

	mapping->handles--;
	tern_vm_account(vm, bo, -1, !mapping->handles);
	if (mapping->handles) {
		mapping = NULL;
	} else {
		list_del(&mapping->bo_link);
		drm_mm_remove_node(&mapping->node);
	}
unlock:
	mutex_unlock(&bo->lock);
	up_write(&vm->lock);

	if (mapping)
		tern_mapping_free(mapping);
}

/* Device virtual address of @bo in @vm, or 0 if it is not mapped there. */
u64 tern_vm_address(struct tern_vm *vm, struct tern_bo *bo)
{
	struct tern_mapping *mapping;
	u64 address = 0;

	mutex_lock(&bo->lock);
	mapping = tern_vm_find(vm, bo);
	if (mapping)
		address = mapping->node.start;
	mutex_unlock(&bo->lock);
	return address;
}

/*
 * Holds @vm's mappings in place while an engine runs a step of a job.
 * Returns false, holding nothing, if the file is closing.
 */
bool tern_vm_begin_run(struct tern_vm *vm)
{
	down_read(&vm->lock);
	if (READ_ONCE(vm->closed)) {
		up_read(&vm->lock);
		return false;
	}
	return true;
}

void tern_vm_end_run(struct tern_vm *vm)
{
	up_read(&vm->lock);
}

/*
 * The device model's translate callback: a CPU pointer to [@va, @va + @len)
 * if that range lies inside one buffer mapped in the space, else NULL.
 * *@owner receives the fabric id of the device whose memory the buffer is:
 * a buffer imported from another Tern device belongs to its exporter.
 */
void *tern_vm_translate(void *ctx, u64 va, u64 len, u32 *owner)
{
	struct tern_vm *vm = ctx;
	struct drm_mm_node *node;

	lockdep_assert_held(&vm->lock);

	/*
	 * The model asks before every access, and one step may run many
	 * packets: a good place to let the CPU go.
	 */
	cond_resched();

	if (va < TERN_VA_BASE || va - TERN_VA_BASE >= TERN_VA_SIZE)
		return NULL;

	/* At most one node holds @va: mappings never overlap. */
	drm_mm_for_each_node_in_range(node, &vm->mm, va, va + 1) {
		struct tern_mapping *mapping =
			container_of(node, struct tern_mapping, node);
		u64 offset = va - node->start;

		if (len > node->size - offset)
			return NULL;
		*owner = mapping->bo->owner;
		return mapping->bo->vaddr + offset;
	}
	return NULL;
}

/* The device model's onchip callback: the file's memories, made at submit. */
u8 *tern_vm_onchip(void *ctx, u32 core, u32 space)
{
	struct tern_vm *vm = ctx;

	return tern_onchip_find(&vm->onchip, core, space);
}
