/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Tern accelerator: the interface between tern.ko and userspace.
 *
 * Every ioctl works on one open file: buffer handles, queues and device
 * virtual addresses belong to the file that created them. Every ioctl is
 * allowed on the render node (Linux 6.1) and on the accel node (6.2+).
 *
 * Rules that hold for every ioctl below:
 *  - a flag bit that is not defined here, or a non-zero pad, fails with
 *    -EINVAL;
 *  - structures only grow at their end; the DRM core zero-fills fields a
 *    smaller (older) caller did not pass, and zero always means "default";
 *  - features are discovered through &drm_tern_info.capabilities, never
 *    through version numbers.
 *
 * Waiting for work uses DRM's own syncobj ioctls. The error of a failed job
 * is the status of its fence: export the out-syncobj as a sync_file and read
 * SYNC_IOC_FILE_INFO's status (-EFAULT: the job touched an address outside
 * its file's buffers; -ETIMEDOUT: the job exceeded the job timeout;
 * -ENOLINK: the job addressed a peer's memory that no chain of up links
 * reaches; -ECANCELED: the job's file closed before the job ended, while
 * it ran or before it started, or a SEM_WAIT_ABORT found
 * DRM_TERN_SEM_ABORT_CANCEL in its abort word; -ECONNRESET: a SEM_WAIT_ABORT
 * found another non-zero value there, a peer the job waits for has
 * failed; -EIO: its queue was banned, after
 * &drm_tern_info.queue_ban_timeouts of its jobs exceeded the job timeout;
 * -ENODEV: the device went away; -ENOMEM: a ring's job needed on-chip
 * memory that could not be made). A job whose input fence failed still
 * runs: the error does not propagate through dependencies.
 *
 * Limits that keep one file from holding what others need: a file may
 * have &drm_tern_info.max_jobs_in_flight jobs, and
 * &drm_tern_info.max_packet_bytes_in_flight bytes of packet streams,
 * submitted and not yet ended (SUBMIT fails with -EBUSY past either: wait
 * for a job to end and submit again); host-placement buffers and the
 * on-chip memories of all files together hold at most
 * &drm_tern_info.host_memory_budget bytes. Jobs of
 * different queues on one engine do not wait for one another: a job that
 * waits on a semaphore holds only its own queue.
 */
#ifndef _UAPI_TERN_ACCEL_H_
#define _UAPI_TERN_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_TERN_GET_INFO	0x00
#define DRM_TERN_BO_CREATE	0x01
#define DRM_TERN_BO_INFO	0x02
#define DRM_TERN_QUEUE_CREATE	0x03
#define DRM_TERN_QUEUE_DESTROY	0x04
#define DRM_TERN_SUBMIT		0x05
#define DRM_TERN_TOPOLOGY	0x06
#define DRM_TERN_RING_CREATE	0x07
#define DRM_TERN_RING_DESTROY	0x08
#define DRM_TERN_RING_KICK	0x09
#define DRM_TERN_RING_WAIT	0x0a

#define DRM_IOCTL_TERN_GET_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_GET_INFO, struct drm_tern_info)
#define DRM_IOCTL_TERN_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_BO_CREATE, struct drm_tern_bo_create)
#define DRM_IOCTL_TERN_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_BO_INFO, struct drm_tern_bo_info)
#define DRM_IOCTL_TERN_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_QUEUE_CREATE, struct drm_tern_queue_create)
#define DRM_IOCTL_TERN_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TERN_QUEUE_DESTROY, struct drm_tern_queue_destroy)
#define DRM_IOCTL_TERN_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TERN_SUBMIT, struct drm_tern_submit)
#define DRM_IOCTL_TERN_TOPOLOGY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_TOPOLOGY, struct drm_tern_topology)
#define DRM_IOCTL_TERN_RING_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_RING_CREATE, struct drm_tern_ring_create)
#define DRM_IOCTL_TERN_RING_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TERN_RING_DESTROY, struct drm_tern_ring_destroy)
#define DRM_IOCTL_TERN_RING_KICK \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TERN_RING_KICK, struct drm_tern_ring_kick)
#define DRM_IOCTL_TERN_RING_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TERN_RING_WAIT, struct drm_tern_ring_wait)

/* Capability bits reported in &drm_tern_info.capabilities. */
/** @DRM_TERN_CAP_MOCK: the device is mock hardware, not a chip. */
#define DRM_TERN_CAP_MOCK		(1ULL << 0)
/** @DRM_TERN_CAP_HOST_MEMORY: buffers can be placed in host memory. */
#define DRM_TERN_CAP_HOST_MEMORY	(1ULL << 1)
/** @DRM_TERN_CAP_SEMAPHORE: SEM_SIGNAL and SEM_WAIT packets are supported. */
#define DRM_TERN_CAP_SEMAPHORE	(1ULL << 2)
/** @DRM_TERN_CAP_TIMESTAMP: the TIMESTAMP packet is supported. */
#define DRM_TERN_CAP_TIMESTAMP	(1ULL << 3)
/** @DRM_TERN_CAP_FABRIC: the device has fabric ports (DRM_TERN_TOPOLOGY). */
#define DRM_TERN_CAP_FABRIC		(1ULL << 4)
/** @DRM_TERN_CAP_REDUCE: the REDUCE packet is supported. */
#define DRM_TERN_CAP_REDUCE		(1ULL << 5)
/**
 * @DRM_TERN_CAP_PEER_MEMORY: a buffer of another Tern device imported through
 * PRIME is addressable by this device's packets, over the fabric.
 */
#define DRM_TERN_CAP_PEER_MEMORY	(1ULL << 6)
/** @DRM_TERN_CAP_SEM_WAIT_ABORT: the SEM_WAIT_ABORT packet is supported. */
#define DRM_TERN_CAP_SEM_WAIT_ABORT	(1ULL << 7)
/** @DRM_TERN_CAP_REDUCE_DIVIDE: REDUCE takes the DRM_TERN_REDUCE_DIVIDE flag. */
#define DRM_TERN_CAP_REDUCE_DIVIDE	(1ULL << 8)
/**
 * @DRM_TERN_CAP_USER_RING: jobs can be written into a ring in a buffer of the
 * file's (DRM_IOCTL_TERN_RING_CREATE) instead of submitted one ioctl each.
 */
#define DRM_TERN_CAP_USER_RING	(1ULL << 9)
/**
 * @DRM_TERN_CAP_COMPUTE: the device is a chip of &drm_tern_info.core_count
 * cores, each with SBUF and PSUM and a tensor, a vector and a scalar
 * engine that run the compute packets (Documentation/compute.rst).
 */
#define DRM_TERN_CAP_COMPUTE		(1ULL << 10)

/** @DRM_TERN_PACKET_VERSION: the packet format this header describes. */
#define DRM_TERN_PACKET_VERSION	1

/**
 * struct drm_tern_info - what a device is and what it can do
 *
 * Errors: -EINVAL if @flags, @pad or @pad2 is not zero.
 */
struct drm_tern_info {
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @device_index: out, index of this device among Tern devices. */
	__u32 device_index;
	/** @engine_count: out, engines that execute packets (0..count-1). */
	__u32 engine_count;
	/** @fabric_port_count: out, chip-to-chip fabric ports. */
	__u32 fabric_port_count;
	/** @capabilities: out, DRM_TERN_CAP_* bits. */
	__u64 capabilities;
	/** @device_memory_size: out, bytes of device memory. */
	__u64 device_memory_size;
	/** @device_memory_used: out, bytes of device memory in use by all files. */
	__u64 device_memory_used;
	/** @va_base: out, lowest device virtual address given to buffers. */
	__u64 va_base;
	/** @va_size: out, size of each file's device virtual address space. */
	__u64 va_size;
	/** @engine_clock_hz: out, rate of the clock TIMESTAMP writes. */
	__u64 engine_clock_hz;
	/** @packet_version: out, DRM_TERN_PACKET_VERSION understood by engines. */
	__u32 packet_version;
	/** @max_submit_bytes: out, largest &drm_tern_submit.packets_size. */
	__u32 max_submit_bytes;
	/** @max_in_syncobjs: out, largest &drm_tern_submit.in_syncobj_count. */
	__u32 max_in_syncobjs;
	/** @pad: must be zero. */
	__u32 pad;
	/**
	 * @max_jobs_in_flight: out, jobs a file may have submitted and not
	 * yet ended (DRM_TERN_MAX_JOBS_PER_FILE).
	 */
	__u32 max_jobs_in_flight;
	/**
	 * @queue_ban_timeouts: out, jobs of one queue that may exceed the job
	 * timeout before the queue is banned.
	 */
	__u32 queue_ban_timeouts;
	/**
	 * @max_packet_bytes_in_flight: out, bytes of packet streams a file
	 * may have submitted and not yet ended
	 * (DRM_TERN_MAX_PACKET_BYTES_PER_FILE).
	 */
	__u64 max_packet_bytes_in_flight;
	/**
	 * @host_memory_budget: out, bytes that host-placement buffers and
	 * on-chip memories of all files and devices together may hold
	 * (module parameter host_mem_mb).
	 */
	__u64 host_memory_budget;
	/** @host_memory_pinned: out, bytes of it that they hold now. */
	__u64 host_memory_pinned;
	/**
	 * @dma_engine_count: out, the first engines, 0 to this minus one,
	 * which run DMA packets (COPY, FILL, REDUCE, DMA_TILE). Engine
	 * @dma_engine_count + 3 * c + t - 1 is core c's engine of type t
	 * (enum drm_tern_engine_type); &drm_tern_info.engine_count counts
	 * them all.
	 */
	__u32 dma_engine_count;
	/** @core_count: out, cores of the chip; 0 without DRM_TERN_CAP_COMPUTE. */
	__u32 core_count;
	/**
	 * @partitions: out, partitions of each core's SBUF and PSUM; 0
	 * without cores.
	 */
	__u32 partitions;
	/** @sbuf_partition_bytes: out, bytes of SBUF in each partition, or 0. */
	__u32 sbuf_partition_bytes;
	/** @psum_partition_bytes: out, bytes of PSUM in each partition, or 0. */
	__u32 psum_partition_bytes;
	/** @pad2: must be zero. */
	__u32 pad2;
};

/**
 * enum drm_tern_engine_type - what an engine runs
 *
 * Every engine runs NOP, TIMESTAMP and the semaphore packets; the rest
 * by type. Engines of one core run concurrently and order themselves
 * through semaphores, as the chip's do.
 */
enum drm_tern_engine_type {
	/** @DRM_TERN_ENGINE_DMA: COPY, FILL, REDUCE and DMA_TILE. */
	DRM_TERN_ENGINE_DMA = 0,
	/** @DRM_TERN_ENGINE_TENSOR: a core's systolic array: MATMUL. */
	DRM_TERN_ENGINE_TENSOR = 1,
	/**
	 * @DRM_TERN_ENGINE_VECTOR: TENSOR_TENSOR, TENSOR_SCALAR,
	 * TENSOR_REDUCE and TENSOR_COPY (with transposes).
	 */
	DRM_TERN_ENGINE_VECTOR = 2,
	/** @DRM_TERN_ENGINE_SCALAR: ACTIVATE, TENSOR_SCALAR and TENSOR_COPY. */
	DRM_TERN_ENGINE_SCALAR = 3,
};

/*
 * DRM_TERN_ENGINE_NO_CORE: the core the netlink family reports
 * (DRM_TERN_A_ENGINE_CORE) for an engine that is no core's own: a DMA
 * engine, which serves every core of the chip.
 */
#define DRM_TERN_ENGINE_NO_CORE	0xffffffffu

/* Partitions of SBUF and PSUM, and PSUM's banks in each partition. */
#define DRM_TERN_PARTITIONS		128
#define DRM_TERN_PSUM_BANK_BYTES	2048

/* The in-flight limits of every file (see &drm_tern_info). */
#define DRM_TERN_MAX_JOBS_PER_FILE		1024
#define DRM_TERN_MAX_PACKET_BYTES_PER_FILE	(64u << 20)

/** enum drm_tern_placement - where a buffer's memory lives */
enum drm_tern_placement {
	/** @DRM_TERN_PLACEMENT_DEVICE: the device's own memory (HBM). */
	DRM_TERN_PLACEMENT_DEVICE = 0,
	/** @DRM_TERN_PLACEMENT_HOST: host memory the device can reach. */
	DRM_TERN_PLACEMENT_HOST = 1,
};

/**
 * struct drm_tern_bo_create - create a buffer and map it for the device
 *
 * The buffer gets a device virtual address in the calling file's address
 * space, valid until its handle is closed (DRM_IOCTL_GEM_CLOSE), and an
 * mmap offset for the CPU. Sizes are rounded up to the page size. Device
 * addresses are per file: a buffer imported into another file through
 * PRIME gets an address of its own there.
 *
 * Errors: -EINVAL for unknown @flags, a non-zero @pad, an unknown
 * @placement or a zero @size; -E2BIG if @size exceeds the placement's total
 * memory (for host memory, &drm_tern_info.host_memory_budget); -ENOMEM if
 * not enough of it is free; -ENOSPC if the file's device address space is
 * full.
 */
struct drm_tern_bo_create {
	/** @size: in, bytes; out, the rounded size. */
	__u64 size;
	/** @placement: in, enum drm_tern_placement. */
	__u32 placement;
	/** @flags: in, must be zero (none defined yet). */
	__u32 flags;
	/** @handle: out, GEM handle. */
	__u32 handle;
	/** @pad: must be zero. */
	__u32 pad;
	/** @device_va: out, device virtual address of byte 0. */
	__u64 device_va;
	/** @mmap_offset: out, offset to pass to mmap() on the device file. */
	__u64 mmap_offset;
};

/**
 * struct drm_tern_bo_info - look up a buffer by handle
 *
 * Errors: -EINVAL for non-zero @flags or @pad; -ENOENT for an unknown
 * @handle.
 */
struct drm_tern_bo_info {
	/** @handle: in, GEM handle. */
	__u32 handle;
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @size: out, bytes. */
	__u64 size;
	/** @device_va: out, device virtual address in this file. */
	__u64 device_va;
	/** @mmap_offset: out, offset to pass to mmap(). */
	__u64 mmap_offset;
	/** @placement: out, enum drm_tern_placement. */
	__u32 placement;
	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * struct drm_tern_queue_create - create a queue on an engine
 *
 * Jobs submitted to one queue run in submission order.
 *
 * Errors: -EINVAL for non-zero @flags or @pad or an @engine not below
 * &drm_tern_info.engine_count (a DMA engine or a core's, see
 * &drm_tern_info.dma_engine_count); -ENOSPC if the file already has
 * DRM_TERN_MAX_QUEUES_PER_FILE queues (destroyed ones whose jobs are still
 * running do not count).
 */
struct drm_tern_queue_create {
	/** @engine: in, engine index. */
	__u32 engine;
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @queue_id: out, non-zero queue id. */
	__u32 queue_id;
	/** @pad: must be zero. */
	__u32 pad;
};

#define DRM_TERN_MAX_QUEUES_PER_FILE	256

/**
 * struct drm_tern_queue_destroy - destroy a queue
 *
 * Returns at once. Jobs already submitted still complete (or fail) and
 * signal their fences; the queue's id is taken until they have ended.
 *
 * Errors: -EINVAL for unknown @flags; -ENOENT for an unknown @queue_id
 * (or one already destroyed).
 */
struct drm_tern_queue_destroy {
	/** @queue_id: in. */
	__u32 queue_id;
	/** @flags: in, must be zero (none defined yet). */
	__u32 flags;
};

/**
 * struct drm_tern_submit - run a packet stream on a queue
 *
 * The packet stream is copied and checked before the ioctl returns: a
 * malformed packet fails the ioctl. Addresses are translated when the job
 * runs; one outside the file's buffers fails the job (fence error -EFAULT).
 *
 * Errors: -EINVAL for non-zero @flags or @pad, a @packets_size that is zero,
 * not a multiple of 8 or above &drm_tern_info.max_submit_bytes, an
 * @in_syncobj_count above &drm_tern_info.max_in_syncobjs, or a malformed
 * packet (unknown opcode, wrong length, unknown packet flag, non-zero
 * packet pad, misaligned or out-of-range address, a packet the queue's
 * engine does not run, a bad tile); -ENOENT for an unknown @queue_id or
 * syncobj handle; -EFAULT if @packets or @in_syncobjs cannot be read;
 * -EBUSY if the file's jobs in flight are at a limit
 * (&drm_tern_info.max_jobs_in_flight, max_packet_bytes_in_flight); -EIO
 * if the queue is banned (destroy it and make another); -ENOMEM if the
 * stream uses on-chip memory the file has not used before (a core's
 * engine its core's SBUF and PSUM, a DMA_TILE its core's SBUF) and it
 * cannot be made: it counts in &drm_tern_info.host_memory_budget.
 */
struct drm_tern_submit {
	/** @queue_id: in, queue to run on. */
	__u32 queue_id;
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @packets: in, user pointer to the packet stream. */
	__u64 packets;
	/** @packets_size: in, bytes in the packet stream. */
	__u32 packets_size;
	/** @in_syncobj_count: in, entries in @in_syncobjs. */
	__u32 in_syncobj_count;
	/**
	 * @in_syncobjs: in, user pointer to __u32 syncobj handles to wait
	 * for; a syncobj that holds no fence has nothing to wait for.
	 */
	__u64 in_syncobjs;
	/** @out_syncobj: in, syncobj that receives the job's fence, or 0. */
	__u32 out_syncobj;
	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * DOC: user rings
 *
 * A user ring is a queue whose jobs userspace writes into memory it shares
 * with the engine, as a chip's command ring is written, instead of
 * submitting each with an ioctl. The ring lives in a buffer of the file's
 * own (DRM_IOCTL_TERN_BO_CREATE): &struct drm_tern_ring_ctl at offset 0,
 * then the ring's records from DRM_TERN_RING_DATA_OFFSET. Userspace writes
 * records, then &drm_tern_ring_ctl.tail; the engine takes them in order
 * and runs each as a job of the ring, which ends by writing its fence
 * word. DRM_IOCTL_TERN_RING_KICK tells the engine to look when
 * &drm_tern_ring_ctl.kick says it is not looking already, and may run
 * the first jobs on the calling thread; DRM_IOCTL_TERN_RING_WAIT sleeps
 * until enough of the ring's jobs have ended.
 *
 * Nothing userspace writes into the buffer is trusted: the kernel keeps
 * its own head, copies each record out before it checks it, checks it as
 * SUBMIT checks a stream, and writes the fence word through the file's
 * own address space like any packet's write. A record that fails a check
 * stops the ring (&drm_tern_ring_ctl.error): that record and all after it
 * never run. Jobs of a ring count in the file's in-flight limits; records
 * past them wait in the ring, in the file's memory, until jobs end.
 */

/**
 * @DRM_TERN_MAX_RINGS_PER_FILE: rings a file may have, destroyed ones
 * included until they are freed.
 */
#define DRM_TERN_MAX_RINGS_PER_FILE	16

/** @DRM_TERN_RING_DATA_OFFSET: where a ring's records start in its buffer. */
#define DRM_TERN_RING_DATA_OFFSET	4096
/** @DRM_TERN_RING_MIN_SIZE: the smallest ring, in bytes of records. */
#define DRM_TERN_RING_MIN_SIZE	(64u << 10)
/** @DRM_TERN_RING_MAX_SIZE: the largest ring, in bytes of records. */
#define DRM_TERN_RING_MAX_SIZE	(16u << 20)

/**
 * struct drm_tern_ring_ctl - the first bytes of a ring's buffer
 *
 * Userspace writes @tail; the kernel writes the rest, for userspace to
 * read, and never reads them back.
 */
struct drm_tern_ring_ctl {
	/** @tail: userspace, bytes of records written, ever. */
	__u64 tail;
	/** @pad0: on a cache line of its own. */
	__u64 pad0[7];
	/** @head: kernel, bytes of records taken, ever. */
	__u64 head;
	/** @done: kernel, records whose jobs have ended, ever. */
	__u64 done;
	/**
	 * @error: kernel, 0, or the negative errno that stopped the ring:
	 * -EINVAL for a record that failed a check, -EFAULT for a fence word
	 * outside the file's buffers, -EIO for a ring banned after
	 * queue_ban_timeouts of its jobs timed out.
	 */
	__s32 error;
	/**
	 * @kick: kernel, 1 when no engine will look at the ring again by
	 * itself: after writing @tail, call DRM_IOCTL_TERN_RING_KICK.
	 */
	__u32 kick;
	/** @pad1: reserved. */
	__u64 pad1[5];
};

/** @DRM_TERN_RING_RECORD_PAD: the record fills the ring to its end; skipped. */
#define DRM_TERN_RING_RECORD_PAD	(1u << 0)
/** @DRM_TERN_RING_FENCE_ERROR_MASK: the fence value's bits a failure sets. */
#define DRM_TERN_RING_FENCE_ERROR_MASK	0xffffULL

/**
 * struct drm_tern_ring_record - one job in a ring, its packets after it
 *
 * Records start 8-byte aligned and never wrap: one that would pass the
 * ring's end is preceded by a DRM_TERN_RING_RECORD_PAD record that fills it.
 */
struct drm_tern_ring_record {
	/**
	 * @size: bytes of packets after the record: a non-zero multiple of 8,
	 * at most &drm_tern_info.max_submit_bytes, and with the record at
	 * most the ring's size. With DRM_TERN_RING_RECORD_PAD, the bytes to skip
	 * after the record, to the ring's end.
	 */
	__u32 size;
	/** @flags: DRM_TERN_RING_RECORD_PAD or 0. */
	__u32 flags;
	/**
	 * @fence_va: 0, or the device address of an 8-byte aligned word in a
	 * buffer of the file in this device's memory (not an import), which
	 * the engine writes when the job ends.
	 */
	__u64 fence_va;
	/**
	 * @fence_value: what the engine writes at @fence_va: this when the job
	 * succeeded, this | (-errno & DRM_TERN_RING_FENCE_ERROR_MASK) when it
	 * failed (the errors of `Job errors` in Documentation/uapi.rst).
	 * Bits 0-15 must be zero. A SEM_WAIT for @fence_value waits for
	 * the job's end either way.
	 */
	__u64 fence_value;
};

/**
 * struct drm_tern_ring_create - make a ring of a buffer, on an engine
 *
 * Jobs of the ring run in the order of its records, one after the
 * other; like a queue's, they do not wait for other queues' or rings'.
 * The ring holds its buffer until it is destroyed, whatever becomes of the
 * handle, and starts empty: the kernel zeroes the tail, head, done and
 * error of &struct drm_tern_ring_ctl. A ring counts as a queue in
 * DRM_TERN_MAX_QUEUES_PER_FILE until it is destroyed, and in
 * DRM_TERN_MAX_RINGS_PER_FILE and in the kernel memory all rings may hold
 * (module parameter ring_mem_kb) until it is freed, once the last job it
 * took has ended. A buffer holds one ring at a time, likewise until it is
 * freed.
 *
 * Errors: -EINVAL for non-zero @flags or @pad, an @engine not below
 * &drm_tern_info.engine_count, a @size that is not a power of two from
 * DRM_TERN_RING_MIN_SIZE to DRM_TERN_RING_MAX_SIZE, a buffer smaller than
 * DRM_TERN_RING_DATA_OFFSET + @size, or one imported from another device;
 * -ENOENT for an unknown @handle; -EBUSY if the buffer already holds a
 * ring; -ENOSPC if the file has DRM_TERN_MAX_QUEUES_PER_FILE queues and rings
 * already, or DRM_TERN_MAX_RINGS_PER_FILE rings not yet freed; -ENOMEM if the
 * rings of all files hold ring_mem_kb of kernel memory already.
 */
struct drm_tern_ring_create {
	/** @engine: in, engine index. */
	__u32 engine;
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @handle: in, the buffer: &struct drm_tern_ring_ctl, then records. */
	__u32 handle;
	/** @size: in, bytes of records: a power of two. */
	__u32 size;
	/** @ring_id: out, non-zero ring id. */
	__u32 ring_id;
	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * struct drm_tern_ring_destroy - destroy a ring
 *
 * Returns at once. The ring takes no more records; jobs already taken
 * still end and write their fence words.
 *
 * Errors: -EINVAL for non-zero @flags; -ENOENT for an unknown @ring_id.
 */
struct drm_tern_ring_destroy {
	/** @ring_id: in. */
	__u32 ring_id;
	/** @flags: in, must be zero. */
	__u32 flags;
};

/**
 * struct drm_tern_ring_kick - tell the engine records are waiting
 *
 * The engine takes the records written up to &drm_tern_ring_ctl.tail
 * (within the file's in-flight limits) and runs them. It may run the
 * first of them on the calling thread before returning, as far as they go
 * without waiting and for about 200 us (a step of a job, of bounded work,
 * may pass it); the rest run on the engine.
 *
 * Errors: -EINVAL for non-zero @flags; -ENOENT for an unknown @ring_id;
 * -EIO if the ring is stopped (&drm_tern_ring_ctl.error says why).
 */
struct drm_tern_ring_kick {
	/** @ring_id: in. */
	__u32 ring_id;
	/** @flags: in, must be zero. */
	__u32 flags;
};

/**
 * struct drm_tern_ring_wait - sleep until a ring's jobs have ended
 *
 * Returns once &drm_tern_ring_ctl.done is at least @done.
 *
 * Errors: -EINVAL for non-zero @flags or @pad; -ENOENT for an unknown
 * @ring_id; -ETIME if @timeout_ns passed first; -EIO if the ring is
 * stopped, or another thread destroyed it, and the jobs it took have all
 * ended short of @done; -ERESTARTSYS for a signal.
 */
struct drm_tern_ring_wait {
	/** @ring_id: in. */
	__u32 ring_id;
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @done: in, the count of ended jobs to wait for. */
	__u64 done;
	/** @timeout_ns: in, absolute CLOCK_MONOTONIC nanoseconds. */
	__s64 timeout_ns;
	/** @pad: must be zero. */
	__u64 pad;
};

/** enum drm_tern_port_state - state of a fabric port's link */
enum drm_tern_port_state {
	/** @DRM_TERN_PORT_UNCONNECTED: no link is attached to the port. */
	DRM_TERN_PORT_UNCONNECTED = 0,
	/** @DRM_TERN_PORT_UP: the link carries traffic. */
	DRM_TERN_PORT_UP = 1,
	/** @DRM_TERN_PORT_DOWN: the link is attached but carries nothing. */
	DRM_TERN_PORT_DOWN = 2,
};

/**
 * struct drm_tern_port_info - one fabric port and the link on it
 *
 * Counters are totals since the link was created; "tx" is traffic leaving
 * this port, "rx" traffic arriving at it.
 */
struct drm_tern_port_info {
	/** @port: port index on this device. */
	__u32 port;
	/** @state: enum drm_tern_port_state. */
	__u32 state;
	/** @peer_fabric_id: fabric id of the device at the other end. */
	__u32 peer_fabric_id;
	/** @peer_port: port index at the other end. */
	__u32 peer_port;
	/** @bandwidth: nominal bytes per second each way. */
	__u64 bandwidth;
	/** @latency_ns: nominal one-hop latency. */
	__u32 latency_ns;
	/** @pad: zero. */
	__u32 pad;
	/** @tx_bytes: bytes sent. */
	__u64 tx_bytes;
	/** @rx_bytes: bytes received. */
	__u64 rx_bytes;
	/** @tx_packets: transfers sent. */
	__u64 tx_packets;
	/** @rx_packets: transfers received. */
	__u64 rx_packets;
	/** @errors: link errors seen on this port. */
	__u64 errors;
};

/**
 * struct drm_tern_topology - this device's place in the fabric
 *
 * Fills up to @port_count entries of @ports and sets @port_count to the
 * number of ports the device has; call with @port_count 0 to learn it.
 *
 * Errors: -EINVAL for non-zero @flags or @pad; -EFAULT if @ports cannot be
 * written.
 */
struct drm_tern_topology {
	/** @flags: in, must be zero. */
	__u32 flags;
	/** @fabric_id: out, this device's id on the fabric. */
	__u32 fabric_id;
	/** @port_count: in, entries at @ports; out, ports of the device. */
	__u32 port_count;
	/** @pad: must be zero. */
	__u32 pad;
	/** @ports: in, user pointer to struct drm_tern_port_info entries. */
	__u64 ports;
};

/*
 * Packet format, version 1.
 *
 * A packet stream is a sequence of packets, each a multiple of 8 bytes and
 * starting with &struct drm_tern_packet_header. All fields are little
 * endian, as are semaphores, timestamps and REDUCE elements in device
 * memory: the chip's byte order. tern.ko and libtern build only for
 * little-endian hosts, where that is the CPU's order too. Addresses are
 * device virtual addresses of the submitting file; an access must lie
 * wholly inside one buffer. Opcode 0 is invalid so that zeroed memory
 * never runs.
 */
enum drm_tern_opcode {
	/** @DRM_TERN_OP_NOP: does nothing; its length may be 1..max to skip space. */
	DRM_TERN_OP_NOP = 0x01,
	/** @DRM_TERN_OP_COPY: copy @bytes from @src to @dst (ranges may overlap). */
	DRM_TERN_OP_COPY = 0x02,
	/** @DRM_TERN_OP_FILL: repeat a 32-bit pattern over @bytes at @dst. */
	DRM_TERN_OP_FILL = 0x03,
	/** @DRM_TERN_OP_TIMESTAMP: write the engine clock (u64) to @dst. */
	DRM_TERN_OP_TIMESTAMP = 0x04,
	/** @DRM_TERN_OP_SEM_SIGNAL: store (or add) a u64 value at @addr. */
	DRM_TERN_OP_SEM_SIGNAL = 0x05,
	/** @DRM_TERN_OP_SEM_WAIT: stall the engine until the u64 at @addr passes. */
	DRM_TERN_OP_SEM_WAIT = 0x06,
	/**
	 * @DRM_TERN_OP_SEM_WAIT_ABORT: SEM_WAIT that fails the job as soon as
	 * the u64 at @abort is not zero.
	 */
	DRM_TERN_OP_SEM_WAIT_ABORT = 0x07,
	/** @DRM_TERN_OP_REDUCE: dst[i] = src0[i] op src1[i] for @count elements. */
	DRM_TERN_OP_REDUCE = 0x10,
	/** @DRM_TERN_OP_DMA_TILE: device memory to an SBUF tile or back. */
	DRM_TERN_OP_DMA_TILE = 0x11,
	/*
	 * 0x12-0x1f are reserved for other DMA packets, 0x20-0x2f for
	 * fabric packets.
	 */
	/** @DRM_TERN_OP_MATMUL: tensor engine: stationary^T . moving into PSUM. */
	DRM_TERN_OP_MATMUL = 0x30,
	/** @DRM_TERN_OP_TENSOR_COPY: a tile to a tile, with casts or transposed. */
	DRM_TERN_OP_TENSOR_COPY = 0x31,
	/** @DRM_TERN_OP_TENSOR_TENSOR: elementwise op of two tiles. */
	DRM_TERN_OP_TENSOR_TENSOR = 0x32,
	/** @DRM_TERN_OP_TENSOR_SCALAR: a tile op a scalar, then op another. */
	DRM_TERN_OP_TENSOR_SCALAR = 0x33,
	/** @DRM_TERN_OP_TENSOR_REDUCE: sum or max along the free axis. */
	DRM_TERN_OP_TENSOR_REDUCE = 0x34,
	/** @DRM_TERN_OP_ACTIVATE: f(in * scale + bias), with an optional sum. */
	DRM_TERN_OP_ACTIVATE = 0x35,
	/* 0x36-0x3f are reserved for other compute packets. */
};

/**
 * struct drm_tern_packet_header - first 8 bytes of every packet
 */
struct drm_tern_packet_header {
	/** @opcode: enum drm_tern_opcode. */
	__u16 opcode;
	/** @length: whole packet in 8-byte units, header included. */
	__u16 length;
	/** @flags: opcode-specific; undefined bits must be zero. */
	__u32 flags;
};

/** struct drm_tern_packet_copy - DRM_TERN_OP_COPY, length 4 */
struct drm_tern_packet_copy {
	struct drm_tern_packet_header header;
	/** @src: source address. */
	__u64 src;
	/** @dst: destination address. */
	__u64 dst;
	/** @bytes: bytes to copy; zero is allowed. */
	__u64 bytes;
};

/**
 * struct drm_tern_packet_fill - DRM_TERN_OP_FILL, length 4
 *
 * Byte i of the destination receives byte (i % 4) of @pattern in little
 * endian order, so any address and length are allowed.
 */
struct drm_tern_packet_fill {
	struct drm_tern_packet_header header;
	/** @dst: destination address. */
	__u64 dst;
	/** @bytes: bytes to fill; zero is allowed. */
	__u64 bytes;
	/** @pattern: 32-bit pattern. */
	__u32 pattern;
	/** @pad: must be zero. */
	__u32 pad;
};

/** struct drm_tern_packet_timestamp - DRM_TERN_OP_TIMESTAMP, length 2 */
struct drm_tern_packet_timestamp {
	struct drm_tern_packet_header header;
	/** @dst: 8-byte aligned address receiving the clock in ticks. */
	__u64 dst;
};

/** @DRM_TERN_SEM_SIGNAL_ADD: SEM_SIGNAL adds @value instead of storing it. */
#define DRM_TERN_SEM_SIGNAL_ADD	(1u << 0)

/** struct drm_tern_packet_sem_signal - DRM_TERN_OP_SEM_SIGNAL, length 3 */
struct drm_tern_packet_sem_signal {
	struct drm_tern_packet_header header;
	/** @addr: 8-byte aligned address of the semaphore. */
	__u64 addr;
	/** @value: value stored (or added with DRM_TERN_SEM_SIGNAL_ADD). */
	__u64 value;
};

/** @DRM_TERN_SEM_WAIT_EQ: SEM_WAIT passes on equality instead of >=. */
#define DRM_TERN_SEM_WAIT_EQ	(1u << 0)

/**
 * struct drm_tern_packet_sem_wait - DRM_TERN_OP_SEM_WAIT, length 3
 *
 * The engine stalls until the u64 at @addr is >= @value (or == @value with
 * DRM_TERN_SEM_WAIT_EQ). A wait that never passes fails the job at the job
 * timeout (-ETIMEDOUT).
 */
struct drm_tern_packet_sem_wait {
	struct drm_tern_packet_header header;
	/** @addr: 8-byte aligned address of the semaphore. */
	__u64 addr;
	/** @value: value to wait for. */
	__u64 value;
};

/**
 * @DRM_TERN_SEM_ABORT_CANCEL: the abort word's value that fails a
 * SEM_WAIT_ABORT with -ECANCELED; any other non-zero value fails it with
 * -ECONNRESET.
 */
#define DRM_TERN_SEM_ABORT_CANCEL	1

/**
 * struct drm_tern_packet_sem_wait_abort - DRM_TERN_OP_SEM_WAIT_ABORT, length 4
 *
 * A SEM_WAIT that can be called off: the engine stalls until the u64 at
 * @addr is >= @value (or == @value with DRM_TERN_SEM_WAIT_EQ, the only flag),
 * as for SEM_WAIT, but every time it checks the wait it first reads the
 * u64 at @abort. While that is zero, nothing changes; once it is not,
 * the job fails at once, whatever the semaphore holds: with -ECANCELED
 * when it holds DRM_TERN_SEM_ABORT_CANCEL, with -ECONNRESET (a peer the job
 * waits for has failed) for any other value. A job whose abort word is
 * already set never passes the wait.
 *
 * This is how a collective's host side, or a watchdog, calls off work
 * that waits for a peer that has gone: it stores into the abort word
 * from the CPU (through a mapping) or from another job, and the stalled
 * job ends within a poll of the engine instead of at the job timeout
 * (the device side of NCCL's abort flag). One abort word may serve every
 * wait of a communicator.
 *
 * Both addresses are 8-byte aligned (SUBMIT fails with -EINVAL
 * otherwise); they may be one word, and either may be in a peer's memory
 * (DRM_TERN_CAP_PEER_MEMORY). An abort word outside the file's buffers
 * fails the job with -EFAULT, as any access does. Needs
 * DRM_TERN_CAP_SEM_WAIT_ABORT.
 */
struct drm_tern_packet_sem_wait_abort {
	struct drm_tern_packet_header header;
	/** @addr: 8-byte aligned address of the semaphore. */
	__u64 addr;
	/** @value: value to wait for. */
	__u64 value;
	/** @abort: 8-byte aligned address of the abort word. */
	__u64 abort;
};

/**
 * enum drm_tern_dtype - element types
 *
 * REDUCE takes FLOAT32 to UINT64; the compute packets take every type
 * but the 64-bit integers (Documentation/compute.rst).
 */
enum drm_tern_dtype {
	DRM_TERN_DTYPE_FLOAT32 = 0,
	DRM_TERN_DTYPE_FLOAT16 = 1,		/* IEEE 754 binary16 */
	DRM_TERN_DTYPE_BFLOAT16 = 2,
	DRM_TERN_DTYPE_INT32 = 3,
	DRM_TERN_DTYPE_UINT32 = 4,
	DRM_TERN_DTYPE_INT8 = 5,
	DRM_TERN_DTYPE_UINT8 = 6,
	DRM_TERN_DTYPE_INT64 = 7,
	DRM_TERN_DTYPE_UINT64 = 8,
	DRM_TERN_DTYPE_FLOAT8_E4M3 = 9,		/* OCP OFP8 E4M3 */
	DRM_TERN_DTYPE_FLOAT8_E5M2 = 10,	/* OCP OFP8 E5M2 */
};

/** enum drm_tern_redop - operations of REDUCE */
enum drm_tern_redop {
	DRM_TERN_REDOP_SUM = 0,
	DRM_TERN_REDOP_PROD = 1,
	DRM_TERN_REDOP_MIN = 2,
	DRM_TERN_REDOP_MAX = 3,
};

/**
 * @DRM_TERN_REDUCE_DIVIDE: REDUCE divides each sum by
 * &drm_tern_packet_reduce.divisor: only with DRM_TERN_REDOP_SUM and a divisor
 * of 1 or more (SUBMIT fails with -EINVAL otherwise). Needs
 * DRM_TERN_CAP_REDUCE_DIVIDE.
 */
#define DRM_TERN_REDUCE_DIVIDE	(1u << 0)

/**
 * struct drm_tern_packet_reduce - DRM_TERN_OP_REDUCE, length 6
 *
 * dst[i] = src0[i] @op src1[i] for i in [0, @count). Addresses are aligned
 * to the element size; dst may equal src0 or src1 exactly but may not
 * otherwise overlap them (SUBMIT fails with -EINVAL). Floating-point types are computed in float32
 * with round-to-nearest-even and rounded once to the element type; integer
 * types wrap. MIN and MAX of a NaN give NaN. Any operand may be in a peer
 * device's memory (DRM_TERN_CAP_PEER_MEMORY).
 *
 * With DRM_TERN_REDUCE_DIVIDE (header flag; op DRM_TERN_REDOP_SUM):
 * dst[i] = (src0[i] + src1[i]) / @divisor. Floating-point types: the sum
 * is computed in float32 and rounded, divided in float32 by @divisor
 * converted to float32 (exactly, up to 2^24) and rounded, then rounded
 * once to the element type, every rounding to nearest even. Integer
 * types: the sum wraps in the element type, then divides truncating
 * toward zero (signed for signed types). This is the average of
 * collectives: every reduction step sums, and the last one of each
 * element divides by the number of ranks.
 */
struct drm_tern_packet_reduce {
	struct drm_tern_packet_header header;
	/** @src0: first operand. */
	__u64 src0;
	/** @src1: second operand. */
	__u64 src1;
	/** @dst: result. */
	__u64 dst;
	/** @count: elements; zero is allowed. */
	__u64 count;
	/** @dtype: enum drm_tern_dtype. */
	__u16 dtype;
	/** @op: enum drm_tern_redop. */
	__u16 op;
	union {
		/** @pad: must be zero without DRM_TERN_REDUCE_DIVIDE. */
		__u32 pad;
		/** @divisor: with DRM_TERN_REDUCE_DIVIDE, 1 or more. */
		__u32 divisor;
	};
};

/*
 * The compute packets (Documentation/compute.rst has their numerics).
 * Their operands are tiles of the running core's SBUF and PSUM; each
 * file has on-chip memory of its own, zeroed when first used, which no
 * other file sees. A tile outside the memory, a type an operand may not
 * have, or an output that partly overlaps an input fails SUBMIT with
 * -EINVAL. Every float is computed in float32, rounding to nearest even,
 * and rounded once to the output's type (saturating for the 8-bit
 * floats); NaN results are the canonical quiet NaN. Conversions to an
 * integer type round to nearest even and saturate, NaN giving 0; a copy
 * between tiles of one type copies the bits.
 */

/** enum drm_tern_space - a core's on-chip memories */
enum drm_tern_space {
	/** @DRM_TERN_SPACE_SBUF: the state buffer, for data. */
	DRM_TERN_SPACE_SBUF = 1,
	/** @DRM_TERN_SPACE_PSUM: matmul results, float32, in banks. */
	DRM_TERN_SPACE_PSUM = 2,
};

/**
 * struct drm_tern_tile - a rectangle of a core's SBUF or PSUM
 *
 * @partitions partitions from @partition, and in each @elements elements
 * of @dtype starting @offset bytes into the partition: element [p][f] of
 * the tile is element f of partition @partition + p. @offset is a
 * multiple of the element size.
 */
struct drm_tern_tile {
	/** @offset: bytes into each partition. */
	__u32 offset;
	/** @partition: the first partition. */
	__u16 partition;
	/** @partitions: 1 to DRM_TERN_PARTITIONS. */
	__u16 partitions;
	/** @elements: along the free axis, 1 or more. */
	__u32 elements;
	/** @space: enum drm_tern_space. */
	__u8 space;
	/** @dtype: enum drm_tern_dtype. */
	__u8 dtype;
	/** @pad: must be zero. */
	__u16 pad;
};

/** @DRM_TERN_DMA_TILE_TO_MEMORY: DMA_TILE moves the tile to device memory. */
#define DRM_TERN_DMA_TILE_TO_MEMORY	(1u << 0)

/**
 * struct drm_tern_packet_dma_tile - DRM_TERN_OP_DMA_TILE, length 6
 *
 * A DMA engine moves @tile of core @core's SBUF from device memory (or,
 * with DRM_TERN_DMA_TILE_TO_MEMORY, to it), converting between @dtype in
 * memory and the tile's type. Element [p][f] is in memory at @va + p *
 * @partition_stride + f * @element_stride: rows (@element_stride the
 * element size), columns (@partition_stride the element size, a
 * transposing load) or any other grid. The addresses and strides are
 * multiples of the element size and the whole grid lies in one buffer,
 * which may be a peer's. Writes to memory go in partition order, then
 * element order.
 */
struct drm_tern_packet_dma_tile {
	struct drm_tern_packet_header header;
	/** @va: element [0][0] in device memory. */
	__u64 va;
	/** @partition_stride: bytes from [p][f] to [p + 1][f] in memory. */
	__u64 partition_stride;
	/** @element_stride: bytes from [p][f] to [p][f + 1] in memory. */
	__u32 element_stride;
	/** @core: the core whose SBUF holds @tile. */
	__u16 core;
	/** @dtype: enum drm_tern_dtype of the elements in memory. */
	__u8 dtype;
	/** @pad: must be zero. */
	__u8 pad;
	/** @tile: in SBUF. */
	struct drm_tern_tile tile;
};

/** @DRM_TERN_MATMUL_ACCUMULATE: MATMUL adds to the result already in PSUM. */
#define DRM_TERN_MATMUL_ACCUMULATE	(1u << 0)

/**
 * struct drm_tern_packet_matmul - DRM_TERN_OP_MATMUL, length 7
 *
 * result[m][n] = sum over k of stationary[k][m] * moving[k][n]: K =
 * the partitions of @stationary and @moving (at most 128), M =
 * @stationary's elements (at most 128), N = @moving's (at most 512).
 * Both inputs are in SBUF, of type FLOAT32, BFLOAT16, FLOAT16 or either
 * FLOAT8; @result is M partitions of N FLOAT32 in PSUM, inside one
 * DRM_TERN_PSUM_BANK_BYTES bank of each. Each sum starts from -0 (or,
 * with DRM_TERN_MATMUL_ACCUMULATE, from the value in PSUM) and adds the
 * terms for k = 0 to K - 1 in order, each by one fused multiply-add in
 * float32.
 */
struct drm_tern_packet_matmul {
	struct drm_tern_packet_header header;
	/** @stationary: [K][M], in SBUF. */
	struct drm_tern_tile stationary;
	/** @moving: [K][N], in SBUF. */
	struct drm_tern_tile moving;
	/** @result: [M][N] FLOAT32, in PSUM. */
	struct drm_tern_tile result;
};

/** @DRM_TERN_TENSOR_COPY_TRANSPOSE: out[f][p] = in[p][f] (vector engine). */
#define DRM_TERN_TENSOR_COPY_TRANSPOSE	(1u << 0)

/**
 * struct drm_tern_packet_tensor_copy - DRM_TERN_OP_TENSOR_COPY, length 5
 *
 * out[p][f] = in[p][f] converted to out's type; the tiles have one shape
 * and may be in either memory (this is how PSUM is read out). With
 * DRM_TERN_TENSOR_COPY_TRANSPOSE, out[f][p] = in[p][f] for an @in of at
 * most 128 elements, and the tiles do not overlap. Otherwise @out may be
 * @in itself when both types have one size.
 */
struct drm_tern_packet_tensor_copy {
	struct drm_tern_packet_header header;
	/** @in: the source. */
	struct drm_tern_tile in;
	/** @out: the destination. */
	struct drm_tern_tile out;
};

/** enum drm_tern_alu_op - elementwise operations, in float32 */
enum drm_tern_alu_op {
	/** @DRM_TERN_ALU_NONE: no operation (TENSOR_SCALAR's second only). */
	DRM_TERN_ALU_NONE = 0,
	/** @DRM_TERN_ALU_ADD: a + b. */
	DRM_TERN_ALU_ADD = 1,
	/** @DRM_TERN_ALU_SUBTRACT: a - b. */
	DRM_TERN_ALU_SUBTRACT = 2,
	/** @DRM_TERN_ALU_MULTIPLY: a * b. */
	DRM_TERN_ALU_MULTIPLY = 3,
	/** @DRM_TERN_ALU_MAX: the larger; NaN if either is, -0 below +0. */
	DRM_TERN_ALU_MAX = 4,
	/** @DRM_TERN_ALU_MIN: the smaller; NaN if either is, -0 below +0. */
	DRM_TERN_ALU_MIN = 5,
};

/**
 * struct drm_tern_packet_tensor_tensor - DRM_TERN_OP_TENSOR_TENSOR, length 8
 *
 * out[p][f] = in0[p][f] @op in1[p][f], three tiles of one shape. @out may
 * be either input itself when the types have one size.
 */
struct drm_tern_packet_tensor_tensor {
	struct drm_tern_packet_header header;
	/** @in0: the left operand. */
	struct drm_tern_tile in0;
	/** @in1: the right operand. */
	struct drm_tern_tile in1;
	/** @out: the result. */
	struct drm_tern_tile out;
	/** @op: enum drm_tern_alu_op, not NONE. */
	__u32 op;
	/** @pad: must be zero. */
	__u32 pad;
};

/** @DRM_TERN_SCALAR_OPERAND0_COLUMN: @operand0 is a column, not a value. */
#define DRM_TERN_SCALAR_OPERAND0_COLUMN	(1u << 0)
/** @DRM_TERN_SCALAR_OPERAND1_COLUMN: @operand1 is a column, not a value. */
#define DRM_TERN_SCALAR_OPERAND1_COLUMN	(1u << 1)

/**
 * struct drm_tern_packet_tensor_scalar - DRM_TERN_OP_TENSOR_SCALAR, length 7
 *
 * out[p][f] = (in[p][f] @op0 s0[p]) @op1 s1[p], each op rounded; without
 * a second op (@op1 NONE, @operand1 and its flag zero) just the first.
 * An operand is a float32 value (its bits), or with its COLUMN flag a
 * column: the float32 @operand bytes into each of @in's partitions of
 * SBUF. @out may be @in itself when the types have one size.
 */
struct drm_tern_packet_tensor_scalar {
	struct drm_tern_packet_header header;
	/** @in: the tile. */
	struct drm_tern_tile in;
	/** @out: the result, of @in's shape. */
	struct drm_tern_tile out;
	/** @op0: enum drm_tern_alu_op, not NONE. */
	__u16 op0;
	/** @op1: enum drm_tern_alu_op. */
	__u16 op1;
	/** @operand0: float32 bits, or the column's SBUF offset. */
	__u32 operand0;
	/** @operand1: float32 bits, or the column's SBUF offset. */
	__u32 operand1;
	/** @pad: must be zero. */
	__u32 pad;
};

/**
 * struct drm_tern_packet_tensor_reduce - DRM_TERN_OP_TENSOR_REDUCE, length 6
 *
 * out[p][0] = in[p][0] @op in[p][1] @op ... in order, each step rounded
 * in float32; @out has @in's partitions and one element, and does not
 * overlap it.
 */
struct drm_tern_packet_tensor_reduce {
	struct drm_tern_packet_header header;
	/** @in: the tile. */
	struct drm_tern_tile in;
	/** @out: one element per partition. */
	struct drm_tern_tile out;
	/** @op: DRM_TERN_ALU_ADD or DRM_TERN_ALU_MAX. */
	__u32 op;
	/** @pad: must be zero. */
	__u32 pad;
};

/** enum drm_tern_activation - the functions of ACTIVATE */
enum drm_tern_activation {
	DRM_TERN_ACT_IDENTITY = 0,
	DRM_TERN_ACT_RELU = 1,
	/** @DRM_TERN_ACT_GELU_TANH: gelu in its tanh form. */
	DRM_TERN_ACT_GELU_TANH = 2,
	DRM_TERN_ACT_SILU = 3,
	DRM_TERN_ACT_SIGMOID = 4,
	DRM_TERN_ACT_TANH = 5,
	DRM_TERN_ACT_EXP = 6,
	DRM_TERN_ACT_LOG = 7,
	DRM_TERN_ACT_RSQRT = 8,
	DRM_TERN_ACT_SQUARE = 9,
};

/** @DRM_TERN_ACTIVATE_SCALE_COLUMN: @scale is a column, not a value. */
#define DRM_TERN_ACTIVATE_SCALE_COLUMN	(1u << 0)
/** @DRM_TERN_ACTIVATE_BIAS_COLUMN: @bias is a column, not a value. */
#define DRM_TERN_ACTIVATE_BIAS_COLUMN	(1u << 1)
/** @DRM_TERN_ACTIVATE_SUM: also sum each partition's results at @sum. */
#define DRM_TERN_ACTIVATE_SUM		(1u << 2)

/**
 * struct drm_tern_packet_activate - DRM_TERN_OP_ACTIVATE, length 7
 *
 * out[p][f] = @function(fma(in[p][f], scale[p], bias[p])), the scale and
 * bias each a float32 value or a column (see TENSOR_SCALAR). With
 * DRM_TERN_ACTIVATE_SUM, the float32 @sum bytes into each of @in's
 * partitions of SBUF receives the sum of that partition's results, in
 * order, before they are rounded to @out's type. @out may be @in itself
 * when the types have one size.
 */
struct drm_tern_packet_activate {
	struct drm_tern_packet_header header;
	/** @in: the tile. */
	struct drm_tern_tile in;
	/** @out: the result, of @in's shape. */
	struct drm_tern_tile out;
	/** @function: enum drm_tern_activation. */
	__u16 function;
	/** @pad: must be zero. */
	__u16 pad;
	/** @scale: float32 bits, or the column's SBUF offset. */
	__u32 scale;
	/** @bias: float32 bits, or the column's SBUF offset. */
	__u32 bias;
	/** @sum: with DRM_TERN_ACTIVATE_SUM, the SBUF offset of the sums. */
	__u32 sum;
};

/**
 * @DRM_TERN_VA_LIMIT: no device virtual address or range end lies above this:
 * the end of every file's address space (&drm_tern_info.va_base +
 * &drm_tern_info.va_size), so a packet naming an address beyond it fails
 * SUBMIT rather than the job.
 */
#define DRM_TERN_VA_LIMIT		(1ULL << 47)

/*
 * Generic netlink family "tern" (Documentation/netlink/tern.yaml).
 *
 * Not an ioctl: any process may dump the devices (with their counters and
 * health) and the fabric's links. The clients of the machine
 * (DRM_TERN_CMD_CLIENT_GET) are listed in full to a process with CAP_PERFMON
 * or CAP_SYS_ADMIN; any other sees only its own, the files opened by a
 * process of its effective uid, and the device message's
 * DRM_TERN_A_DEV_CLIENT_COUNT still counts all. Only CAP_SYS_ADMIN may join
 * the "events" multicast group where the kernel can check it (6.7 and
 * later, 6.1.68 and later; joining fails with EPERM for anyone else), which
 * announces every link state change (DRM_TERN_CMD_LINK_STATE_NTF) and link
 * error (DRM_TERN_CMD_LINK_ERROR_NTF) with the link's attributes, memory
 * errors, engine resets and health changes. See Documentation/driver.rst,
 * "Who may see what". Unsigned 64-bit attributes are 8-byte aligned with
 * the set's PAD attribute.
 */
#define DRM_TERN_GENL_NAME		"tern"
#define DRM_TERN_GENL_VERSION	1
#define DRM_TERN_MCGRP_EVENTS	"events"

/** enum tern_genl_cmd - commands of the "tern" family */
enum tern_genl_cmd {
	DRM_TERN_CMD_UNSPEC,
	/**
	 * @DRM_TERN_CMD_DEVICE_GET: dump: one message per device, DRM_TERN_A_DEV_*;
	 * DRM_TERN_A_DEV_INDEX in the request limits it to that device.
	 */
	DRM_TERN_CMD_DEVICE_GET,
	/**
	 * @DRM_TERN_CMD_LINK_GET: dump: one message per link, DRM_TERN_A_LINK_*;
	 * DRM_TERN_A_LINK_INDEX in the request limits it to that link.
	 */
	DRM_TERN_CMD_LINK_GET,
	/** @DRM_TERN_CMD_LINK_STATE_NTF: event: a link went up or down. */
	DRM_TERN_CMD_LINK_STATE_NTF,
	/** @DRM_TERN_CMD_LINK_ERROR_NTF: event: a link saw an error. */
	DRM_TERN_CMD_LINK_ERROR_NTF,
	/**
	 * @DRM_TERN_CMD_CLIENT_GET: dump: one message per open file of every
	 * device, DRM_TERN_A_CLIENT_*; DRM_TERN_A_CLIENT_DEVICE in the request limits
	 * it to that device. Without CAP_PERFMON or CAP_SYS_ADMIN, of both
	 * the socket's opener and the sender, only the files opened by a
	 * process whose effective uid was theirs.
	 */
	DRM_TERN_CMD_CLIENT_GET,
	/**
	 * @DRM_TERN_CMD_MEM_ERROR_NTF: event: device memory reported an error:
	 * DRM_TERN_A_DEV_INDEX, DRM_TERN_A_DEV_MEM_ERROR_KIND, DRM_TERN_A_DEV_MEM_ERROR_ADDR,
	 * the two memory error counters and the device's health and reasons.
	 */
	DRM_TERN_CMD_MEM_ERROR_NTF,
	/**
	 * @DRM_TERN_CMD_ENGINE_RESET_NTF: event: a job ran past the job timeout,
	 * because the engine stopped making progress (a hang) or the job
	 * stalled (e.g. on a semaphore that never passed); it was failed
	 * with -ETIMEDOUT and the engine was reset: DRM_TERN_A_DEV_INDEX, one
	 * DRM_TERN_A_DEV_ENGINE nest (with the guilty client's id and command)
	 * and the device's health and reasons. No pid: a multicast message
	 * has no one reader whose pid namespace would apply. Resets in quick
	 * succession may be announced once, naming the last guilty client;
	 * the counters in the nest count them all.
	 */
	DRM_TERN_CMD_ENGINE_RESET_NTF,
	/**
	 * @DRM_TERN_CMD_HEALTH_NTF: event: a device's health changed:
	 * DRM_TERN_A_DEV_INDEX, DRM_TERN_A_DEV_HEALTH, DRM_TERN_A_DEV_HEALTH_REASONS.
	 */
	DRM_TERN_CMD_HEALTH_NTF,

	__TERN_CMD_MAX,
};
#define DRM_TERN_CMD_MAX		(__TERN_CMD_MAX - 1)

/** enum tern_genl_device_attr - attributes of a device message */
enum tern_genl_device_attr {
	DRM_TERN_A_DEV_UNSPEC,
	/** @DRM_TERN_A_DEV_PAD: padding for 64-bit attributes. */
	DRM_TERN_A_DEV_PAD,
	/** @DRM_TERN_A_DEV_INDEX: u32, &drm_tern_info.device_index. */
	DRM_TERN_A_DEV_INDEX,
	/** @DRM_TERN_A_DEV_FABRIC_ID: u32, &drm_tern_topology.fabric_id. */
	DRM_TERN_A_DEV_FABRIC_ID,
	/** @DRM_TERN_A_DEV_NAME: string, the device's bus name ("tern.0"). */
	DRM_TERN_A_DEV_NAME,
	/** @DRM_TERN_A_DEV_NODE: string, its device node ("/dev/accel/accel0"). */
	DRM_TERN_A_DEV_NODE,
	/** @DRM_TERN_A_DEV_MEM_SIZE: u64, bytes of device memory. */
	DRM_TERN_A_DEV_MEM_SIZE,
	/** @DRM_TERN_A_DEV_MEM_USED: u64, bytes of device memory in use. */
	DRM_TERN_A_DEV_MEM_USED,
	/** @DRM_TERN_A_DEV_ENGINE_COUNT: u32, engines. */
	DRM_TERN_A_DEV_ENGINE_COUNT,
	/** @DRM_TERN_A_DEV_PORT_COUNT: u32, fabric ports. */
	DRM_TERN_A_DEV_PORT_COUNT,
	/** @DRM_TERN_A_DEV_CAPABILITIES: u64, DRM_TERN_CAP_* bits. */
	DRM_TERN_A_DEV_CAPABILITIES,
	/**
	 * @DRM_TERN_A_DEV_BUS_ID: string, "<bus>:<device>", e.g.
	 * "platform:tern.0" for mock hardware, "pci:0000:3b:00.0" for a chip.
	 */
	DRM_TERN_A_DEV_BUS_ID,
	/** @DRM_TERN_A_DEV_DRIVER_VERSION: string, tern.ko's version. */
	DRM_TERN_A_DEV_DRIVER_VERSION,
	/** @DRM_TERN_A_DEV_HEALTH: u32, enum tern_health. */
	DRM_TERN_A_DEV_HEALTH,
	/** @DRM_TERN_A_DEV_HEALTH_REASONS: u32, DRM_TERN_HEALTH_REASON_* bits. */
	DRM_TERN_A_DEV_HEALTH_REASONS,
	/** @DRM_TERN_A_DEV_MEM_HOST_USED: u64, bytes of host-memory buffers. */
	DRM_TERN_A_DEV_MEM_HOST_USED,
	/** @DRM_TERN_A_DEV_BUFFER_COUNT: u32, buffers (GEM objects) alive. */
	DRM_TERN_A_DEV_BUFFER_COUNT,
	/**
	 * @DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED: u64, correctable device memory
	 * errors since the module loaded.
	 */
	DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED,
	/**
	 * @DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED: u64, uncorrectable device
	 * memory errors since the module loaded.
	 */
	DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED,
	/** @DRM_TERN_A_DEV_JOBS_COMPLETED: u64, jobs that ended without error. */
	DRM_TERN_A_DEV_JOBS_COMPLETED,
	/** @DRM_TERN_A_DEV_JOBS_FAILED: u64, jobs that ended with an error. */
	DRM_TERN_A_DEV_JOBS_FAILED,
	/** @DRM_TERN_A_DEV_JOB_TIMEOUTS: u64, jobs failed by the job timeout. */
	DRM_TERN_A_DEV_JOB_TIMEOUTS,
	/**
	 * @DRM_TERN_A_DEV_ENGINE_RESETS: u64, engine resets, one per job
	 * timeout, whatever its cause.
	 */
	DRM_TERN_A_DEV_ENGINE_RESETS,
	/** @DRM_TERN_A_DEV_ENGINES_BUSY: u32, engines running a job now. */
	DRM_TERN_A_DEV_ENGINES_BUSY,
	/**
	 * @DRM_TERN_A_DEV_CLIENT_COUNT: u32, open files of the device, every
	 * user's, those DRM_TERN_CMD_CLIENT_GET does not show this caller too.
	 */
	DRM_TERN_A_DEV_CLIENT_COUNT,
	/**
	 * @DRM_TERN_A_DEV_ENGINE: nest, DRM_TERN_A_ENGINE_*; one per engine, in
	 * engine order.
	 */
	DRM_TERN_A_DEV_ENGINE,
	/** @DRM_TERN_A_DEV_MEM_ERROR_KIND: u32, enum tern_mem_error_kind (events). */
	DRM_TERN_A_DEV_MEM_ERROR_KIND,
	/** @DRM_TERN_A_DEV_MEM_ERROR_ADDR: u64, device memory offset (events). */
	DRM_TERN_A_DEV_MEM_ERROR_ADDR,
	/**
	 * @DRM_TERN_A_DEV_TOPOLOGY: string, the shape of the device's fabric, as
	 * the mock_topology parameter spells it but resolved: "torus:4x4",
	 * "ring", "full", "custom:0-1,1-2" or "none".
	 */
	DRM_TERN_A_DEV_TOPOLOGY,
	/**
	 * @DRM_TERN_A_DEV_ENGINE_HANG_RESETS: u64, engine resets of a hung
	 * engine (one that made no progress), all engines; part of
	 * DRM_TERN_A_DEV_ENGINE_RESETS. These make DRM_TERN_HEALTH_REASON_ENGINE_RESET.
	 */
	DRM_TERN_A_DEV_ENGINE_HANG_RESETS,

	__TERN_A_DEV_MAX,
};
#define DRM_TERN_A_DEV_MAX		(__TERN_A_DEV_MAX - 1)

/**
 * enum tern_genl_link_attr - attributes of a link message
 *
 * A link joins end A (device, port) to end B; counters are totals since
 * the module loaded.
 */
enum tern_genl_link_attr {
	DRM_TERN_A_LINK_UNSPEC,
	/** @DRM_TERN_A_LINK_PAD: padding for 64-bit attributes. */
	DRM_TERN_A_LINK_PAD,
	/** @DRM_TERN_A_LINK_INDEX: u32, the link's index on the fabric. */
	DRM_TERN_A_LINK_INDEX,
	/** @DRM_TERN_A_LINK_DEVICE_A: u32, fabric id of end A's device. */
	DRM_TERN_A_LINK_DEVICE_A,
	/** @DRM_TERN_A_LINK_PORT_A: u32, end A's port. */
	DRM_TERN_A_LINK_PORT_A,
	/** @DRM_TERN_A_LINK_DEVICE_B: u32, fabric id of end B's device. */
	DRM_TERN_A_LINK_DEVICE_B,
	/** @DRM_TERN_A_LINK_PORT_B: u32, end B's port. */
	DRM_TERN_A_LINK_PORT_B,
	/** @DRM_TERN_A_LINK_STATE: u32, DRM_TERN_PORT_UP or DRM_TERN_PORT_DOWN. */
	DRM_TERN_A_LINK_STATE,
	/** @DRM_TERN_A_LINK_BYTES_A_TO_B: u64, bytes from A to B. */
	DRM_TERN_A_LINK_BYTES_A_TO_B,
	/** @DRM_TERN_A_LINK_BYTES_B_TO_A: u64, bytes from B to A. */
	DRM_TERN_A_LINK_BYTES_B_TO_A,
	/** @DRM_TERN_A_LINK_PACKETS_A_TO_B: u64, transfers from A to B. */
	DRM_TERN_A_LINK_PACKETS_A_TO_B,
	/** @DRM_TERN_A_LINK_PACKETS_B_TO_A: u64, transfers from B to A. */
	DRM_TERN_A_LINK_PACKETS_B_TO_A,
	/** @DRM_TERN_A_LINK_ERRORS: u64, link errors. */
	DRM_TERN_A_LINK_ERRORS,
	/** @DRM_TERN_A_LINK_BANDWIDTH: u64, nominal bytes per second each way. */
	DRM_TERN_A_LINK_BANDWIDTH,
	/** @DRM_TERN_A_LINK_LATENCY_NS: u32, nominal one-hop latency. */
	DRM_TERN_A_LINK_LATENCY_NS,

	__TERN_A_LINK_MAX,
};
#define DRM_TERN_A_LINK_MAX		(__TERN_A_LINK_MAX - 1)

/**
 * enum tern_genl_engine_attr - attributes of a DRM_TERN_A_DEV_ENGINE nest
 *
 * Counters are totals since the module loaded.
 */
enum tern_genl_engine_attr {
	DRM_TERN_A_ENGINE_UNSPEC,
	/** @DRM_TERN_A_ENGINE_PAD: padding for 64-bit attributes. */
	DRM_TERN_A_ENGINE_PAD,
	/** @DRM_TERN_A_ENGINE_INDEX: u32, the engine's number. */
	DRM_TERN_A_ENGINE_INDEX,
	/** @DRM_TERN_A_ENGINE_BUSY: u32, 1 while the engine has a job, else 0. */
	DRM_TERN_A_ENGINE_BUSY,
	/** @DRM_TERN_A_ENGINE_BUSY_NS: u64, total time the engine had a job. */
	DRM_TERN_A_ENGINE_BUSY_NS,
	/** @DRM_TERN_A_ENGINE_JOBS_QUEUED: u32, jobs handed to it, not ended. */
	DRM_TERN_A_ENGINE_JOBS_QUEUED,
	/** @DRM_TERN_A_ENGINE_JOBS_COMPLETED: u64, jobs ended without error. */
	DRM_TERN_A_ENGINE_JOBS_COMPLETED,
	/** @DRM_TERN_A_ENGINE_JOBS_FAILED: u64, jobs ended with an error. */
	DRM_TERN_A_ENGINE_JOBS_FAILED,
	/** @DRM_TERN_A_ENGINE_TIMEOUTS: u64, its jobs failed by the job timeout. */
	DRM_TERN_A_ENGINE_TIMEOUTS,
	/** @DRM_TERN_A_ENGINE_RESETS: u64, times it was reset. */
	DRM_TERN_A_ENGINE_RESETS,
	/** @DRM_TERN_A_ENGINE_HUNG: u32, 1 while it is hung (awaiting reset). */
	DRM_TERN_A_ENGINE_HUNG,
	/**
	 * @DRM_TERN_A_ENGINE_GUILTY_PID: u32, no longer sent by tern.ko. It
	 * was the pid of the reset job's owner in the initial pid namespace,
	 * which is another process, or none, in a listener's own namespace;
	 * DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID names the owner instead. The
	 * simulated machine, whose listeners are its user's own processes,
	 * sends it beside the client id.
	 */
	DRM_TERN_A_ENGINE_GUILTY_PID,
	/**
	 * @DRM_TERN_A_ENGINE_GUILTY_COMM: string, the command of the process
	 * that opened the reset job's file (events).
	 */
	DRM_TERN_A_ENGINE_GUILTY_COMM,
	/**
	 * @DRM_TERN_A_ENGINE_HANG_RESETS: u64, resets while it was hung; part of
	 * DRM_TERN_A_ENGINE_RESETS.
	 */
	DRM_TERN_A_ENGINE_HANG_RESETS,
	/**
	 * @DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID: u64, DRM_TERN_A_CLIENT_ID of the file
	 * whose job the reset failed (events); CLIENT_GET, dumped in the
	 * listener's own pid namespace, gives its pid while it is open.
	 */
	DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID,
	/**
	 * @DRM_TERN_A_ENGINE_STEPS: u64, steps its jobs ran, each bounded by
	 * the model's work budget; writing 0 to debugfs "steps" restarts it.
	 */
	DRM_TERN_A_ENGINE_STEPS,
	/** @DRM_TERN_A_ENGINE_STEP_MAX_NS: u64, the longest of those steps. */
	DRM_TERN_A_ENGINE_STEP_MAX_NS,
	/**
	 * @DRM_TERN_A_ENGINE_TYPE: u32, enum drm_tern_engine_type: what the
	 * engine runs.
	 */
	DRM_TERN_A_ENGINE_TYPE,
	/**
	 * @DRM_TERN_A_ENGINE_CORE: u32, the core whose tensor, vector or
	 * scalar engine it is (0 to &drm_tern_info.core_count - 1), or
	 * DRM_TERN_ENGINE_NO_CORE for a DMA engine. A tern.ko that sends
	 * neither this nor DRM_TERN_A_ENGINE_TYPE leaves an engine's type to
	 * &drm_tern_info.dma_engine_count.
	 */
	DRM_TERN_A_ENGINE_CORE,

	__TERN_A_ENGINE_MAX,
};
#define DRM_TERN_A_ENGINE_MAX	(__TERN_A_ENGINE_MAX - 1)

/**
 * enum tern_genl_client_attr - attributes of a client message
 *
 * A client is one open file of a device's node. Memory is what the buffers
 * the file holds handles to occupy; a buffer shared by two files counts in
 * both.
 */
enum tern_genl_client_attr {
	DRM_TERN_A_CLIENT_UNSPEC,
	/** @DRM_TERN_A_CLIENT_PAD: padding for 64-bit attributes. */
	DRM_TERN_A_CLIENT_PAD,
	/** @DRM_TERN_A_CLIENT_DEVICE: u32, the device's index. */
	DRM_TERN_A_CLIENT_DEVICE,
	/**
	 * @DRM_TERN_A_CLIENT_ID: u64, unique among the module's clients, never
	 * reused; on Linux 6.5 and later DRM's client id, the drm-client-id
	 * of the file's fdinfo.
	 */
	DRM_TERN_A_CLIENT_ID,
	/**
	 * @DRM_TERN_A_CLIENT_PID: u32, process (thread group) that opened it, in
	 * the pid namespace of the process dumping; 0 if not visible there.
	 */
	DRM_TERN_A_CLIENT_PID,
	/** @DRM_TERN_A_CLIENT_COMM: string, that process's command name. */
	DRM_TERN_A_CLIENT_COMM,
	/** @DRM_TERN_A_CLIENT_MEM_DEVICE: u64, bytes of device-memory buffers. */
	DRM_TERN_A_CLIENT_MEM_DEVICE,
	/** @DRM_TERN_A_CLIENT_MEM_HOST: u64, bytes of host-memory buffers. */
	DRM_TERN_A_CLIENT_MEM_HOST,
	/** @DRM_TERN_A_CLIENT_BUFFERS: u32, buffer handles it holds. */
	DRM_TERN_A_CLIENT_BUFFERS,
	/** @DRM_TERN_A_CLIENT_QUEUES: u32, queues it has. */
	DRM_TERN_A_CLIENT_QUEUES,
	/** @DRM_TERN_A_CLIENT_JOBS_SUBMITTED: u64, jobs it submitted. */
	DRM_TERN_A_CLIENT_JOBS_SUBMITTED,
	/** @DRM_TERN_A_CLIENT_JOBS_ACTIVE: u32, its jobs not yet ended. */
	DRM_TERN_A_CLIENT_JOBS_ACTIVE,
	/** @DRM_TERN_A_CLIENT_BUSY_NS: u64, engine time its jobs used. */
	DRM_TERN_A_CLIENT_BUSY_NS,

	__TERN_A_CLIENT_MAX,
};
#define DRM_TERN_A_CLIENT_MAX	(__TERN_A_CLIENT_MAX - 1)

/**
 * enum tern_health - a device's health, from its error counters and links
 *
 * Counters are monotonic: they never go back, and restart from zero only
 * when the module is reloaded (or the chip reset). Health is computed from the counters' growth since
 * the device's health was last cleared (root writes 1 to sysfs
 * tern/health_clear), so LINK_ERRORS, ENGINE_RESET and MEM_UNCORRECTED
 * last until then; LINK_DOWN and ENGINE_HUNG are states and last while
 * they do.
 */
enum tern_health {
	/** @DRM_TERN_HEALTH_OK: no reason below applies. */
	DRM_TERN_HEALTH_OK = 0,
	/**
	 * @DRM_TERN_HEALTH_DEGRADED: it works, with less fabric or after faults:
	 * a link down, link errors, an engine hung now or reset after a hang.
	 */
	DRM_TERN_HEALTH_DEGRADED = 1,
	/** @DRM_TERN_HEALTH_FAILED: an uncorrectable memory error was seen. */
	DRM_TERN_HEALTH_FAILED = 2,
};

/* Why a device is not DRM_TERN_HEALTH_OK (DRM_TERN_A_DEV_HEALTH_REASONS). */
/** @DRM_TERN_HEALTH_REASON_LINK_DOWN: one of its links is down. */
#define DRM_TERN_HEALTH_REASON_LINK_DOWN		(1U << 0)
/** @DRM_TERN_HEALTH_REASON_LINK_ERRORS: its links counted errors. */
#define DRM_TERN_HEALTH_REASON_LINK_ERRORS		(1U << 1)
/**
 * @DRM_TERN_HEALTH_REASON_ENGINE_RESET: an engine was reset after a hang
 * (DRM_TERN_A_DEV_ENGINE_HANG_RESETS); a job timed out on its own stall is
 * no reason.
 */
#define DRM_TERN_HEALTH_REASON_ENGINE_RESET		(1U << 2)
/** @DRM_TERN_HEALTH_REASON_ENGINE_HUNG: an engine is hung now. */
#define DRM_TERN_HEALTH_REASON_ENGINE_HUNG		(1U << 3)
/** @DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED: an uncorrectable memory error. */
#define DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED	(1U << 4)

/**
 * enum tern_mem_error_kind - what a DRM_TERN_CMD_MEM_ERROR_NTF reports
 *
 * Correctable errors are counted and announced but do not by themselves
 * make a device unhealthy, as with ECC memory.
 */
enum tern_mem_error_kind {
	/** @DRM_TERN_MEM_ERROR_CORRECTED: corrected; no data was lost. */
	DRM_TERN_MEM_ERROR_CORRECTED = 0,
	/** @DRM_TERN_MEM_ERROR_UNCORRECTED: data at the address was lost. */
	DRM_TERN_MEM_ERROR_UNCORRECTED = 1,
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_TERN_ACCEL_H_ */
