/* SPDX-License-Identifier: MIT */
/*
 * Command-line support shared by the Tern tools: number parsing that rejects
 * anything but a whole, in-range value, and reporting of libtern errors in
 * words an operator can act on.
 */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "tern.h"

/* Exit codes every Tern tool uses. */
#define EXIT_USAGE 2		/* bad command line; nothing was run */

/*
 * Parses a byte count: decimal digits with an optional K, M or G suffix
 * (either case; powers of 1024). True only for a whole, non-overflowing
 * value in [@min, @max].
 */
bool cli_parse_size(const char *text, uint64_t min, uint64_t max,
		    uint64_t *bytes);

/* Parses a plain decimal integer in [@min, @max]. */
bool cli_parse_long(const char *text, long min, long max, long *value);

/*
 * Writes "1 B", "64 KiB", "1.5 MiB"... to @buf: the largest binary unit that
 * keeps the value at least 1, one decimal when it is not whole.
 */
void cli_format_bytes(uint64_t bytes, char *buf, int len);

/*
 * Why @backend is the one shown, in libtern's words
 * (tern_backend_reason_string()): "TERN_BACKEND=sim", "no Tern device
 * node found" or "Tern device node found"; for tern.ko where libtern
 * would choose the simulator, "tern.ko's netlink family found". Never NULL.
 */
const char *cli_backend_reason(tern_backend_t backend);

/*
 * "<name> (<reason>)", e.g. "sim (no Tern device node found)", in a static
 * buffer that the next call overwrites. Never NULL.
 */
const char *cli_backend_description(tern_backend_t backend);

/*
 * Chooses the backend as libtern does (once per process). On failure prints
 * why, naming the environment variables when they are what is wrong, and
 * returns the exit status: EXIT_USAGE for a configuration libtern refuses
 * (TERN_BACKEND or a TERN_SIM_* value malformed, a machine named with
 * TERN_SIM_MACHINE of another shape), 1 otherwise. Returns 0 on success.
 * libtern's own report of the refusal is silenced (TERN_DEBUG=0, unless
 * set): this is it.
 */
int cli_get_backend(const char *prog, tern_backend_t *backend);

/*
 * cli_get_backend(), then how many devices it has (at least one). Returns
 * 0, or the exit status after printing why not (*count is then 0).
 */
int cli_count_devices(const char *prog, tern_backend_t *backend, int *count);

/*
 * Prints "@prog: @what: <status sentence>" to stderr, followed by what to do
 * about it when the cause is one an operator can fix (missing devices,
 * permissions on the device node, memory).
 */
void cli_report_error(const char *prog, const char *what,
		      tern_status_t status);

#endif /* TOOLS_CLI_H */
