// SPDX-License-Identifier: MIT
/*
 * Unit tests for the pieces of tern-bench and tern-inspect that decide
 * right from wrong: number parsing, byte formatting, the verification
 * pattern, and, on synthetic snapshots, tern-inspect's fabric shapes and
 * drawing, health reasons, Prometheus label escaping, and what is said of
 * the clients of other users this process may not see.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "test.h"
#include "cli.h"
#include "data.h"
#include "family.h"
#include "inspect.h"
#include "pattern.h"
#include "reference.h"
#include "snapshot.h"
#include "tern_accel.h"
#include "text.h"
#include "top_frame.h"

static void test_size_plain_and_suffixes(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_true(cli_parse_size("1", 1, UINT64_MAX, &v));
	assert_int_equal(v, 1);
	assert_true(cli_parse_size("64K", 1, UINT64_MAX, &v));
	assert_int_equal(v, 64 << 10);
	assert_true(cli_parse_size("3k", 1, UINT64_MAX, &v));
	assert_int_equal(v, 3 << 10);
	assert_true(cli_parse_size("2M", 1, UINT64_MAX, &v));
	assert_int_equal(v, 2 << 20);
	assert_true(cli_parse_size("5g", 1, UINT64_MAX, &v));
	assert_int_equal(v, 5ull << 30);
}

static void test_size_rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"", "K", "abc", "-1", "+1", " 1", "1 ", "1KB", "1T", "0x10",
		"1.5M", "1KK", "18446744073709551616", "17179869184G",
	};
	uint64_t v = 42;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_false(cli_parse_size(bad[i], 0, UINT64_MAX, &v));
		assert_int_equal(v, 42);	/* untouched on failure */
	}
	assert_false(cli_parse_size(NULL, 0, UINT64_MAX, &v));
}

static void test_size_range(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_false(cli_parse_size("0", 1, 100, &v));
	assert_false(cli_parse_size("101", 1, 100, &v));
	assert_true(cli_parse_size("100", 1, 100, &v));
	assert_false(cli_parse_size("1K", 1, 1023, &v));
}

static void test_long(void **state)
{
	long v = 7;

	(void)state;
	assert_true(cli_parse_long("0", 0, 10, &v));
	assert_int_equal(v, 0);
	assert_true(cli_parse_long("-3", -5, 10, &v));
	assert_int_equal(v, -3);
	assert_false(cli_parse_long("11", 0, 10, &v));
	assert_false(cli_parse_long("-1", 0, 10, &v));
	assert_false(cli_parse_long("1.0", 0, 10, &v));
	assert_false(cli_parse_long("1K", 0, 10, &v));
	assert_false(cli_parse_long("", 0, 10, &v));
	assert_false(cli_parse_long("-", 0, 10, &v));
	assert_false(cli_parse_long(" 1", 0, 10, &v));
	assert_false(cli_parse_long("99999999999999999999", 0, 10, &v));
	assert_int_equal(v, -3);
}

static void test_format_bytes(void **state)
{
	char buf[32];

	(void)state;
	cli_format_bytes(0, buf, sizeof(buf));
	assert_string_equal(buf, "0 B");
	cli_format_bytes(1023, buf, sizeof(buf));
	assert_string_equal(buf, "1023 B");
	cli_format_bytes(1024, buf, sizeof(buf));
	assert_string_equal(buf, "1 KiB");
	cli_format_bytes(1536, buf, sizeof(buf));
	assert_string_equal(buf, "1.5 KiB");
	cli_format_bytes(256ull << 20, buf, sizeof(buf));
	assert_string_equal(buf, "256 MiB");
	cli_format_bytes(96ull << 30, buf, sizeof(buf));
	assert_string_equal(buf, "96 GiB");
}

/* Sizes around the 8-byte word the pattern is generated in. */
static const size_t pattern_sizes[] = { 1, 7, 8, 9, 63, 64, 1000, 4099 };

static void test_pattern_fill_then_count(void **state)
{
	(void)state;
	for (size_t s = 0; s < ARRAY_SIZE(pattern_sizes); s++) {
		size_t n = pattern_sizes[s];
		uint8_t *buf = malloc(n);
		uint64_t seed = pattern_seed(n, 1);

		assert_non_null(buf);
		pattern_fill(buf, n, seed);
		assert_int_equal(pattern_count_wrong(buf, n, seed), 0);
		pattern_poison(buf, n, seed);
		assert_int_equal(pattern_count_wrong(buf, n, seed), n);
		free(buf);
	}
}

static void test_pattern_counts_each_wrong_byte(void **state)
{
	enum { N = 4099 };
	static const size_t flips[] = { 0, 7, 8, 2048, 4095, 4096, N - 1 };
	uint8_t buf[N];
	uint64_t seed = pattern_seed(N, 2);

	(void)state;
	pattern_fill(buf, N, seed);
	for (size_t i = 0; i < ARRAY_SIZE(flips); i++) {
		buf[flips[i]] ^= 0x01;
		assert_int_equal(pattern_count_wrong(buf, N, seed), i + 1);
	}
}

static void test_pattern_depends_on_seed(void **state)
{
	enum { N = 256 };
	uint8_t a[N], b[N];

	(void)state;
	assert_int_not_equal(pattern_seed(N, 0), pattern_seed(N, 1));
	assert_int_not_equal(pattern_seed(N, 0), pattern_seed(N + 1, 0));
	pattern_fill(a, N, pattern_seed(N, 0));
	pattern_fill(b, N, pattern_seed(N, 1));
	assert_memory_not_equal(a, b, N);
	/* Data from another size or direction counts as wrong. */
	assert_true(pattern_count_wrong(a, N, pattern_seed(N, 1)) > N / 2);
}

/* The codes compute_fill() writes are the values it reports. */
static void test_compute_fill_codes(void **state)
{
	enum { N = 1000 };
	uint32_t codes[N];
	float values[N];

	(void)state;
	for (size_t t = 0; t < compute_type_count; t++) {
		const struct compute_type *type = &compute_types[t];

		compute_fill(type, codes, values, N, 7, COMPUTE_GEMM_TOP,
			     false);
		for (size_t i = 0; i < N; i++) {
			uint32_t bits;
			float value;

			if (type->dtype == TERN_FLOAT32) {
				bits = codes[i];
			} else if (type->dtype == TERN_BFLOAT16) {
				bits = (uint32_t)((uint16_t *)codes)[i] << 16;
			} else if (type->dtype == TERN_FLOAT16) {
				_Float16 half;

				memcpy(&half, (uint16_t *)codes + i, 2);
				value = (float)half;
				memcpy(&bits, &value, 4);
			} else {
				continue;	/* the same code path, fewer bits */
			}
			memcpy(&value, &bits, 4);
			assert_true(value == values[i]);
			assert_true(fabsf(value) >= 0x1p-6f &&
				    fabsf(value) < 0x1p8f);
		}
	}
	assert_non_null(compute_type_find("fp8"));
	assert_int_equal(compute_type_find("fp8")->dtype, TERN_FLOAT8_E4M3);
	assert_null(compute_type_find("int8"));
	assert_string_equal(compute_type_names(false), "bf16, fp16 or fp32");
	compute_fill(&compute_types[0], codes, values, N, 8, COMPUTE_ROWS_TOP,
		     true);
	for (size_t i = 0; i < N; i++)
		assert_true(values[i] >= 0x1p-6f && values[i] < 8.0f);
	assert_int_equal(compute_function_find("gelu")->function,
			 TERN_ACT_GELU_TANH);
	assert_true(compute_function_find("log")->positive);
	assert_null(compute_function_find("softmax"));
}

/*
 * The reference sums in K order by fused multiply-adds from -0, then
 * IDENTITY's fma(t, 1, 0): 1 + 2^-24 + 2^-24 stays 1 (each tie rounds to
 * even), where the other order gives 1 + 2^-23; and -0 comes out +0.
 */
static void test_gemm_reference_order(void **state)
{
	const float a[3] = { 1.0f, 0x1p-24f, 0x1p-24f }, b[3] = { 1, 1, 1 };
	const float zero_a[1] = { 0.0f }, zero_b[1] = { -1.0f };
	struct gemm_shape s = { .m = 1, .n = 1, .k = 3 };
	struct gemm_sample x = { .row = 0, .col = 0 };
	float got;

	(void)state;
	gemm_reference(&s, a, b, &x, 1);
	assert_true(x.expect == 1.0f);
	got = 1.0f + 0x1p-23f;
	assert_int_equal(gemm_count_wrong(&s, &got, &x, 1), 1);
	got = 1.0f;
	assert_int_equal(gemm_count_wrong(&s, &got, &x, 1), 0);
	s.k = 1;
	gemm_reference(&s, zero_a, zero_b, &x, 1);
	assert_false(signbit(x.expect));
	got = -0.0f;
	assert_int_equal(gemm_count_wrong(&s, &got, &x, 1), 1);
}

/* op(A)[m][k] is A[k][m] when A is transposed: the reference follows. */
static void test_gemm_reference_transposed(void **state)
{
	const float a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 };
	struct gemm_shape s = { .m = 2, .n = 2, .k = 2 };
	struct gemm_sample x[4];

	(void)state;
	assert_int_equal(gemm_choose_samples(&s, 1, x), 4);
	gemm_reference(&s, a, b, x, 4);		/* [1 2; 3 4] . [5 6; 7 8] */
	assert_true(x[0].expect == 19 && x[1].expect == 22 &&
		    x[2].expect == 43 && x[3].expect == 50);
	s.transpose_a = s.transpose_b = true;	/* [1 3; 2 4] . [5 7; 6 8] */
	gemm_reference(&s, a, b, x, 4);
	assert_true(x[0].expect == 23 && x[1].expect == 31 &&
		    x[2].expect == 34 && x[3].expect == 46);
}

/* Past GEMM_CHECK_ALL elements: the corners, then others inside C. */
static void test_gemm_samples(void **state)
{
	struct gemm_shape s = { .m = 300, .n = 1000, .k = 1 };
	struct gemm_sample *x = malloc(GEMM_CHECK_ALL * sizeof(*x));
	size_t count;

	(void)state;
	assert_non_null(x);
	count = gemm_choose_samples(&s, 3, x);
	assert_int_equal(count, GEMM_SAMPLES);
	assert_true(x[3].row == 299 && x[3].col == 999);
	for (size_t i = 0; i < count; i++)
		assert_true(x[i].row < s.m && x[i].col < s.n);
	s.m = 256;
	s.n = 256;
	assert_int_equal(gemm_choose_samples(&s, 3, x), 65536);
	free(x);
}


/* ---- tern-inspect, on synthetic snapshots ---- */

#define SNAP_MAX_DEVICES 64
#define SNAP_MAX_LINKS 256

struct test_snap {
	struct snapshot snap;
	struct snapshot_device devices[SNAP_MAX_DEVICES];
	struct snapshot_link links[SNAP_MAX_LINKS];
	struct snapshot_client clients[4];
};

static void snap_init(struct test_snap *t, int devices)
{
	memset(t, 0, sizeof(*t));
	t->snap.devices = t->devices;
	t->snap.links = t->links;
	t->snap.clients = t->clients;
	t->snap.device_count = devices;
	for (int i = 0; i < devices; i++) {
		t->devices[i].index = (uint32_t)i;
		t->devices[i].fabric_id = (uint32_t)i;
		snprintf(t->devices[i].node, sizeof(t->devices[i].node),
			 "/dev/accel/accel%d", i);
		snprintf(t->devices[i].bus_id, sizeof(t->devices[i].bus_id),
			 "platform:tern.%d", i);
	}
}

static struct snapshot_link *snap_link(struct test_snap *t, uint32_t a,
				       uint32_t pa, uint32_t b, uint32_t pb)
{
	struct snapshot_link *link = &t->links[t->snap.link_count];

	assert_true(t->snap.link_count < SNAP_MAX_LINKS);
	memset(link, 0, sizeof(*link));
	link->index = (uint32_t)t->snap.link_count++;
	link->device_a = a;
	link->port_a = pa;
	link->device_b = b;
	link->port_b = pb;
	link->up = true;
	return link;
}

/* A torus as tern_fabric_init() cables it: port 0 east, 1 west, 2 south, 3 north. */
static void snap_torus(struct test_snap *t, uint32_t rows, uint32_t cols)
{
	snap_init(t, (int)(rows * cols));
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++) {
			uint32_t id = r * cols + c;

			snap_link(t, id, 0, r * cols + (c + 1) % cols, 1);
			snap_link(t, id, 2, ((r + 1) % rows) * cols + c, 3);
		}
}

static void snap_ring(struct test_snap *t, int devices)
{
	snap_init(t, devices);
	for (int i = 0; i < devices; i++)
		snap_link(t, (uint32_t)i, 0, (uint32_t)((i + 1) % devices), 1);
}

static void test_torus_found(void **state)
{
	static const uint32_t shapes[][2] = { { 4, 4 }, { 2, 8 }, { 8, 2 },
					      { 3, 5 }, { 2, 2 }, { 2, 3 } };
	struct test_snap *t = malloc(sizeof(*t));
	uint32_t rows = 0, cols = 0;

	(void)state;
	assert_non_null(t);
	for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
		snap_torus(t, shapes[s][0], shapes[s][1]);
		assert_int_equal(t->snap.link_count, 2 * shapes[s][0] * shapes[s][1]);
		assert_true(snapshot_find_torus(&t->snap, &rows, &cols));
		assert_int_equal(rows, shapes[s][0]);
		assert_int_equal(cols, shapes[s][1]);
	}
	/* A link down is still part of the torus. */
	snap_torus(t, 4, 4);
	t->links[5].up = false;
	assert_true(snapshot_find_torus(&t->snap, &rows, &cols));
	/* The driver's word decides between shapes of the same size. */
	snprintf(t->snap.topology, sizeof(t->snap.topology), "torus:4x4");
	assert_true(snapshot_find_torus(&t->snap, &rows, &cols));
	assert_int_equal(rows, 4);
	free(t);
}

static void test_torus_rejected(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));
	uint32_t rows = 0, cols = 0;

	(void)state;
	assert_non_null(t);
	/* A link missing. */
	snap_torus(t, 4, 4);
	t->snap.link_count--;
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	/* A link too many. */
	snap_torus(t, 4, 4);
	snap_link(t, 0, 4, 5, 4);
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	/* Same count, wrong pair: 0-2 instead of 0-1. */
	snap_torus(t, 4, 4);
	t->links[0].device_b = 2;
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	/* Ids not row * cols + col: swap two devices' ids. */
	snap_torus(t, 4, 4);
	t->devices[3].fabric_id = 40;
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	/* The driver says 2x8 but the links are 4x4: not a torus of its shape. */
	snap_torus(t, 4, 4);
	snprintf(t->snap.topology, sizeof(t->snap.topology), "torus:2x8");
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	/* Rings and lone devices are not tori. */
	snap_ring(t, 16);
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	snap_init(t, 1);
	assert_false(snapshot_find_torus(&t->snap, &rows, &cols));
	assert_int_equal(rows, 0);
	free(t);
}

static void test_ring(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));
	int order[SNAP_MAX_DEVICES];

	(void)state;
	assert_non_null(t);
	snap_ring(t, 5);
	assert_true(snapshot_find_ring(&t->snap, order));
	for (int i = 0; i < 5; i++)
		assert_int_equal(order[i], i);
	/* Two devices: two parallel links. */
	snap_ring(t, 2);
	assert_true(snapshot_find_ring(&t->snap, order));
	/* A cycle in another order: 0-2-1-3-0. */
	snap_init(t, 4);
	snap_link(t, 0, 0, 2, 1);
	snap_link(t, 2, 0, 1, 1);
	snap_link(t, 1, 0, 3, 1);
	snap_link(t, 3, 0, 0, 1);
	assert_true(snapshot_find_ring(&t->snap, order));
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);
	/* Two triangles are not one ring. */
	snap_init(t, 6);
	for (uint32_t base = 0; base < 6; base += 3)
		for (uint32_t i = 0; i < 3; i++)
			snap_link(t, base + i, 0, base + (i + 1) % 3, 1);
	assert_false(snapshot_find_ring(&t->snap, order));
	/* Nor is a line. */
	snap_ring(t, 4);
	t->snap.link_count--;
	assert_false(snapshot_find_ring(&t->snap, order));
	free(t);
}

/* topo_draw() of @t into a string the caller frees. */
static char *draw(const struct test_snap *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	topo_draw(out, &t->snap);
	fclose(out);
	return text;
}

static void test_draw_torus(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));
	char *text;

	(void)state;
	assert_non_null(t);
	snap_torus(t, 2, 3);
	/* Down: 4-5 (a row link), 2-0 (row 0's wraparound), 1-4 (a column). */
	for (int i = 0; i < t->snap.link_count; i++) {
		struct snapshot_link *l = &t->links[i];

		if ((l->device_a == 4 && l->device_b == 5) ||
		    (l->device_a == 2 && l->device_b == 0) ||
		    (l->device_a == 1 && l->device_b == 4 && l->port_a == 2))
			l->up = false;
	}
	text = draw(t);
	assert_non_null(strstr(text, "torus 2x3: 6 devices, 12 links"));
	assert_non_null(strstr(text,
		"     ^     ^     ^\n"
		"  x [0]---[1]---[2] x\n"
		"     |     x     |\n"
		"  < [3]---[4]-x-[5] >\n"
		"     v     v     v\n"));
	free(text);

	/* 2x2: each pair has a direct and a wraparound link. */
	snap_torus(t, 2, 2);
	t->links[0].up = false;		/* 0 east -> 1: the direct one */
	text = draw(t);
	assert_non_null(strstr(text,
		"     ^     ^\n"
		"  < [0]-x-[1] >\n"
		"     |     |\n"
		"  < [2]---[3] >\n"
		"     v     v\n"));
	free(text);
	free(t);
}

static void test_draw_ring_and_other(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));
	char *text;

	(void)state;
	assert_non_null(t);
	snap_ring(t, 4);
	t->links[2].up = false;		/* 2 - 3 */
	text = draw(t);
	assert_non_null(strstr(text, "ring: 4 devices, 4 links"));
	assert_non_null(strstr(text, "  0 --- 1 --- 2 -x- 3 --- (back to 0)\n"));
	free(text);

	snap_init(t, 3);
	snap_link(t, 0, 0, 1, 0);
	snap_link(t, 1, 1, 2, 0)->up = false;
	text = draw(t);
	assert_non_null(strstr(text, "fabric: 3 devices, 2 links"));
	assert_non_null(strstr(text, "    0: port 0 -> 1/0\n"));
	assert_non_null(strstr(text, "    1: port 0 -> 0/0, port 1 -> 2/0 DOWN\n"));
	assert_non_null(strstr(text, "    2: port 0 -> 1/1 DOWN\n"));
	free(text);
	free(t);
}

static void test_health_reasons(void **state)
{
	char buf[128];

	(void)state;
	snapshot_health_reasons(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	snapshot_health_reasons(DRM_TERN_HEALTH_REASON_LINK_DOWN, buf, sizeof(buf));
	assert_string_equal(buf, "link_down");
	snapshot_health_reasons(DRM_TERN_HEALTH_REASON_LINK_DOWN |
				DRM_TERN_HEALTH_REASON_LINK_ERRORS |
				DRM_TERN_HEALTH_REASON_ENGINE_RESET |
				DRM_TERN_HEALTH_REASON_ENGINE_HUNG |
				DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED, buf,
				sizeof(buf));
	assert_string_equal(buf,
		"link_down,link_errors,engine_reset,engine_hung,mem_uncorrected");
	/* Bits the tool does not know yet are left out, not misnamed. */
	snapshot_health_reasons(DRM_TERN_HEALTH_REASON_ENGINE_RESET | (1u << 30),
				buf, sizeof(buf));
	assert_string_equal(buf, "engine_reset");
	/* A short buffer is cut, still terminated. */
	snapshot_health_reasons(DRM_TERN_HEALTH_REASON_LINK_DOWN |
				DRM_TERN_HEALTH_REASON_LINK_ERRORS, buf, 8);
	assert_int_equal(strlen(buf), 7);
	assert_string_equal(tern_health_name(DRM_TERN_HEALTH_OK), "ok");
	assert_string_equal(tern_health_name(DRM_TERN_HEALTH_DEGRADED),
			    "degraded");
	assert_string_equal(tern_health_name(DRM_TERN_HEALTH_FAILED),
			    "failed");
}

static void test_health_from_links(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));

	(void)state;
	assert_non_null(t);
	snap_ring(t, 4);
	t->links[1].up = false;		/* 1 - 2 */
	t->links[3].errors = 3;		/* 3 - 0 */
	for (int i = 0; i < 4; i++)
		snapshot_derive_link_health(&t->snap, &t->devices[i]);
	assert_int_equal(t->devices[0].health, DRM_TERN_HEALTH_DEGRADED);
	assert_int_equal(t->devices[0].health_reasons,
			 DRM_TERN_HEALTH_REASON_LINK_ERRORS);
	assert_int_equal(t->devices[1].health_reasons,
			 DRM_TERN_HEALTH_REASON_LINK_DOWN);
	assert_int_equal(t->devices[2].health_reasons,
			 DRM_TERN_HEALTH_REASON_LINK_DOWN);
	assert_int_equal(t->devices[3].health_reasons,
			 DRM_TERN_HEALTH_REASON_LINK_ERRORS);
	t->links[1].up = true;
	t->links[3].errors = 0;
	snapshot_derive_link_health(&t->snap, &t->devices[1]);
	assert_int_equal(t->devices[1].health, DRM_TERN_HEALTH_OK);
	assert_int_equal(t->devices[1].health_reasons, 0);
	/* snapshot_finish() counts the links up of each device. */
	t->links[0].up = false;
	snapshot_finish(&t->snap);
	assert_int_equal(t->devices[0].links_up, 1);
	assert_int_equal(t->devices[2].links_up, 2);
	free(t);
}

static void test_find_device(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));

	(void)state;
	assert_non_null(t);
	snap_init(t, 4);
	assert_ptr_equal(snapshot_find_device(&t->snap, "2"), &t->devices[2]);
	assert_ptr_equal(snapshot_find_device(&t->snap, "/dev/accel/accel3"),
			 &t->devices[3]);
	assert_ptr_equal(snapshot_find_device(&t->snap, "platform:tern.1"),
			 &t->devices[1]);
	assert_null(snapshot_find_device(&t->snap, "4"));
	assert_null(snapshot_find_device(&t->snap, "-1"));
	assert_null(snapshot_find_device(&t->snap, "1x"));
	assert_null(snapshot_find_device(&t->snap, ""));
	assert_null(snapshot_find_device(&t->snap, "/dev/accel/accel"));
	free(t);
}

/* What @write writes to a stream for @arg, as a string the caller frees. */
static char *written(void (*write)(FILE *out, const void *arg),
		     const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	write(out, arg);
	fclose(out);
	return text;
}

static void write_label(FILE *out, const void *value)
{
	metrics_write_label_value(out, value);
}

/* metrics_write_label_value() of @value, as a string the caller frees. */
static char *label(const char *value)
{
	return written(write_label, value);
}

static void test_prometheus_label_escaping(void **state)
{
	static const char *const cases[][2] = {
		{ "", "" },
		{ "python3", "python3" },
		{ "a\\b", "a\\\\b" },
		{ "say \"hi\"", "say \\\"hi\\\"" },
		{ "two\nlines", "two\\nlines" },
		{ "\\\"\n", "\\\\\\\"\\n" },
		{ "tab\tand {braces}, = ok", "tab?and {braces}, = ok" },
		/* Control bytes and bytes that are not UTF-8 become '?'. */
		{ "\033[2Jx", "?[2Jx" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "bad\xff\xc3", "bad??" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = label(cases[i][0]);

		assert_string_equal(text, cases[i][1]);
		free(text);
	}
}

static void test_printable(void **state)
{
	static const char *const cases[][2] = {
		{ "", "" },
		{ "python3", "python3" },
		{ "\033]0;owned\007", "?]0;owned?" },
		{ "tab\tnl\ncr\r", "tab?nl?cr?" },
		{ "caf\xc3\xa9", "caf??" },
		{ "del\x7f", "del?" },
	};
	char buf[TEXT_PRINTABLE_MAX], small[4];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_string_equal(text_printable(cases[i][0], buf, sizeof(buf)),
				    cases[i][1]);
	assert_string_equal(text_printable("abcdef", small, sizeof(small)),
			    "abc");
}

static void test_utf8_char(void **state)
{
	(void)state;
	assert_int_equal(text_utf8_char("a"), 1);
	assert_int_equal(text_utf8_char("\xc3\xa9"), 2);
	assert_int_equal(text_utf8_char("\xe2\x82\xac"), 3);
	assert_int_equal(text_utf8_char("\xf0\x9f\x98\x80"), 4);
	assert_int_equal(text_utf8_char("\xc3"), 0);		/* cut short */
	assert_int_equal(text_utf8_char("\xa9"), 0);		/* continuation */
	assert_int_equal(text_utf8_char("\xc0\xaf"), 0);	/* overlong */
	assert_int_equal(text_utf8_char("\xed\xa0\x80"), 0);	/* surrogate */
	assert_int_equal(text_utf8_char("\xf4\x90\x80\x80"), 0);	/* > U+10FFFF */
	assert_int_equal(text_utf8_char("\xff"), 0);
}

static void write_json_string(FILE *out, const void *value)
{
	struct json_writer w;

	json_init(&w, out, false);
	json_string(&w, NULL, value);
}

/* What json_string() writes for @value, as a heap string. */
static char *json_text(const char *value)
{
	return written(write_json_string, value);
}

static void test_json_strings_always_valid(void **state)
{
	static const char *const cases[][2] = {
		{ "python3", "\"python3\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "\033[31m\n", "\"\\u001b[31m\\u000a\"" },
		{ "del\x7f", "\"del\\u007f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "bad\xff\xc3(", "\"bad\\ufffd\\ufffd(\"" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = json_text(cases[i][0]);

		assert_string_equal(text, cases[i][1]);
		free(text);
	}
}

static void write_metrics(FILE *out, const void *snap)
{
	metrics_write(out, snap);
}

/* What metrics_write() writes for @snap, to free. */
static char *metrics_text(const struct snapshot *snap)
{
	return written(write_metrics, snap);
}

static void test_prometheus_client_sample(void **state)
{
	struct test_snap *t = malloc(sizeof(*t));
	char *text;

	(void)state;
	assert_non_null(t);
	snap_ring(t, 2);
	t->devices[1].engine_count = 2;
	t->devices[1].engines = (struct tern_state_engine[2]){
		{ .index = 0, .type = DRM_TERN_ENGINE_DMA,
		  .core = DRM_TERN_ENGINE_NO_CORE },
		{ .index = 1, .type = DRM_TERN_ENGINE_TENSOR, .core = 0,
		  .busy_ns = 1500000000ull },
	};
	t->snap.client_count = 1;
	t->clients[0] = (struct snapshot_client){
		.device = 1, .id = 7, .pid = 42, .comm = "we\"ird\\",
		.memory_device_bytes = 4096,
	};
	text = metrics_text(&t->snap);
	assert_non_null(strstr(text,
		"tern_client_memory_bytes{device=\"1\",pid=\"42\",client=\"7\","
		"comm=\"we\\\"ird\\\\\",kind=\"device\"} 4096\n"));
	assert_non_null(strstr(text,
		"tern_engine_busy_seconds_total{device=\"1\",engine=\"1\","
		"type=\"tensor\",core=\"0\"} 1.500000000\n"));
	assert_non_null(strstr(text,
		"tern_engine_active{device=\"1\",engine=\"0\",type=\"dma\","
		"core=\"\"} 0\n"));
	/* By type: the types device 1 has, none of device 0's none. */
	assert_non_null(strstr(text,
		"tern_device_engines{device=\"1\",type=\"dma\"} 1\n"));
	assert_non_null(strstr(text,
		"tern_device_engine_busy_seconds_total{device=\"1\","
		"type=\"tensor\"} 1.500000000\n"));
	assert_null(strstr(text, "tern_device_engines{device=\"0\""));
	assert_null(strstr(text, "type=\"vector\""));
	assert_non_null(strstr(text,
		"tern_link_up{link=\"1\",device_a=\"1\",port_a=\"0\",device_b=\"0\",port_b=\"1\"} 1\n"));
	assert_non_null(strstr(text, "# TYPE tern_link_bytes_total counter\n"));
	free(text);
	free(t);
}

/*
 * A device message as tern.ko or the machine writes it: @engine_count
 * engines said, @nests engine nests (with busy_ns 1000 * index), each
 * with its type and core when @typed (4 DMA engines, then 3 per core).
 */
static struct nl_msg *device_message(uint32_t engine_count, uint32_t nests,
				     bool typed)
{
	struct nl_msg *msg = nlmsg_alloc_size(1 << 16);

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 1, 0, 0,
				    DRM_TERN_CMD_DEVICE_GET,
				    DRM_TERN_GENL_VERSION));
	assert_int_equal(nla_put_u32(msg, DRM_TERN_A_DEV_INDEX, 2), 0);
	assert_int_equal(nla_put_u32(msg, DRM_TERN_A_DEV_ENGINE_COUNT,
				     engine_count), 0);
	for (uint32_t e = 0; e < nests; e++) {
		struct nlattr *nest = nla_nest_start(msg, DRM_TERN_A_DEV_ENGINE);

		assert_non_null(nest);
		assert_int_equal(nla_put_u32(msg, DRM_TERN_A_ENGINE_INDEX, e), 0);
		assert_int_equal(nla_put_u64(msg, DRM_TERN_A_ENGINE_BUSY_NS,
					     1000ull * e), 0);
		if (typed) {
			assert_int_equal(nla_put_u32(msg, DRM_TERN_A_ENGINE_TYPE,
				e < 4 ? DRM_TERN_ENGINE_DMA :
				DRM_TERN_ENGINE_TENSOR + (e - 4) % 3), 0);
			assert_int_equal(nla_put_u32(msg, DRM_TERN_A_ENGINE_CORE,
				e < 4 ? DRM_TERN_ENGINE_NO_CORE : (e - 4) / 3), 0);
		}
		nla_nest_end(msg, nest);
	}
	return msg;
}

/* A trn2 chip's 28 engines, every one with its type and core. */
static void test_parse_many_engines(void **state)
{
	struct nl_msg *msg = device_message(4 + 3 * 8, 4 + 3 * 8, true);
	struct snapshot_extra extra;
	struct snapshot_device dev;

	(void)state;
	family_init_policies();
	assert_int_equal(snapshot_parse_device(nlmsg_hdr(msg), &dev, &extra), 0);
	assert_int_equal(dev.engine_count, 28);
	for (uint32_t e = 0; e < 28; e++) {
		assert_int_equal(dev.engines[e].index, e);
		assert_true(dev.engines[e].busy_ns == 1000ull * e);
	}
	assert_int_equal(dev.engines[3].type, DRM_TERN_ENGINE_DMA);
	assert_int_equal(dev.engines[3].core, DRM_TERN_ENGINE_NO_CORE);
	assert_int_equal(dev.engines[25].type, DRM_TERN_ENGINE_TENSOR);
	assert_int_equal(dev.engines[25].core, 7);
	assert_int_equal(dev.engines[27].type, DRM_TERN_ENGINE_SCALAR);
	assert_int_equal(dev.engines[27].core, 7);
	/* An event's engine: the last nest, whatever the device counts. */
	assert_int_equal(extra.engine, 27);
	assert_true(extra.engine_values.busy_ns == 27000);
	snapshot_device_free(&dev);
	nlmsg_free(msg);
}

/*
 * Engines of an older sender are of no known type and no core; engines
 * the nests do not mention are listed with zero counters; a nest past
 * the device's count is not its engine.
 */
static void test_parse_untyped_engines(void **state)
{
	struct nl_msg *msg = device_message(3, 5, false);
	struct snapshot_device dev;

	(void)state;
	family_init_policies();
	assert_int_equal(snapshot_parse_device(nlmsg_hdr(msg), &dev, NULL), 0);
	assert_int_equal(dev.engine_count, 3);
	for (uint32_t e = 0; e < 3; e++) {
		assert_int_equal(dev.engines[e].index, e);
		assert_int_equal(dev.engines[e].type, SNAPSHOT_ENGINE_TYPE_UNKNOWN);
		assert_int_equal(dev.engines[e].core, DRM_TERN_ENGINE_NO_CORE);
	}
	assert_string_equal(tern_engine_type_name(dev.engines[0].type),
			    "unknown");
	snapshot_device_free(&dev);
	nlmsg_free(msg);

	msg = device_message(4, 2, true);
	assert_int_equal(snapshot_parse_device(nlmsg_hdr(msg), &dev, NULL), 0);
	assert_true(dev.engines[1].busy_ns == 1000);
	assert_int_equal(dev.engines[3].index, 3);
	assert_true(dev.engines[3].busy_ns == 0);
	assert_int_equal(dev.engines[3].type, SNAPSHOT_ENGINE_TYPE_UNKNOWN);
	snapshot_device_free(&dev);
	nlmsg_free(msg);
}

/* More engines than tern-inspect takes: refused, saying so. */
static void test_parse_too_many_engines(void **state)
{
	struct nl_msg *msg = device_message(SNAPSHOT_MAX_ENGINES + 1, 1, true);
	struct snapshot snap = { 0 };
	struct snapshot_device dev;

	(void)state;
	family_init_policies();
	assert_int_equal(snapshot_parse_device(nlmsg_hdr(msg), &dev, NULL),
			 SNAPSHOT_TOO_MANY_ENGINES);
	assert_null(dev.engines);
	assert_int_equal(snapshot_add(&snap, nlmsg_hdr(msg)),
			 SNAPSHOT_TOO_MANY_ENGINES);
	assert_int_equal(snap.device_count, 0);
	assert_string_equal(snapshot_error(SNAPSHOT_TOO_MANY_ENGINES),
			    "a device reports more engines than tern-inspect "
			    "takes (4096)");
	snapshot_free(&snap);
	nlmsg_free(msg);

	msg = device_message(SNAPSHOT_MAX_ENGINES, 1, true);
	assert_int_equal(snapshot_add(&snap, nlmsg_hdr(msg)), 0);
	assert_int_equal(snap.devices[0].engine_count, SNAPSHOT_MAX_ENGINES);
	snapshot_free(&snap);
	nlmsg_free(msg);
}

/* A frame as text, then as JSON. */
static void write_frame(FILE *out, const void *frame)
{
	top_frame_print_plain(frame, out, 0, 0, NULL, false);
	top_frame_print_json(frame, out, false);
}

/* Engine @index of a chip of one DMA engine and one core, @busy_ns busy. */
static struct tern_state_engine engine_of(uint32_t index, uint64_t busy_ns)
{
	struct tern_state_engine e = {
		.index = index, .busy_ns = busy_ns,
		.type = index ? index : DRM_TERN_ENGINE_DMA,
		.core = index ? 0 : DRM_TERN_ENGINE_NO_CORE,
	};

	return e;
}

/*
 * top: each device's engines by type, their time in the interval over
 * their capacity; a line under a chip of cores, none under one of DMA
 * engines alone; in JSON for both.
 */
static void test_top_engine_types(void **state)
{
	struct tern_state_engine was[4], now[4], dma_only[2];
	struct test_snap *old = malloc(sizeof(*old));
	struct test_snap *t = malloc(sizeof(*t));
	struct top_frame frame;
	char *text;

	(void)state;
	assert_non_null(old);
	assert_non_null(t);
	for (uint32_t e = 0; e < 4; e++) {
		was[e] = engine_of(e, 0);
		now[e] = engine_of(e, 0);
	}
	now[0].busy_ns = 100000000;		/* dma: 10% of 1 s */
	now[1].busy_ns = 500000000;		/* tensor: 50% */
	now[1].busy = 1;
	dma_only[0] = engine_of(0, 0);
	dma_only[1] = engine_of(0, 0);
	dma_only[1].index = 1;
	snap_init(old, 2);
	snap_init(t, 2);
	old->snap.taken_ns = 1000000000;
	t->snap.taken_ns = 2000000000;
	old->devices[0].engine_count = t->devices[0].engine_count = 4;
	old->devices[0].engines = was;
	t->devices[0].engines = now;
	old->devices[1].engine_count = t->devices[1].engine_count = 2;
	old->devices[1].engines = t->devices[1].engines = dma_only;

	assert_true(top_frame_compute(&old->snap, &t->snap, &frame));
	assert_int_equal(frame.devices[0].types[DRM_TERN_ENGINE_TENSOR].engines, 1);
	assert_int_equal(frame.devices[0].types[DRM_TERN_ENGINE_TENSOR].engines_busy, 1);
	assert_true(frame.devices[0].types[DRM_TERN_ENGINE_TENSOR].busy_ns == 500000000);
	assert_true(frame.devices[0].types[DRM_TERN_ENGINE_TENSOR].utilisation == 50.0);
	assert_true(frame.devices[0].types[DRM_TERN_ENGINE_DMA].utilisation == 10.0);
	assert_true(frame.devices[0].types[DRM_TERN_ENGINE_VECTOR].utilisation == 0);
	assert_int_equal(frame.devices[1].types[DRM_TERN_ENGINE_TENSOR].engines, 0);
	text = written(write_frame, &frame);
	top_frame_free(&frame);
	assert_non_null(strstr(text,
		"\n     dma 10.0% 0/1  tensor 50.0% 1/1  vector 0.0% 0/1  scalar 0.0% 0/1\n"));
	assert_null(strstr(text, "dma 0.0% 0/2"));
	assert_non_null(strstr(text,
		"\"engine_types\":[{\"type\":\"dma\",\"engines\":1,"
		"\"engines_busy\":0,\"busy_ns\":100000000,"
		"\"utilisation_percent\":10},{\"type\":\"tensor\",\"engines\":1,"
		"\"engines_busy\":1,\"busy_ns\":500000000,"
		"\"utilisation_percent\":50},"));
	assert_non_null(strstr(text,
		"\"engine_types\":[{\"type\":\"dma\",\"engines\":2,"
		"\"engines_busy\":0,\"busy_ns\":0,\"utilisation_percent\":0}]}"));
	free(text);

	/* A first frame: no rates yet. */
	assert_true(top_frame_compute(NULL, &t->snap, &frame));
	text = written(write_frame, &frame);
	top_frame_free(&frame);
	assert_non_null(strstr(text,
		"\n     dma - 0/1  tensor - 1/1  vector - 0/1  scalar - 0/1\n"));
	free(text);
	free(old);
	free(t);
}

/*
 * Clients counted by the driver but not listed are other users': hidden,
 * unless this process sees every client (then a file came or went
 * between the dumps); said so in list -v, info, top and the metrics.
 */
static void test_clients_hidden(void **state)
{
	static const struct {
		uint32_t hidden;
		const char *note;
	} notes[] = {
		{ 2, "2 clients of other users hidden (run as root or with CAP_PERFMON to see them)" },
		{ 1, "1 client of another user hidden (run as root or with CAP_PERFMON to see it)" },
		{ 0, "" },
	};
	struct test_snap *t = malloc(sizeof(*t));
	struct top_frame frame;
	char *text, note[128];

	(void)state;
	assert_non_null(t);
	snap_ring(t, 3);
	t->devices[0].client_count = 3;
	t->devices[2].client_count = 1;
	t->snap.client_count = 2;
	t->clients[0] = (struct snapshot_client){ .device = 0, .id = 5, .pid = 42 };
	/* opened after the device dump: listed, not yet counted */
	t->clients[1] = (struct snapshot_client){ .device = 1, .id = 6, .pid = 42 };
	snapshot_finish(&t->snap);
	snapshot_count_hidden(&t->snap, true);
	for (int i = 0; i < 3; i++)
		assert_int_equal(t->devices[i].clients_hidden, 0);
	snapshot_count_hidden(&t->snap, false);
	assert_int_equal(t->devices[0].clients_hidden, 2);
	assert_int_equal(t->devices[1].clients_hidden, 0);
	assert_int_equal(t->devices[1].client_count, 1);
	assert_int_equal(t->devices[2].clients_hidden, 1);

	for (size_t i = 0; i < ARRAY_SIZE(notes); i++) {
		inspect_hidden_note(notes[i].hidden, note, sizeof(note));
		assert_string_equal(note, notes[i].note);
	}

	assert_true(top_frame_compute(NULL, &t->snap, &frame));
	assert_int_equal(frame.clients_hidden, 3);
	text = written(write_frame, &frame);
	top_frame_free(&frame);
	assert_non_null(strstr(text, "  clients: 2 (3 of other users hidden)\n"));
	assert_non_null(strstr(text, "\n3 clients of other users hidden (run as root or with CAP_PERFMON to see them)\n"));
	assert_non_null(strstr(text, "\"clients\":2,\"clients_hidden\":3}"));
	free(text);
	text = metrics_text(&t->snap);
	assert_non_null(strstr(text, "tern_clients_hidden{device=\"0\"} 2\n"));
	assert_non_null(strstr(text, "tern_clients_hidden{device=\"2\"} 1\n"));
	free(text);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain_and_suffixes),
		cmocka_unit_test(test_size_rejects_malformed),
		cmocka_unit_test(test_size_range),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_format_bytes),
		cmocka_unit_test(test_pattern_fill_then_count),
		cmocka_unit_test(test_pattern_counts_each_wrong_byte),
		cmocka_unit_test(test_pattern_depends_on_seed),
		cmocka_unit_test(test_compute_fill_codes),
		cmocka_unit_test(test_gemm_reference_order),
		cmocka_unit_test(test_gemm_reference_transposed),
		cmocka_unit_test(test_gemm_samples),
		cmocka_unit_test(test_torus_found),
		cmocka_unit_test(test_torus_rejected),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_draw_torus),
		cmocka_unit_test(test_draw_ring_and_other),
		cmocka_unit_test(test_health_reasons),
		cmocka_unit_test(test_health_from_links),
		cmocka_unit_test(test_find_device),
		cmocka_unit_test(test_prometheus_label_escaping),
		cmocka_unit_test(test_prometheus_client_sample),
		cmocka_unit_test(test_parse_many_engines),
		cmocka_unit_test(test_parse_untyped_engines),
		cmocka_unit_test(test_parse_too_many_engines),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_utf8_char),
		cmocka_unit_test(test_json_strings_always_valid),
		cmocka_unit_test(test_clients_hidden),
		cmocka_unit_test(test_top_engine_types),
	};

	return cmocka_run_group_tests_name("tools", tests, NULL, NULL);
}
