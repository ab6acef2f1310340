// SPDX-License-Identifier: MIT
/*
 * tern-inspect metrics: Prometheus text exposition of every counter. (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void metrics_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect metrics [options]\n");
	inspect_print_common_options(out);
}

static int metrics_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect metrics: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_metrics_command = {
	.name = "metrics",
	.summary = "Prometheus text exposition of every counter",
	.usage = metrics_usage,
	.run = metrics_run,
};
