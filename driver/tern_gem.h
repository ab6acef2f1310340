/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern buffers: GEM shmem objects, optionally backed by device memory.
 */
#ifndef TERN_GEM_H
#define TERN_GEM_H

#include <linux/list.h>
#include <linux/mutex.h>

#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>

struct dma_buf;
struct drm_device;
struct drm_file;
struct tern_drm_device;

/**
 * struct tern_bo - a Tern buffer
 * @base: the shmem object; first, because the shmem helpers kfree() it
 * @vaddr: kernel mapping of the whole buffer, for its whole life
 * @placement: enum drm_tern_placement
 * @owner: fabric id of the device whose memory this is
 * @mem_node: the buffer's share of device memory (device placement only)
 * @peer: for a buffer imported from another Tern device, the exporter's
 *	buffer, whose mapping @vaddr is; the import holds a reference to it
 * @peer_dma_buf: the dma-buf it came through; the import holds it too
 * @host_mem_reserved: the buffer holds its size of the host memory budget
 * @ring: a user ring is made of the buffer, until that ring is freed
 *	(tern_ring.c); under @lock
 * @lock: protects @mappings and @ring
 * @mappings: the buffer's mappings in device virtual address spaces
 */
struct tern_bo {
	struct drm_gem_shmem_object base;
	void *vaddr;
	u32 placement;
	u32 owner;
	struct drm_mm_node mem_node;
	struct drm_gem_object *peer;
	struct dma_buf *peer_dma_buf;
	bool host_mem_reserved;
	bool ring;
	struct mutex lock;	/* protects mappings, ring */
	struct list_head mappings;
};

static inline struct tern_bo *to_tern_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct tern_bo, base.base);
}

void tern_host_mem_init(unsigned int mb);
u64 tern_host_mem_budget(void);
u64 tern_host_mem_pinned(void);
int tern_host_mem_reserve(u64 size);
void tern_host_mem_release(u64 size);

int tern_devmem_init(struct tern_drm_device *tdev, u64 size);
u64 tern_devmem_used(struct tern_drm_device *tdev);

struct drm_gem_object *tern_gem_create_object(struct drm_device *drm,
					      size_t size);

int tern_gem_open(struct drm_gem_object *obj, struct drm_file *file);
void tern_gem_close(struct drm_gem_object *obj, struct drm_file *file);

struct drm_gem_object *tern_gem_prime_import(struct drm_device *drm,
					     struct dma_buf *dma_buf);

int tern_bo_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int tern_bo_info_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);

#endif /* TERN_GEM_H */
