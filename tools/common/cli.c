// SPDX-License-Identifier: MIT
/*
 * Command-line support shared by the Tern tools.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "settings.h"

bool cli_parse_size(const char *text, uint64_t min, uint64_t max,
		    uint64_t *bytes)
{
	unsigned long long value;
	unsigned int shift = 0;
	char *end;

	/* strtoull would accept leading blanks, signs and "0x": we do not. */
	if (!text || !isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return false;
	}
	if (shift && end[1] != '\0')
		return false;
	if (value > (UINT64_MAX >> shift))
		return false;
	value <<= shift;
	if (value < min || value > max)
		return false;
	*bytes = value;
	return true;
}

bool cli_parse_long(const char *text, long min, long max, long *value)
{
	long parsed;
	char *end;

	if (!text || !(isdigit((unsigned char)text[0]) ||
		       (text[0] == '-' && isdigit((unsigned char)text[1]))))
		return false;
	errno = 0;
	parsed = strtol(text, &end, 10);
	if (errno || *end != '\0' || parsed < min || parsed > max)
		return false;
	*value = parsed;
	return true;
}

void cli_format_bytes(uint64_t bytes, char *buf, int len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int unit = 0;
	uint64_t scale = 1;

	while (unit + 1 < sizeof(units) / sizeof(units[0]) &&
	       bytes >= (scale << 10)) {
		scale <<= 10;
		unit++;
	}
	if (bytes % scale == 0)
		snprintf(buf, len, "%llu %s",
			 (unsigned long long)(bytes / scale), units[unit]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)scale,
			 units[unit]);
}

const char *cli_backend_reason(tern_backend_t backend)
{
	tern_backend_reason_t reason;
	tern_backend_t chosen;

	if (tern_get_backend_reason(&chosen, &reason) == TERN_SUCCESS &&
	    chosen == backend)
		return tern_backend_reason_string(backend, reason);
	/* tern-inspect reads tern.ko's family where libtern finds no node. */
	return backend == TERN_BACKEND_KERNEL ? "tern.ko's netlink family found"
					      : "unknown";
}

const char *cli_backend_description(tern_backend_t backend)
{
	static char text[96];

	snprintf(text, sizeof(text), "%s (%s)", tern_backend_name(backend),
		 cli_backend_reason(backend));
	return text;
}

/* What an operator can do about @status, or NULL when there is nothing. */
static const char *cli_advice(tern_status_t status)
{
	switch (status) {
	case TERN_ERROR_PERMISSION:
		return "the Tern device nodes (/dev/accel/accel*, /dev/dri/renderD*) "
		       "are not open to this user: run as root, or add the user "
		       "to the group that owns them (see 'ls -l /dev/accel "
		       "/dev/dri'; usually 'render' or 'accel') and log in again";
	case TERN_ERROR_NO_DEVICE:
		return "no Tern device node was found: load tern.ko (mock "
		       "hardware: 'sudo tern-inspect module load "
		       "--mock-devices 4', adding '--path driver/tern.ko' when "
		       "it is not installed), or unset TERN_BACKEND to use the "
		       "simulator";
	case TERN_ERROR_OUT_OF_MEMORY:
		return "free device memory held by other processes, or ask for "
		       "less (see 'tern-inspect list' for memory in use)";
	case TERN_ERROR_INVALID_DEVICE:
		return "'tern-inspect list' shows the devices present";
	case TERN_ERROR_LIMIT:
		return "free buffers this process holds, or raise the limit the "
		       "error names (on the simulator: 'ulimit -n' before the "
		       "machine starts, or TERN_SIM_CLIENT_BUFFERS)";
	default:
		return NULL;
	}
}

int cli_get_backend(const char *prog, tern_backend_t *backend)
{
	const struct tern_setting *s;
	tern_status_t status;
	char takes[512];
	const char *sep = "";
	const char *why;

	/* The tools say why libtern refused, in their name: it need not. */
	setenv("TERN_DEBUG", "0", 0);
	status = tern_get_backend(backend);
	if (status == TERN_SUCCESS)
		return 0;
	if (status != TERN_ERROR_INVALID_ARGUMENT) {
		cli_report_error(prog, "choosing a backend", status);
		return 1;
	}
	why = tern_get_last_error();
	if (why[0])
		fprintf(stderr, "%s: %s\n", prog, why);
	/*
	 * A machine of another shape refuses settings that are well formed
	 * (libtern's sentences about a machine begin so): its sentence says
	 * what to do, and the forms below would mislead.
	 */
	if (strncmp(why, "the simulated machine ", 22) == 0)
		return EXIT_USAGE;
	/* libtern refuses a configuration it cannot honour: show it. */
	fprintf(stderr, "%s: libtern refused the backend configuration:", prog);
	for (size_t i = 0; (s = tern_setting_at(i)); i++)
		if ((s->flags & TERN_SETTING_BACKEND) &&
		    tern_setting_is_set(s->name))
			fprintf(stderr, " %s='%s'", s->name, getenv(s->name));
	/* What each takes, from libtern's own table. */
	fprintf(stderr, "\n%s: they take:", prog);
	for (size_t i = 0; (s = tern_setting_at(i)); i++) {
		if (!(s->flags & TERN_SETTING_BACKEND))
			continue;
		tern_setting_takes(s, takes, sizeof(takes));
		fprintf(stderr, "%s %s %s", sep, s->name, takes);
		sep = ",";
	}
	fprintf(stderr, " (see README.md and Documentation/simulator.rst)\n");
	return EXIT_USAGE;
}

void cli_report_error(const char *prog, const char *what,
		      tern_status_t status)
{
	const char *advice = cli_advice(status);
	const char *why = tern_get_last_error();

	fprintf(stderr, "%s: %s: %s (%s)\n", prog, what,
		tern_status_string(status), tern_status_name(status));
	if (why[0])
		fprintf(stderr, "%s: %s\n", prog, why);
	if (advice)
		fprintf(stderr, "%s: %s\n", prog, advice);
}

int cli_count_devices(const char *prog, tern_backend_t *backend, int *count)
{
	tern_status_t status;
	int ret;

	*count = 0;
	ret = cli_get_backend(prog, backend);
	if (ret)
		return ret;
	status = tern_device_count(count);
	if (status == TERN_SUCCESS && *count == 0)
		status = TERN_ERROR_NO_DEVICE;
	if (status != TERN_SUCCESS) {
		*count = 0;
		cli_report_error(prog, "looking for devices", status);
		return 1;
	}
	return 0;
}
