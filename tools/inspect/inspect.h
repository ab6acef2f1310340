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

#include "json.h"
#include "snapshot.h"
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
extern const struct inspect_command inspect_sim_command;
extern const struct inspect_command inspect_fault_command;
extern const struct inspect_command inspect_net_command;

struct tern_net_stats;
/*
 * The counters' files of live processes' communicators across hosts
 * (net.c), by pid and rank: their count, the files in *@all.
 */
int net_stats_load(struct tern_net_stats ***all);
void net_stats_free(struct tern_net_stats **all, int n);

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

/* A command's own on/off option, e.g. { 'v', "verbose", &verbose }. */
struct inspect_flag {
	char short_name;
	const char *long_name;
	bool *set;
};

/* What a command accepts besides the shared options, and what it got. */
struct inspect_args {
	const struct inspect_flag *flags;
	int flag_count;
	int max_operands;		/* non-option arguments allowed */
	char *operands[4];
	int operand_count;
};

/*
 * inspect_parse_options() for a command with its own flags and operands
 * (@args; options and operands in any order). More operands than
 * @args->max_operands is a usage error naming the first extra one.
 */
enum inspect_parse_result inspect_parse_command(const char *cmd, int argc,
						char **argv,
						struct inspect_options *opts,
						struct inspect_args *args);

/* What inspect_parse_args() returns when the command is to run. */
#define INSPECT_RUN (-1)

/*
 * inspect_parse_command() as a command's run() wants it: prints @usage to
 * stdout for -h. Returns INSPECT_RUN, or the exit status to return now
 * (0 after the help, EXIT_USAGE after a message). @args may be NULL.
 */
int inspect_parse_args(const char *cmd, int argc, char **argv,
		       struct inspect_options *opts, struct inspect_args *args,
		       void (*usage)(FILE *out));

/*
 * For commands that run getopt_long() themselves (opterr = 0): explains
 * its result @opt, ':' (an option without its value) or anything else (an
 * unknown option), naming command @cmd (NULL: none) and pointing to
 * 'tern-inspect @help_cmd --help'. Returns EXIT_USAGE.
 */
int inspect_option_error(const char *cmd, const char *help_cmd, int opt,
			 char **argv);

/*
 * The long options of -j, -p and -h, for the option table of a command that
 * runs getopt_long() itself ("jph" in its short options).
 */
#define INSPECT_SHARED_LONG_OPTIONS \
	{ "json", no_argument, NULL, 'j' }, \
	{ "pretty", no_argument, NULL, 'p' }, \
	{ "help", no_argument, NULL, 'h' }

/* Applies -j or -p to @opts: true if @opt was one of them. */
bool inspect_shared_option(int opt, struct inspect_options *opts);

/* "tern-inspect CMD: unexpected argument 'ARG'"; returns EXIT_USAGE. */
int inspect_extra_argument(const char *cmd, const char *help_cmd,
			   const char *arg);

/*
 * Takes a snapshot for command @cmd (errors prefixed "tern-inspect CMD").
 * Returns 0 or the exit status.
 */
int inspect_snapshot(const char *cmd, struct snapshot *snap);

/* Which backend answered: "backend", "backend_reason" and "source". */
void inspect_json_backend(struct json_writer *w, const struct snapshot *snap);

/* Writes the names of DRM_TERN_CAP_* bits @caps as a JSON array @key. */
void inspect_json_capabilities(struct json_writer *w, const char *key,
			       uint64_t caps);

/* The names of @caps, comma-separated ("-" for none), into @buf. */
void inspect_format_capabilities(uint64_t caps, char *buf, int len);

/* The names of DRM_TERN_HEALTH_REASON_* bits @reasons as a JSON array @key. */
void inspect_json_reasons(struct json_writer *w, const char *key,
			  uint32_t reasons);

/*
 * Says on stderr, once per node, that the node could not be opened and
 * what to do, when @dev->node_errno says so (info and list -v read what
 * only the node gives).
 */
void inspect_note_node_error(const char *cmd,
			     const struct snapshot_device *dev);

/* Counts of the links with an end on @dev. */
struct inspect_link_counts {
	uint32_t total, down;
	uint64_t errors;
};

void inspect_count_links(const struct snapshot *snap,
			 const struct snapshot_device *dev,
			 struct inspect_link_counts *counts);

/*
 * "2 clients of other users hidden (run as root or with CAP_PERFMON to see
 * them)" for @hidden clients, into @buf; "" when @hidden is 0.
 */
void inspect_hidden_note(uint32_t hidden, char *buf, size_t len);

struct print;
/*
 * The "clients" array of @dev: as text a table, list -v's or (@wide)
 * info's, with queues and active jobs.
 */
void inspect_print_clients(struct print *p, const struct snapshot *snap,
			   const struct snapshot_device *dev, bool wide);

/*
 * Draws the fabric of @snap (topo.c): a torus as a grid, a ring as a
 * cycle, else each device's links.
 */
void topo_draw(FILE *out, const struct snapshot *snap);

/*
 * The fabric's shape as topo_draw() shows it (topo.c): "torus:RxC",
 * "ring", "none", the driver's word for anything else, or "other".
 */
void topo_shape(const struct snapshot *snap, char *buf, size_t len);

/*
 * Writes @value escaped for a Prometheus label value (backslash, double
 * quote and newline as \\, \" and \n) to @out (metrics.c).
 */
void metrics_write_label_value(FILE *out, const char *value);

/* Writes every metric of @snap in the Prometheus text format (metrics.c). */
void metrics_write(FILE *out, const struct snapshot *snap);

/* Prints the shared options for a command's usage text. */
void inspect_print_common_options(FILE *out);

#endif /* TOOLS_INSPECT_INSPECT_H */
