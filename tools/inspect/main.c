// SPDX-License-Identifier: MIT
/*
 * tern-inspect: what the Tern devices on this machine are and how they are
 * doing, for operators. "tern-inspect [options] COMMAND [options]".
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"

static const struct inspect_command *const inspect_commands[] = {
	&inspect_list_command,
	&inspect_info_command,
	&inspect_topo_command,
	&inspect_health_command,
	&inspect_top_command,
	&inspect_events_command,
	&inspect_module_command,
	&inspect_metrics_command,
	&inspect_net_command,
	&inspect_fault_command,
	&inspect_sim_command,
};

#define INSPECT_COMMAND_COUNT \
	(sizeof(inspect_commands) / sizeof(inspect_commands[0]))

static void inspect_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect [options] [COMMAND [options]]\n"
		"       tern-inspect help [COMMAND]\n"
		"With no command, tern-inspect runs list.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < INSPECT_COMMAND_COUNT; i++)
		fprintf(out, "  %-8s %s\n", inspect_commands[i]->name,
			inspect_commands[i]->summary);
	fprintf(out, "  %-8s %s\n", "help", "show this help, or a command's");
	fprintf(out, "\nOptions:\n");
	inspect_print_common_options(out);
	fprintf(out,
		"\n"
		"Reads tern.ko's devices through its netlink family, or simulated\n"
		"ones when tern.ko is not loaded (TERN_BACKEND=kernel|sim,\n"
		"TERN_SIM_DEVICES, TERN_SIM_MEM_MB, TERN_SIM_TOPOLOGY).\n"
		"Exit status: 0 success, 1 devices missing or unreadable (health:\n"
		"or not all ok), 2 bad command line or TERN_* settings.\n"
		"Tables and JSON schema: tern-inspect(1).\n");
}

static const struct inspect_command *inspect_find(const char *name)
{
	for (size_t i = 0; i < INSPECT_COMMAND_COUNT; i++)
		if (strcmp(inspect_commands[i]->name, name) == 0)
			return inspect_commands[i];
	return NULL;
}

static int inspect_unknown_command(const char *name)
{
	fprintf(stderr, "tern-inspect: unknown command '%s'; commands are:",
		name);
	for (size_t i = 0; i < INSPECT_COMMAND_COUNT; i++)
		fprintf(stderr, " %s", inspect_commands[i]->name);
	fprintf(stderr, " help (see 'tern-inspect --help')\n");
	return EXIT_USAGE;
}

static int inspect_help(int argc, char **argv)
{
	const struct inspect_command *command;

	if (argc == 1) {
		inspect_usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr,
			"tern-inspect help: expected at most one command name, got '%s' after '%s'\n",
			argv[2], argv[1]);
		return EXIT_USAGE;
	}
	command = inspect_find(argv[1]);
	if (!command)
		return inspect_unknown_command(argv[1]);
	command->usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct inspect_options opts = { 0 };
	const struct inspect_command *command;
	int first;

	switch (inspect_parse_options(NULL, argc, argv, &opts)) {
	case INSPECT_PARSE_HELP:
		inspect_usage(stdout);
		return 0;
	case INSPECT_PARSE_USAGE:
		return EXIT_USAGE;
	case INSPECT_PARSE_RUN:
		break;
	}
	first = optind;
	/* No command: the device list, the question most often asked. */
	if (first >= argc) {
		char *list_argv[] = { "list", NULL };

		return inspect_list_command.run(1, list_argv, &opts);
	}
	if (strcmp(argv[first], "help") == 0)
		return inspect_help(argc - first, argv + first);
	command = inspect_find(argv[first]);
	if (!command)
		return inspect_unknown_command(argv[first]);
	return command->run(argc - first, argv + first, &opts);
}
