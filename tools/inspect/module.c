// SPDX-License-Identifier: MIT
/*
 * tern-inspect module: tern.ko: loaded, version, parameters; load/unload. (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void module_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect module [options]\n");
	inspect_print_common_options(out);
}

static int module_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect module: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_module_command = {
	.name = "module",
	.summary = "tern.ko: loaded, version, parameters; load/unload",
	.usage = module_usage,
	.run = module_run,
};
