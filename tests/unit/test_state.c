// SPDX-License-Identifier: MIT
/*
 * Unit tests of the device-state schema (model/tern_state.h): every list
 * goes out as attributes and comes back the same, each attribute once,
 * and the health rule tern.ko, tern-simd and tern-inspect share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tern_fabric.h"
#include "tern_state.h"
#include "tern_tile.h"

/* Attributes as a netlink message carries them: struct nlattr, padded. */
struct attrs {
	uint8_t buf[4096];
	uint32_t len;
};

static int attrs_put(void *ctx, u16 attr, u8 type, u64 value, u16 pad)
{
	struct attrs *a = ctx;
	uint16_t size = type == TERN_STATE_U32 ? 4 : 8;
	uint16_t head[2] = { (uint16_t)(4 + size), attr };

	(void)pad;
	if (a->len + 4 + size > sizeof(a->buf))
		return -ENOSPC;
	memcpy(a->buf + a->len, head, sizeof(head));
	if (type == TERN_STATE_U32) {
		uint32_t v32 = (uint32_t)value;

		memcpy(a->buf + a->len + 4, &v32, 4);
	} else {
		memcpy(a->buf + a->len + 4, &value, 8);
	}
	a->len += 4 + size;
	return 0;
}

static void attrs_get(const struct tern_state_set *set, const struct attrs *a,
		      void *state)
{
	for (uint32_t off = 0; off < a->len;) {
		uint16_t head[2];

		memcpy(head, a->buf + off, sizeof(head));
		assert_int_equal(tern_state_get(set, state, head[1],
						a->buf + off + 4, head[0] - 4u),
				 0);
		off += (head[0] + 3u) & ~3u;
	}
}

/* Each byte of @state a different value, so that a field moved shows. */
static void fill(void *state, size_t size, uint8_t seed)
{
	uint8_t *p = state;

	for (size_t i = 0; i < size; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/*
 * @set's struct of @size bytes survives going out as attributes and
 * coming back, field by field; each attribute appears once, @set names
 * each of its attributes once, and the struct is its lines in their
 * order, each field where C puts it after the one before, and no more.
 */
static void roundtrip(const struct tern_state_set *set, size_t size,
		      uint16_t max_attr)
{
	uint8_t in[512], out[512];
	struct attrs a = { .len = 0 };
	uint32_t seen[64] = { 0 };
	size_t end = 0;

	assert_true(size <= sizeof(in));
	assert_true(set->count > 0);
	fill(in, size, 3);
	memset(out, 0, size);
	assert_int_equal(tern_state_put(set, in, attrs_put, &a), 0);
	attrs_get(set, &a, out);
	for (unsigned int i = 0; i < set->count; i++) {
		const struct tern_state_field *f = &set->fields[i];
		size_t width = f->type == TERN_STATE_U32 ? 4 : 8;

		end = (end + width - 1) / width * width;
		assert_int_equal(f->offset, end);
		end += width;
		if (!f->attr)
			continue;	/* the reader's own: never sent */
		assert_true(f->attr <= max_attr);
		assert_true(f->attr != set->pad);
		assert_int_equal(seen[f->attr]++, 0);
		assert_memory_equal(in + f->offset, out + f->offset, width);
	}
	assert_int_equal(size, (end + 7) / 8 * 8);
}

static void test_device_roundtrip(void **state)
{
	(void)state;
	roundtrip(&tern_state_device_set, sizeof(struct tern_state_device),
		  DRM_TERN_A_DEV_MAX);
}

static void test_engine_roundtrip(void **state)
{
	(void)state;
	roundtrip(&tern_state_engine_set, sizeof(struct tern_state_engine),
		  DRM_TERN_A_ENGINE_MAX);
}

static void test_link_roundtrip(void **state)
{
	(void)state;
	roundtrip(&tern_state_link_set, sizeof(struct tern_state_link),
		  DRM_TERN_A_LINK_MAX);
}

static void test_client_roundtrip(void **state)
{
	(void)state;
	roundtrip(&tern_state_client_set, sizeof(struct tern_state_client),
		  DRM_TERN_A_CLIENT_MAX);
}

/* The value a line names lands in the field of that name. */
static void test_fields_by_name(void **state)
{
	struct tern_state_device dev;
	struct tern_state_engine eng;
	uint64_t v64 = 0x1122334455667788ull;
	uint32_t v32 = 0xa1b2c3d4u;

	(void)state;
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(tern_state_get(&tern_state_device_set, &dev,
					DRM_TERN_A_DEV_ENGINE_HANG_RESETS,
					&v64, 8), 0);
	assert_true(dev.engine_hang_resets == v64);
	assert_int_equal(tern_state_get(&tern_state_device_set, &dev,
					DRM_TERN_A_DEV_BUFFER_COUNT, &v32, 4),
			 0);
	assert_int_equal(dev.buffers, v32);
	memset(&eng, 0, sizeof(eng));
	assert_int_equal(tern_state_get(&tern_state_engine_set, &eng,
					DRM_TERN_A_ENGINE_STEP_MAX_NS, &v64, 8),
			 0);
	assert_true(eng.step_max_ns == v64);
}

/* Too short a payload is refused; what the list has not is skipped. */
static void test_get_refuses_short_skips_unknown(void **state)
{
	struct tern_state_device dev, zero;
	uint32_t v32 = 5;

	(void)state;
	memset(&dev, 0, sizeof(dev));
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(tern_state_get(&tern_state_device_set, &dev,
					DRM_TERN_A_DEV_MEM_USED, &v32, 4),
			 -EINVAL);
	assert_int_equal(tern_state_get(&tern_state_device_set, &dev,
					DRM_TERN_A_DEV_MAX + 7, &v32, 4), 0);
	assert_int_equal(tern_state_get(&tern_state_device_set, &dev,
					DRM_TERN_A_DEV_NAME, "tern.0", 7), 0);
	assert_int_equal(tern_state_get(&tern_state_device_set, &dev, 0,
					&v32, 4), 0);
	assert_memory_equal(&dev, &zero, sizeof(dev));
}

static int fail_after_two(void *ctx, u16 attr, u8 type, u64 value, u16 pad)
{
	int *calls = ctx;

	(void)attr;
	(void)type;
	(void)value;
	(void)pad;
	return ++*calls == 3 ? -EMSGSIZE : 0;
}

/* A host's error stops the writing and comes back. */
static void test_put_stops_at_error(void **state)
{
	struct tern_state_link link;
	int calls = 0;

	(void)state;
	memset(&link, 0, sizeof(link));
	assert_int_equal(tern_state_put(&tern_state_link_set, &link,
					fail_after_two, &calls), -EMSGSIZE);
	assert_int_equal(calls, 3);
}

static void test_health_states_and_baseline(void **state)
{
	struct tern_health_input now = { 0 }, base = { 0 };

	(void)state;
	assert_int_equal(tern_health_reasons(&now, NULL), 0);
	now.links_down = 1;
	now.engines_hung = 2;
	assert_int_equal(tern_health_reasons(&now, NULL),
			 DRM_TERN_HEALTH_REASON_LINK_DOWN |
			 DRM_TERN_HEALTH_REASON_ENGINE_HUNG);
	/* States last through a clear: a baseline cannot end them. */
	base = now;
	assert_int_equal(tern_health_reasons(&now, &base),
			 DRM_TERN_HEALTH_REASON_LINK_DOWN |
			 DRM_TERN_HEALTH_REASON_ENGINE_HUNG);

	memset(&now, 0, sizeof(now));
	now.link_errors = 4;
	now.engine_hang_resets = 1;
	now.mem_errors_uncorrected = 2;
	assert_int_equal(tern_health_reasons(&now, NULL),
			 DRM_TERN_HEALTH_REASON_LINK_ERRORS |
			 DRM_TERN_HEALTH_REASON_ENGINE_RESET |
			 DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED);
	/* Counters count only past the baseline... */
	base = now;
	assert_int_equal(tern_health_reasons(&now, &base), 0);
	/* ...and a new error is a reason again. */
	now.link_errors++;
	assert_int_equal(tern_health_reasons(&now, &base),
			 DRM_TERN_HEALTH_REASON_LINK_ERRORS);
}

static void test_health_of_and_names(void **state)
{
	(void)state;
	assert_int_equal(tern_health_of(0), DRM_TERN_HEALTH_OK);
	assert_int_equal(tern_health_of(DRM_TERN_HEALTH_REASON_LINK_DOWN),
			 DRM_TERN_HEALTH_DEGRADED);
	assert_int_equal(tern_health_of(DRM_TERN_HEALTH_REASON_ENGINE_HUNG |
					DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED),
			 DRM_TERN_HEALTH_FAILED);
	assert_string_equal(tern_health_name(DRM_TERN_HEALTH_OK), "ok");
	assert_string_equal(tern_health_name(DRM_TERN_HEALTH_DEGRADED),
			    "degraded");
	assert_string_equal(tern_health_name(DRM_TERN_HEALTH_FAILED), "failed");
	assert_string_equal(tern_health_name(3), "unknown");
}

/* The reasons' list names every bit the rule can set, once each. */
static void test_reason_list_covers_rule(void **state)
{
	static const uint32_t bits[] = {
#define TERN_HEALTH_REASON(bit, name, help) bit,
#include "tern_state_list.h"
	};
	struct tern_health_input all = {
		1, 1, 1, 1, 1,
	};
	uint32_t listed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		assert_int_equal(__builtin_popcount(bits[i]), 1);
		assert_int_equal(listed & bits[i], 0);
		listed |= bits[i];
	}
	assert_int_equal(tern_health_reasons(&all, NULL), listed);
}

/* What an engine is: its type, and its core unless it is a DMA engine. */
static void test_engine_type_and_core(void **state)
{
	struct tern_model_target tensor = {
		.type = DRM_TERN_ENGINE_TENSOR, .core = 3,
	};
	struct tern_model_target dma = { .type = DRM_TERN_ENGINE_DMA };
	struct tern_state_engine eng;

	(void)state;
	memset(&eng, 0, sizeof(eng));
	tern_state_engine_target(&eng, &tensor);
	assert_int_equal(eng.type, DRM_TERN_ENGINE_TENSOR);
	assert_int_equal(eng.core, 3);
	tern_state_engine_target(&eng, &dma);
	assert_int_equal(eng.type, DRM_TERN_ENGINE_DMA);
	assert_int_equal(eng.core, DRM_TERN_ENGINE_NO_CORE);
	assert_string_equal(tern_engine_type_name(DRM_TERN_ENGINE_DMA), "dma");
	assert_string_equal(tern_engine_type_name(DRM_TERN_ENGINE_TENSOR),
			    "tensor");
	assert_string_equal(tern_engine_type_name(DRM_TERN_ENGINE_VECTOR),
			    "vector");
	assert_string_equal(tern_engine_type_name(DRM_TERN_ENGINE_SCALAR),
			    "scalar");
	assert_string_equal(tern_engine_type_name(4), "unknown");
	assert_string_equal(tern_engine_type_name(DRM_TERN_ENGINE_NO_CORE),
			    "unknown");
}

/* A device's counters are its engines'; so is what its health sees. */
static void test_engines_add_up(void **state)
{
	struct tern_state_engine a = {
		.busy = 1, .hung = 0, .jobs_completed = 5, .jobs_failed = 1,
		.timeouts = 2, .resets = 3, .hang_resets = 1,
	};
	struct tern_state_engine b = {
		.busy = 0, .hung = 1, .jobs_completed = 7, .timeouts = 1,
		.resets = 1,
	};
	struct tern_health_input in = { 0 };
	struct tern_state_device dev;

	(void)state;
	memset(&dev, 0, sizeof(dev));
	tern_state_device_add_engine(&dev, &a);
	tern_state_device_add_engine(&dev, &b);
	assert_int_equal(dev.engines_busy, 1);
	assert_true(dev.jobs_completed == 12 && dev.jobs_failed == 1);
	assert_true(dev.job_timeouts == 3 && dev.engine_resets == 4);
	assert_true(dev.engine_hang_resets == 1);
	tern_health_input_add_engine(&in, &a);
	tern_health_input_add_engine(&in, &b);
	assert_int_equal(in.engines_hung, 1);
	assert_true(in.engine_hang_resets == 1);
	assert_int_equal(tern_health_reasons(&in, NULL),
			 DRM_TERN_HEALTH_REASON_ENGINE_HUNG |
			 DRM_TERN_HEALTH_REASON_ENGINE_RESET);
}

/* A fabric's links as the health rule and a link message see them. */
static void test_fabric_input_and_link(void **state)
{
	static struct tern_fabric fabric;
	struct tern_health_input in = { 0 };
	struct tern_state_link link;

	(void)state;
	assert_int_equal(tern_fabric_init(&fabric, 4, "ring"), 0);
	tern_fabric_health_input(&fabric, 1, &in);
	assert_int_equal(in.links_down, 0);
	assert_true(in.link_errors == 0);

	/* Device 1's port 0 down, and two errors on its port 1. */
	assert_int_equal(tern_fabric_set_link(&fabric, 1, 0, false), 1);
	assert_int_equal(tern_fabric_link_error(&fabric, 1, 1), 0);
	assert_int_equal(tern_fabric_link_error(&fabric, 1, 1), 0);
	tern_fabric_health_input(&fabric, 1, &in);
	assert_int_equal(in.links_down, 1);
	assert_true(in.link_errors == 2);
	assert_int_equal(tern_health_reasons(&in, NULL),
			 DRM_TERN_HEALTH_REASON_LINK_DOWN |
			 DRM_TERN_HEALTH_REASON_LINK_ERRORS);
	/* A device far from both sees neither; one out of range nothing. */
	memset(&in, 0, sizeof(in));
	tern_fabric_health_input(&fabric, 3, &in);
	tern_fabric_health_input(&fabric, 9, &in);
	assert_int_equal(in.links_down, 0);

	for (uint32_t l = 0; l < fabric.link_count; l++) {
		const struct tern_fabric_link *f = &fabric.links[l];

		tern_fabric_link_state(&fabric, l, &link);
		assert_int_equal(link.index, l);
		assert_int_equal(link.device_a, f->end[0].device);
		assert_int_equal(link.port_b, f->end[1].port);
		assert_int_equal(link.state, f->up ? DRM_TERN_PORT_UP :
						     DRM_TERN_PORT_DOWN);
		assert_true(link.errors == f->errors);
		assert_true(link.bandwidth == f->bandwidth);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_roundtrip),
		cmocka_unit_test(test_engine_roundtrip),
		cmocka_unit_test(test_link_roundtrip),
		cmocka_unit_test(test_client_roundtrip),
		cmocka_unit_test(test_fields_by_name),
		cmocka_unit_test(test_get_refuses_short_skips_unknown),
		cmocka_unit_test(test_put_stops_at_error),
		cmocka_unit_test(test_health_states_and_baseline),
		cmocka_unit_test(test_health_of_and_names),
		cmocka_unit_test(test_reason_list_covers_rule),
		cmocka_unit_test(test_engine_type_and_core),
		cmocka_unit_test(test_engines_add_up),
		cmocka_unit_test(test_fabric_input_and_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
