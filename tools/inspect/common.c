// SPDX-License-Identifier: MIT
/*
 * What every tern-inspect command shares: its options and finding devices.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"

static const struct option inspect_long_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void inspect_print_common_options(FILE *out)
{
	fprintf(out,
		"  -j, --json      machine-readable output (schema in Documentation/tern-inspect.rst)\n"
		"  -p, --pretty    indent the JSON\n"
		"  -h, --help      show this help\n");
}

enum inspect_parse_result inspect_parse_options(const char *cmd, int argc,
						char **argv,
						struct inspect_options *opts)
{
	const char *prefix = cmd ? " " : "";
	int opt;

	opterr = 0;
	optind = 0;	/* glibc: full rescan, this runs more than once */
	/* "+": stop at the first non-option, the command's name. */
	while ((opt = getopt_long(argc, argv, "+jph", inspect_long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts->json = true;
			break;
		case 'p':
			opts->pretty = true;
			break;
		case 'h':
			return INSPECT_PARSE_HELP;
		default: {
			const char *typed = argv[optind - 1];

			if (strncmp(typed, "--", 2) == 0 || !optopt)
				fprintf(stderr,
					"tern-inspect%s%s: unknown option '%s'",
					prefix, cmd ? cmd : "", typed);
			else
				fprintf(stderr,
					"tern-inspect%s%s: unknown option '-%c'",
					prefix, cmd ? cmd : "", optopt);
			fprintf(stderr, " (see 'tern-inspect%s%s --help')\n",
				prefix, cmd ? cmd : "");
			return INSPECT_PARSE_USAGE;
		}
		}
	}
	if (cmd && optind < argc) {
		fprintf(stderr,
			"tern-inspect %s: unexpected argument '%s' (see 'tern-inspect %s --help')\n",
			cmd, argv[optind], cmd);
		return INSPECT_PARSE_USAGE;
	}
	return INSPECT_PARSE_RUN;
}

int inspect_find_devices(const char *cmd, tern_backend_t *backend,
			 int *count)
{
	char prog[64];

	snprintf(prog, sizeof(prog), "tern-inspect %s", cmd);
	return cli_count_devices(prog, backend, count);
}
