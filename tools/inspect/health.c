// SPDX-License-Identifier: MIT
/*
 * tern-inspect health: error counters and health; exit 1 if unhealthy. (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void health_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect health [options]\n");
	inspect_print_common_options(out);
}

static int health_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect health: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_health_command = {
	.name = "health",
	.summary = "error counters and health; exit 1 if unhealthy",
	.usage = health_usage,
	.run = health_run,
};
