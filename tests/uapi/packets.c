// SPDX-License-Identifier: MIT
/*
 * SUBMIT rejects every kind of malformed packet with -EINVAL before anything
 * runs. Each stream starts with a valid FILL of the test buffer, so a
 * stream that ran even partly would show in the buffer.
 */
#include <errno.h>
#include <string.h>

#include "uapi.h"

static struct {
	uint32_t queue;
	struct uapi_bo bo;
	struct uapi_stream s;
	uint32_t bad;		/* offset of the packet under test */
} p;

/* The stream back to its first packet: the FILL of the whole buffer. */
static void reset_stream(void)
{
	memset(&p.s, 0, sizeof(p.s));
	uapi_emit_fill(&p.s, p.bo.va, 4096, 0x5a5a5a5a);
}

static int packet_setup(void **state)
{
	if (uapi_setup(state))
		return -1;
	memset(&p, 0, sizeof(p));
	p.queue = uapi_queue_create(uapi.fd, 0);
	uapi_bo_create(uapi.fd, DRM_TERN_PLACEMENT_DEVICE, 4096, &p.bo);
	reset_stream();
	return 0;
}

static uint64_t slot_va(void)
{
	return p.bo.va + 64;
}

/* Appends one well-formed packet of @opcode; returns its offset. */
static uint32_t emit_valid(uint16_t opcode)
{
	switch (opcode) {
	case DRM_TERN_OP_NOP:
		return uapi_emit_nop(&p.s, 2);
	case DRM_TERN_OP_COPY:
		return uapi_emit_copy(&p.s, p.bo.va, p.bo.va + 2048, 16);
	case DRM_TERN_OP_FILL:
		return uapi_emit_fill(&p.s, p.bo.va + 1, 7, 0x01020304);
	case DRM_TERN_OP_TIMESTAMP:
		return uapi_emit_timestamp(&p.s, slot_va());
	case DRM_TERN_OP_SEM_WAIT_ABORT:
		return uapi_emit_sem_abort(&p.s, 0, slot_va(), 0, slot_va() + 8);
	default:
		return uapi_emit_sem(&p.s, opcode, 0, slot_va(), 0);
	}
}

static struct drm_tern_packet_header *bad_header(void)
{
	return uapi_packet(&p.s, p.bad);
}

/* The first 8-byte field after the header: src, dst or addr. */
static uint64_t *bad_field(int index)
{
	return (uint64_t *)(void *)((uint8_t *)bad_header() + 8 * (index + 1));
}

static void assert_rejected(void)
{
	struct uapi_stream nop = { .size = 0 };

	assert_errno(uapi_submit(uapi.fd, p.queue, &p.s, 0), EINVAL);
	uapi_emit_nop(&nop, 1);
	assert_int_equal(uapi_run(uapi.fd, p.queue, &nop), 1);
	for (int i = 0; i < 4096; i++)
		if (p.bo.cpu[i])
			fail_msg("a rejected stream wrote byte %d", i);
}

static void test_packets_all_valid(void **state)
{
	static const uint16_t ops[] = {
		DRM_TERN_OP_NOP, DRM_TERN_OP_COPY, DRM_TERN_OP_FILL, DRM_TERN_OP_TIMESTAMP,
		DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_OP_SEM_WAIT,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		emit_valid(ops[i]);
	uapi_emit_sem(&p.s, DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD, slot_va(), 5);
	uapi_emit_sem(&p.s, DRM_TERN_OP_SEM_WAIT, DRM_TERN_SEM_WAIT_EQ, slot_va(), 5);
	/* the first FILL wrote the abort word: zero it for the wait to pass */
	uapi_emit_fill(&p.s, slot_va() + 8, 8, 0);
	uapi_emit_sem_abort(&p.s, 0, slot_va(), 5, slot_va() + 8);
	uapi_emit_sem_abort(&p.s, DRM_TERN_SEM_WAIT_EQ, slot_va(), 5, slot_va() + 8);
	assert_int_equal(uapi_run(uapi.fd, p.queue, &p.s), 1);
	assert_int_equal(p.bo.cpu[0], 0x5a);
	assert_int_equal(p.bo.cpu[1], 0x04);
	assert_int_equal(p.bo.cpu[2], 0x03);
}

static void test_packet_opcode_zero(void **state)
{
	(void)state;
	p.bad = emit_valid(DRM_TERN_OP_NOP);
	bad_header()->opcode = 0;
	assert_rejected();
}

static void test_packet_opcode_unknown(void **state)
{
	static const uint16_t unknown[] = { 0x08, 0x0f, 0x30, 0x100, 0xffff };

	(void)state;
	p.bad = emit_valid(DRM_TERN_OP_COPY);
	for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
		bad_header()->opcode = unknown[i];
		assert_rejected();
	}
}

static void test_packet_opcode_reserved(void **state)
{
	static const uint16_t reserved[] = { 0x11, 0x1f, 0x20, 0x2f };

	(void)state;
	p.bad = emit_valid(DRM_TERN_OP_COPY);
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++) {
		bad_header()->opcode = reserved[i];
		assert_rejected();
	}
}

static void test_packet_length_zero(void **state)
{
	(void)state;
	p.bad = emit_valid(DRM_TERN_OP_NOP);
	bad_header()->length = 0;
	assert_rejected();
}

static void test_packet_length_wrong(void **state)
{
	static const uint16_t fixed[] = {
		DRM_TERN_OP_COPY, DRM_TERN_OP_FILL, DRM_TERN_OP_TIMESTAMP,
		DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_OP_SEM_WAIT, DRM_TERN_OP_SEM_WAIT_ABORT,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		uint16_t right;

		reset_stream();
		p.bad = emit_valid(fixed[i]);
		uapi_emit_nop(&p.s, 4);	/* a longer packet still fits */
		right = bad_header()->length;
		bad_header()->length = right - 1;
		assert_rejected();
		bad_header()->length = right + 1;
		assert_rejected();
	}
}

static void test_packet_length_overruns(void **state)
{
	(void)state;
	p.bad = emit_valid(DRM_TERN_OP_NOP);
	bad_header()->length = 3;
	assert_rejected();
}

static void check_unknown_flags(uint16_t opcode, uint32_t defined)
{
	p.bad = emit_valid(opcode);
	for (int bit = 0; bit < 32; bit++) {
		if (defined & (1u << bit))
			continue;
		bad_header()->flags = 1u << bit;
		assert_rejected();
	}
}

static void test_packet_flags_nop(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_NOP, 0);
}

static void test_packet_flags_copy(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_COPY, 0);
}

static void test_packet_flags_fill(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_FILL, 0);
}

static void test_packet_flags_timestamp(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_TIMESTAMP, 0);
}

static void test_packet_flags_sem_signal(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_SEM_SIGNAL, DRM_TERN_SEM_SIGNAL_ADD);
}

static void test_packet_flags_sem_wait(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_SEM_WAIT, DRM_TERN_SEM_WAIT_EQ);
}

static void test_packet_flags_sem_wait_abort(void **state)
{
	(void)state;
	check_unknown_flags(DRM_TERN_OP_SEM_WAIT_ABORT, DRM_TERN_SEM_WAIT_EQ);
}

static void test_packet_fill_pad(void **state)
{
	struct drm_tern_packet_fill *fill;

	(void)state;
	p.bad = emit_valid(DRM_TERN_OP_FILL);
	fill = (void *)bad_header();
	fill->pad = 1;
	assert_rejected();
}

/* Field @field (0: the first after the header) of @opcode misaligned. */
static void check_misaligned_field(uint16_t opcode, int field)
{
	p.bad = emit_valid(opcode);
	for (uint64_t misalign = 1; misalign < 8; misalign++) {
		*bad_field(field) = slot_va() + misalign;
		assert_rejected();
	}
}

static void check_misaligned(uint16_t opcode)
{
	check_misaligned_field(opcode, 0);
}

static void test_packet_timestamp_misaligned(void **state)
{
	(void)state;
	check_misaligned(DRM_TERN_OP_TIMESTAMP);
}

static void test_packet_sem_signal_misaligned(void **state)
{
	(void)state;
	check_misaligned(DRM_TERN_OP_SEM_SIGNAL);
}

static void test_packet_sem_wait_misaligned(void **state)
{
	(void)state;
	check_misaligned(DRM_TERN_OP_SEM_WAIT);
}

static void test_packet_sem_wait_abort_misaligned(void **state)
{
	(void)state;
	check_misaligned(DRM_TERN_OP_SEM_WAIT_ABORT);
}

static void test_packet_sem_wait_abort_word_misaligned(void **state)
{
	(void)state;
	check_misaligned_field(DRM_TERN_OP_SEM_WAIT_ABORT, 2);
}

static void test_packet_copy_src_beyond_limit(void **state)
{
	(void)state;
	p.bad = uapi_emit_copy(&p.s, DRM_TERN_VA_LIMIT - 8, p.bo.va, 16);
	assert_rejected();
	*bad_field(0) = DRM_TERN_VA_LIMIT + 4096;
	*bad_field(2) = 0;
	assert_rejected();
}

/*
 * An address past the end of every file's address space, but below what
 * the packet format could name, fails SUBMIT, not the job.
 */
static void test_packet_copy_past_va_space(void **state)
{
	struct drm_tern_info info = uapi_get_info(uapi.fd);

	(void)state;
	p.bad = uapi_emit_copy(&p.s, info.va_base + info.va_size, p.bo.va, 8);
	assert_rejected();
}

static void test_packet_copy_dst_beyond_limit(void **state)
{
	(void)state;
	p.bad = uapi_emit_copy(&p.s, p.bo.va, DRM_TERN_VA_LIMIT - 8, 16);
	assert_rejected();
	*bad_field(1) = UINT64_MAX - 4095;
	assert_rejected();
}

static void test_packet_copy_range_overflow(void **state)
{
	(void)state;
	/* address + bytes wraps around to a small, in-range number */
	p.bad = uapi_emit_copy(&p.s, p.bo.va, p.bo.va + 64, UINT64_MAX - 63);
	assert_rejected();
	*bad_field(0) = UINT64_MAX - 7;
	*bad_field(2) = 16;
	assert_rejected();
}

static void test_packet_fill_beyond_limit(void **state)
{
	(void)state;
	p.bad = uapi_emit_fill(&p.s, DRM_TERN_VA_LIMIT - 3, 4, 0);
	assert_rejected();
	*bad_field(0) = p.bo.va;
	*bad_field(1) = UINT64_MAX;
	assert_rejected();
}

static void test_packet_timestamp_beyond_limit(void **state)
{
	(void)state;
	p.bad = uapi_emit_timestamp(&p.s, DRM_TERN_VA_LIMIT);
	assert_rejected();
	*bad_field(0) = UINT64_MAX - 7;
	assert_rejected();
}

static void test_packet_sem_beyond_limit(void **state)
{
	(void)state;
	p.bad = uapi_emit_sem(&p.s, DRM_TERN_OP_SEM_SIGNAL, 0, DRM_TERN_VA_LIMIT, 1);
	assert_rejected();
	bad_header()->opcode = DRM_TERN_OP_SEM_WAIT;
	assert_rejected();
	*bad_field(0) = UINT64_MAX - 7;
	assert_rejected();
}

static void test_packet_sem_wait_abort_beyond_limit(void **state)
{
	(void)state;
	p.bad = uapi_emit_sem_abort(&p.s, 0, DRM_TERN_VA_LIMIT, 0, slot_va());
	assert_rejected();
	*bad_field(0) = slot_va();
	*bad_field(2) = DRM_TERN_VA_LIMIT;
	assert_rejected();
	*bad_field(2) = UINT64_MAX - 7;
	assert_rejected();
}

#define T(f) cmocka_unit_test_setup_teardown(f, packet_setup, uapi_teardown)

int uapi_packet_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_packets_all_valid),
		T(test_packet_opcode_zero),
		T(test_packet_opcode_unknown),
		T(test_packet_opcode_reserved),
		T(test_packet_length_zero),
		T(test_packet_length_wrong),
		T(test_packet_length_overruns),
		T(test_packet_flags_nop),
		T(test_packet_flags_copy),
		T(test_packet_flags_fill),
		T(test_packet_flags_timestamp),
		T(test_packet_flags_sem_signal),
		T(test_packet_flags_sem_wait),
		T(test_packet_flags_sem_wait_abort),
		T(test_packet_fill_pad),
		T(test_packet_timestamp_misaligned),
		T(test_packet_sem_signal_misaligned),
		T(test_packet_sem_wait_misaligned),
		T(test_packet_sem_wait_abort_misaligned),
		T(test_packet_sem_wait_abort_word_misaligned),
		T(test_packet_copy_src_beyond_limit),
		T(test_packet_copy_past_va_space),
		T(test_packet_copy_dst_beyond_limit),
		T(test_packet_copy_range_overflow),
		T(test_packet_fill_beyond_limit),
		T(test_packet_timestamp_beyond_limit),
		T(test_packet_sem_beyond_limit),
		T(test_packet_sem_wait_abort_beyond_limit),
	};

	return cmocka_run_group_tests_name("uapi_packets", tests, NULL, NULL);
}
