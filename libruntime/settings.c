// SPDX-License-Identifier: MIT
/*
 * The settings table and its parser (settings.h). Each row's values and
 * doc are the README's row of the same variable, checked by make check
 * (tests/settings/check.sh), so a setting is documented where it is
 * defined.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "settings.h"

#define MS		"milliseconds"
#define MIB		"MiB"
#define KIB		"KiB"

static const struct tern_setting tern_settings[] = {
	/* Choosing and shaping the backend */
	{ "TERN_BACKEND", TERN_SETTING_CHOICE, TERN_SETTING_BACKEND,
	  .choices = { "kernel", "sim" },
	  .doc = "Forces a backend. Unset: `kernel` when a Tern device node exists (even one this user cannot open, so the permission problem is reported), `sim` otherwise." },
	{ "TERN_KERNEL_RINGS", TERN_SETTING_CHOICE, TERN_SETTING_BACKEND,
	  .choices = { "on", "off" }, .def = "on",
	  .doc = "With tern.ko: streams are user rings, whose jobs cost no system call, where the driver has them and within its ring limits (16 per file, `ring_mem_kb` in all), other streams submitting; `off` submits each job with `DRM_IOCTL_TERN_SUBMIT` instead (to compare the two)." },
	{ "TERN_SIM_DEVICES", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  1, 64, "devices", .def = "4",
	  .doc = "Number of simulated devices; a preset `TERN_SIM_TOPOLOGY` (`trn2`, `trn2-ultra`) makes its own the default." },
	{ "TERN_SIM_MEM_MB", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  1, 1048576, MIB, .def = "256",
	  .doc = "Device memory of each simulated device, MiB." },
	{ "TERN_SIM_JOB_TIMEOUT_MS", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  1, 3600000, MS, .def = "5000",
	  .doc = "Job timeout of the simulator, as `job_timeout_ms` is the driver's." },
	{ "TERN_SIM_TOPOLOGY", TERN_SETTING_TEXT, TERN_SETTING_BACKEND,
	  .values = "`auto`, `ring`, `torus:RxC` (R*C = the device count), `full` (at most 17 devices), `trn2` (16 devices), `trn2-ultra` (64), `none` or `custom:A-B[@GBPS[/NSns]],...` (devices that exist)",
	  .def = "auto",
	  .doc = "How the simulated devices are joined: `auto` is a KxK torus when the count is K*K (16 devices: `torus:4x4`), a ring otherwise; `trn2` is a Trainium2 instance (16 chips), `trn2-ultra` an UltraServer (64)." },
	{ "TERN_SIM_CORES", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, 16, "cores", .def = "0",
	  .doc = "Cores of each simulated chip, each with SBUF, PSUM and a tensor, a vector and a scalar engine ([Documentation/compute.rst](Documentation/compute.rst)); 0: no compute. A preset `TERN_SIM_TOPOLOGY` (`trn2`, `trn2-ultra`) makes Trainium2's 8 the default." },
	{ "TERN_SIM_SBUF_KB", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  1, 1024, KIB, .def = "192",
	  .doc = "SBUF of each partition of a core, KiB (Trainium2: 192); a process's own, allocated when first used." },
	{ "TERN_SIM_PSUM_KB", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  2, 64, KIB, .def = "16",
	  .doc = "PSUM of each partition of a core, KiB, an even number: 2 KiB banks (Trainium2: 16)." },
	{ "TERN_SIM_CLOCK", TERN_SETTING_CHOICE, TERN_SETTING_BACKEND,
	  .choices = { "wall", "model" }, .def = "wall",
	  .doc = "The engine clock the simulator's timestamps read: the host's, or the timing model's, how long the same packets take on the fabric." },
	{ "TERN_SIM_DATA", TERN_SETTING_CHOICE, TERN_SETTING_BACKEND,
	  .choices = { "on", "off" }, .def = "on",
	  .doc = "`off`: the simulator's engines move no bytes but translate, count and time them as if they did, so schedules larger than the host's memory can be timed (`tern-bench ... -c 0`)." },
	{ "TERN_SIM_MACHINE", TERN_SETTING_TEXT, TERN_SETTING_BACKEND,
	  .values = "a name, `auto`",
	  .doc = "Which simulated machine: `TERN_SIM_DEVICES`, `TERN_SIM_MEM_MB`, `TERN_SIM_JOB_TIMEOUT_MS`, `TERN_SIM_TOPOLOGY` and `TERN_SIM_CORES` (with `TERN_SIM_SBUF_KB` and `TERN_SIM_PSUM_KB`) size it when it starts. Unset, a process uses `default` when it has the shape asked for; if not, an idle `default` gives way to it, and a busy one is left alone for a machine of this shape. Named, a machine of another shape refuses the process, saying what to do. `auto`: a machine per shape." },
	{ "TERN_SIM_DIR", TERN_SETTING_TEXT, TERN_SETTING_BACKEND,
	  .values = "a directory",
	  .doc = "Where the machines' sockets are (default `$XDG_RUNTIME_DIR/tern`, else `/tmp/tern-UID`; mode 0700)." },
	{ "TERN_SIM_IDLE_MS", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, 86400000, MS, .def = "30000",
	  .doc = "How long a machine outlives its last client." },
	{ "TERN_SIM_DAEMON", TERN_SETTING_TEXT, TERN_SETTING_BACKEND,
	  .values = "a path",
	  .doc = "The `tern-simd` to start. Unset: the first found beside `libtern.so` (or where `make install` puts it, seen from there), beside the program, in libtern's build tree or install `BINDIR` as they were when it was built, else on `PATH` ([Documentation/simulator.rst](Documentation/simulator.rst))." },
	{ "TERN_SIM_HOST_MEM_MB", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, 1 << 30, MIB, .def = "0",
	  .doc = "Host buffers of every process of a machine this process starts, MiB (0: half of RAM); past it `TERN_ERROR_OUT_OF_MEMORY`." },
	{ "TERN_SIM_CLIENT_HOST_MB", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, 1 << 30, MIB, .def = "0",
	  .doc = "Host buffers of one process, MiB (0: half of the host budget)." },
	{ "TERN_SIM_CLIENT_JOBS", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, UINT32_MAX, "jobs", .def = "0",
	  .doc = "Jobs of one process submitted and not ended (0: 16384); past it its submissions wait." },
	{ "TERN_SIM_CLIENT_JOB_MB", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, 1 << 30, MIB, .def = "0",
	  .doc = "Packet bytes of those jobs, MiB (0: 256)." },
	{ "TERN_SIM_CLIENT_BUFFERS", TERN_SETTING_NUMBER, TERN_SETTING_BACKEND,
	  0, UINT32_MAX, "buffers", .def = "0",
	  .doc = "Buffers and imports of one process (0: half of the machine's buffer descriptors); past it `TERN_ERROR_LIMIT`." },

	/* Communicators */
	{ "TERN_COMM_DETECT_MS", TERN_SETTING_NUMBER, 0,
	  1, 60000, MS, .def = "50",
	  .doc = "How often libtern's watchdog looks at the communicators: how soon a failed collective reaches every rank." },
	{ "TERN_COMM_INIT_TIMEOUT_MS", TERN_SETTING_NUMBER, 0,
	  1, TERN_COMM_INIT_TIMEOUT_MAX_MS, MS, .def = "30000",
	  .doc = "How long `tern_comm_init_rank` and `tern_comm_split` wait for the other ranks." },
	{ "TERN_COMM_CUT_MS", TERN_SETTING_NUMBER, 0,
	  1000, 600000, MS, .def = "10000",
	  .doc = "How long a rank's link to another process may go unanswered before that peer counts as cut off." },
	{ "TERN_COMM_SECRET", TERN_SETTING_TEXT, 0,
	  .values = "32-64 hex digits",
	  .doc = "The job's secret, for ids without it (`tern_unique_id_public`): the same on every rank (`openssl rand -hex 32`). Unset: rank 0 keeps it in a file of `TERN_RUN_DIR` that only ranks on its host can read (Documentation/security.rst)." },
	{ "TERN_SOCKET_IFNAME", TERN_SETTING_TEXT, 0,
	  .values = "interface names or prefixes, `=name` exact, `^` to avoid, comma-separated",
	  .doc = "The interface whose TCP address `tern_get_unique_id` puts in the id, where the ranks meet rank 0 (default: the first that is up and not loopback or virtual)." },

	/* Collectives: the tuner */
	{ "TERN_ALGO", TERN_SETTING_CHOICE, 0,
	  .choices = { "direct", "ring", "torus", "chain", "pairwise" },
	  .doc = "Forces a collective algorithm wherever it can run (default: the tuner's choice from the cost model)." },
	{ "TERN_NET_ALGO", TERN_SETTING_CHOICE, 0,
	  .choices = { "ring", "halving-doubling", "doubling" },
	  .doc = "Forces how an all-reduce's chunks go along the rail across hosts, wherever it can run (default: the tuner's choice from the network's figures); rank 0's value rules every rank." },
	{ "TERN_NET_GBPS", TERN_SETTING_REAL, 0,
	  0, 100000, "Gbit/s",
	  .doc = "A rank's share of the network, Gbit/s, as the tuner's cost model takes it (default: the provider's, `efa` and `verbs` 200, `shm` 40, `tcp` and others 25); rank 0's value rules every rank." },
	{ "TERN_NET_LATENCY_US", TERN_SETTING_REAL, 0,
	  0, 1000000, "microseconds",
	  .doc = "The network's latency, microseconds, as the tuner's cost model takes it (default: the provider's, `efa` 15, `verbs` 3, `shm` 1, `tcp` and others 30); rank 0's value rules every rank." },

	/* The process */
	{ "TERN_RUN_DIR", TERN_SETTING_TEXT, 0,
	  .values = "a directory",
	  .doc = "Where libtern keeps the network's counters of each process (`tern-inspect net`) and rank 0's secret file (default `/tmp/tern-UID`; it must be the user's own, mode 0700)." },
	{ "TERN_DEBUG", TERN_SETTING_TEXT, 0,
	  .values = "`1`, `0`",
	  .doc = "What libtern prints on stderr. Unset: only why it refused the process (the backend), one sentence, once. `1`: every choice it makes besides. `0`: nothing (`tern_get_last_error()` still says why)." },
};

#define TERN_SETTINGS_COUNT	(sizeof(tern_settings) / sizeof(tern_settings[0]))

const struct tern_setting *tern_setting_at(size_t index)
{
	return index < TERN_SETTINGS_COUNT ? &tern_settings[index] : NULL;
}

const struct tern_setting *tern_setting_find(const char *name)
{
	for (size_t i = 0; i < TERN_SETTINGS_COUNT; i++)
		if (strcmp(tern_settings[i].name, name) == 0)
			return &tern_settings[i];
	return NULL;
}

/* The variable's text; NULL when unset or empty. */
static const char *tern_setting_env(const char *name)
{
	const char *text = getenv(name);

	return text && *text ? text : NULL;
}

bool tern_setting_is_set(const char *name)
{
	return tern_setting_env(name) != NULL;
}

/* Appends to @buf as snprintf would, keeping count of what was wanted. */
static void tern_append(char *buf, size_t len, int *used, const char *fmt,
			...)
{
	size_t at = *used > 0 ? (size_t)*used : 0;
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
		      fmt, args);
	va_end(args);
	if (n > 0)
		*used += n;
}

/* "a, b or c". */
static void tern_append_names(char *buf, size_t len, int *used,
			      const char *const *names)
{
	for (int i = 0; names[i]; i++)
		tern_append(buf, len, used, "%s%s",
			    i == 0 ? "" : names[i + 1] ? ", " : " or ",
			    names[i]);
}

int tern_setting_takes(const struct tern_setting *s, char *buf, size_t len)
{
	int used = 0;

	if (len)
		buf[0] = '\0';
	switch (s->kind) {
	case TERN_SETTING_NUMBER:
		tern_append(buf, len, &used, "%lld-%lld", (long long)s->min,
			    (long long)s->max);
		break;
	case TERN_SETTING_REAL:
		tern_append(buf, len, &used, "above %lld, at most %lld",
			    (long long)s->min, (long long)s->max);
		break;
	case TERN_SETTING_CHOICE:
		tern_append_names(buf, len, &used, s->choices);
		break;
	case TERN_SETTING_TEXT:
		/* The README's words without its code marks. */
		for (const char *p = s->values; *p; p++)
			if (*p != '`')
				tern_append(buf, len, &used, "%c", *p);
		break;
	}
	return used;
}

/*
 * The one wording of a refusal of a number or a choice (text is its
 * reader's to check); always TERN_ERROR_INVALID_ARGUMENT.
 */
static tern_status_t tern_setting_refuse(const struct tern_setting *s,
					 const char *text)
{
	const char *const *names = s->choices;
	char why[512];
	int used = 0;

	if (s->kind == TERN_SETTING_NUMBER) {
		tern_append(why, sizeof(why), &used,
			    "is not a number of %s from %lld to %lld", s->unit,
			    (long long)s->min, (long long)s->max);
	} else if (s->kind == TERN_SETTING_REAL) {
		tern_append(why, sizeof(why), &used,
			    "is not a number of %s above %lld, at most %lld",
			    s->unit, (long long)s->min, (long long)s->max);
	} else if (names[1] && !names[2]) {
		tern_append(why, sizeof(why), &used,
			    "is neither '%s' nor '%s'", names[0], names[1]);
	} else {
		tern_append(why, sizeof(why), &used, "is none of ");
		tern_append_names(why, sizeof(why), &used, names);
	}
	tern_set_last_error("%s=\"%s\" %s", s->name, text, why);
	return TERN_ERROR_INVALID_ARGUMENT;
}

/* @text as a whole number; false for anything else or an overflow. */
static bool tern_parse_whole(const char *text, int64_t *value)
{
	uint64_t v = 0;

	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > ((uint64_t)INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*value = (int64_t)v;
	return true;
}

/* @text as a decimal number ("12.5", "1e3"): no blanks, signs or hex. */
static bool tern_parse_real(const char *text, double *value)
{
	char *end;

	if (!((*text >= '0' && *text <= '9') || *text == '.') ||
	    strspn(text, "0123456789.eE+-") != strlen(text))
		return false;
	errno = 0;
	*value = strtod(text, &end);
	return !errno && !*end && isfinite(*value);
}

/* The setting called @name, and its text or default (NULL: neither). */
static const struct tern_setting *tern_setting_get(const char *name,
						   const char **text)
{
	const struct tern_setting *s = tern_setting_find(name);

	*text = tern_setting_env(name);
	if (s && !*text)
		*text = s->def;
	return s;
}

tern_status_t tern_setting_number(const char *name, int64_t *value)
{
	const char *text;
	const struct tern_setting *s = tern_setting_get(name, &text);
	int64_t v;

	if (!s || s->kind != TERN_SETTING_NUMBER)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!text)
		return TERN_SUCCESS;
	if (!tern_parse_whole(text, &v) || v < s->min || v > s->max)
		return tern_setting_refuse(s, text);
	*value = v;
	return TERN_SUCCESS;
}

tern_status_t tern_setting_real(const char *name, double *value)
{
	const char *text;
	const struct tern_setting *s = tern_setting_get(name, &text);
	double v;

	if (!s || s->kind != TERN_SETTING_REAL)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!text)
		return TERN_SUCCESS;
	if (!tern_parse_real(text, &v) || !(v > (double)s->min) ||
	    v > (double)s->max)
		return tern_setting_refuse(s, text);
	*value = v;
	return TERN_SUCCESS;
}

/* The table's own string for @text among @s's names; NULL if none. */
static const char *tern_setting_name_of(const struct tern_setting *s,
					const char *text)
{
	for (int i = 0; i < TERN_SETTING_MAX_CHOICES && s->choices[i]; i++)
		if (strcmp(text, s->choices[i]) == 0)
			return s->choices[i];
	return NULL;
}

tern_status_t tern_setting_choice(const char *name, const char **value)
{
	const char *text, *chosen;
	const struct tern_setting *s = tern_setting_get(name, &text);

	if (!s || s->kind != TERN_SETTING_CHOICE)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!text)
		return TERN_SUCCESS;
	chosen = tern_setting_name_of(s, text);
	if (!chosen)
		return tern_setting_refuse(s, text);
	*value = chosen;
	return TERN_SUCCESS;
}

tern_status_t tern_setting_on(const char *name, bool *on)
{
	const struct tern_setting *s = tern_setting_find(name);
	const char *value = NULL;
	tern_status_t status;

	if (!s || !s->choices[0] || strcmp(s->choices[0], "on"))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = tern_setting_choice(name, &value);
	if (status == TERN_SUCCESS && value)
		*on = strcmp(value, "on") == 0;
	return status;
}

const char *tern_setting_text(const char *name)
{
	const char *text;
	const struct tern_setting *s = tern_setting_get(name, &text);

	return s && s->kind == TERN_SETTING_TEXT ? text : NULL;
}
