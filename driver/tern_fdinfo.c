// SPDX-License-Identifier: GPL-2.0
/*
 * Tern DRM fdinfo: what /proc/<pid>/fdinfo/<fd> of a Tern node shows, in
 * the keys of the kernel's Documentation/gpu/drm-usage-stats.rst, so that
 * nvtop- or gputop-style tools see Tern clients (6.5 and later; see
 * tern_compat.h). DRM prints drm-driver and drm-client-id, the client id
 * netlink reports too; Tern adds
 *  - drm-engine-e<N>: nanoseconds engine N spent running steps of the
 *    file's jobs (the file's share of the engine's work);
 *  - drm-memory-device, drm-memory-host: bytes of the buffers the file
 *    holds handles to, by placement (a buffer shared by two files counts in
 *    both), in bytes, without a unit.
 */
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "tern_compat.h"
#include "tern_drv.h"
#include "tern_stats.h"
#include "tern_vm.h"

#if TERN_HAVE_FDINFO

void tern_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct tern_drm_device *tdev = to_tern_drm_device(file->minor->dev);
	struct tern_file *tfile = file->driver_priv;
	const struct tern_usage *usage = &tfile->vm->usage;
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++)
		drm_printf(p, "drm-engine-e%u:\t%llu ns\n", i,
			   tern_client_engine_busy_ns(tdev, usage, i));
	drm_printf(p, "drm-memory-device:\t%llu\n",
		   (u64)atomic64_read(&usage->mem_device));
	drm_printf(p, "drm-memory-host:\t%llu\n",
		   (u64)atomic64_read(&usage->mem_host));
}

#endif
