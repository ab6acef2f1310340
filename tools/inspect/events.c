// SPDX-License-Identifier: MIT
/*
 * tern-inspect events: follow link, memory, engine and health events. (Placeholder until written.)
 */
#include "cli.h"
#include "inspect.h"

static void events_usage(FILE *out)
{
	fprintf(out, "Usage: tern-inspect events [options]\n");
	inspect_print_common_options(out);
}

static int events_run(int argc, char **argv, struct inspect_options *opts)
{
	(void)argc;
	(void)argv;
	(void)opts;
	fprintf(stderr, "tern-inspect events: not implemented yet\n");
	return 1;
}

const struct inspect_command inspect_events_command = {
	.name = "events",
	.summary = "follow link, memory, engine and health events",
	.usage = events_usage,
	.run = events_run,
};
