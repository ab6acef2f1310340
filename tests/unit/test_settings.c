// SPDX-License-Identifier: MIT
/*
 * Unit tests of libtern's settings (libruntime/settings.h): nonsense for
 * each kind is refused with TERN_ERROR_INVALID_ARGUMENT and its one
 * sentence, the output untouched; an unset or empty variable gives the
 * default; the table itself is whole (every default is a value its
 * setting takes).
 *
 * "test_settings --readme" prints the README's settings table from the
 * table instead, for tests/settings/check.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coll/fabric/fabric.h"
#include "coll/hosts/internal.h"
#include "settings.h"
#include "tern.h"

#define COUNT(a)	(sizeof(a) / sizeof((a)[0]))

struct nonsense {
	const char *name, *value, *sentence;
};

/* The lookup of @name's kind, into @n, @r or @c. */
static tern_status_t lookup(const char *name, int64_t *n, double *r,
			    const char **c)
{
	const struct tern_setting *s = tern_setting_find(name);

	assert_non_null(s);
	switch (s->kind) {
	case TERN_SETTING_NUMBER:
		return tern_setting_number(name, n);
	case TERN_SETTING_REAL:
		return tern_setting_real(name, r);
	case TERN_SETTING_CHOICE:
		return tern_setting_choice(name, c);
	case TERN_SETTING_TEXT:
		break;
	}
	fail_msg("%s is text: never refused", name);
	return TERN_SUCCESS;
}

static void test_nonsense(void **state)
{
	static const struct nonsense cases[] = {
		{ "TERN_COMM_DETECT_MS", "0", "TERN_COMM_DETECT_MS=\"0\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "60001", "TERN_COMM_DETECT_MS=\"60001\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "abc", "TERN_COMM_DETECT_MS=\"abc\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "-5", "TERN_COMM_DETECT_MS=\"-5\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "+50", "TERN_COMM_DETECT_MS=\"+50\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", " 50", "TERN_COMM_DETECT_MS=\" 50\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "50ms", "TERN_COMM_DETECT_MS=\"50ms\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "5e1", "TERN_COMM_DETECT_MS=\"5e1\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_DETECT_MS", "0x32", "TERN_COMM_DETECT_MS=\"0x32\" is not a number of milliseconds from 1 to 60000" },
		{ "TERN_COMM_INIT_TIMEOUT_MS", "99999999999999999999999", "TERN_COMM_INIT_TIMEOUT_MS=\"99999999999999999999999\" is not a number of milliseconds from 1 to 3600000" },
		{ "TERN_COMM_CUT_MS", "999", "TERN_COMM_CUT_MS=\"999\" is not a number of milliseconds from 1000 to 600000" },
		{ "TERN_SIM_DEVICES", "65", "TERN_SIM_DEVICES=\"65\" is not a number of devices from 1 to 64" },
		{ "TERN_SIM_CLIENT_JOBS", "4294967296", "TERN_SIM_CLIENT_JOBS=\"4294967296\" is not a number of jobs from 0 to 4294967295" },
		{ "TERN_NET_GBPS", "0", "TERN_NET_GBPS=\"0\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", "10G", "TERN_NET_GBPS=\"10G\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", "-1", "TERN_NET_GBPS=\"-1\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", "inf", "TERN_NET_GBPS=\"inf\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", "nan", "TERN_NET_GBPS=\"nan\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", "0x10", "TERN_NET_GBPS=\"0x10\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", " 5", "TERN_NET_GBPS=\" 5\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", "1e", "TERN_NET_GBPS=\"1e\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_GBPS", ".", "TERN_NET_GBPS=\".\" is not a number of Gbit/s above 0, at most 100000" },
		{ "TERN_NET_LATENCY_US", "1e9", "TERN_NET_LATENCY_US=\"1e9\" is not a number of microseconds above 0, at most 1000000" },
		{ "TERN_NET_LATENCY_US", "1e999", "TERN_NET_LATENCY_US=\"1e999\" is not a number of microseconds above 0, at most 1000000" },
		{ "TERN_ALGO", "fastest", "TERN_ALGO=\"fastest\" is none of direct, ring, torus, chain or pairwise" },
		{ "TERN_ALGO", "Ring", "TERN_ALGO=\"Ring\" is none of direct, ring, torus, chain or pairwise" },
		{ "TERN_ALGO", "ring ", "TERN_ALGO=\"ring \" is none of direct, ring, torus, chain or pairwise" },
		{ "TERN_NET_ALGO", "halving", "TERN_NET_ALGO=\"halving\" is none of ring, halving-doubling or doubling" },
		{ "TERN_BACKEND", "gpu", "TERN_BACKEND=\"gpu\" is neither 'kernel' nor 'sim'" },
		{ "TERN_SIM_CLOCK", "fast", "TERN_SIM_CLOCK=\"fast\" is neither 'wall' nor 'model'" },
		{ "TERN_KERNEL_RINGS", "yes", "TERN_KERNEL_RINGS=\"yes\" is neither 'on' nor 'off'" },
		{ "TERN_SIM_DATA", "OFF", "TERN_SIM_DATA=\"OFF\" is neither 'on' nor 'off'" },
	};

	(void)state;
	for (size_t i = 0; i < COUNT(cases); i++) {
		const struct nonsense *c = &cases[i];
		const char *choice = "untouched";
		int64_t number = -42;
		double real = -42;

		setenv(c->name, c->value, 1);
		assert_int_equal(lookup(c->name, &number, &real, &choice),
				 TERN_ERROR_INVALID_ARGUMENT);
		assert_string_equal(tern_get_last_error(), c->sentence);
		assert_int_equal(number, -42);
		assert_true(real == -42);
		assert_string_equal(choice, "untouched");
		unsetenv(c->name);
	}
}

/* A switch refused reads as a switch too, and leaves its bool alone. */
static void test_switch_nonsense(void **state)
{
	bool on = false;

	(void)state;
	setenv("TERN_SIM_DATA", "1", 1);
	assert_int_equal(tern_setting_on("TERN_SIM_DATA", &on),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_string_equal(tern_get_last_error(),
			    "TERN_SIM_DATA=\"1\" is neither 'on' nor 'off'");
	assert_false(on);
	unsetenv("TERN_SIM_DATA");
}

static void test_values(void **state)
{
	const char *choice = NULL;
	int64_t number = 0;
	double real = 0;
	bool on = true;

	(void)state;
	setenv("TERN_COMM_DETECT_MS", "60000", 1);
	assert_int_equal(tern_setting_number("TERN_COMM_DETECT_MS", &number), 0);
	assert_int_equal(number, 60000);
	setenv("TERN_COMM_DETECT_MS", "007", 1);
	assert_int_equal(tern_setting_number("TERN_COMM_DETECT_MS", &number), 0);
	assert_int_equal(number, 7);
	setenv("TERN_SIM_CLIENT_JOBS", "4294967295", 1);
	assert_int_equal(tern_setting_number("TERN_SIM_CLIENT_JOBS", &number), 0);
	assert_int_equal(number, 4294967295);
	setenv("TERN_NET_GBPS", "12.5", 1);
	assert_int_equal(tern_setting_real("TERN_NET_GBPS", &real), 0);
	assert_true(real == 12.5);
	setenv("TERN_NET_GBPS", "1e5", 1);
	assert_int_equal(tern_setting_real("TERN_NET_GBPS", &real), 0);
	assert_true(real == 100000);
	setenv("TERN_ALGO", "pairwise", 1);
	assert_int_equal(tern_setting_choice("TERN_ALGO", &choice), 0);
	assert_string_equal(choice, "pairwise");
	setenv("TERN_SIM_DATA", "off", 1);
	assert_int_equal(tern_setting_on("TERN_SIM_DATA", &on), 0);
	assert_false(on);
	setenv("TERN_SIM_MACHINE", "mine", 1);
	assert_string_equal(tern_setting_text("TERN_SIM_MACHINE"), "mine");
	assert_true(tern_setting_is_set("TERN_SIM_MACHINE"));
	unsetenv("TERN_COMM_DETECT_MS");
	unsetenv("TERN_SIM_CLIENT_JOBS");
	unsetenv("TERN_NET_GBPS");
	unsetenv("TERN_ALGO");
	unsetenv("TERN_SIM_DATA");
	unsetenv("TERN_SIM_MACHINE");
}

/* Unset and empty alike: the default, or the caller's own where none. */
static void test_unset_and_empty(void **state)
{
	(void)state;
	for (int empty = 0; empty < 2; empty++) {
		const char *choice = "mine";
		int64_t number = -1;
		double real = 25;
		bool on = false;

		if (empty) {
			setenv("TERN_COMM_DETECT_MS", "", 1);
			setenv("TERN_NET_GBPS", "", 1);
			setenv("TERN_ALGO", "", 1);
			setenv("TERN_KERNEL_RINGS", "", 1);
			setenv("TERN_SIM_TOPOLOGY", "", 1);
			setenv("TERN_SOCKET_IFNAME", "", 1);
		}
		assert_int_equal(tern_setting_number("TERN_COMM_DETECT_MS",
						     &number), 0);
		assert_int_equal(number, 50);
		assert_int_equal(tern_setting_real("TERN_NET_GBPS", &real), 0);
		assert_true(real == 25);
		assert_int_equal(tern_setting_choice("TERN_ALGO", &choice), 0);
		assert_string_equal(choice, "mine");
		assert_int_equal(tern_setting_on("TERN_KERNEL_RINGS", &on), 0);
		assert_true(on);
		assert_string_equal(tern_setting_text("TERN_SIM_TOPOLOGY"),
				    "auto");
		assert_false(tern_setting_is_set("TERN_SIM_TOPOLOGY"));
		assert_null(tern_setting_text("TERN_SOCKET_IFNAME"));
	}
	unsetenv("TERN_COMM_DETECT_MS");
	unsetenv("TERN_NET_GBPS");
	unsetenv("TERN_ALGO");
	unsetenv("TERN_KERNEL_RINGS");
	unsetenv("TERN_SIM_TOPOLOGY");
	unsetenv("TERN_SOCKET_IFNAME");
}

/* Asking for a setting libtern does not have, or as another kind. */
static void test_wrong_lookup(void **state)
{
	const char *choice = NULL;
	int64_t number = 0;
	bool on = false;

	(void)state;
	assert_null(tern_setting_find("TERN_NO_SUCH"));
	assert_int_equal(tern_setting_number("TERN_NO_SUCH", &number),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(tern_setting_number("TERN_ALGO", &number),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(tern_setting_choice("TERN_COMM_DETECT_MS", &choice),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(tern_setting_on("TERN_ALGO", &on),
			 TERN_ERROR_INVALID_ARGUMENT);
	assert_null(tern_setting_text("TERN_ALGO"));
}

/* Every row complete, every name once, every default a value it takes. */
static void test_table(void **state)
{
	const struct tern_setting *s, *t;
	size_t n = 0;

	(void)state;
	for (size_t i = 0; (s = tern_setting_at(i)); i++, n++) {
		int64_t number = 0;
		double real = 0;
		const char *choice = NULL;

		assert_int_equal(strncmp(s->name, "TERN_", 5), 0);
		assert_non_null(s->doc);
		for (size_t j = 0; (t = tern_setting_at(j)); j++)
			assert_true(i == j || strcmp(s->name, t->name));
		unsetenv(s->name);
		switch (s->kind) {
		case TERN_SETTING_NUMBER:
			assert_non_null(s->unit);
			assert_non_null(s->def);
			assert_true(s->min <= s->max);
			assert_int_equal(tern_setting_number(s->name, &number), 0);
			break;
		case TERN_SETTING_REAL:
			assert_non_null(s->unit);
			assert_int_equal(tern_setting_real(s->name, &real), 0);
			break;
		case TERN_SETTING_CHOICE:
			assert_non_null(s->choices[1]);
			assert_null(s->choices[TERN_SETTING_MAX_CHOICES - 1]);
			assert_int_equal(tern_setting_choice(s->name, &choice), 0);
			assert_true(!s->def || (choice && !strcmp(choice, s->def)));
			break;
		case TERN_SETTING_TEXT:
			assert_non_null(s->values);
			break;
		}
	}
	assert_true(n >= 28);
}

/* What the tools print a setting takes. */
static void test_takes(void **state)
{
	char buf[256];

	(void)state;
	tern_setting_takes(tern_setting_find("TERN_SIM_MEM_MB"), buf,
			   sizeof(buf));
	assert_string_equal(buf, "1-1048576");
	tern_setting_takes(tern_setting_find("TERN_SIM_CLOCK"), buf,
			   sizeof(buf));
	assert_string_equal(buf, "wall or model");
	tern_setting_takes(tern_setting_find("TERN_ALGO"), buf, sizeof(buf));
	assert_string_equal(buf, "direct, ring, torus, chain or pairwise");
	tern_setting_takes(tern_setting_find("TERN_SIM_MACHINE"), buf,
			   sizeof(buf));
	assert_string_equal(buf, "a name, auto");
	/* Cut to fit, and says how long it wanted to be. */
	assert_int_equal(tern_setting_takes(tern_setting_find("TERN_ALGO"),
					    buf, 7), 38);
	assert_string_equal(buf, "direct");
}

/* ---- the README's table, for tests/settings/check.sh ---- */

static void print_values(const struct tern_setting *s)
{
	switch (s->kind) {
	case TERN_SETTING_NUMBER:
		printf("%lld-%lld", (long long)s->min, (long long)s->max);
		break;
	case TERN_SETTING_REAL:
		printf("above %lld, at most %lld", (long long)s->min,
		       (long long)s->max);
		break;
	case TERN_SETTING_CHOICE:
		for (int i = 0; s->choices[i]; i++)
			printf("%s`%s`", i ? ", " : "", s->choices[i]);
		break;
	case TERN_SETTING_TEXT:
		printf("%s", s->values);
		break;
	}
	if (!s->def)
		return;
	if (s->kind == TERN_SETTING_NUMBER || s->kind == TERN_SETTING_REAL)
		printf(", default %s", s->def);
	else
		printf(", default `%s`", s->def);
}

static int print_readme(void)
{
	const struct tern_setting *s;

	printf("| Variable | Values | Effect |\n| --- | --- | --- |\n");
	for (size_t i = 0; (s = tern_setting_at(i)); i++) {
		printf("| `%s` | ", s->name);
		print_values(s);
		printf(" | %s |\n", s->doc);
	}
	return 0;
}

/*
 * TERN_ALGO and TERN_NET_ALGO take the names of the tuners' tables: every
 * choice the setting lists forces a row of its own, and no row is left
 * without a choice.
 */
static void check_algorithm_choices(const char *name,
				    tern_status_t (*forced)(int *algo),
				    bool (*fits)(int algo))
{
	const struct tern_setting *s = tern_setting_find(name);
	int rows = 0, seen[TERN_SETTING_MAX_CHOICES];

	assert_non_null(s);
	for (int c = 0; c < TERN_SETTING_MAX_CHOICES && s->choices[c]; c++) {
		int row = -1;

		setenv(name, s->choices[c], 1);
		assert_int_equal(forced(&row), TERN_SUCCESS);
		assert_true(row >= 0);
		for (int p = 0; p < rows; p++)
			assert_int_not_equal(seen[p], row);
		seen[rows++] = row;
	}
	unsetenv(name);
	assert_true(fits(rows - 1));
	assert_false(fits(rows));
}

static void test_algorithm_choices(void **state)
{
	(void)state;
	check_algorithm_choices("TERN_ALGO", coll_forced_algo,
				coll_forced_fits);
	check_algorithm_choices("TERN_NET_ALGO", coll_forced_rail,
				coll_forced_rail_fits);
}

int main(int argc, char **argv)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonsense),
		cmocka_unit_test(test_switch_nonsense),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_unset_and_empty),
		cmocka_unit_test(test_wrong_lookup),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_takes),
		cmocka_unit_test(test_algorithm_choices),
	};

	if (argc == 2 && strcmp(argv[1], "--readme") == 0)
		return print_readme();
	return cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
