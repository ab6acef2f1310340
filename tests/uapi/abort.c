// SPDX-License-Identifier: MIT
/*
 * SEM_WAIT_ABORT on tern.ko: a job stalled on its semaphore fails with
 * -ECONNRESET or -ECANCELED soon after the CPU stores into its abort word
 * through a mapping, long before the job timeout; an abort word set
 * before the wait fails it even though the semaphore passes; one outside
 * the file's buffers faults.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xf86drm.h>

#include "uapi.h"

/* The module's job timeout, or its default when it cannot be read. */
static int64_t job_timeout_ns(void)
{
	long long ms =
		uapi_read_number("/sys/module/tern/parameters/job_timeout_ms");

	return (ms > 0 ? ms : 5000) * 1000000ll;
}

/* Words of the test buffer: the semaphore, the abort word, a witness. */
enum { SEM_WORD, ABORT_WORD, AFTER_WORD };

static uint64_t word_va(const struct uapi_bo *bo, int word)
{
	return bo->va + 8 * (uint64_t)word;
}

static uint64_t *words(const struct uapi_bo *bo)
{
	return (uint64_t *)(void *)bo->cpu;
}

/* SEM_WAIT_ABORT for the semaphore to reach 1, then a FILL of the witness. */
static void emit_abortable_wait(struct uapi_stream *s, const struct uapi_bo *bo,
				uint32_t flags)
{
	uapi_emit_sem_abort(s, flags, word_va(bo, SEM_WORD), 1,
			    word_va(bo, ABORT_WORD));
	uapi_emit_fill(s, word_va(bo, AFTER_WORD), 8, 0x77777777);
}

/*
 * A job stalled in SEM_WAIT_ABORT, its abort word in a buffer of
 * @placement, ends with @want once the CPU stores @word into the abort
 * word: well before the job timeout, counted from the store.
 */
static void check_abort_while_stalled(uint32_t placement, uint32_t flags,
				      uint64_t word, int want)
{
	const int64_t timeout = job_timeout_ns();
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	uint32_t out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	int64_t submitted, stored, ended;
	struct uapi_bo bo;
	int ret;

	uapi_bo_create(uapi.fd, placement, 4096, &bo);
	emit_abortable_wait(&s, &bo, flags);
	assert_ioctl_ok(uapi_submit(uapi.fd, q, &s, out));
	submitted = now_ns();

	/* still stalled: neither passed nor failed */
	ret = drmSyncobjWait(uapi.fd, &out, 1, submitted + timeout / 20,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	assert_int_equal(ret, -ETIME);

	stored = now_ns();
	__atomic_store_n(&words(&bo)[ABORT_WORD], word, __ATOMIC_SEQ_CST);
	assert_int_equal(uapi_fence_status(uapi.fd, out), -want);
	ended = now_ns();
	print_message("abort word %#llx: the job ended %.1f ms after the store "
		      "(job timeout %lld ms)\n", (unsigned long long)word,
		      (double)(ended - stored) / 1e6,
		      (long long)(timeout / 1000000));
	/* not the job timeout: a quarter of it is a bound, not a timing */
	assert_true(ended - stored < timeout / 4);
	assert_true(ended - submitted < timeout);
	assert_true(words(&bo)[AFTER_WORD] == 0);
	assert_true(words(&bo)[ABORT_WORD] == word);

	/* the queue goes on: the same wait passes once cleared and signalled */
	words(&bo)[ABORT_WORD] = 0;
	words(&bo)[SEM_WORD] = 1;
	assert_int_equal(uapi_run(uapi.fd, q, &s), 1);
	assert_true(words(&bo)[AFTER_WORD] == 0x7777777777777777ull);
	drmSyncobjDestroy(uapi.fd, out);
}

static void test_abort_stalled_peer_failed(void **state)
{
	(void)state;
	check_abort_while_stalled(DRM_TERN_PLACEMENT_HOST, 0, 2, ECONNRESET);
}

static void test_abort_stalled_cancelled(void **state)
{
	(void)state;
	check_abort_while_stalled(DRM_TERN_PLACEMENT_HOST, 0, DRM_TERN_SEM_ABORT_CANCEL,
				  ECANCELED);
}

static void test_abort_stalled_device_memory(void **state)
{
	(void)state;
	check_abort_while_stalled(DRM_TERN_PLACEMENT_DEVICE, DRM_TERN_SEM_WAIT_EQ,
				  UINT64_MAX, ECONNRESET);
	check_abort_while_stalled(DRM_TERN_PLACEMENT_DEVICE, DRM_TERN_SEM_WAIT_EQ,
				  DRM_TERN_SEM_ABORT_CANCEL, ECANCELED);
}

/* The abort word is read first: set, it fails a wait that would pass. */
static void test_abort_set_before_wait(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	words(&bo)[SEM_WORD] = 1;
	words(&bo)[ABORT_WORD] = 1ull << 32;	/* a whole u64 is read */
	emit_abortable_wait(&s, &bo, 0);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -ECONNRESET);
	assert_true(words(&bo)[AFTER_WORD] == 0);

	words(&bo)[ABORT_WORD] = DRM_TERN_SEM_ABORT_CANCEL;
	assert_int_equal(uapi_run(uapi.fd, q, &s), -ECANCELED);
	assert_true(words(&bo)[AFTER_WORD] == 0);
}

/* Another job (here on another engine) may set the abort word too. */
static void test_abort_set_by_another_job(void **state)
{
	uint32_t waiter = uapi_queue_create(uapi.fd, 0);
	uint32_t setter = uapi_queue_create(uapi.fd,
					    uapi.info.engine_count > 1 ? 1 : 0);
	uint32_t out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream w = { .size = 0 }, set = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &bo);
	emit_abortable_wait(&w, &bo, 0);
	uapi_emit_sem(&set, DRM_TERN_OP_SEM_SIGNAL, 0, word_va(&bo, ABORT_WORD), 3);
	assert_ioctl_ok(uapi_submit(uapi.fd, waiter, &w, out));
	assert_int_equal(uapi_run(uapi.fd, setter, &set), 1);
	assert_int_equal(uapi_fence_status(uapi.fd, out), -ECONNRESET);
	assert_true(words(&bo)[AFTER_WORD] == 0);
	drmSyncobjDestroy(uapi.fd, out);
}

/* With its abort word zero, the wait is a SEM_WAIT. */
static void test_abort_word_zero_passes(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	uint32_t out = uapi_syncobj_create(uapi.fd);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	emit_abortable_wait(&s, &bo, DRM_TERN_SEM_WAIT_EQ);
	assert_ioctl_ok(uapi_submit(uapi.fd, q, &s, out));
	__atomic_store_n(&words(&bo)[SEM_WORD], 1, __ATOMIC_SEQ_CST);
	assert_int_equal(uapi_fence_status(uapi.fd, out), 1);
	assert_true(words(&bo)[AFTER_WORD] == 0x7777777777777777ull);
	drmSyncobjDestroy(uapi.fd, out);
}

/* An abort word outside the file's buffers faults, the semaphore passing. */
static void test_abort_word_unmapped(void **state)
{
	uint32_t q = uapi_queue_create(uapi.fd, 0);
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo bo;

	(void)state;
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_HOST, 4096, &bo);
	words(&bo)[SEM_WORD] = 1;
	uapi_emit_sem_abort(&s, 0, word_va(&bo, SEM_WORD), 1,
			    uapi_unmapped_va());
	uapi_emit_fill(&s, word_va(&bo, AFTER_WORD), 8, 0x77777777);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
	assert_true(words(&bo)[AFTER_WORD] == 0);

	/* just past the buffer's end */
	s.size = 0;
	uapi_emit_sem_abort(&s, 0, word_va(&bo, SEM_WORD), 1, bo.va + bo.size);
	assert_int_equal(uapi_run(uapi.fd, q, &s), -EFAULT);
}

#define T(f) cmocka_unit_test_setup_teardown(f, uapi_setup, uapi_teardown)

int uapi_abort_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_abort_stalled_peer_failed),
		T(test_abort_stalled_cancelled),
		T(test_abort_stalled_device_memory),
		T(test_abort_set_before_wait),
		T(test_abort_set_by_another_job),
		T(test_abort_word_zero_passes),
		T(test_abort_word_unmapped),
	};

	return cmocka_run_group_tests_name("uapi_abort", tests, NULL, NULL);
}
