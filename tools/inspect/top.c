// SPDX-License-Identifier: MIT
/*
 * tern-inspect top: live per-device and per-process usage (q quits). (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void top_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect top [options]\n");
	inspect_print_common_options(out);
}

static int top_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect top: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_top_command = {
	.name = "top",
	.summary = "live per-device and per-process usage (q quits)",
	.usage = top_usage,
	.run = top_run,
};
