// SPDX-License-Identifier: MIT
/*
 * SUBMIT rejects every kind of malformed packet with -EINVAL before anything
 * runs: the streams of the shared table (tests/common/bad_packets.c), each
 * starting with a valid FILL of the test buffer, so a stream that ran even
 * partly would show in the buffer.
 */
#include <errno.h>
#include <string.h>

#include "bad_packets.h"
#include "uapi.h"

static struct {
	uint32_t queue;
	struct uapi_bo bo;
	struct uapi_stream s;
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

/* SUBMIT of the stream fails with EINVAL, and nothing of it ran. */
static void assert_rejected(const char *what, unsigned int variant)
{
	struct uapi_stream nop = { .size = 0 };
	int ret = uapi_submit(uapi.fd, p.queue, &p.s, 0);

	if (ret != EINVAL)
		fail_msg("%s/%u: SUBMIT gave %s, want EINVAL", what, variant,
			 ret ? strerror(ret) : "success");
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

static void test_packets_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < bad_packet_count; i++) {
		const struct bad_packet *bad = &bad_packets[i];

		for (unsigned int v = 0; v < bad->variants; v++) {
			bad_packet_build(bad, v, p.bo.va, p.s.words, &p.s.size);
			assert_rejected(bad->name, v);
		}
	}
}

/*
 * An address past the end of every file's address space, but below what
 * the packet format could name, fails SUBMIT, not the job.
 */
static void test_packet_copy_past_va_space(void **state)
{
	struct drm_tern_info info = uapi_get_info(uapi.fd);

	(void)state;
	uapi_emit_copy(&p.s, info.va_base + info.va_size, p.bo.va, 8);
	assert_rejected("copy past the address space", 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, packet_setup, uapi_teardown)

int uapi_packet_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_packets_all_valid),
		T(test_packets_malformed),
		T(test_packet_copy_past_va_space),
	};

	return cmocka_run_group_tests_name("uapi_packets", tests, NULL, NULL);
}
