// SPDX-License-Identifier: MIT
/*
 * tern-inspect topo: the fabric: a drawing and a link table. (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void topo_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect topo [options]\n");
	inspect_print_common_options(out);
}

static int topo_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect topo: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_topo_command = {
	.name = "topo",
	.summary = "the fabric: a drawing and a link table",
	.usage = topo_usage,
	.run = topo_run,
};
