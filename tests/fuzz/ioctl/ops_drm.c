// SPDX-License-Identifier: MIT
/*
 * DRM core ioctls on Tern files that are about buffers and the device:
 * GEM_CLOSE, PRIME export and import (across devices too: an import of
 * another device's buffer is peer memory), GET_CAP and VERSION.
 */
#include <fcntl.h>
#include <string.h>
#include <xf86drm.h>

#include "fuzz.h"

void op_gem_close(struct fuzz_thread *t)
{
	struct pool_bo bo = { .handle = (uint32_t)rng_below(&t->rng, 64) };
	struct drm_gem_close args;
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	/* its own buffer, or another file's handle tried on this one */
	if (rng_chance(&t->rng, 85))
		pool_take(&t->worker->pool, POOL_BO, &t->rng, file.file, &bo);
	else
		pool_pick(&t->worker->pool, POOL_BO, &t->rng, 0, &bo);
	memset(&args, 0, sizeof(args));
	args.handle = value_u32(&t->rng, bo.handle);
	args.pad = value_flags(&t->rng, 0);
	fuzz_done(t, CALL_GEM_CLOSE, fuzz_ioctl(file.fd, DRM_IOCTL_GEM_CLOSE, &args));
}

void release_bo(struct fuzz_thread *t, const struct pool_bo *bo)
{
	struct drm_gem_close args = { .handle = bo->handle };
	struct pool_file file;

	if (pool_pick(&t->worker->pool, POOL_FILE, &t->rng, bo->file, &file))
		fuzz_done(t, CALL_GEM_CLOSE,
			  fuzz_ioctl(file.fd, DRM_IOCTL_GEM_CLOSE, &args));
}

void op_prime_handle_to_fd(struct fuzz_thread *t)
{
	struct pool_bo bo = { .handle = (uint32_t)rng_below(&t->rng, 64) };
	struct pool_fd fd, evicted;
	struct drm_prime_handle args;
	struct pool_file file;
	int err;

	if (!fuzz_file(t, &file))
		return;
	pool_pick(&t->worker->pool, POOL_BO, &t->rng,
		  rng_chance(&t->rng, 90) ? file.file : 0, &bo);
	memset(&args, 0, sizeof(args));
	args.handle = value_u32(&t->rng, bo.handle);
	args.flags = value_flags(&t->rng, DRM_CLOEXEC |
				 (rng_chance(&t->rng, 70) ? DRM_RDWR : 0));
	args.fd = -1;
	err = fuzz_ioctl(file.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &args);
	fuzz_done(t, CALL_PRIME_HANDLE_TO_FD, err);
	if (err)
		return;
	fd = (struct pool_fd){ .fd = args.fd, .kind = FD_DMA_BUF };
	if (pool_add(&t->worker->pool, POOL_FD, &fd, &evicted, &t->rng))
		release_fd(t, &evicted);
}

/* Remembers an imported buffer, with its address in the importing file. */
static void remember_import(struct fuzz_thread *t, const struct pool_file *file,
			    uint32_t handle)
{
	struct drm_tern_bo_info info = { .handle = handle };
	struct pool_bo bo, evicted;
	int err = fuzz_ioctl(file->fd, DRM_IOCTL_TERN_BO_INFO, &info);

	fuzz_done(t, CALL_TERN_BO_INFO, err);
	if (err)
		return;
	bo = (struct pool_bo){
		.file = file->file, .handle = handle, .size = info.size,
		.va = info.device_va, .mmap_offset = info.mmap_offset,
		.placement = info.placement, .import = true,
	};
	if (pool_add(&t->worker->pool, POOL_BO, &bo, &evicted, &t->rng))
		release_bo(t, &evicted);
}

void op_prime_fd_to_handle(struct fuzz_thread *t)
{
	struct pool_fd fd = { .fd = -1 };
	struct drm_prime_handle args;
	struct pool_file file;
	int err;

	if (!fuzz_file(t, &file))
		return;
	/* a dma-buf of any device, or a file descriptor of another kind */
	for (int tries = 0; tries < 4; tries++) {
		if (pool_pick(&t->worker->pool, POOL_FD, &t->rng, 0, &fd) &&
		    fd.kind == FD_DMA_BUF)
			break;
	}
	memset(&args, 0, sizeof(args));
	args.fd = value_fd(t, fd.fd);
	args.flags = value_flags(&t->rng, 0);
	err = fuzz_ioctl(file.fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args);
	fuzz_done(t, CALL_PRIME_FD_TO_HANDLE, err);
	if (!err)
		remember_import(t, &file, args.handle);
}

void op_get_cap(struct fuzz_thread *t)
{
	struct drm_get_cap args;
	struct pool_file file;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	/* the defined capabilities are 0x1..0x15; 0x13 and 0x14 are syncobjs */
	args.capability = rng_chance(&t->rng, 80) ? 1 + rng_below(&t->rng, 0x16) :
						    value_boundary(&t->rng);
	fuzz_done(t, CALL_GET_CAP, fuzz_ioctl(file.fd, DRM_IOCTL_GET_CAP, &args));
}

/*
 * The kernel copies at most the string's length, however large a length
 * is passed: the scratch buffers need only hold the strings.
 */
static size_t version_len(struct fuzz_thread *t)
{
	switch (rng_below(&t->rng, 8)) {
	case 0:
		return 0;
	case 1:
		return 1 + rng_below(&t->rng, 4);
	case 2:
		return (size_t)value_boundary(&t->rng);
	default:
		return 256;
	}
}

void op_version(struct fuzz_thread *t)
{
	struct drm_version args;
	struct pool_file file;
	char *scratch = (char *)t->scratch;

	if (!fuzz_file(t, &file))
		return;
	memset(&args, 0, sizeof(args));
	args.name_len = version_len(t);
	args.name = (char *)(uintptr_t)value_write_ptr(&t->rng, scratch);
	args.date_len = version_len(t);
	args.date = (char *)(uintptr_t)value_write_ptr(&t->rng, scratch + 256);
	args.desc_len = version_len(t);
	args.desc = (char *)(uintptr_t)value_write_ptr(&t->rng, scratch + 512);
	fuzz_done(t, CALL_VERSION, fuzz_ioctl(file.fd, DRM_IOCTL_VERSION, &args));
}
