// SPDX-License-Identifier: MIT
/*
 * Unit tests for the pieces of tern-bench and tern-inspect that decide
 * right from wrong: number parsing, byte formatting and the verification
 * pattern.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "pattern.h"

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
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
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
	for (size_t s = 0; s < sizeof(pattern_sizes) / sizeof(size_t); s++) {
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
	for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
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
	};

	return cmocka_run_group_tests_name("tools", tests, NULL, NULL);
}
