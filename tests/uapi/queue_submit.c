// SPDX-License-Identifier: MIT
/*
 * QUEUE_CREATE, QUEUE_DESTROY and the argument checks of SUBMIT (the
 * packet checks are in packets.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>

#include "uapi.h"

/* ---- QUEUE_CREATE ---- */

static int queue_create(struct drm_tern_queue_create *args)
{
	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_QUEUE_CREATE, args);
}

static int queue_destroy(uint32_t id, uint32_t pad)
{
	struct drm_tern_queue_destroy args = { .queue_id = id, .flags = pad };

	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_QUEUE_DESTROY, &args);
}

static void test_queue_create_every_engine(void **state)
{
	uint32_t ids[64];
	uint32_t n = uapi.info.engine_count < 64 ? uapi.info.engine_count : 64;

	(void)state;
	for (uint32_t e = 0; e < n; e++) {
		struct drm_tern_queue_create args = { .engine = e };

		assert_ioctl_ok(queue_create(&args));
		assert_int_not_equal(args.queue_id, 0);
		assert_int_equal(args.pad, 0);
		for (uint32_t j = 0; j < e; j++)
			assert_int_not_equal(ids[j], args.queue_id);
		ids[e] = args.queue_id;
	}
}

static void test_queue_create_flags(void **state)
{
	(void)state;
	for (int bit = 0; bit < 32; bit++) {
		struct drm_tern_queue_create args = { .flags = 1u << bit };

		assert_errno(queue_create(&args), EINVAL);
	}
}

static void test_queue_create_pad(void **state)
{
	struct drm_tern_queue_create args = { .pad = 1 };

	(void)state;
	assert_errno(queue_create(&args), EINVAL);
}

static void test_queue_create_engine(void **state)
{
	const uint32_t bad[] = {
		uapi.info.engine_count, uapi.info.engine_count + 1, 0xffffffffu,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct drm_tern_queue_create args = { .engine = bad[i] };

		assert_errno(queue_create(&args), EINVAL);
	}
}

static void test_queue_create_too_many(void **state)
{
	struct drm_tern_queue_create args = { 0 };
	uint32_t last = 0;

	(void)state;
	for (int i = 0; i < DRM_TERN_MAX_QUEUES_PER_FILE; i++) {
		args.engine = (uint32_t)i % uapi.info.engine_count;
		args.queue_id = 0;
		assert_ioctl_ok(queue_create(&args));
		last = args.queue_id;
	}
	assert_errno(queue_create(&args), ENOSPC);
	/* destroying one makes room for one */
	assert_ioctl_ok(queue_destroy(last, 0));
	assert_ioctl_ok(queue_create(&args));
	assert_errno(queue_create(&args), ENOSPC);
}

static void test_queue_create_bad_pointer(void **state)
{
	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_QUEUE_CREATE,
				uapi_bad_pointer()), EFAULT);
}

/* ---- QUEUE_DESTROY ---- */

static void test_queue_destroy_pad(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);

	(void)state;
	assert_errno(queue_destroy(q, 1), EINVAL);
	assert_ioctl_ok(queue_destroy(q, 0));
}

static void test_queue_destroy_unknown(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);

	(void)state;
	assert_errno(queue_destroy(0, 0), ENOENT);
	assert_errno(queue_destroy(q + 1000, 0), ENOENT);
	assert_ioctl_ok(queue_destroy(q, 0));
	assert_errno(queue_destroy(q, 0), ENOENT);
}

static void test_queue_destroy_bad_pointer(void **state)
{
	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_QUEUE_DESTROY,
				uapi_bad_pointer()), EFAULT);
}

static void test_queue_destroy_lets_jobs_finish(void **state)
{
	const uint64_t bytes = 8u << 20;
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	uint32_t out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, bytes, &bo);
	for (int i = 0; i < 4; i++)
		uapi_emit_fill(&s, bo.va, bytes, 0x01010101u * (uint32_t)(i + 1));
	assert_ioctl_ok(uapi_submit(uapi.fd, q, &s, out));
	assert_ioctl_ok(queue_destroy(q, 0));
	assert_int_equal(uapi_fence_status(uapi.fd, out), 1);
	for (uint64_t i = 0; i < bytes; i++)
		if (bo.cpu[i] != 4)
			fail_msg("byte %llu not filled", (unsigned long long)i);
}

/* ---- SUBMIT arguments ---- */

struct submit_fixture {
	uint32_t queue;
	struct uapi_bo bo;
	struct uapi_stream stream;	/* one valid FILL of the buffer */
	struct drm_tern_submit args;
};

static void submit_fixture(struct submit_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->queue = uapi_queue_create(uapi.fd, 0);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &f->bo);
	uapi_emit_fill(&f->stream, f->bo.va, 4096, 0xabababab);
	f->args.queue_id = f->queue;
	f->args.packets = (uintptr_t)f->stream.words;
	f->args.packets_size = f->stream.size;
}

static int submit(struct submit_fixture *f)
{
	return uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_SUBMIT, &f->args);
}

/* A rejected SUBMIT ran nothing. */
static void assert_not_run(struct submit_fixture *f)
{
	struct uapi_stream nop = { .size = 0 };

	uapi_emit_nop(&nop, 1);
	assert_int_equal(uapi_run(uapi.fd, f->queue, &nop), 1);
	for (int i = 0; i < 4096; i++)
		if (f->bo.cpu[i])
			fail_msg("a rejected submission wrote byte %d", i);
}

static void test_submit_flags(void **state)
{
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	for (int bit = 0; bit < 32; bit++) {
		f.args.flags = 1u << bit;
		assert_errno(submit(&f), EINVAL);
	}
	assert_not_run(&f);
}

static void test_submit_pad(void **state)
{
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	f.args.pad = 1;
	assert_errno(submit(&f), EINVAL);
	assert_not_run(&f);
}

static void test_submit_size_zero(void **state)
{
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	f.args.packets_size = 0;
	assert_errno(submit(&f), EINVAL);
}

static void test_submit_size_not_multiple_of_8(void **state)
{
	static const uint32_t sizes[] = { 1, 4, 12, 31 };
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		f.args.packets_size = sizes[i];
		assert_errno(submit(&f), EINVAL);
	}
	assert_not_run(&f);
}

static void test_submit_size_limit(void **state)
{
	const uint32_t max = uapi.info.max_submit_bytes;
	uint64_t *big = calloc(1, (size_t)max + 8);
	struct submit_fixture f;

	(void)state;
	assert_non_null(big);
	submit_fixture(&f);
	/* a NOP whose length spans the whole stream */
	((struct drm_tern_packet_header *)big)->opcode = DRM_TERN_OP_NOP;
	((struct drm_tern_packet_header *)big)->length = (uint16_t)(max / 8);
	f.args.packets = (uintptr_t)big;
	f.args.packets_size = max;
	if (max / 8 <= 0xffff)
		assert_ioctl_ok(submit(&f));
	f.args.packets_size = max + 8;
	assert_errno(submit(&f), EINVAL);
	free(big);
}

static void test_submit_too_many_in_syncobjs(void **state)
{
	const uint32_t max = uapi.info.max_in_syncobjs;
	uint32_t *handles = calloc(max + 1, sizeof(*handles));
	struct submit_fixture f;

	(void)state;
	assert_non_null(handles);
	submit_fixture(&f);
	for (uint32_t i = 0; i <= max; i++) {
		handles[i] = uapi_syncobj_create(uapi.fd);
		/* give each a signalled fence so that a wait can pass */
		assert_int_equal(drmSyncobjSignal(uapi.fd, &handles[i], 1), 0);
	}
	f.args.in_syncobjs = (uintptr_t)handles;
	f.args.in_syncobj_count = max + 1;
	assert_errno(submit(&f), EINVAL);
	assert_not_run(&f);
	f.args.in_syncobj_count = max;
	assert_ioctl_ok(submit(&f));
	free(handles);
}

static void test_submit_unknown_queue(void **state)
{
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	f.args.queue_id = 0;
	assert_errno(submit(&f), ENOENT);
	f.args.queue_id = f.queue + 1000;
	assert_errno(submit(&f), ENOENT);
	assert_ioctl_ok(queue_destroy(f.queue, 0));
	f.args.queue_id = f.queue;
	assert_errno(submit(&f), ENOENT);
}

static void test_submit_unknown_in_syncobj(void **state)
{
	uint32_t handles[2];
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	handles[0] = uapi_syncobj_create(uapi.fd);
	assert_int_equal(drmSyncobjSignal(uapi.fd, &handles[0], 1), 0);
	handles[1] = handles[0] + 1000;
	f.args.in_syncobjs = (uintptr_t)handles;
	f.args.in_syncobj_count = 2;
	assert_errno(submit(&f), ENOENT);
	handles[1] = 0;
	assert_errno(submit(&f), ENOENT);
	assert_not_run(&f);
}

static void test_submit_unknown_out_syncobj(void **state)
{
	struct submit_fixture f;
	uint32_t syncobj;

	(void)state;
	submit_fixture(&f);
	syncobj = uapi_syncobj_create(uapi.fd);
	f.args.out_syncobj = syncobj + 1000;
	assert_errno(submit(&f), ENOENT);
	assert_int_equal(drmSyncobjDestroy(uapi.fd, syncobj), 0);
	f.args.out_syncobj = syncobj;
	assert_errno(submit(&f), ENOENT);
	assert_not_run(&f);
}

static void test_submit_bad_packets_pointer(void **state)
{
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	f.args.packets = (uintptr_t)uapi_bad_pointer();
	assert_errno(submit(&f), EFAULT);
	f.args.packets = 0;
	assert_errno(submit(&f), EFAULT);
	assert_not_run(&f);
}

static void test_submit_bad_in_syncobjs_pointer(void **state)
{
	struct submit_fixture f;

	(void)state;
	submit_fixture(&f);
	f.args.in_syncobjs = (uintptr_t)uapi_bad_pointer();
	f.args.in_syncobj_count = 1;
	assert_errno(submit(&f), EFAULT);
	assert_not_run(&f);
}

static void test_submit_bad_pointer(void **state)
{
	(void)state;
	assert_errno(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_SUBMIT,
				uapi_bad_pointer()), EFAULT);
}

static void test_submit_without_out_syncobj(void **state)
{
	struct submit_fixture f;
	struct uapi_stream nop = { .size = 0 };

	(void)state;
	submit_fixture(&f);
	assert_ioctl_ok(submit(&f));
	/* the queue runs in order, so the next job's fence covers it */
	uapi_emit_nop(&nop, 1);
	assert_int_equal(uapi_run(uapi.fd, f.queue, &nop), 1);
	for (int i = 0; i < 4096; i++)
		assert_int_equal(f.bo.cpu[i], 0xab);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_queue_submit_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_queue_create_every_engine),
		T(test_queue_create_flags),
		T(test_queue_create_pad),
		T(test_queue_create_engine),
		T(test_queue_create_too_many),
		T(test_queue_create_bad_pointer),
		T(test_queue_destroy_pad),
		T(test_queue_destroy_unknown),
		T(test_queue_destroy_bad_pointer),
		T(test_queue_destroy_lets_jobs_finish),
		T(test_submit_flags),
		T(test_submit_pad),
		T(test_submit_size_zero),
		T(test_submit_size_not_multiple_of_8),
		T(test_submit_size_limit),
		T(test_submit_too_many_in_syncobjs),
		T(test_submit_unknown_queue),
		T(test_submit_unknown_in_syncobj),
		T(test_submit_unknown_out_syncobj),
		T(test_submit_bad_packets_pointer),
		T(test_submit_bad_in_syncobjs_pointer),
		T(test_submit_bad_pointer),
		T(test_submit_without_out_syncobj),
	};

	return cmocka_run_group_tests_name("uapi_queue_submit", tests, NULL, NULL);
}
