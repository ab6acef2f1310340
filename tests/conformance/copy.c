// SPDX-License-Identifier: MIT
/*
 * Copies and fills: host <-> device and device <-> device round trips at
 * odd sizes and offsets, overlapping copies, memset and memset32, each
 * checked byte for byte, including the bytes around the range that must
 * stay as they were.
 */
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

#define GUARD		0xa5
#define SLACK		8192	/* bytes beyond the largest offset */

static const size_t sizes[] = {
	1, 3, 8, 4095, 4096, 4097, 65537, (1u << 20) + 7, (5u << 20) + 3,
};
static const size_t offsets[] = { 0, 1, 7, 4093 };


/* Checks @buf holds @want at @offset and the guard byte everywhere else. */
static void assert_region(const uint8_t *buf, size_t buf_bytes, size_t offset,
			  const uint8_t *want, size_t bytes, const char *what)
{
	conf_assert_bytes(buf, GUARD, offset, what);
	if (memcmp(buf + offset, want, bytes) != 0) {
		for (size_t i = 0; i < bytes; i++)
			if (buf[offset + i] != want[i])
				fail_msg("%s: byte %zu of %zu differs", what, i,
					 bytes);
	}
	conf_assert_bytes(buf + offset + bytes, GUARD,
			  buf_bytes - offset - bytes, what);
}

/*
 * host --copy--> device --copy--> device --copy--> host, each hop at its
 * own offset, then everything compared.
 */
static void round_trip(tern_stream_t stream, size_t bytes, size_t off_a,
		       size_t off_b, size_t off_c, size_t off_d)
{
	const size_t total = bytes + SLACK;
	uint8_t *src_cpu, *dev1_cpu, *dev2_cpu, *dst_cpu, *want;
	tern_buffer_t src = conf_alloc(TERN_MEMORY_HOST, total, &src_cpu);
	tern_buffer_t dev1 = conf_alloc(TERN_MEMORY_DEVICE, total, &dev1_cpu);
	tern_buffer_t dev2 = conf_alloc(TERN_MEMORY_DEVICE, total, &dev2_cpu);
	tern_buffer_t dst = conf_alloc(TERN_MEMORY_HOST, total, &dst_cpu);

	want = malloc(bytes);
	assert_non_null(want);
	conf_fill_random(want, bytes, (uint32_t)(bytes + off_a));
	memset(src_cpu, GUARD, total);
	memcpy(src_cpu + off_a, want, bytes);
	memset(dev1_cpu, GUARD, total);
	memset(dev2_cpu, GUARD, total);
	memset(dst_cpu, GUARD, total);

	assert_ok(tern_memcpy_async(dev1, off_b, src, off_a, bytes, stream));
	assert_ok(tern_memcpy_async(dev2, off_c, dev1, off_b, bytes, stream));
	assert_ok(tern_memcpy_async(dst, off_d, dev2, off_c, bytes, stream));
	assert_ok(tern_stream_synchronize(stream));

	assert_region(src_cpu, total, off_a, want, bytes, "host source");
	assert_region(dev1_cpu, total, off_b, want, bytes, "device buffer 1");
	assert_region(dev2_cpu, total, off_c, want, bytes, "device buffer 2");
	assert_region(dst_cpu, total, off_d, want, bytes, "host destination");

	free(want);
	assert_ok(tern_buffer_free(src));
	assert_ok(tern_buffer_free(dev1));
	assert_ok(tern_buffer_free(dev2));
	assert_ok(tern_buffer_free(dst));
}

static void test_copy_round_trip_sizes(void **state)
{
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++)
		round_trip(stream, sizes[s], 0, 0, 0, 0);
	assert_ok(tern_stream_destroy(stream));
}

static void test_copy_round_trip_offsets(void **state)
{
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (size_t o = 0; o < ARRAY_SIZE(offsets); o++) {
			size_t a = offsets[o];
			size_t b = offsets[(o + 1) % ARRAY_SIZE(offsets)];
			size_t c = offsets[(o + 2) % ARRAY_SIZE(offsets)];
			size_t d = offsets[(o + 3) % ARRAY_SIZE(offsets)];

			round_trip(stream, sizes[s], a, b, c, d);
		}
	}
	assert_ok(tern_stream_destroy(stream));
}

static void test_copy_zero_bytes(void **state)
{
	tern_stream_t stream;
	tern_buffer_t a, b;
	uint8_t *a_cpu, *b_cpu;

	(void)state;
	a = conf_alloc(TERN_MEMORY_DEVICE, 64, &a_cpu);
	b = conf_alloc(TERN_MEMORY_DEVICE, 64, &b_cpu);
	memset(a_cpu, 1, 64);
	memset(b_cpu, 2, 64);
	assert_ok(tern_stream_create(conf.dev, &stream));
	assert_ok(tern_memcpy_async(b, 5, a, 3, 0, stream));
	assert_ok(tern_memset_async(b, 7, 9, 0, stream));
	assert_ok(tern_memset32_async(b, 9, 0x01020304, 0, stream));
	assert_ok(tern_stream_synchronize(stream));
	conf_assert_bytes(a_cpu, 1, 64, "source");
	conf_assert_bytes(b_cpu, 2, 64, "destination");
	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(a));
	assert_ok(tern_buffer_free(b));
}

static void overlapping_copy(tern_stream_t stream, size_t bytes, size_t src,
			     size_t dst)
{
	const size_t total = bytes + SLACK;
	uint8_t *cpu, *want = malloc(total);
	tern_buffer_t buf = conf_alloc(TERN_MEMORY_DEVICE, total, &cpu);

	assert_non_null(want);
	conf_fill_random(want, total, (uint32_t)(bytes ^ src ^ dst));
	memcpy(cpu, want, total);
	memmove(want + dst, want + src, bytes);
	assert_ok(tern_memcpy_async(buf, dst, buf, src, bytes, stream));
	assert_ok(tern_stream_synchronize(stream));
	if (memcmp(cpu, want, total) != 0)
		fail_msg("overlapping copy of %zu bytes from %zu to %zu is wrong",
			 bytes, src, dst);
	free(want);
	assert_ok(tern_buffer_free(buf));
}

static void test_copy_overlapping(void **state)
{
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		overlapping_copy(stream, sizes[s], 0, 1);	/* forward */
		overlapping_copy(stream, sizes[s], 1, 0);	/* backward */
		overlapping_copy(stream, sizes[s], 7, 4093);
		overlapping_copy(stream, sizes[s], 4093, 7);
		overlapping_copy(stream, sizes[s], 3, 3);	/* onto itself */
	}
	assert_ok(tern_stream_destroy(stream));
}

static void test_memset(void **state)
{
	static const uint8_t values[] = { 0x00, 0x7f, 0xff };
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		const size_t total = sizes[s] + SLACK;
		uint8_t *cpu, *want = malloc(sizes[s]);
		tern_buffer_t buf = conf_alloc(s % 2 ? TERN_MEMORY_HOST :
					       TERN_MEMORY_DEVICE, total, &cpu);

		assert_non_null(want);
		for (size_t o = 0; o < ARRAY_SIZE(offsets); o++) {
			uint8_t value = values[(s + o) % ARRAY_SIZE(values)];

			memset(cpu, GUARD, total);
			memset(want, value, sizes[s]);
			assert_ok(tern_memset_async(buf, offsets[o], value,
						    sizes[s], stream));
			assert_ok(tern_stream_synchronize(stream));
			assert_region(cpu, total, offsets[o], want, sizes[s],
				      "memset");
		}
		free(want);
		assert_ok(tern_buffer_free(buf));
	}
	assert_ok(tern_stream_destroy(stream));
}

static void test_memset32(void **state)
{
	const uint32_t pattern = 0x44332211;
	const uint8_t le[4] = { 0x11, 0x22, 0x33, 0x44 };
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		const size_t total = sizes[s] + SLACK;
		uint8_t *cpu, *want = malloc(sizes[s]);
		tern_buffer_t buf = conf_alloc(s % 2 ? TERN_MEMORY_DEVICE :
					       TERN_MEMORY_HOST, total, &cpu);

		assert_non_null(want);
		/* Byte i from the offset is byte i % 4 of the pattern. */
		for (size_t i = 0; i < sizes[s]; i++)
			want[i] = le[i % 4];
		for (size_t o = 0; o < ARRAY_SIZE(offsets); o++) {
			memset(cpu, GUARD, total);
			assert_ok(tern_memset32_async(buf, offsets[o], pattern,
						      sizes[s], stream));
			assert_ok(tern_stream_synchronize(stream));
			assert_region(cpu, total, offsets[o], want, sizes[s],
				      "memset32");
		}
		free(want);
		assert_ok(tern_buffer_free(buf));
	}
	assert_ok(tern_stream_destroy(stream));
}

static void test_work_runs_in_stream_order(void **state)
{
	const size_t bytes = 3u << 20;
	uint8_t *a_cpu, *b_cpu;
	tern_buffer_t a = conf_alloc(TERN_MEMORY_DEVICE, bytes, &a_cpu);
	tern_buffer_t b = conf_alloc(TERN_MEMORY_DEVICE, bytes, &b_cpu);
	tern_stream_t stream;

	(void)state;
	assert_ok(tern_stream_create(conf.dev, &stream));
	/* Each step depends on the one before it having finished. */
	assert_ok(tern_memset_async(a, 0, 1, bytes, stream));
	assert_ok(tern_memcpy_async(b, 0, a, 0, bytes, stream));
	assert_ok(tern_memset_async(a, 0, 2, bytes, stream));
	assert_ok(tern_memcpy_async(a, 0, b, 0, bytes / 2, stream));
	assert_ok(tern_memset32_async(b, 0, 0x03030303, bytes, stream));
	assert_ok(tern_stream_synchronize(stream));
	conf_assert_bytes(a_cpu, 1, bytes / 2, "first half of a");
	conf_assert_bytes(a_cpu + bytes / 2, 2, bytes - bytes / 2,
			  "second half of a");
	conf_assert_bytes(b_cpu, 3, bytes, "b");
	assert_ok(tern_stream_destroy(stream));
	assert_ok(tern_buffer_free(a));
	assert_ok(tern_buffer_free(b));
}

int conformance_copy_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_round_trip_sizes),
		cmocka_unit_test(test_copy_round_trip_offsets),
		cmocka_unit_test(test_copy_zero_bytes),
		cmocka_unit_test(test_copy_overlapping),
		cmocka_unit_test(test_memset),
		cmocka_unit_test(test_memset32),
		cmocka_unit_test(test_work_runs_in_stream_order),
	};

	return cmocka_run_group_tests_name("conformance_copy", tests,
					   conformance_open, conformance_close);
}
