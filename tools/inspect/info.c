// SPDX-License-Identifier: MIT
/*
 * tern-inspect info: everything known about one device. (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void info_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect info [options]\n");
	inspect_print_common_options(out);
}

static int info_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect info: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_info_command = {
	.name = "info",
	.summary = "everything known about one device",
	.usage = info_usage,
	.run = info_run,
};
