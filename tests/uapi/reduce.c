// SPDX-License-Identifier: MIT
/*
 * REDUCE through SUBMIT: what validation refuses before a job exists,
 * exact results of a float32 SUM and an int32 MAX, and SUMs divided
 * (DRM_TERN_REDUCE_DIVIDE) of every element type, bit for bit the device
 * model's own result computed here.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "tern_reduce.h"
#include "uapi.h"

#define ELEMENTS	64u

struct reduce {
	struct uapi_bo bo;	/* src0 at 0, src1 at 1/4, dst at 1/2 */
	uint32_t queue;
	struct drm_tern_packet_reduce packet;
};

static struct reduce r;

static int reduce_setup(void **state)
{
	uapi_setup(state);
	*state = NULL;
	if (!(uapi_get_info(uapi.fd).capabilities & DRM_TERN_CAP_REDUCE))
		return 0;	/* the test skips itself */
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &r.bo);
	r.queue = uapi_queue_create(uapi.fd, 0);
	r.packet = (struct drm_tern_packet_reduce){
		.header = { DRM_TERN_OP_REDUCE, sizeof(r.packet) / 8, 0 },
		.src0 = r.bo.va,
		.src1 = r.bo.va + 1024,
		.dst = r.bo.va + 2048,
		.count = ELEMENTS,
		.dtype = DRM_TERN_DTYPE_FLOAT32,
		.op = DRM_TERN_REDOP_SUM,
	};
	*state = &r;
	return 0;
}

static int reduce_teardown(void **state)
{
	if (*state)
		munmap(r.bo.cpu, r.bo.size);
	memset(&r, 0, sizeof(r));
	return uapi_teardown(state);
}

#define NEED_REDUCE(state) \
	do { if (!*(state)) skip(); } while (0)

static int submit_packet(void)
{
	struct uapi_stream s = { .size = sizeof(r.packet) };

	memcpy(s.words, &r.packet, sizeof(r.packet));
	return uapi_submit(uapi.fd, r.queue, &s, 0);
}

static int run_packet(void)
{
	struct uapi_stream s = { .size = sizeof(r.packet) };

	memcpy(s.words, &r.packet, sizeof(r.packet));
	return uapi_run(uapi.fd, r.queue, &s);
}

static void test_reduce_valid_packet_accepted(void **state)
{
	NEED_REDUCE(state);
	/* the packet the other cases spoil one field of */
	assert_ioctl_ok(submit_packet());
}

static void test_reduce_bad_dtype(void **state)
{
	NEED_REDUCE(state);
	/* the first type the header does not define */
	r.packet.dtype = DRM_TERN_DTYPE_UINT64 + 1;
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_bad_op(void **state)
{
	NEED_REDUCE(state);
	r.packet.op = DRM_TERN_REDOP_MAX + 1;
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_misaligned(void **state)
{
	NEED_REDUCE(state);
	r.packet.src1 += 2;	/* float32: 4-byte elements */
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_pad(void **state)
{
	NEED_REDUCE(state);
	r.packet.pad = 1;
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_dst_overlaps_source(void **state)
{
	NEED_REDUCE(state);
	r.packet.dst = r.packet.src0 + 4;
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_unknown_flag(void **state)
{
	NEED_REDUCE(state);
	r.packet.header.flags = 1u << 1;	/* the first flag not defined */
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_divide_accepted(void **state)
{
	NEED_REDUCE(state);
	r.packet.header.flags = DRM_TERN_REDUCE_DIVIDE;
	r.packet.divisor = 3;
	assert_ioctl_ok(submit_packet());
}

static void test_reduce_divide_not_sum(void **state)
{
	NEED_REDUCE(state);
	r.packet.header.flags = DRM_TERN_REDUCE_DIVIDE;
	r.packet.divisor = 3;
	r.packet.op = DRM_TERN_REDOP_MIN;
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_divide_by_zero(void **state)
{
	NEED_REDUCE(state);
	r.packet.header.flags = DRM_TERN_REDUCE_DIVIDE;
	r.packet.divisor = 0;
	assert_errno(submit_packet(), EINVAL);
}

static void test_reduce_divide_other_flag(void **state)
{
	NEED_REDUCE(state);
	r.packet.header.flags = DRM_TERN_REDUCE_DIVIDE | 1u << 31;
	r.packet.divisor = 3;
	assert_errno(submit_packet(), EINVAL);
}

/*
 * Every element type divided by a few divisors on tern.ko, whose engine
 * computes floats with integers only, against the model built here.
 */
static void test_reduce_divide_bits(void **state)
{
	static const uint32_t divisors[] = { 1, 2, 3, 7, 1000, (1u << 24) + 1,
					     0xffffffffu };
	enum { REGION = 4096 };
	static uint8_t want[REGION];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct uapi_bo bo;

	NEED_REDUCE(state);
	if (!(uapi_get_info(uapi.fd).capabilities & DRM_TERN_CAP_REDUCE_DIVIDE))
		skip();
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 3 * REGION, &bo);
	for (uint16_t dtype = 0; dtype <= DRM_TERN_DTYPE_UINT64; dtype++) {
		uint32_t size = tern_model_dtype_size(dtype);

		for (size_t k = 0; k < ARRAY_SIZE(divisors); k++) {
			uint8_t *src0 = bo.cpu, *src1 = bo.cpu + REGION;
			uint8_t *dst = bo.cpu + 2 * REGION;

			for (uint32_t i = 0; i < 2 * REGION; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				bo.cpu[i] = (uint8_t)(x >> 24);
			}
			memset(dst, 0xee, REGION);
			r.packet.src0 = bo.va;
			r.packet.src1 = bo.va + REGION;
			r.packet.dst = bo.va + 2 * REGION;
			r.packet.count = REGION / size;
			r.packet.dtype = dtype;
			r.packet.op = DRM_TERN_REDOP_SUM;
			r.packet.header.flags = DRM_TERN_REDUCE_DIVIDE;
			r.packet.divisor = divisors[k];
			tern_model_reduce_divide(want, src0, src1, REGION / size,
						 dtype, divisors[k]);
			assert_int_equal(run_packet(), 1);
			for (uint32_t i = 0; i < REGION; i++)
				if (dst[i] != want[i])
					fail_msg("dtype %u divisor %u: byte %u is 0x%02x, the model's 0x%02x",
						 dtype, divisors[k], i, dst[i],
						 want[i]);
		}
	}
	munmap(bo.cpu, bo.size);
}

static void test_reduce_float32_sum(void **state)
{
	float *src0 = (float *)r.bo.cpu, *src1 = src0 + 256, *dst = src0 + 512;

	NEED_REDUCE(state);
	for (uint32_t i = 0; i < ELEMENTS; i++) {
		src0[i] = (float)i * 0.5f;		/* exact in float32 */
		src1[i] = 1.25f - (float)i;
		dst[i] = -1.0f;
	}
	dst[ELEMENTS] = 7.0f;
	assert_int_equal(run_packet(), 1);
	for (uint32_t i = 0; i < ELEMENTS; i++)
		assert_true(dst[i] == 1.25f - (float)i * 0.5f);
	assert_true(dst[ELEMENTS] == 7.0f);
}

static void test_reduce_int32_max_in_place(void **state)
{
	int32_t *src0 = (int32_t *)r.bo.cpu, *src1 = src0 + 256;

	NEED_REDUCE(state);
	for (uint32_t i = 0; i < ELEMENTS; i++) {
		src0[i] = (int32_t)i - 32;
		src1[i] = 16 - (int32_t)i * 3;
	}
	src0[ELEMENTS] = 12345;
	r.packet.dtype = DRM_TERN_DTYPE_INT32;
	r.packet.op = DRM_TERN_REDOP_MAX;
	r.packet.dst = r.packet.src0;	/* exactly equal: allowed */
	assert_int_equal(run_packet(), 1);
	for (int32_t i = 0; i < (int32_t)ELEMENTS; i++) {
		int32_t a = i - 32, b = 16 - i * 3;

		assert_int_equal(src0[i], a > b ? a : b);
	}
	assert_int_equal(src0[ELEMENTS], 12345);
}

#define T(f) cmocka_unit_test_setup_teardown(f, reduce_setup, reduce_teardown)

int uapi_reduce_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_reduce_valid_packet_accepted),
		T(test_reduce_bad_dtype),
		T(test_reduce_bad_op),
		T(test_reduce_misaligned),
		T(test_reduce_pad),
		T(test_reduce_dst_overlaps_source),
		T(test_reduce_unknown_flag),
		T(test_reduce_divide_accepted),
		T(test_reduce_divide_not_sum),
		T(test_reduce_divide_by_zero),
		T(test_reduce_divide_other_flag),
		T(test_reduce_divide_bits),
		T(test_reduce_float32_sum),
		T(test_reduce_int32_max_in_place),
	};

	return cmocka_run_group_tests_name("uapi_reduce", tests, NULL, NULL);
}
