// SPDX-License-Identifier: MIT
/*
 * Unit tests of the device model alone: tern_model_validate() and
 * tern_model_run() over a fake memory of a few buffers and a fake clock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "bad_packets.h"
#include "tern_model.h"

#define SMALL_BYTES	(64u << 10)
/* Large enough that a copy or fill needs three runs of the budget. */
#define BIG_BYTES	(2u * TERN_MODEL_BUDGET + 4096u + 123u)

enum { BUF_A, BUF_B, BUF_C, BUF_D, BUF_COUNT };

/* A and B are adjacent in VA but are separate allocations. */
static const struct {
	u64 va;
	u64 size;
} layout[BUF_COUNT] = {
	[BUF_A] = { 0x100000000ull, SMALL_BYTES },
	[BUF_B] = { 0x100000000ull + SMALL_BYTES, SMALL_BYTES },
	[BUF_C] = { 0x200000000ull, BIG_BYTES },
	[BUF_D] = { 0x300000000ull, BIG_BYTES },
};

#define UNMAPPED_VA	0x500000000ull
#define CLOCK_START	0x123456789ull
#define CLOCK_STEP	1000u

static u8 *buffers[BUF_COUNT];
static u8 *pristine[BUF_COUNT];	/* what every test starts from */
static u64 fake_now;

static void *fake_translate(void *ctx, u64 va, u64 len, u32 *owner)
{
	(void)ctx;
	assert_true(len >= 1);
	*owner = 0;	/* all memory is the executing device's own */
	for (int i = 0; i < BUF_COUNT; i++) {
		u64 off = va - layout[i].va;

		if (va >= layout[i].va && off < layout[i].size &&
		    len <= layout[i].size - off)
			return buffers[i] + off;
	}
	return NULL;
}

static u64 fake_clock(void *ctx)
{
	u64 now = fake_now;

	(void)ctx;
	fake_now += CLOCK_STEP;
	return now;
}

static const struct tern_model_mem fake_mem = {
	.translate = fake_translate,
	.clock = fake_clock,
};

/* The initial content of every buffer: a byte that depends on buffer and offset. */
static u8 initial_byte(int buf, u64 off)
{
	u64 x = (off + 1) * 0x9e3779b97f4a7c15ull + (u64)buf * 0x632be59bd9b4e5ull;

	return (u8)(x >> 56);
}

static void assert_untouched(int buf, u64 off, u64 len)
{
	if (memcmp(buffers[buf] + off, pristine[buf] + off, len) == 0)
		return;
	for (u64 i = off; i < off + len; i++) {
		if (buffers[buf][i] != pristine[buf][i])
			fail_msg("buffer %d byte %llu changed", buf,
				 (unsigned long long)i);
	}
}

static void assert_all_untouched(void)
{
	for (int i = 0; i < BUF_COUNT; i++)
		assert_untouched(i, 0, layout[i].size);
}

static u64 va(int buf, u64 off)
{
	return layout[buf].va + off;
}

static u64 *slot(int buf, u64 off)
{
	return (u64 *)(void *)(buffers[buf] + off);
}

static int reset_memory(void **state)
{
	(void)state;
	for (int i = 0; i < BUF_COUNT; i++)
		memcpy(buffers[i], pristine[i], layout[i].size);
	fake_now = CLOCK_START;
	return 0;
}

static int alloc_memory(void **state)
{
	(void)state;
	for (int i = 0; i < BUF_COUNT; i++) {
		buffers[i] = malloc(layout[i].size);
		pristine[i] = malloc(layout[i].size);
		if (!buffers[i] || !pristine[i])
			return -1;
		for (u64 off = 0; off < layout[i].size; off++)
			pristine[i][off] = initial_byte(i, off);
	}
	return 0;
}

static int free_memory(void **state)
{
	(void)state;
	for (int i = 0; i < BUF_COUNT; i++) {
		free(buffers[i]);
		free(pristine[i]);
	}
	return 0;
}

/* ---- building packet streams ---- */

struct stream {
	u64 words[TERN_MODEL_MAX_SUBMIT_BYTES / 8 + 8];
	u32 size;
};

static struct stream stream;

static u32 emit(const void *packet, u32 bytes)
{
	u32 offset = stream.size;

	assert_true(offset + bytes <= sizeof(stream.words));
	memcpy((u8 *)stream.words + offset, packet, bytes);
	stream.size += bytes;
	return offset;
}

static struct drm_tern_packet_header *header_at(u32 offset)
{
	return (void *)((u8 *)stream.words + offset);
}

static u32 emit_nop(u16 length)
{
	struct drm_tern_packet_header h = { DRM_TERN_OP_NOP, length, 0 };
	u32 offset = emit(&h, sizeof(h));

	for (u16 i = 1; i < length; i++) {
		u64 zero = 0;

		emit(&zero, sizeof(zero));
	}
	return offset;
}

static u32 emit_copy(u64 src, u64 dst, u64 bytes)
{
	struct drm_tern_packet_copy p = {
		.header = { DRM_TERN_OP_COPY, sizeof(p) / 8, 0 },
		.src = src, .dst = dst, .bytes = bytes,
	};

	return emit(&p, sizeof(p));
}

static u32 emit_fill(u64 dst, u64 bytes, u32 pattern)
{
	struct drm_tern_packet_fill p = {
		.header = { DRM_TERN_OP_FILL, sizeof(p) / 8, 0 },
		.dst = dst, .bytes = bytes, .pattern = pattern,
	};

	return emit(&p, sizeof(p));
}

static u32 emit_timestamp(u64 dst)
{
	struct drm_tern_packet_timestamp p = {
		.header = { DRM_TERN_OP_TIMESTAMP, sizeof(p) / 8, 0 },
		.dst = dst,
	};

	return emit(&p, sizeof(p));
}

static u32 emit_sem(u16 opcode, u32 flags, u64 addr, u64 value)
{
	struct drm_tern_packet_sem_signal p = {
		.header = { opcode, sizeof(p) / 8, flags },
		.addr = addr, .value = value,
	};

	return emit(&p, sizeof(p));
}

static u32 emit_sem_abort(u32 flags, u64 addr, u64 value, u64 abort_va)
{
	struct drm_tern_packet_sem_wait_abort p = {
		.header = { DRM_TERN_OP_SEM_WAIT_ABORT, sizeof(p) / 8, flags },
		.addr = addr, .value = value, .abort = abort_va,
	};

	return emit(&p, sizeof(p));
}

static int reset_stream(void **state)
{
	(void)state;
	memset(&stream, 0, sizeof(stream));
	return 0;
}

static int reset_all(void **state)
{
	reset_stream(state);
	return reset_memory(state);
}

/* ---- validation ---- */

#define NO_OFFSET 0xdeadbeefu

static void assert_invalid_at(u32 size, u32 expected_offset)
{
	u32 bad = NO_OFFSET;

	assert_int_equal(tern_model_validate(stream.words, size, &bad), -EINVAL);
	assert_int_equal(bad, expected_offset);
}

static void assert_stream_invalid_at(u32 expected_offset)
{
	assert_invalid_at(stream.size, expected_offset);
}

static void assert_stream_valid(void)
{
	assert_int_equal(tern_model_validate(stream.words, stream.size, NULL), 0);
}

static void test_validate_size_zero(void **state)
{
	(void)state;
	emit_nop(1);
	assert_invalid_at(0, 0);
}

static void test_validate_size_not_multiple_of_8(void **state)
{
	(void)state;
	emit_nop(2);
	assert_invalid_at(12, 0);
	assert_invalid_at(9, 0);
	assert_invalid_at(4, 0);
}

static void test_validate_size_too_big(void **state)
{
	(void)state;
	/* One NOP spanning exactly the maximum is fine; one more word is not. */
	emit_nop(TERN_MODEL_MAX_SUBMIT_BYTES / 8);
	assert_stream_valid();
	emit_nop(1);
	assert_stream_invalid_at(0);
}

static void test_validate_all_opcodes_valid(void **state)
{
	(void)state;
	emit_nop(1);
	emit_nop(3);
	emit_copy(va(BUF_A, 3), va(BUF_B, 5), 7);
	emit_fill(va(BUF_A, 1), 3, 0x01020304);
	emit_timestamp(va(BUF_A, 8));
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, va(BUF_A, 16), 1);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, va(BUF_A, 16), 1);
	emit_sem(DRM_TERN_OP_SEM_WAIT, 0, va(BUF_A, 16), 1);
	emit_sem(DRM_TERN_OP_SEM_WAIT, DRM_TERN_SEM_WAIT_EQ, va(BUF_A, 16), 2);
	emit_sem_abort(0, va(BUF_A, 16), 1, va(BUF_A, 24));
	emit_sem_abort(DRM_TERN_SEM_WAIT_EQ, va(BUF_A, 16), 2, va(BUF_B, 0));
	/* the semaphore may be its own abort word */
	emit_sem_abort(0, va(BUF_A, 16), 0, va(BUF_A, 16));
	assert_stream_valid();
	/* A NULL bad_offset is allowed on both outcomes. */
	header_at(0)->opcode = 0;
	assert_int_equal(tern_model_validate(stream.words, stream.size, NULL),
			 -EINVAL);
}

/*
 * Every malformed stream of the shared table (tests/common/bad_packets.c)
 * is refused, naming the broken packet.
 */
static void test_validate_bad_packets(void **state)
{
	(void)state;
	for (size_t i = 0; i < bad_packet_count; i++) {
		const struct bad_packet *bad = &bad_packets[i];

		for (unsigned int v = 0; v < bad->variants; v++) {
			u32 bad_offset = NO_OFFSET, size, offset;
			int ret;

			offset = bad_packet_build(bad, v, va(BUF_A, 0),
						  stream.words, &size);
			ret = tern_model_validate(stream.words, size, &bad_offset);
			if (ret != -EINVAL)
				fail_msg("%s/%u: validation returns %d, want -EINVAL",
					 bad->name, v, ret);
			if (bad_offset != offset)
				fail_msg("%s/%u: validation names offset %u, want %u",
					 bad->name, v, bad_offset, offset);
		}
	}
}

/* Ranges that end exactly at DRM_TERN_VA_LIMIT are in range. */
static void test_validate_ranges_reach_limit(void **state)
{
	const u64 limit = DRM_TERN_VA_LIMIT;

	(void)state;
	emit_copy(limit - 16, limit - 32, 16);
	emit_copy(limit, limit, 0);
	emit_fill(limit - 3, 3, 0);
	emit_timestamp(limit - 8);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, limit - 8, 1);
	emit_sem(DRM_TERN_OP_SEM_WAIT, 0, limit - 8, 1);
	emit_sem_abort(0, limit - 8, 1, limit - 8);
	assert_stream_valid();
}

/* ---- execution ---- */

static struct tern_model_job job;

static void start_job(void)
{
	assert_int_equal(tern_model_validate(stream.words, stream.size, NULL), 0);
	tern_model_job_init(&job, stream.words, stream.size);
}

/* Runs until the job ends, stalls or faults, counting yields. */
static int run_job(unsigned int *yields)
{
	for (int i = 0; i < 1000; i++) {
		int ret = tern_model_run(&job, &fake_mem);

		if (ret != TERN_MODEL_YIELD)
			return ret;
		if (yields)
			(*yields)++;
	}
	fail_msg("job still yielding after 1000 runs");
	return -1;
}

static void test_run_copy_between_buffers(void **state)
{
	(void)state;
	emit_copy(va(BUF_A, 5), va(BUF_B, 11), 1001);
	emit_copy(va(BUF_B, 0), va(BUF_A, 2000), 1);
	start_job();
	assert_int_equal(run_job(NULL), 0);
	for (u64 i = 0; i < 1001; i++)
		assert_int_equal(buffers[BUF_B][11 + i], initial_byte(BUF_A, 5 + i));
	assert_int_equal(buffers[BUF_A][2000], initial_byte(BUF_B, 0));
	assert_untouched(BUF_B, 0, 11);
	assert_untouched(BUF_B, 1012, SMALL_BYTES - 1012);
	assert_untouched(BUF_A, 0, 2000);
	assert_untouched(BUF_A, 2001, SMALL_BYTES - 2001);
}

/* Copies inside C from @src_off to @dst_off and checks against memmove(). */
static void check_overlapping_copy(u64 src_off, u64 dst_off, u64 bytes)
{
	u8 *expected = malloc(BIG_BYTES);

	assert_non_null(expected);
	reset_all(NULL);
	memcpy(expected, buffers[BUF_C], BIG_BYTES);
	memmove(expected + dst_off, expected + src_off, bytes);
	emit_copy(va(BUF_C, src_off), va(BUF_C, dst_off), bytes);
	start_job();
	assert_int_equal(run_job(NULL), 0);
	assert_memory_equal(buffers[BUF_C], expected, BIG_BYTES);
	free(expected);
}

static void test_run_copy_overlap_forward(void **state)
{
	(void)state;
	check_overlapping_copy(0, 3, 100);
	check_overlapping_copy(7, 8, 4096);
	/* larger than one budget, destination above source */
	check_overlapping_copy(1, (1u << 20) + 3, BIG_BYTES - (1u << 20) - 3);
}

static void test_run_copy_overlap_backward(void **state)
{
	(void)state;
	check_overlapping_copy(3, 0, 100);
	check_overlapping_copy(8, 7, 4096);
	check_overlapping_copy((1u << 20) + 3, 1, BIG_BYTES - (1u << 20) - 3);
}

static void test_run_zero_bytes(void **state)
{
	(void)state;
	emit_copy(va(BUF_A, 0), va(BUF_B, 0), 0);
	emit_fill(va(BUF_A, 1), 0, 0xffffffffu);
	/* Nothing is accessed, so even an unmapped address is fine. */
	emit_copy(UNMAPPED_VA, UNMAPPED_VA + 64, 0);
	emit_fill(UNMAPPED_VA, 0, 0);
	start_job();
	assert_int_equal(run_job(NULL), 0);
	assert_all_untouched();
}

static void test_run_copy_yields_and_resumes(void **state)
{
	unsigned int yields = 0;

	(void)state;
	emit_copy(va(BUF_C, 0), va(BUF_D, 0), BIG_BYTES);
	emit_fill(va(BUF_A, 0), 4, 0x04030201);
	start_job();

	/* One budget moves, the rest of the destination waits for later runs. */
	assert_int_equal(tern_model_run(&job, &fake_mem), TERN_MODEL_YIELD);
	assert_memory_equal(buffers[BUF_D], buffers[BUF_C], TERN_MODEL_BUDGET);
	assert_untouched(BUF_D, TERN_MODEL_BUDGET, BIG_BYTES - TERN_MODEL_BUDGET);
	assert_untouched(BUF_A, 0, 4);

	assert_int_equal(run_job(&yields), 0);
	assert_int_equal(yields, 1);
	assert_memory_equal(buffers[BUF_D], buffers[BUF_C], BIG_BYTES);
	assert_int_equal(buffers[BUF_A][0], 1);
	assert_int_equal(buffers[BUF_A][3], 4);
}

static void check_fill(u8 *dst, u64 bytes, u32 pattern, u64 phase)
{
	for (u64 i = 0; i < bytes; i++) {
		u8 want = (u8)(pattern >> (8 * ((i + phase) % 4)));

		if (dst[i] != want)
			fail_msg("fill byte %llu is 0x%02x, want 0x%02x",
				 (unsigned long long)i, dst[i], want);
	}
}

static void test_run_fill_byte_order(void **state)
{
	static const u64 lengths[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 67, 4099 };
	const u32 pattern = 0x44332211;

	(void)state;
	for (u64 offset = 0; offset < 8; offset++) {
		for (size_t l = 0; l < ARRAY_SIZE(lengths); l++) {
			u64 bytes = lengths[l];

			reset_all(NULL);
			emit_fill(va(BUF_A, 16 + offset), bytes, pattern);
			start_job();
			assert_int_equal(run_job(NULL), 0);
			check_fill(buffers[BUF_A] + 16 + offset, bytes, pattern, 0);
			assert_untouched(BUF_A, 0, 16 + offset);
			assert_untouched(BUF_A, 16 + offset + bytes,
					 SMALL_BYTES - 16 - offset - bytes);
		}
	}
	/* A uniform pattern gives uniform bytes. */
	reset_all(NULL);
	emit_fill(va(BUF_B, 3), 5, 0xababababu);
	start_job();
	assert_int_equal(run_job(NULL), 0);
	check_fill(buffers[BUF_B] + 3, 5, 0xababababu, 0);
	assert_untouched(BUF_B, 8, SMALL_BYTES - 8);
}

static void test_run_fill_yields_and_resumes(void **state)
{
	static const u32 patterns[] = { 0x04030201, 0x5a5a5a5a };
	const u64 bytes = BIG_BYTES - 1;

	(void)state;
	for (size_t p = 0; p < 2; p++) {
		unsigned int yields = 0;

		reset_all(NULL);
		/* An odd start keeps the pattern phase honest across budgets. */
		emit_fill(va(BUF_D, 1), bytes, patterns[p]);
		start_job();
		assert_int_equal(tern_model_run(&job, &fake_mem), TERN_MODEL_YIELD);
		check_fill(buffers[BUF_D] + 1, TERN_MODEL_BUDGET, patterns[p], 0);
		assert_untouched(BUF_D, 1 + TERN_MODEL_BUDGET,
				 bytes - TERN_MODEL_BUDGET);
		assert_int_equal(run_job(&yields), 0);
		assert_int_equal(yields, 1);
		check_fill(buffers[BUF_D] + 1, bytes, patterns[p], 0);
		assert_untouched(BUF_D, 0, 1);
	}
}

static void test_run_timestamp(void **state)
{
	(void)state;
	emit_timestamp(va(BUF_A, 8));
	emit_nop(1);
	emit_timestamp(va(BUF_B, 64));
	start_job();
	assert_int_equal(run_job(NULL), 0);
	assert_true(*slot(BUF_A, 8) == CLOCK_START);
	assert_true(*slot(BUF_B, 64) == CLOCK_START + CLOCK_STEP);
	assert_untouched(BUF_A, 0, 8);
	assert_untouched(BUF_A, 16, SMALL_BYTES - 16);
}

static void test_run_sem_signal(void **state)
{
	(void)state;
	*slot(BUF_A, 0) = 40;
	*slot(BUF_A, 8) = 40;
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, va(BUF_A, 0), 5);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, va(BUF_A, 8), 2);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, va(BUF_A, 8),
		 0x100000000ull);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, va(BUF_B, 8), UINT64_MAX);
	start_job();
	assert_int_equal(run_job(NULL), 0);
	assert_true(*slot(BUF_A, 0) == 5);
	assert_true(*slot(BUF_A, 8) == 0x100000000ull + 42);
	assert_true(*slot(BUF_B, 8) == UINT64_MAX);
	assert_untouched(BUF_A, 16, SMALL_BYTES - 16);
	assert_untouched(BUF_B, 0, 8);
}

/* Engines of several devices add to one semaphore at the same time. */
#define ADDERS		4
#define ADDS_PER_JOB	2000
#define JOBS_PER_ADDER	50

static void *add_to_semaphore(void *arg)
{
	static struct drm_tern_packet_sem_signal packets[ADDERS][ADDS_PER_JOB];
	struct drm_tern_packet_sem_signal *mine = packets[(uintptr_t)arg];
	struct tern_model_job adder_job;
	int ret = 0;

	for (int i = 0; i < ADDS_PER_JOB; i++) {
		mine[i] = (struct drm_tern_packet_sem_signal) {
			.header = { DRM_TERN_OP_SEM_SIGNAL, sizeof(mine[i]) / 8,
				    DRM_TERN_SEM_SIGNAL_ADD },
			.addr = va(BUF_A, 64), .value = 3,
		};
	}
	for (int j = 0; j < JOBS_PER_ADDER && !ret; j++) {
		tern_model_job_init(&adder_job, mine, sizeof(packets[0]));
		do
			ret = tern_model_run(&adder_job, &fake_mem);
		while (ret == TERN_MODEL_YIELD);
	}
	return (void *)(intptr_t)ret;
}

static void test_run_sem_signal_add_is_atomic(void **state)
{
	pthread_t threads[ADDERS];

	(void)state;
	*slot(BUF_A, 64) = 1;
	for (uintptr_t i = 0; i < ADDERS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL,
						add_to_semaphore, (void *)i), 0);
	for (int i = 0; i < ADDERS; i++) {
		void *ret;

		assert_int_equal(pthread_join(threads[i], &ret), 0);
		assert_int_equal((intptr_t)ret, 0);
	}
	assert_true(*slot(BUF_A, 64) ==
		    1 + 3ull * ADDERS * ADDS_PER_JOB * JOBS_PER_ADDER);
}

static void test_run_sem_wait_geq(void **state)
{
	u32 wait;

	(void)state;
	*slot(BUF_A, 0) = 3;
	wait = emit_sem(DRM_TERN_OP_SEM_WAIT, 0, va(BUF_A, 0), 5);
	emit_fill(va(BUF_B, 0), 4, 0x01010101);
	start_job();
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	assert_int_equal(job.offset, wait);
	*slot(BUF_A, 0) = 4;
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	assert_untouched(BUF_B, 0, SMALL_BYTES);
	*slot(BUF_A, 0) = 7;	/* greater than the value also passes */
	assert_int_equal(run_job(NULL), 0);
	check_fill(buffers[BUF_B], 4, 0x01010101, 0);
}

static void test_run_sem_wait_eq(void **state)
{
	(void)state;
	*slot(BUF_A, 0) = 3;
	emit_sem(DRM_TERN_OP_SEM_WAIT, DRM_TERN_SEM_WAIT_EQ, va(BUF_A, 0), 5);
	emit_fill(va(BUF_B, 0), 4, 0x02020202);
	start_job();
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	*slot(BUF_A, 0) = 7;	/* past the value is not equal */
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	assert_untouched(BUF_B, 0, SMALL_BYTES);
	*slot(BUF_A, 0) = 5;
	assert_int_equal(run_job(NULL), 0);
	check_fill(buffers[BUF_B], 4, 0x02020202, 0);
}

/* A wait that would pass, ended by its abort word first: @word gives @err. */
static void check_abort_before_wait(u64 word, int err)
{
	u32 wait;

	reset_all(NULL);
	*slot(BUF_A, 0) = 5;		/* the semaphore passes */
	*slot(BUF_A, 8) = word;		/* but the abort word is set */
	emit_fill(va(BUF_B, 0), 4, 0x01010101);
	wait = emit_sem_abort(0, va(BUF_A, 0), 5, va(BUF_A, 8));
	emit_fill(va(BUF_B, 8), 4, 0x02020202);
	start_job();
	assert_int_equal(run_job(NULL), err);
	assert_int_equal(job.offset, wait);
	check_fill(buffers[BUF_B], 4, 0x01010101, 0);
	assert_untouched(BUF_B, 4, SMALL_BYTES - 4);
	assert_true(*slot(BUF_A, 0) == 5 && *slot(BUF_A, 8) == word);
	/* the job stays failed: its abort word is still set */
	assert_int_equal(run_job(NULL), err);
}

static void test_run_sem_wait_abort_set_before(void **state)
{
	(void)state;
	check_abort_before_wait(DRM_TERN_SEM_ABORT_CANCEL, -ECANCELED);
	check_abort_before_wait(2, -ECONNRESET);
	check_abort_before_wait(UINT64_MAX, -ECONNRESET);
	/* the whole word is read, not its low half */
	check_abort_before_wait(1ull << 32, -ECONNRESET);
	check_abort_before_wait((1ull << 32) | DRM_TERN_SEM_ABORT_CANCEL,
				-ECONNRESET);
}

/* A stalled wait sees its abort word set between two looks. */
static void check_abort_while_stalled(u32 flags, u64 word, int err)
{
	u32 wait;

	reset_all(NULL);
	*slot(BUF_A, 0) = 3;
	*slot(BUF_B, 64) = 0;
	wait = emit_sem_abort(flags, va(BUF_A, 0), 5, va(BUF_B, 64));
	emit_fill(va(BUF_C, 0), 4, 0x03030303);
	start_job();
	for (int i = 0; i < 3; i++) {
		assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
		assert_int_equal(job.offset, wait);
	}
	*slot(BUF_A, 0) = 4;		/* moves, but does not pass */
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	*slot(BUF_B, 64) = word;
	assert_int_equal(run_job(NULL), err);
	assert_int_equal(job.offset, wait);
	assert_untouched(BUF_C, 0, BIG_BYTES);
	/* a semaphore that passes now does not undo the abort */
	*slot(BUF_A, 0) = 5;
	assert_int_equal(run_job(NULL), err);
	assert_untouched(BUF_C, 0, BIG_BYTES);
}

static void test_run_sem_wait_abort_set_while_stalled(void **state)
{
	(void)state;
	check_abort_while_stalled(0, 7, -ECONNRESET);
	check_abort_while_stalled(DRM_TERN_SEM_WAIT_EQ, 7, -ECONNRESET);
	check_abort_while_stalled(0, DRM_TERN_SEM_ABORT_CANCEL, -ECANCELED);
	check_abort_while_stalled(DRM_TERN_SEM_WAIT_EQ, DRM_TERN_SEM_ABORT_CANCEL,
				  -ECANCELED);
}

static void test_run_sem_wait_abort_passes(void **state)
{
	(void)state;
	*slot(BUF_A, 0) = 3;
	*slot(BUF_A, 8) = 0;
	*slot(BUF_A, 16) = 0;
	emit_sem_abort(0, va(BUF_A, 0), 5, va(BUF_A, 8));
	emit_fill(va(BUF_B, 0), 4, 0x04040404);
	emit_sem_abort(DRM_TERN_SEM_WAIT_EQ, va(BUF_A, 0), 9, va(BUF_A, 16));
	emit_fill(va(BUF_B, 4), 4, 0x05050505);
	start_job();
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	*slot(BUF_A, 0) = 9;	/* passes the first (>=), and the second (==) */
	assert_int_equal(run_job(NULL), 0);
	check_fill(buffers[BUF_B], 4, 0x04040404, 0);
	check_fill(buffers[BUF_B] + 4, 4, 0x05050505, 0);
	assert_true(*slot(BUF_A, 8) == 0 && *slot(BUF_A, 16) == 0);

	/* EQ: past the value is not equal */
	reset_all(NULL);
	*slot(BUF_A, 0) = 6;
	*slot(BUF_A, 8) = 0;
	emit_sem_abort(DRM_TERN_SEM_WAIT_EQ, va(BUF_A, 0), 5, va(BUF_A, 8));
	start_job();
	assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	*slot(BUF_A, 0) = 5;
	assert_int_equal(run_job(NULL), 0);

	/* one word as semaphore and abort word: zero passes a wait for 0 */
	reset_all(NULL);
	*slot(BUF_A, 0) = 0;
	emit_sem_abort(0, va(BUF_A, 0), 0, va(BUF_A, 0));
	start_job();
	assert_int_equal(run_job(NULL), 0);
}

static void test_run_sem_wait_abort_faults(void **state)
{
	(void)state;
	/* an unmapped abort word faults, even when the semaphore passes */
	*slot(BUF_A, 0) = 5;
	emit_sem_abort(0, va(BUF_A, 0), 1, UNMAPPED_VA);
	emit_fill(va(BUF_B, 0), 4, 0x06060606);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_untouched(BUF_B, 0, SMALL_BYTES);

	/* the last word of B may be an abort word; the one after it is not */
	reset_stream(NULL);
	*slot(BUF_B, SMALL_BYTES - 8) = 0;
	emit_sem_abort(0, va(BUF_A, 0), 1, va(BUF_B, SMALL_BYTES - 8));
	start_job();
	assert_int_equal(run_job(NULL), 0);
	reset_stream(NULL);
	emit_sem_abort(0, va(BUF_A, 0), 1, va(BUF_B, SMALL_BYTES));
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);

	/* an unmapped semaphore faults while the abort word is zero */
	reset_stream(NULL);
	*slot(BUF_A, 8) = 0;
	emit_sem_abort(0, UNMAPPED_VA, 1, va(BUF_A, 8));
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);

	/* and is never looked at once it is set: the abort comes first */
	*slot(BUF_A, 8) = 3;
	start_job();
	assert_int_equal(run_job(NULL), -ECONNRESET);
}

static void test_run_stall_does_not_repeat_work(void **state)
{
	(void)state;
	*slot(BUF_A, 0) = 0;	/* counter */
	*slot(BUF_A, 8) = 0;	/* gate */
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, va(BUF_A, 0), 1);
	emit_sem(DRM_TERN_OP_SEM_WAIT, 0, va(BUF_A, 8), 1);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, va(BUF_A, 0), 10);
	start_job();
	for (int i = 0; i < 3; i++)
		assert_int_equal(run_job(NULL), TERN_MODEL_STALLED);
	assert_true(*slot(BUF_A, 0) == 1);
	*slot(BUF_A, 8) = 1;
	assert_int_equal(run_job(NULL), 0);
	assert_true(*slot(BUF_A, 0) == 11);
}

static void test_run_fault_mid_stream(void **state)
{
	(void)state;
	emit_fill(va(BUF_A, 0), 100, 0x01010101);
	emit_copy(UNMAPPED_VA, va(BUF_B, 0), 64);
	emit_fill(va(BUF_B, 100), 100, 0x02020202);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, va(BUF_A, 512), 9);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	check_fill(buffers[BUF_A], 100, 0x01010101, 0);
	assert_untouched(BUF_A, 100, SMALL_BYTES - 100);
	assert_untouched(BUF_B, 0, SMALL_BYTES);
}

static void test_run_faulting_copy_writes_nothing(void **state)
{
	(void)state;
	/* destination runs one byte past the end of B */
	emit_copy(va(BUF_A, 0), va(BUF_B, 1), SMALL_BYTES);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_all_untouched();

	/* source runs past the end of B, destination is fine */
	reset_stream(NULL);
	emit_copy(va(BUF_B, SMALL_BYTES - 8), va(BUF_C, 0), 16);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_all_untouched();

	/* a copy of several budgets whose destination ends past D */
	reset_stream(NULL);
	emit_copy(va(BUF_C, 0), va(BUF_D, 1), BIG_BYTES);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_all_untouched();
}

static void test_run_range_across_two_buffers_faults(void **state)
{
	const u64 a_end = SMALL_BYTES;

	(void)state;
	/* [a_end - 8, a_end + 8) is contiguous in VA but spans A and B. */
	emit_copy(va(BUF_A, a_end - 8), va(BUF_C, 0), 16);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_all_untouched();

	reset_stream(NULL);
	emit_copy(va(BUF_C, 0), va(BUF_A, a_end - 8), 16);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_all_untouched();

	reset_stream(NULL);
	emit_fill(va(BUF_A, a_end - 3), 6, 0);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_all_untouched();
}

static void test_run_unmapped_slots_fault(void **state)
{
	(void)state;
	emit_timestamp(UNMAPPED_VA);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);

	reset_stream(NULL);
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, UNMAPPED_VA, 1);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);

	reset_stream(NULL);
	emit_sem(DRM_TERN_OP_SEM_WAIT, 0, UNMAPPED_VA, 0);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);

	/* the last 8 bytes of B are a slot; the 8 after them are not */
	reset_stream(NULL);
	emit_timestamp(va(BUF_B, SMALL_BYTES - 8));
	emit_sem(DRM_TERN_OP_SEM_SIGNAL, 0, va(BUF_B, SMALL_BYTES), 1);
	start_job();
	assert_int_equal(run_job(NULL), -EFAULT);
	assert_true(*slot(BUF_B, SMALL_BYTES - 8) == CLOCK_START);
	assert_untouched(BUF_A, 0, SMALL_BYTES);
}

static void test_run_nop_skips_its_body(void **state)
{
	u32 nop;

	(void)state;
	nop = emit_nop(6);
	/* The body looks like a faulting COPY; it must never run. */
	header_at(nop + 8)->opcode = DRM_TERN_OP_COPY;
	header_at(nop + 8)->length = 4;
	stream.words[nop / 8 + 2] = UNMAPPED_VA;
	stream.words[nop / 8 + 3] = va(BUF_A, 0);
	stream.words[nop / 8 + 4] = 64;
	emit_fill(va(BUF_A, 0), 2, 0x0000beef);
	start_job();
	assert_int_equal(run_job(NULL), 0);
	check_fill(buffers[BUF_A], 2, 0x0000beef, 0);
	assert_untouched(BUF_A, 2, SMALL_BYTES - 2);
}

#define VALIDATE(f) cmocka_unit_test_setup(f, reset_stream)
#define RUN(f) cmocka_unit_test_setup(f, reset_all)

int main(void)
{
	const struct CMUnitTest validate_tests[] = {
		VALIDATE(test_validate_size_zero),
		VALIDATE(test_validate_size_not_multiple_of_8),
		VALIDATE(test_validate_size_too_big),
		VALIDATE(test_validate_all_opcodes_valid),
		VALIDATE(test_validate_bad_packets),
		VALIDATE(test_validate_ranges_reach_limit),
	};
	const struct CMUnitTest run_tests[] = {
		RUN(test_run_copy_between_buffers),
		RUN(test_run_copy_overlap_forward),
		RUN(test_run_copy_overlap_backward),
		RUN(test_run_zero_bytes),
		RUN(test_run_copy_yields_and_resumes),
		RUN(test_run_fill_byte_order),
		RUN(test_run_fill_yields_and_resumes),
		RUN(test_run_timestamp),
		RUN(test_run_sem_signal),
		RUN(test_run_sem_signal_add_is_atomic),
		RUN(test_run_sem_wait_geq),
		RUN(test_run_sem_wait_eq),
		RUN(test_run_sem_wait_abort_set_before),
		RUN(test_run_sem_wait_abort_set_while_stalled),
		RUN(test_run_sem_wait_abort_passes),
		RUN(test_run_sem_wait_abort_faults),
		RUN(test_run_stall_does_not_repeat_work),
		RUN(test_run_fault_mid_stream),
		RUN(test_run_faulting_copy_writes_nothing),
		RUN(test_run_range_across_two_buffers_faults),
		RUN(test_run_unmapped_slots_fault),
		RUN(test_run_nop_skips_its_body),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("model_validate", validate_tests,
					      NULL, NULL);
	failed += cmocka_run_group_tests_name("model_run", run_tests,
					      alloc_memory, free_memory);
	return failed ? 1 : 0;
}
