/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tern device virtual address spaces: one per open file.
 */
#ifndef TERN_VM_H
#define TERN_VM_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include <drm/drm_mm.h>

#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_onchip.h"

struct drm_device;
struct pid;
struct tern_bo;

#define TERN_VA_BASE	SZ_4G
#define TERN_VA_SIZE	(DRM_TERN_VA_LIMIT - TERN_VA_BASE)

/**
 * struct tern_usage - who an open file is and what it uses
 * @client_id: the file's id, unique among the module's clients
 * @pid: thread group of the process that opened the file (a reference);
 *	readers report its number in their own pid namespace
 * @uid: that process's effective uid when it opened the file (the euid of
 *	the file's f_cred); CLIENT_GET shows the file to a caller of this uid
 * @comm: that process's command name when it opened the file
 * @mem_device: bytes of device-placement buffers the file has handles to
 * @mem_host: bytes of host-placement buffers the file has handles to
 * @buffers: buffer handles the file holds
 * @queues: queues of the file
 * @jobs_submitted: jobs the file submitted
 * @jobs_active: jobs of the file not ended yet
 * @packet_bytes_active: bytes of their packet streams
 * @engine_busy_ns: engine time, by engine (one for each of the device's),
 *	of the file's ended stretches of its jobs' steps
 *
 * Jobs update it after the file has closed: it lives in the address space,
 * which each job holds.
 */
struct tern_usage {
	u64 client_id;
	struct pid *pid;
	kuid_t uid;
	char comm[TASK_COMM_LEN];
	atomic64_t mem_device;
	atomic64_t mem_host;
	atomic_t buffers;
	atomic_t queues;
	atomic64_t jobs_submitted;
	atomic_t jobs_active;
	atomic64_t packet_bytes_active;
	atomic64_t *engine_busy_ns;
};

/**
 * struct tern_vm - a device virtual address space
 * @drm: the device
 * @ref: held by the file and by each of its jobs
 * @lock: protects @mm; engines hold it for reading while they run a job of
 *	this address space, so unmapping waits for the running step
 * @mm: allocator of addresses, each node a struct tern_mapping
 * @closed: the file is closing: its jobs are cancelled
 * @onchip: the file's SBUF and PSUM of each core, which its jobs' steps
 *	use; freed when the file closes
 * @usage: the file's identity and usage
 */
struct tern_vm {
	struct drm_device *drm;
	struct kref ref;
	struct rw_semaphore lock;
	struct drm_mm mm;
	bool closed;
	struct tern_onchip onchip;
	struct tern_usage usage;
};

int tern_usage_reserve(struct tern_usage *usage, u32 bytes);
void tern_usage_release(struct tern_usage *usage, u32 bytes);

struct tern_vm *tern_vm_create(struct drm_device *drm);
void tern_vm_put(struct tern_vm *vm);
void tern_vm_close(struct tern_vm *vm);

static inline struct tern_vm *tern_vm_get(struct tern_vm *vm)
{
	kref_get(&vm->ref);
	return vm;
}

int tern_vm_map(struct tern_vm *vm, struct tern_bo *bo);
void tern_vm_unmap(struct tern_vm *vm, struct tern_bo *bo);
u64 tern_vm_address(struct tern_vm *vm, struct tern_bo *bo);

bool tern_vm_begin_run(struct tern_vm *vm);
void tern_vm_end_run(struct tern_vm *vm);
void *tern_vm_translate(void *vm, u64 va, u64 len, u32 *owner);
u8 *tern_vm_onchip(void *vm, u32 core, u32 space);

#endif /* TERN_VM_H */
