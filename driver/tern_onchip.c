// SPDX-License-Identifier: GPL-2.0
/*
 * Tern on-chip memory.
 *
 * Every open file has SBUF and PSUM of its own on each core of the chip
 * (Documentation/compute.rst), made zeroed when a stream first needs them
 * and freed when the file is closed, as its buffers are unmapped: its
 * jobs run no more (tern_vm_close()). The device model asks for them
 * while it runs a job, on the engine's workqueue, where memory reclaim
 * may wait for the engine: it must find them there. So they are made
 * beforehand, in the submitter's context: SUBMIT, or a ring's KICK
 * (tern_ring.c), makes what the stream will use: a compute engine's job
 * its core's SBUF and PSUM, a DMA engine's job the SBUF of each core its
 * DMA_TILE packets name.
 *
 * They are host memory the kernel holds for the file, in no process's
 * RSS, as host-placement buffers pin: they take their bytes of the same
 * budget (host_mem_mb, tern_gem.c), so a file asking for more fails with
 * -ENOMEM whatever the number of cores, and are charged to the memory
 * cgroup of the process that made them.
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_onchip.h"

/* Where core @core's memory @space (enum drm_tern_space) is in @mem. */
static u32 tern_onchip_slot(u32 core, u32 space)
{
	return core * 2 + (space == DRM_TERN_SPACE_PSUM);
}

static u64 tern_onchip_bytes(const struct tern_onchip *onchip, u32 space)
{
	return (u64)DRM_TERN_PARTITIONS *
	       tern_space_partition_bytes(&onchip->shape, space);
}

int tern_onchip_init(struct tern_onchip *onchip,
		     const struct tern_core_shape *shape)
{
	onchip->shape = *shape;
	mutex_init(&onchip->lock);
	if (!shape->cores)
		return 0;
	onchip->mem = kcalloc(shape->cores * 2, sizeof(*onchip->mem),
			      GFP_KERNEL_ACCOUNT);
	return onchip->mem ? 0 : -ENOMEM;
}

/*
 * The file is closing and no job of it runs any more: its memories go,
 * and no more are made.
 */
void tern_onchip_free(struct tern_onchip *onchip)
{
	u32 slot;

	mutex_lock(&onchip->lock);
	onchip->closed = true;
	for (slot = 0; onchip->mem && slot < onchip->shape.cores * 2; slot++) {
		u8 *mem = onchip->mem[slot];

		if (!mem)
			continue;
		WRITE_ONCE(onchip->mem[slot], NULL);
		kvfree(mem);
		tern_host_mem_release(tern_onchip_bytes(onchip, slot % 2 ?
				      DRM_TERN_SPACE_PSUM : DRM_TERN_SPACE_SBUF));
	}
	mutex_unlock(&onchip->lock);
}

void tern_onchip_fini(struct tern_onchip *onchip)
{
	tern_onchip_free(onchip);
	kfree(onchip->mem);
	mutex_destroy(&onchip->lock);
}

/*
 * The memory @space of @core, or NULL if the file has not made it: the
 * device model's onchip callback, on the engine's workqueue.
 */
u8 *tern_onchip_find(struct tern_onchip *onchip, u32 core, u32 space)
{
	if (core >= onchip->shape.cores ||
	    (space != DRM_TERN_SPACE_SBUF && space != DRM_TERN_SPACE_PSUM))
		return NULL;
	/* Zeroed before it was stored. */
	return smp_load_acquire(&onchip->mem[tern_onchip_slot(core, space)]);
}

/*
 * Makes the memory @space of @core if it is not there: 0, -ENOMEM, or
 * -ECANCELED once the file is closing.
 */
static int tern_onchip_make(struct tern_onchip *onchip, u32 core, u32 space)
{
	u8 **slot = &onchip->mem[tern_onchip_slot(core, space)];
	u64 bytes = tern_onchip_bytes(onchip, space);
	u8 *mem;
	int ret = 0;

	mutex_lock(&onchip->lock);
	if (onchip->closed) {
		ret = -ECANCELED;
		goto out;
	}
	/* Another thread of the file may have made it meanwhile. */
	if (*slot)
		goto out;
	ret = tern_host_mem_reserve(bytes);
	if (ret)
		goto out;
	/* A budget refusal or a failure is the caller's -ENOMEM, not a warning. */
	mem = kvzalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mem) {
		tern_host_mem_release(bytes);
		ret = -ENOMEM;
		goto out;
	}
	smp_store_release(slot, mem);	/* zeroed first: tern_onchip_find() */
out:
	mutex_unlock(&onchip->lock);
	return ret;
}

/* Cores as bits: TERN_MAX_CORES fits. */
static_assert(TERN_MAX_CORES <= 64);

/*
 * The memories a stream of @target uses, a bit per core in @need[space]
 * (enum drm_tern_space): a compute engine's packets its core's SBUF and
 * PSUM, a DMA_TILE its core's SBUF. The stream has passed
 * tern_model_validate_on() for @target.
 */
static void tern_onchip_need(const struct tern_model_target *target,
			     const void *packets, u32 size,
			     u64 need[DRM_TERN_SPACE_PSUM + 1])
{
	const u8 *base = packets;
	u32 offset;

	memset(need, 0, sizeof(u64) * (DRM_TERN_SPACE_PSUM + 1));
	for (offset = 0; offset < size;) {
		const struct drm_tern_packet_header *hdr =
			(const void *)(base + offset);

		if (hdr->opcode == DRM_TERN_OP_DMA_TILE) {
			const struct drm_tern_packet_dma_tile *p =
				(const void *)hdr;

			need[DRM_TERN_SPACE_SBUF] |= BIT_ULL(p->core);
		} else if (hdr->opcode >= DRM_TERN_OP_MATMUL) {
			/* past validation, only compute packets are up there */
			need[DRM_TERN_SPACE_SBUF] |= BIT_ULL(target->core);
			need[DRM_TERN_SPACE_PSUM] |= BIT_ULL(target->core);
		}
		offset += (u32)hdr->length * 8;
	}
}

/*
 * Makes sure the memories a stream of @target uses exist, making them if
 * @may_alloc (process context, holding no lock the engines wait for): 0,
 * -ENOMEM if one could not be made (the host memory budget is spent, or
 * the kernel has no memory), -ECANCELED if the file is closing, or
 * -EAGAIN if one is missing and !@may_alloc.
 */
int tern_onchip_prepare(struct tern_onchip *onchip,
			const struct tern_model_target *target,
			const void *packets, u32 size, bool may_alloc)
{
	u64 need[DRM_TERN_SPACE_PSUM + 1];
	u32 core, space;
	int ret;

	if (!onchip->shape.cores)
		return 0;
	tern_onchip_need(target, packets, size, need);
	for (space = DRM_TERN_SPACE_SBUF; space <= DRM_TERN_SPACE_PSUM; space++) {
		for (core = 0; core < onchip->shape.cores; core++) {
			if (!(need[space] & BIT_ULL(core)) ||
			    tern_onchip_find(onchip, core, space))
				continue;
			if (!may_alloc)
				return -EAGAIN;
			ret = tern_onchip_make(onchip, core, space);
			if (ret)
				return ret;
		}
	}
	return 0;
}
