// SPDX-License-Identifier: MIT
/*
 * What jobs do: run packets, fail with -EFAULT on an address outside the
 * file's buffers without touching anyone's memory, keep files apart, time
 * out, wait for their in-syncobjs, and give memory back when a file closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "uapi.h"

#define BIG_BYTES	(8u << 20)

static void assert_filled(const struct uapi_bo *bo, uint64_t offset,
			  uint64_t bytes, uint8_t value, const char *what)
{
	for (uint64_t i = offset; i < offset + bytes; i++)
		if (bo->cpu[i] != value)
			fail_msg("%s: byte %llu is 0x%02x, want 0x%02x", what,
				 (unsigned long long)i, bo->cpu[i], value);
}

static void test_job_runs_packets(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, uapi_dma_engines() - 1);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo a, b;
	uint64_t *slots;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 3 * 4096, &a);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 3 * 4096, &b);
	slots = (uint64_t *)(void *)b.cpu;
	uapi_emit_fill(&s, a.va + 3, 5000, 0x77777777);
	uapi_emit_copy(&s, a.va, b.va + 4096, 8192);
	uapi_emit_timestamp(&s, b.va);
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_SIGNAL, 0, b.va + 16, 40);
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, b.va + 16, 2);
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, DRM_TERN_SEM_WAIT_EQ, b.va + 16, 42);
	uapi_emit_timestamp(&s, b.va + 8);
	assert_int_equal(uapi_run(uapi.fd, q, &s), 1);

	assert_filled(&a, 0, 3, 0, "before the fill");
	assert_filled(&a, 3, 5000, 0x77, "fill");
	assert_filled(&a, 5003, 3 * 4096 - 5003, 0, "after the fill");
	assert_memory_equal(b.cpu + 4096, a.cpu, 8192);
	assert_true(slots[0] > 0);
	assert_true(slots[1] >= slots[0]);
	assert_true(slots[2] == 42);
}

/*
 * A job that addresses memory outside its file's buffers fails with
 * -EFAULT; the packets before it ran, the ones after did not, and no
 * other buffer changed.
 */
struct fault_fixture {
	uint32_t queue;
	struct uapi_bo before, after, bystander;
};

static void fault_setup(struct fault_fixture *f)
{
	f->queue = uapi_queue_create(uapi.fd, 0);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &f->before);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &f->after);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &f->bystander);
	memset(f->bystander.cpu, 0xcc, 4096);
}

static void check_fault(struct fault_fixture *f, uint64_t bad_src,
			uint64_t bad_bytes)
{
	struct uapi_stream s = { .size = 0 };

	uapi_emit_fill(&s, f->before.va, 4096, 0x11111111);
	uapi_emit_copy(&s, bad_src, f->after.va, bad_bytes);
	uapi_emit_fill(&s, f->after.va, 4096, 0x22222222);
	assert_int_equal(uapi_run(uapi.fd, f->queue, &s), -EFAULT);
	assert_filled(&f->before, 0, 4096, 0x11, "packet before the fault");
	assert_filled(&f->after, 0, 4096, 0, "faulting copy and packet after it");
	assert_filled(&f->bystander, 0, 4096, 0xcc, "buffer nobody addressed");

	/* the queue goes on running jobs */
	s.size = 0;
	uapi_emit_fill(&s, f->after.va, 4096, 0x33333333);
	assert_int_equal(uapi_run(uapi.fd, f->queue, &s), 1);
	assert_filled(&f->after, 0, 4096, 0x33, "job after the fault");
}

static void test_job_fault_unmapped(void **state)
{
	struct fault_fixture f;

	(void)state;
	fault_setup(&f);
	check_fault(&f, uapi_unmapped_va(), 64);
}

static void test_job_fault_past_buffer_end(void **state)
{
	struct fault_fixture f;
	struct uapi_bo edge;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &edge);
	fault_setup(&f);
	/* starts inside a buffer, ends past it (maybe in the next one) */
	check_fault(&f, edge.va + 4096 - 8, 16);
}

static void test_job_fault_closed_buffer(void **state)
{
	struct fault_fixture f;
	struct uapi_bo gone;
	uint64_t va;

	(void)state;
	fault_setup(&f);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &gone);
	va = gone.va;
	/* nothing is created after the close, so nothing can reuse va */
	uapi_bo_close(uapi.fd, &gone);
	check_fault(&f, va, 64);
}

static void test_job_fault_on_write(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	const uint64_t bad = uapi_unmapped_va();
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	uapi_emit_fill(&s, bad, 16, 0);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
	s.size = 0;
	uapi_emit_copy(&s, bo.va, bad, 16);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
	s.size = 0;
	uapi_emit_timestamp(&s, bad);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
	s.size = 0;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_SIGNAL, 0, bad, 1);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
	s.size = 0;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bad, 0);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
	assert_filled(&bo, 0, 4096, 0, "buffer");
}

/* Handles, queues, syncobjs and addresses of one file mean nothing in another. */
static void test_files_are_isolated(void **state)
{
	int other = uapi_open();
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	uint32_t syncobj = uapi_syncobj_create(uapi.fd);
	struct uapi_bo mine, other_bo;
	struct uapi_stream s = { .size = 0 };
	struct drm_tern_bo_info info = { 0 };
	struct drm_gem_close close_args = { 0 };
	struct drm_tern_queue_destroy destroy = { .queue_id = q };
	uint32_t other_q;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &mine);
	memset(mine.cpu, 0xcc, 4096);

	info.handle = mine.handle;
	assert_errno(uapi_ioctl(other, DRM_IOCTL_TERN_BO_INFO, &info), ENOENT);
	close_args.handle = mine.handle;
	assert_errno(uapi_ioctl(other, DRM_IOCTL_GEM_CLOSE, &close_args), EINVAL);
	assert_errno(uapi_ioctl(other, DRM_IOCTL_TERN_QUEUE_DESTROY, &destroy),
		     ENOENT);
	uapi_emit_fill(&s, mine.va, 4096, 0);
	assert_errno(uapi_submit(other, q, &s, 0), ENOENT);

	/* the other file's address space has nothing at mine.va */
	other_q = uapi_queue_create(other, 0);
	assert_errno(uapi_submit(other, other_q, &s, syncobj), ENOENT);
	assert_int_equal(uapi_run(other, other_q, &s), -EFAULT);
	assert_filled(&mine, 0, 4096, 0xcc, "buffer of the first file");

	/* and once it has a buffer there, it writes its own */
	uapi_bo_create(other, DRM_TERN_PLACEMENT_DEVICE, 4096, &other_bo);
	s.size = 0;
	uapi_emit_fill(&s, other_bo.va, 4096, 0x44444444);
	assert_int_equal(uapi_run(other, other_q, &s), 1);
	assert_filled(&other_bo, 0, 4096, 0x44, "buffer of the second file");
	assert_filled(&mine, 0, 4096, 0xcc, "buffer of the first file");

	/* the first file's objects still work for it */
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_BO_INFO, &info));
	munmap(other_bo.cpu, other_bo.size);
	close(other);
}

static void test_job_timeout(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	/* the semaphore stays 0, so the wait never passes */
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, bo.va, 1);
	uapi_emit_fill(&s, bo.va + 8, 8, 0xffffffff);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -ETIMEDOUT);
	assert_filled(&bo, 8, 8, 0, "packet after the wait");

	s.size = 0;
	uapi_emit_fill(&s, bo.va + 8, 8, 0x55555555);
	assert_int_equal(uapi_run(uapi.fd, q, &s), 1);
	assert_filled(&bo, 8, 8, 0x55, "job after the timeout");
}

/* A job on one engine waits on a semaphore a job on another engine signals. */
static void test_semaphore_across_queues(void **state)
{
	uint32_t waiter = uapi_queue_create(uapi.fd, 0);
	uint32_t signaller = uapi_queue_create(uapi.fd,
					       uapi.info.engine_count > 1 ? 1 : 0);
	uint32_t wait_out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream w = { .size = 0 }, sig = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	if (uapi.info.engine_count < 2) {
		print_message("needs two engines\n");
		skip();
	}
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	uapi_emit_sem(&w, DRM_TERN_OP_SEM_WAIT, 0, bo.va, 3);
	uapi_emit_fill(&w, bo.va + 8, 8, 0x66666666);
	uapi_emit_sem(&sig, DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, bo.va, 3);
	assert_ioctl_ok(uapi_submit(uapi.fd, waiter, &w, wait_out));
	assert_int_equal(uapi_run(uapi.fd, signaller, &sig), 1);
	assert_int_equal(uapi_fence_status(uapi.fd, wait_out), 1);
	assert_filled(&bo, 8, 8, 0x66, "packet after the wait");
}

/* A job listing another job's out-syncobj starts after that job ends. */
static void test_in_syncobj_orders_jobs(void **state)
{
	uint32_t first_q = uapi_queue_create(uapi.fd, 0);
	uint32_t second_q = uapi_queue_create(uapi.fd, uapi_dma_engines() - 1);
	uint32_t first_out = uapi_syncobj_create(uapi.fd);
	uint32_t second_out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream first = { .size = 0 }, second = { .size = 0 };
	struct drm_tern_submit args = { 0 };
	struct uapi_bo src, dst;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, BIG_BYTES, &src);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, BIG_BYTES, &dst);
	for (uint32_t i = 8; i >= 1; i--)
		uapi_emit_fill(&first, src.va, BIG_BYTES, 0x01010101u * i);
	uapi_emit_copy(&second, src.va, dst.va, BIG_BYTES);

	assert_ioctl_ok(uapi_submit(uapi.fd, first_q, &first, first_out));
	args.queue_id = second_q;
	args.packets = (uintptr_t)second.words;
	args.packets_size = second.size;
	args.in_syncobjs = (uintptr_t)&first_out;
	args.in_syncobj_count = 1;
	args.out_syncobj = second_out;
	assert_ioctl_ok(uapi_ioctl(uapi.fd, DRM_IOCTL_TERN_SUBMIT, &args));
	assert_int_equal(uapi_fence_status(uapi.fd, second_out), 1);
	assert_int_equal(uapi_fence_status(uapi.fd, first_out), 1);
	assert_filled(&dst, 0, BIG_BYTES, 0x01, "copy made after the fills");
}

/* Closing a file with jobs queued gives its device memory back. */
static void test_close_with_jobs_in_flight(void **state)
{
	const uint64_t base = uapi_get_info(uapi.fd).device_memory_used;
	const uint64_t bytes = uapi.info.device_memory_size / 4;
	int other = uapi_open();
	uint32_t q = uapi_queue_create(other, 0);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo a, b;
	double deadline;

	(void)state;
	uapi_bo_create(other, DRM_TERN_PLACEMENT_DEVICE, bytes, &a);
	uapi_bo_create(other, DRM_TERN_PLACEMENT_DEVICE, bytes, &b);
	for (int i = 0; i < 4; i++) {
		uapi_emit_copy(&s, a.va, b.va, bytes);
		uapi_emit_copy(&s, b.va, a.va, bytes);
	}
	for (int i = 0; i < 4; i++)
		assert_ioctl_ok(uapi_submit(other, q, &s, 0));
	/* one job waits forever: the close must not wait for it */
	s.size = 0;
	uapi_emit_sem(&s, DRM_TERN_OP_SEM_WAIT, 0, a.va, UINT64_MAX);
	assert_ioctl_ok(uapi_submit(other, q, &s, 0));
	assert_true(uapi_get_info(uapi.fd).device_memory_used >= base + 2 * bytes);

	munmap(a.cpu, a.size);
	munmap(b.cpu, b.size);
	close(other);
	/* a bound longer than any job timeout, not a timing requirement */
	deadline = now_s() + 60;
	while (uapi_get_info(uapi.fd).device_memory_used != base &&
	       now_s() < deadline)
		usleep(10000);
	assert_true(uapi_get_info(uapi.fd).device_memory_used == base);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_job_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_job_runs_packets),
		T(test_job_fault_unmapped),
		T(test_job_fault_past_buffer_end),
		T(test_job_fault_closed_buffer),
		T(test_job_fault_on_write),
		T(test_files_are_isolated),
		T(test_job_timeout),
		T(test_semaphore_across_queues),
		T(test_in_syncobj_orders_jobs),
		T(test_close_with_jobs_in_flight),
	};

	return cmocka_run_group_tests_name("uapi_jobs", tests, NULL, NULL);
}
