/* SPDX-License-Identifier: MIT */
/*
 * tern-inspect: one file per subcommand, each described by a struct
 * inspect_command and listed in main.c. Exit status: 0 success, 1 the
 * devices could not be read (the reason is on stderr), EXIT_USAGE for a bad
 * command line or TERN_* settings libtern refuses.
 */
#ifndef TOOLS_INSPECT_INSPECT_H
#define TOOLS_INSPECT_INSPECT_H

#include <stdbool.h>
#include <stdio.h>

#include "tern.h"

/* Version of the --json schemas, documented in Documentation/tern-inspect.rst. */
#define INSPECT_SCHEMA_VERSION 1

/* Options every subcommand takes, before or after its name. */
struct inspect_options {
	bool json;	/* -j, --json: machine-readable output */
	bool pretty;	/* -p, --pretty: indent the JSON */
};

struct inspect_command {
	const char *name;
	const char *summary;
	/* Prints "Usage: tern-inspect NAME ..." and what the command shows. */
	void (*usage)(FILE *out);
	/*
	 * Runs the command. @argv[0] is its name; @opts holds the options
	 * given before it. Returns the exit status.
	 */
	int (*run)(int argc, char **argv, struct inspect_options *opts);
};

extern const struct inspect_command inspect_list_command;
extern const struct inspect_command inspect_info_command;
extern const struct inspect_command inspect_topo_command;
extern const struct inspect_command inspect_health_command;
extern const struct inspect_command inspect_top_command;
extern const struct inspect_command inspect_events_command;
extern const struct inspect_command inspect_module_command;
extern const struct inspect_command inspect_metrics_command;

/* What inspect_parse_options() found. */
enum inspect_parse_result {
	INSPECT_PARSE_RUN,
	INSPECT_PARSE_HELP,	/* -h given: print the usage, exit 0 */
	INSPECT_PARSE_USAGE,	/* a message was printed: exit EXIT_USAGE */
};

/*
 * Parses the options every command shares (-j, -p, -h) from @argv into
 * @opts, rejecting anything else with a message naming @cmd. @argv[0] is
 * the program or command name.
 */
enum inspect_parse_result inspect_parse_options(const char *cmd, int argc,
						char **argv,
						struct inspect_options *opts);

/* Prints the shared options for a command's usage text. */
void inspect_print_common_options(FILE *out);

/*
 * Finds the backend and how many devices it has, explaining on stderr any
 * failure. Returns 0 or the exit status (1, or EXIT_USAGE for a backend
 * configuration libtern refuses); no devices at all is a failure.
 */
int inspect_find_devices(const char *cmd, tern_backend_t *backend,
			 int *count);

#endif /* TOOLS_INSPECT_INSPECT_H */
