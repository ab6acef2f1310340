/* SPDX-License-Identifier: MIT */
/*
 * The uapi tests: raw ioctls on the first Tern device node, one case per
 * documented error path, plus what a job does with memory it may and may
 * not touch. Every case gets a freshly opened file (uapi.fd).
 */
#ifndef TERN_UAPI_TEST_H
#define TERN_UAPI_TEST_H

#include "test.h"
#include "tern_accel.h"

struct uapi {
	char node[64];			/* path of the Tern node under test */
	struct drm_tern_info info;	/* as the first open saw it */
	int fd;				/* this test's file */
	long page_size;
};

extern struct uapi uapi;

/* Opens another file on the node; the test fails if it cannot. */
int uapi_open(void);
int uapi_setup(void **state);
int uapi_teardown(void **state);

/* 0 or the errno of the ioctl. */
int uapi_ioctl(int fd, unsigned long request, void *arg);
void uapi_check_errno(int got, int want, const char *call, int line);
#define assert_errno(call, want) \
	uapi_check_errno((call), (want), #call, __LINE__)
#define assert_ioctl_ok(call) assert_errno(call, 0)

/* A user address the kernel can neither read nor write. */
void *uapi_bad_pointer(void);
/* A device address outside every buffer of every file. */
uint64_t uapi_unmapped_va(void);

struct uapi_bo {
	uint32_t handle;
	uint64_t size;
	uint64_t va;
	uint8_t *cpu;	/* mapped for the CPU */
};

void uapi_bo_create(int fd, uint32_t placement, uint64_t size,
		    struct uapi_bo *bo);
/* GEM_CLOSE and munmap. */
void uapi_bo_close(int fd, struct uapi_bo *bo);
uint32_t uapi_queue_create(int fd, uint32_t engine);
/*
 * The device's DMA engines, 0 to this minus one: where COPY, FILL and
 * REDUCE run (engine_count counts the cores' engines too).
 */
uint32_t uapi_dma_engines(void);
/* Core @core's engine of @type (enum drm_tern_engine_type, not DMA). */
uint32_t uapi_core_engine(uint32_t core, uint32_t type);
/*
 * Skips the test when tern.ko was loaded without cores (mock_cores=0);
 * fails it when cores were asked for and the device has none.
 */
void uapi_need_cores(void);
uint32_t uapi_syncobj_create(int fd);
struct drm_tern_info uapi_get_info(int fd);

/* A packet stream being built. */
struct uapi_stream {
	uint64_t words[512];
	uint32_t size;
};

uint32_t uapi_emit_nop(struct uapi_stream *s, uint16_t length);
uint32_t uapi_emit_copy(struct uapi_stream *s, uint64_t src, uint64_t dst,
			uint64_t bytes);
uint32_t uapi_emit_fill(struct uapi_stream *s, uint64_t dst, uint64_t bytes,
			uint32_t pattern);
uint32_t uapi_emit_timestamp(struct uapi_stream *s, uint64_t dst);
uint32_t uapi_emit_sem(struct uapi_stream *s, uint16_t opcode, uint32_t flags,
		       uint64_t addr, uint64_t value);
uint32_t uapi_emit_sem_abort(struct uapi_stream *s, uint32_t flags,
			     uint64_t addr, uint64_t value, uint64_t abort_va);
struct drm_tern_packet_header *uapi_packet(struct uapi_stream *s,
					   uint32_t offset);
/* Appends any packet of @bytes; returns its offset. */
uint32_t uapi_emit_packet(struct uapi_stream *s, const void *packet,
			  uint32_t bytes);
/* A tile of a core's SBUF or PSUM (enum drm_tern_space). */
struct drm_tern_tile uapi_tile(uint32_t space, uint32_t dtype,
			       uint16_t partition, uint16_t partitions,
			       uint32_t offset, uint32_t elements);
/*
 * DMA_TILE of @tile of @core's SBUF from memory at @va (or to it, with
 * DRM_TERN_DMA_TILE_TO_MEMORY in @flags), elements of @dtype there in rows
 * @row_bytes apart.
 */
uint32_t uapi_emit_dma_tile(struct uapi_stream *s, uint32_t flags,
			    uint16_t core, uint64_t va, uint64_t row_bytes,
			    uint32_t dtype, struct drm_tern_tile tile);

/* SUBMIT of @s to @queue with an optional out-syncobj; 0 or the errno. */
int uapi_submit(int fd, uint32_t queue, const struct uapi_stream *s,
		uint32_t out_syncobj);
/*
 * Waits (bounded) for the fence in @syncobj and returns its status as
 * SYNC_IOC_FILE_INFO reports it: 1 for success, a negative errno for a
 * failed job.
 */
int uapi_fence_status(int fd, uint32_t syncobj);
/* The path of the node under test's debugfs file @name. */
void uapi_debugfs_path(const char *name, char *path, size_t size);
/* The number a sysfs or debugfs file @path starts with, or -1. */
long long uapi_read_number(const char *path);
/* Submits @s with a fresh out-syncobj and returns the fence status. */
int uapi_run(int fd, uint32_t queue, const struct uapi_stream *s);

/*
 * Other Tern devices of the machine (topology.c): the number of Tern nodes,
 * and a new file on the device whose GET_INFO device_index is @index (-1
 * when there is none).
 */
uint32_t uapi_device_count(void);
int uapi_open_device(uint32_t index);

/* TOPOLOGY into @ports (up to @max entries); returns the port count. */
uint32_t uapi_topology(int fd, struct drm_tern_port_info *ports, uint32_t max);

/* Traffic of a device's ports whose link leads to fabric id @peer. */
struct uapi_traffic {
	uint64_t tx_bytes, rx_bytes, tx_packets, rx_packets, errors;
};

struct uapi_traffic uapi_traffic_toward(int fd, uint32_t peer);

/* The groups; each returns its number of failures. */
int uapi_info_bo_tests(void);
int uapi_queue_submit_tests(void);
int uapi_packet_tests(void);
int uapi_job_tests(void);
int uapi_topology_tests(void);
int uapi_peer_tests(void);
int uapi_reduce_tests(void);
int uapi_robust_tests(void);
int uapi_abort_tests(void);
int uapi_ring_tests(void);
int uapi_fair_tests(void);
int uapi_compute_tests(void);

#endif /* TERN_UAPI_TEST_H */
