// SPDX-License-Identifier: MIT
/*
 * What every uapi test uses: files, buffers, queues, packet streams, fences.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sync_file.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "uapi.h"

/* Longer than any job timeout the tests run with; a bound, not a timing. */
#define FENCE_WAIT_BOUND_NS	(30ll * 1000000000ll)

struct uapi uapi;

int uapi_open(void)
{
	int fd = open(uapi.node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fail_msg("cannot open %s: %s", uapi.node, strerror(errno));
	return fd;
}

int uapi_setup(void **state)
{
	(void)state;
	uapi.fd = open(uapi.node, O_RDWR | O_CLOEXEC);
	return uapi.fd < 0 ? -1 : 0;
}

int uapi_teardown(void **state)
{
	(void)state;
	close(uapi.fd);
	uapi.fd = -1;
	return 0;
}

int uapi_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? errno : 0;
}

void uapi_check_errno(int got, int want, const char *call, int line)
{
	if (got != want)
		fail_msg("line %d: %s gave %s, want %s", line, call,
			 got ? strerrorname_np(got) : "success",
			 want ? strerrorname_np(want) : "success");
}

void *uapi_bad_pointer(void)
{
	static void *bad;

	/* Kept mapped without access, so that nothing else is mapped there. */
	if (!bad) {
		bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		assert_true(bad != MAP_FAILED);
	}
	return bad;
}

uint64_t uapi_unmapped_va(void)
{
	const uint64_t gap = 1u << 20;

	/* Buffers live in [va_base, va_base + va_size). */
	if (uapi.info.va_base >= gap)
		return uapi.info.va_base - gap;
	assert_true(uapi.info.va_base + uapi.info.va_size + gap <= DRM_TERN_VA_LIMIT);
	return uapi.info.va_base + uapi.info.va_size;
}

struct drm_tern_info uapi_get_info(int fd)
{
	struct drm_tern_info info;

	memset(&info, 0, sizeof(info));
	assert_ioctl_ok(uapi_ioctl(fd, DRM_IOCTL_TERN_GET_INFO, &info));
	return info;
}

void uapi_bo_create(int fd, uint32_t placement, uint64_t size,
		    struct uapi_bo *bo)
{
	struct drm_tern_bo_create args = { .size = size, .placement = placement };
	int err = uapi_ioctl(fd, DRM_IOCTL_TERN_BO_CREATE, &args);
	void *cpu;

	if (err)
		fail_msg("BO_CREATE of %llu bytes, placement %u: %s",
			 (unsigned long long)size, placement, strerrorname_np(err));
	cpu = mmap(NULL, args.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)args.mmap_offset);
	if (cpu == MAP_FAILED)
		fail_msg("mmap of a %llu-byte buffer: %s",
			 (unsigned long long)args.size, strerror(errno));
	bo->handle = args.handle;
	bo->size = args.size;
	bo->va = args.device_va;
	bo->cpu = cpu;
}

void uapi_bo_close(int fd, struct uapi_bo *bo)
{
	struct drm_gem_close args = { .handle = bo->handle };

	munmap(bo->cpu, bo->size);
	bo->cpu = NULL;
	assert_ioctl_ok(uapi_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &args));
}

uint32_t uapi_queue_create(int fd, uint32_t engine)
{
	struct drm_tern_queue_create args = { .engine = engine };
	int err = uapi_ioctl(fd, DRM_IOCTL_TERN_QUEUE_CREATE, &args);

	if (err)
		fail_msg("QUEUE_CREATE on engine %u: %s", engine,
			 strerrorname_np(err));
	assert_int_not_equal(args.queue_id, 0);
	return args.queue_id;
}

uint32_t uapi_dma_engines(void)
{
	/* An older module counts DMA engines only, and says nothing. */
	return uapi.info.dma_engine_count ? uapi.info.dma_engine_count :
					    uapi.info.engine_count;
}

uint32_t uapi_core_engine(uint32_t core, uint32_t type)
{
	return uapi.info.dma_engine_count + 3 * core + type - 1;
}

void uapi_need_cores(void)
{
	long long cores = uapi_read_number("/sys/module/tern/parameters/mock_cores");

	if (!cores) {
		print_message("no cores (load tern.ko with mock_cores=2)\n");
		skip();
	}
	if (!(uapi.info.capabilities & DRM_TERN_CAP_COMPUTE))
		fail_msg("tern.ko: mock_cores=%lld, but the device has no DRM_TERN_CAP_COMPUTE",
			 cores);
	/* the tests' tiles lie in 8 KiB of SBUF and the first PSUM bank */
	assert_true(uapi.info.sbuf_partition_bytes >= 8192);
}

uint32_t uapi_syncobj_create(int fd)
{
	uint32_t handle = 0;

	assert_int_equal(drmSyncobjCreate(fd, 0, &handle), 0);
	return handle;
}

static uint32_t emit(struct uapi_stream *s, const void *packet, uint32_t bytes)
{
	uint32_t offset = s->size;

	assert_true(offset + bytes <= sizeof(s->words));
	memcpy((uint8_t *)s->words + offset, packet, bytes);
	s->size += bytes;
	return offset;
}

uint32_t uapi_emit_packet(struct uapi_stream *s, const void *packet,
			  uint32_t bytes)
{
	return emit(s, packet, bytes);
}

struct drm_tern_tile uapi_tile(uint32_t space, uint32_t dtype,
			       uint16_t partition, uint16_t partitions,
			       uint32_t offset, uint32_t elements)
{
	struct drm_tern_tile t = {
		.offset = offset, .partition = partition,
		.partitions = partitions, .elements = elements,
		.space = (uint8_t)space, .dtype = (uint8_t)dtype,
	};

	return t;
}

uint32_t uapi_emit_dma_tile(struct uapi_stream *s, uint32_t flags,
			    uint16_t core, uint64_t va, uint64_t row_bytes,
			    uint32_t dtype, struct drm_tern_tile tile)
{
	static const uint8_t sizes[] = {
		[DRM_TERN_DTYPE_FLOAT32] = 4, [DRM_TERN_DTYPE_FLOAT16] = 2,
		[DRM_TERN_DTYPE_BFLOAT16] = 2, [DRM_TERN_DTYPE_INT32] = 4,
		[DRM_TERN_DTYPE_UINT32] = 4, [DRM_TERN_DTYPE_INT8] = 1,
		[DRM_TERN_DTYPE_UINT8] = 1, [DRM_TERN_DTYPE_FLOAT8_E4M3] = 1,
		[DRM_TERN_DTYPE_FLOAT8_E5M2] = 1,
	};
	struct drm_tern_packet_dma_tile p = {
		.header = { DRM_TERN_OP_DMA_TILE, sizeof(p) / 8, flags },
		.va = va, .partition_stride = row_bytes, .core = core,
		.dtype = (uint8_t)dtype, .tile = tile,
	};

	assert_true(dtype < ARRAY_SIZE(sizes) && sizes[dtype]);
	p.element_stride = sizes[dtype];
	return emit(s, &p, sizeof(p));
}

struct drm_tern_packet_header *uapi_packet(struct uapi_stream *s,
					   uint32_t offset)
{
	return (void *)((uint8_t *)s->words + offset);
}

uint32_t uapi_emit_nop(struct uapi_stream *s, uint16_t length)
{
	struct drm_tern_packet_header h = { DRM_TERN_OP_NOP, length, 0 };
	uint32_t offset = emit(s, &h, sizeof(h));
	const uint64_t zero = 0;

	for (uint16_t i = 1; i < length; i++)
		emit(s, &zero, sizeof(zero));
	return offset;
}

uint32_t uapi_emit_copy(struct uapi_stream *s, uint64_t src, uint64_t dst,
			uint64_t bytes)
{
	struct drm_tern_packet_copy p = {
		.header = { DRM_TERN_OP_COPY, sizeof(p) / 8, 0 },
		.src = src, .dst = dst, .bytes = bytes,
	};

	return emit(s, &p, sizeof(p));
}

uint32_t uapi_emit_fill(struct uapi_stream *s, uint64_t dst, uint64_t bytes,
			uint32_t pattern)
{
	struct drm_tern_packet_fill p = {
		.header = { DRM_TERN_OP_FILL, sizeof(p) / 8, 0 },
		.dst = dst, .bytes = bytes, .pattern = pattern,
	};

	return emit(s, &p, sizeof(p));
}

uint32_t uapi_emit_timestamp(struct uapi_stream *s, uint64_t dst)
{
	struct drm_tern_packet_timestamp p = {
		.header = { DRM_TERN_OP_TIMESTAMP, sizeof(p) / 8, 0 },
		.dst = dst,
	};

	return emit(s, &p, sizeof(p));
}

uint32_t uapi_emit_sem(struct uapi_stream *s, uint16_t opcode, uint32_t flags,
		       uint64_t addr, uint64_t value)
{
	struct drm_tern_packet_sem_signal p = {
		.header = { opcode, sizeof(p) / 8, flags },
		.addr = addr, .value = value,
	};

	return emit(s, &p, sizeof(p));
}

uint32_t uapi_emit_sem_abort(struct uapi_stream *s, uint32_t flags,
			     uint64_t addr, uint64_t value, uint64_t abort_va)
{
	struct drm_tern_packet_sem_wait_abort p = {
		.header = { DRM_TERN_OP_SEM_WAIT_ABORT, sizeof(p) / 8, flags },
		.addr = addr, .value = value, .abort = abort_va,
	};

	return emit(s, &p, sizeof(p));
}

int uapi_submit(int fd, uint32_t queue, const struct uapi_stream *s,
		uint32_t out_syncobj)
{
	struct drm_tern_submit args = {
		.queue_id = queue,
		.packets = (uintptr_t)s->words,
		.packets_size = s->size,
		.out_syncobj = out_syncobj,
	};

	return uapi_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &args);
}

int uapi_fence_status(int fd, uint32_t syncobj)
{
	struct sync_file_info info;
	int ret, sync_fd = -1;

	ret = drmSyncobjWait(fd, &syncobj, 1, now_ns() + FENCE_WAIT_BOUND_NS,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (ret)
		fail_msg("waiting for the job's fence: %s", strerror(-ret));
	assert_int_equal(drmSyncobjExportSyncFile(fd, syncobj, &sync_fd), 0);
	memset(&info, 0, sizeof(info));
	ret = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info);
	close(sync_fd);
	assert_int_equal(ret, 0);
	return info.status;
}

int uapi_run(int fd, uint32_t queue, const struct uapi_stream *s)
{
	uint32_t out = uapi_syncobj_create(fd);
	int status;

	assert_ioctl_ok(uapi_submit(fd, queue, s, out));
	status = uapi_fence_status(fd, out);
	drmSyncobjDestroy(fd, out);
	return status;
}

void uapi_debugfs_path(const char *name, char *path, size_t size)
{
	unsigned int minor;

	if (sscanf(uapi.node, "/dev/dri/renderD%u", &minor) == 1)
		snprintf(path, size, "/sys/kernel/debug/dri/%u/%s", minor, name);
	else
		snprintf(path, size, "/sys/kernel/debug/accel/tern.%u/%s",
			 uapi.info.device_index, name);
}

long long uapi_read_number(const char *path)
{
	long long value = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}
