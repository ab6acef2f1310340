// SPDX-License-Identifier: GPL-2.0
/*
 * Tern peer memory: a buffer of one Tern device imported on another.
 *
 * A dma-buf exported by a Tern device is imported without attaching to
 * it: the import is a buffer of the importing device that shares the
 * exporter's kernel mapping and names the exporter as the memory's owner,
 * so the device model routes every access to it over the fabric. The
 * import holds the exporter's buffer and the dma-buf for its whole life.
 * Device memory stays counted on the exporter.
 *
 * A dma-buf from any other exporter is refused with -EINVAL: an engine
 * reaches memory through the fabric, and a foreign buffer is on no fabric.
 */
#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_gem.h"

TERN_IMPORT_NS_DMA_BUF();

static void tern_peer_free(struct drm_gem_object *obj)
{
	struct tern_bo *bo = to_tern_bo(obj);

	/* Every mapping holds a reference: none can be left. */
	drm_WARN_ON(obj->dev, !list_empty(&bo->mappings));

	atomic_dec(&to_tern_drm_device(obj->dev)->buffer_count);
	drm_gem_object_release(obj);
	drm_gem_object_put(bo->peer);
	dma_buf_put(bo->peer_dma_buf);
	mutex_destroy(&bo->lock);
	kfree(bo);
}

/* The exporter's buffer serves the CPU mapping. */
static int tern_peer_mmap(struct drm_gem_object *obj,
			  struct vm_area_struct *vma)
{
	struct tern_bo *bo = to_tern_bo(obj);
	int ret;

	vma->vm_private_data = NULL;
	vma->vm_ops = NULL;
	ret = dma_buf_mmap(bo->peer_dma_buf, vma, 0);
	/* The mapping holds the exporter's buffer, not drm_gem_mmap_obj()'s. */
	if (!ret)
		drm_gem_object_put(obj);
	return ret;
}

static const struct drm_gem_object_funcs tern_peer_funcs = {
	.free = tern_peer_free,
	.open = tern_gem_open,
	.close = tern_gem_close,
	.mmap = tern_peer_mmap,
};

/* The exporter's object if the DRM core exported @dma_buf, else NULL. */
static struct drm_gem_object *tern_prime_exported_object(struct dma_buf *dma_buf)
{
	/* drm_gem_prime_dmabuf_ops is private; its release is not. */
	if (dma_buf->ops->release != drm_gem_dmabuf_release)
		return NULL;
	return dma_buf->priv;
}

struct drm_gem_object *tern_gem_prime_import(struct drm_device *drm,
					     struct dma_buf *dma_buf)
{
	struct drm_gem_object *exported, *obj;
	struct tern_bo *peer, *bo;
	int ret;

	exported = tern_prime_exported_object(dma_buf);
	if (!exported || exported->dev->driver != &tern_drm_driver)
		return ERR_PTR(-EINVAL);

	/* One of our own buffers comes back as itself. */
	if (exported->dev == drm) {
		drm_gem_object_get(exported);
		return exported;
	}

	/* An import re-exported shares the same mapping and owner. */
	peer = to_tern_bo(exported);
	if (drm_WARN_ON(drm, !peer->vaddr))
		return ERR_PTR(-EINVAL);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	obj = &bo->base.base;
	obj->funcs = &tern_peer_funcs;
	drm_gem_private_object_init(drm, obj, exported->size);
	mutex_init(&bo->lock);
	INIT_LIST_HEAD(&bo->mappings);

	/* For mmap() on the importing device's node. */
	ret = drm_gem_create_mmap_offset(obj);
	if (ret) {
		drm_gem_object_release(obj);
		mutex_destroy(&bo->lock);
		kfree(bo);
		return ERR_PTR(ret);
	}

	bo->vaddr = peer->vaddr;
	bo->placement = peer->placement;
	bo->owner = peer->owner;
	drm_gem_object_get(exported);
	bo->peer = exported;
	get_dma_buf(dma_buf);
	bo->peer_dma_buf = dma_buf;
	atomic_inc(&to_tern_drm_device(drm)->buffer_count);
	return obj;
}
