// SPDX-License-Identifier: MIT
/*
 * GET_INFO, BO_CREATE and BO_INFO: every documented error, and the fields
 * a correct call fills in.
 */
#include <errno.h>
#include <string.h>
#include <xf86drm.h>

#include "uapi.h"

#define KNOWN_CAPS (DRM_TERN_CAP_MOCK | DRM_TERN_CAP_HOST_MEMORY | DRM_TERN_CAP_SEMAPHORE | \
		    DRM_TERN_CAP_TIMESTAMP | DRM_TERN_CAP_FABRIC | DRM_TERN_CAP_REDUCE | \
		    DRM_TERN_CAP_PEER_MEMORY | DRM_TERN_CAP_SEM_WAIT_ABORT | \
		    DRM_TERN_CAP_REDUCE_DIVIDE | DRM_TERN_CAP_USER_RING | \
		    DRM_TERN_CAP_COMPUTE)

/* ---- GET_INFO ---- */

static void test_get_info_fields(void **state)
{
	struct drm_tern_info a = uapi_get_info(uapi.fd);
	struct drm_tern_info b = uapi_get_info(uapi.fd);

	(void)state;
	assert_true(a.engine_count >= 1);
	assert_int_equal(a.capabilities & ~KNOWN_CAPS, 0);
	assert_true(a.device_memory_size > 0);
	assert_int_equal(a.device_memory_size % uapi.page_size, 0);
	assert_true(a.device_memory_used <= a.device_memory_size);
	assert_true(a.va_base > 0);
	assert_int_equal(a.va_base % uapi.page_size, 0);
	assert_true(a.va_size > 0);
	assert_true(a.va_base + a.va_size <= DRM_TERN_VA_LIMIT);
	assert_true(a.engine_clock_hz > 0);
	assert_int_equal(a.packet_version, DRM_TERN_PACKET_VERSION);
	assert_true(a.max_submit_bytes >= 64);
	assert_int_equal(a.max_submit_bytes % 8, 0);
	assert_true(a.max_in_syncobjs >= 1);
	assert_int_equal(a.flags, 0);
	assert_int_equal(a.pad, 0);
	if (a.capabilities & DRM_TERN_CAP_MOCK) {
		/* the mock implements every packet this header defines */
		assert_true(a.capabilities & DRM_TERN_CAP_HOST_MEMORY);
		assert_true(a.capabilities & DRM_TERN_CAP_SEMAPHORE);
		assert_true(a.capabilities & DRM_TERN_CAP_TIMESTAMP);
		assert_true(a.capabilities & DRM_TERN_CAP_SEM_WAIT_ABORT);
		assert_true(a.capabilities & DRM_TERN_CAP_REDUCE_DIVIDE);
	}
	/* what describes the device does not change between calls */
	assert_int_equal(a.device_index, b.device_index);
	assert_int_equal(a.engine_count, b.engine_count);
	assert_true(a.capabilities == b.capabilities);
	assert_true(a.device_memory_size == b.device_memory_size);
	assert_true(a.va_base == b.va_base && a.va_size == b.va_size);
}

static void test_get_info_flags(void **state)
{
	(void)state;
	for (int bit = 0; bit < 32; bit++) {
		struct drm_tern_info info = { .flags = 1u << bit };

		assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_GET_INFO, &info),
			     EINVAL);
	}
}

static void test_get_info_pad(void **state)
{
	struct drm_tern_info info = { .pad = 1 };

	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_GET_INFO, &info), EINVAL);
}

static void test_get_info_bad_pointer(void **state)
{
	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_GET_INFO,
				uapi_bad_pointer()), EFAULT);
}

static void test_get_info_memory_used(void **state)
{
	const uint64_t base = uapi_get_info(uapi.fd).device_memory_used;
	struct uapi_bo dev, host;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 1 << 20, &dev);
	assert_true(uapi_get_info(uapi.fd).device_memory_used >= base + (1 << 20));
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 1 << 20, &host);
	assert_true(uapi_get_info(uapi.fd).device_memory_used >= base + (1 << 20));
	uapi_bo_close(uapi.fd, &dev);
	/* host memory is not device memory */
	assert_true(uapi_get_info(uapi.fd).device_memory_used == base);
	uapi_bo_close(uapi.fd, &host);
	assert_true(uapi_get_info(uapi.fd).device_memory_used == base);
}

/* ---- BO_CREATE ---- */

static int bo_create(struct drm_tern_bo_create *args)
{
	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_CREATE, args);
}

static void test_bo_create_fields(void **state)
{
	struct drm_tern_bo_create a = { .size = 1 };
	struct drm_tern_bo_create b = {
		.size = 3 * uapi.page_size + 1, .placement = DRM_TERN_PLACEMENT_HOST,
	};
	struct uapi_bo bo;

	(void)state;
	assert_ioctl_ok(bo_create(&a));
	assert_ioctl_ok(bo_create(&b));
	assert_int_equal(a.size, uapi.page_size);
	assert_int_equal(b.size, 4 * uapi.page_size);
	assert_int_not_equal(a.handle, 0);
	assert_int_not_equal(a.handle, b.handle);
	assert_true(a.device_va >= uapi.info.va_base);
	assert_true(a.device_va + a.size <= uapi.info.va_base + uapi.info.va_size);
	assert_true(b.device_va >= uapi.info.va_base);
	assert_true(b.device_va + b.size <= uapi.info.va_base + uapi.info.va_size);
	assert_int_equal(a.device_va % uapi.page_size, 0);
	assert_true(a.device_va + a.size <= b.device_va ||
		    b.device_va + b.size <= a.device_va);
	assert_int_not_equal(a.mmap_offset, b.mmap_offset);
	assert_int_equal(a.pad, 0);

	/* new memory reads as zero, whatever it held before */
	for (int i = 0; i < 2; i++) {
		uapi_bo_create(uapi.fd, i, 1 << 20, &bo);
		for (size_t j = 0; j < bo.size; j++)
			if (bo.cpu[j])
				fail_msg("byte %zu of a new buffer is not zero", j);
		memset(bo.cpu, 0xff, bo.size);
		uapi_bo_close(uapi.fd, &bo);
	}
}

static void test_bo_create_flags(void **state)
{
	(void)state;
	for (int bit = 0; bit < 32; bit++) {
		struct drm_tern_bo_create args = { .size = 4096, .flags = 1u << bit };

		assert_errno(bo_create(&args), EINVAL);
	}
}

static void test_bo_create_pad(void **state)
{
	struct drm_tern_bo_create args = { .size = 4096, .pad = 1 };

	(void)state;
	assert_errno(bo_create(&args), EINVAL);
}

static void test_bo_create_placement(void **state)
{
	static const uint32_t bad[] = { 2, 3, 0x80000000u, 0xffffffffu };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct drm_tern_bo_create args = { .size = 4096, .placement = bad[i] };

		assert_errno(bo_create(&args), EINVAL);
	}
}

static void test_bo_create_size_zero(void **state)
{
	(void)state;
	for (uint32_t placement = 0; placement < 2; placement++) {
		struct drm_tern_bo_create args = { .placement = placement };

		assert_errno(bo_create(&args), EINVAL);
	}
}

static void test_bo_create_too_big_device(void **state)
{
	const uint64_t sizes[] = {
		uapi.info.device_memory_size + 1,
		uapi.info.device_memory_size + uapi.page_size,
		UINT64_MAX - uapi.page_size + 2,	/* rounding would wrap */
		UINT64_MAX,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct drm_tern_bo_create args = {
			.size = sizes[i], .placement = DRM_TERN_PLACEMENT_DEVICE,
		};

		assert_errno(bo_create(&args), E2BIG);
	}
}

static void test_bo_create_too_big_host(void **state)
{
	static const uint64_t sizes[] = { 1ull << 60, UINT64_MAX - 4094, UINT64_MAX };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct drm_tern_bo_create args = {
			.size = sizes[i], .placement = DRM_TERN_PLACEMENT_HOST,
		};

		assert_errno(bo_create(&args), E2BIG);
	}
}

static void test_bo_create_out_of_memory(void **state)
{
	const uint64_t half = uapi.info.device_memory_size / 2 + uapi.page_size;
	struct drm_tern_bo_create first = { .size = half };
	struct drm_tern_bo_create second = { .size = half };
	const uint64_t base = uapi_get_info(uapi.fd).device_memory_used;

	(void)state;
	/* each fits the device; the two together do not */
	assert_ioctl_ok(bo_create(&first));
	assert_errno(bo_create(&second), ENOMEM);
	assert_true(uapi_get_info(uapi.fd).device_memory_used >= base + half);
}

static void test_bo_create_bad_pointer(void **state)
{
	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_CREATE,
				uapi_bad_pointer()), EFAULT);
}

/* ---- BO_INFO ---- */

static void test_bo_info_fields(void **state)
{
	struct drm_tern_bo_create create = {
		.size = 5 * uapi.page_size - 3, .placement = DRM_TERN_PLACEMENT_HOST,
	};
	struct drm_tern_bo_info info = { 0 };

	(void)state;
	assert_ioctl_ok(bo_create(&create));
	info.handle = create.handle;
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info));
	assert_int_equal(info.size, create.size);
	assert_int_equal(info.device_va, create.device_va);
	assert_int_equal(info.mmap_offset, create.mmap_offset);
	assert_int_equal(info.placement, DRM_TERN_PLACEMENT_HOST);
	assert_int_equal(info.pad, 0);
}

static void test_bo_info_flags(void **state)
{
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	for (int bit = 0; bit < 32; bit++) {
		struct drm_tern_bo_info info = { .handle = bo.handle,
						 .flags = 1u << bit };

		assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info),
			     EINVAL);
	}
}

static void test_bo_info_pad(void **state)
{
	struct uapi_bo bo;
	struct drm_tern_bo_info info = { .pad = 1 };

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	info.handle = bo.handle;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info), EINVAL);
}

static void test_bo_info_unknown_handle(void **state)
{
	struct drm_tern_bo_info info = { 0 };
	struct uapi_bo bo;

	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info), ENOENT);
	info.handle = 0x7fffffff;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info), ENOENT);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	uapi_bo_close(uapi.fd, &bo);
	info.handle = bo.handle;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info), ENOENT);
}

static void test_bo_info_bad_pointer(void **state)
{
	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO,
				uapi_bad_pointer()), EFAULT);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_info_bo_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_get_info_fields),
		T(test_get_info_flags),
		T(test_get_info_pad),
		T(test_get_info_bad_pointer),
		T(test_get_info_memory_used),
		T(test_bo_create_fields),
		T(test_bo_create_flags),
		T(test_bo_create_pad),
		T(test_bo_create_placement),
		T(test_bo_create_size_zero),
		T(test_bo_create_too_big_device),
		T(test_bo_create_too_big_host),
		T(test_bo_create_out_of_memory),
		T(test_bo_create_bad_pointer),
		T(test_bo_info_fields),
		T(test_bo_info_flags),
		T(test_bo_info_pad),
		T(test_bo_info_unknown_handle),
		T(test_bo_info_bad_pointer),
	};

	return cmocka_run_group_tests_name("uapi_info_bo", tests, NULL, NULL);
}
