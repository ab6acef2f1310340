// SPDX-License-Identifier: MIT
/*
 * What every tern-inspect command shares: options, snapshots, and the
 * names of capabilities and health reasons.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "print.h"
#include "text.h"
#include "tern_accel.h"

static const struct option inspect_long_options[] = {
	INSPECT_SHARED_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

void inspect_print_common_options(FILE *out)
{
	fprintf(out,
		"  -j, --json      machine-readable output (schema: tern-inspect(1))\n"
		"  -p, --pretty    indent the JSON\n"
		"  -h, --help      show this help\n");
}

bool inspect_shared_option(int opt, struct inspect_options *opts)
{
	switch (opt) {
	case 'j':
		opts->json = true;
		return true;
	case 'p':
		opts->pretty = true;
		return true;
	default:
		return false;
	}
}

int inspect_option_error(const char *cmd, const char *help_cmd, int opt,
			 char **argv)
{
	const char *prefix = cmd ? " " : "";
	const char *typed = argv[optind - 1];
	char name[64];

	/* "-d" of "-bd", not the whole cluster; a long option as typed. */
	if (strncmp(typed, "--", 2) == 0 || !optopt)
		snprintf(name, sizeof(name), "%s", typed);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (opt == ':')
		fprintf(stderr, "tern-inspect%s%s: %s needs a value", prefix,
			cmd ? cmd : "", name);
	else
		fprintf(stderr, "tern-inspect%s%s: unknown option '%s'", prefix,
			cmd ? cmd : "", name);
	fprintf(stderr, " (see 'tern-inspect%s%s --help')\n",
		help_cmd ? " " : "", help_cmd ? help_cmd : "");
	return EXIT_USAGE;
}

int inspect_extra_argument(const char *cmd, const char *help_cmd,
			   const char *arg)
{
	fprintf(stderr,
		"tern-inspect %s: unexpected argument '%s' (see 'tern-inspect %s --help')\n",
		cmd, arg, help_cmd);
	return EXIT_USAGE;
}

#define INSPECT_MAX_FLAGS 8

enum inspect_parse_result inspect_parse_command(const char *cmd, int argc,
						char **argv,
						struct inspect_options *opts,
						struct inspect_args *args)
{
	struct option longopts[INSPECT_MAX_FLAGS + 4];
	char shortopts[INSPECT_MAX_FLAGS + 8];
	int nlong = 0, nshort = 0, opt;

	/*
	 * "+" at the top level: stop at the command's name. A command takes
	 * its options and operands in any order ("info 3 --json").
	 */
	if (!cmd)
		shortopts[nshort++] = '+';
	memcpy(shortopts + nshort, "jph", 3);
	nshort += 3;
	for (int i = 0; i < 3; i++)
		longopts[nlong++] = inspect_long_options[i];
	for (int i = 0; args && i < args->flag_count && i < INSPECT_MAX_FLAGS; i++) {
		shortopts[nshort++] = args->flags[i].short_name;
		longopts[nlong++] = (struct option){
			args->flags[i].long_name, no_argument, NULL,
			args->flags[i].short_name,
		};
	}
	shortopts[nshort] = '\0';
	longopts[nlong] = (struct option){ NULL, 0, NULL, 0 };

	opterr = 0;
	optind = 0;	/* glibc: full rescan, this runs more than once */
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		bool known = inspect_shared_option(opt, opts);

		if (opt == 'h')
			return INSPECT_PARSE_HELP;
		if (!known) {
			for (int i = 0; args && i < args->flag_count; i++) {
				if (opt == args->flags[i].short_name) {
					*args->flags[i].set = true;
					known = true;
				}
			}
		}
		if (!known) {
			inspect_option_error(cmd, cmd, opt, argv);
			return INSPECT_PARSE_USAGE;
		}
	}
	if (!cmd)
		return INSPECT_PARSE_RUN;
	for (int i = optind; i < argc; i++) {
		if (!args || args->operand_count >= args->max_operands) {
			inspect_extra_argument(cmd, cmd, argv[i]);
			return INSPECT_PARSE_USAGE;
		}
		args->operands[args->operand_count++] = argv[i];
	}
	return INSPECT_PARSE_RUN;
}

enum inspect_parse_result inspect_parse_options(const char *cmd, int argc,
						char **argv,
						struct inspect_options *opts)
{
	return inspect_parse_command(cmd, argc, argv, opts, NULL);
}

int inspect_parse_args(const char *cmd, int argc, char **argv,
		       struct inspect_options *opts, struct inspect_args *args,
		       void (*usage)(FILE *out))
{
	switch (inspect_parse_command(cmd, argc, argv, opts, args)) {
	case INSPECT_PARSE_HELP:
		usage(stdout);
		return 0;
	case INSPECT_PARSE_USAGE:
		return EXIT_USAGE;
	case INSPECT_PARSE_RUN:
		break;
	}
	return INSPECT_RUN;
}

int inspect_snapshot(const char *cmd, struct snapshot *snap)
{
	char prog[64];

	snprintf(prog, sizeof(prog), "tern-inspect %s", cmd);
	return snapshot_take(prog, snap);
}

void inspect_json_backend(struct json_writer *w, const struct snapshot *snap)
{
	json_string(w, "backend", tern_backend_name(snap->backend));
	json_string(w, "backend_reason", cli_backend_reason(snap->backend));
	json_string(w, "source",
		    snap->source == SNAPSHOT_SOURCE_DRIVER ? "driver" : "sim");
}

static const struct {
	uint64_t bit;
	const char *name;
} inspect_capabilities[] = {
	{ DRM_TERN_CAP_MOCK, "mock" },
	{ DRM_TERN_CAP_HOST_MEMORY, "host_memory" },
	{ DRM_TERN_CAP_SEMAPHORE, "semaphore" },
	{ DRM_TERN_CAP_TIMESTAMP, "timestamp" },
	{ DRM_TERN_CAP_FABRIC, "fabric" },
	{ DRM_TERN_CAP_REDUCE, "reduce" },
	{ DRM_TERN_CAP_PEER_MEMORY, "peer_memory" },
	{ DRM_TERN_CAP_SEM_WAIT_ABORT, "sem_wait_abort" },
	{ DRM_TERN_CAP_REDUCE_DIVIDE, "reduce_divide" },
	{ DRM_TERN_CAP_USER_RING, "user_ring" },
};

#define INSPECT_CAPABILITY_COUNT \
	(sizeof(inspect_capabilities) / sizeof(inspect_capabilities[0]))

void inspect_json_capabilities(struct json_writer *w, const char *key,
			       uint64_t caps)
{
	json_array_begin(w, key);
	for (size_t i = 0; i < INSPECT_CAPABILITY_COUNT; i++)
		if (caps & inspect_capabilities[i].bit)
			json_string(w, NULL, inspect_capabilities[i].name);
	json_array_end(w);
}

void inspect_format_capabilities(uint64_t caps, char *buf, int len)
{
	int used = 0;

	snprintf(buf, (size_t)len, "-");
	for (size_t i = 0; i < INSPECT_CAPABILITY_COUNT && used < len; i++)
		if (caps & inspect_capabilities[i].bit)
			used += snprintf(buf + used, (size_t)(len - used), "%s%s",
					 used ? "," : "",
					 inspect_capabilities[i].name);
}

void inspect_json_reasons(struct json_writer *w, const char *key,
			  uint32_t reasons)
{
	char names[128];
	char *name, *save = NULL;

	snapshot_health_reasons(reasons, names, sizeof(names));
	json_array_begin(w, key);
	for (name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save))
		json_string(w, NULL, name);
	json_array_end(w);
}

void inspect_note_node_error(const char *cmd,
			     const struct snapshot_device *dev)
{
	if (!dev->node_errno)
		return;
	if (dev->node_errno == EACCES || dev->node_errno == EPERM)
		fprintf(stderr,
			"tern-inspect %s: cannot open %s: permission denied; add the "
			"user to group render, see the udev rule (the engine clock "
			"is not shown)\n", cmd, dev->node);
	else
		fprintf(stderr, "tern-inspect %s: cannot open %s: %s\n", cmd,
			dev->node, strerror(dev->node_errno));
}

void inspect_count_links(const struct snapshot *snap,
			 const struct snapshot_device *dev,
			 struct inspect_link_counts *counts)
{
	memset(counts, 0, sizeof(*counts));
	for (int i = 0; i < snap->link_count; i++) {
		const struct snapshot_link *link = &snap->links[i];

		if (link->device_a != dev->fabric_id &&
		    link->device_b != dev->fabric_id)
			continue;
		counts->total++;
		counts->down += !link->up;
		counts->errors += link->errors;
	}
}

void inspect_hidden_note(uint32_t hidden, char *buf, size_t len)
{
	if (!hidden)
		snprintf(buf, len, "%s", "");
	else if (hidden == 1)
		snprintf(buf, len,
			 "1 client of another user hidden (run as root or with CAP_PERFMON to see it)");
	else
		snprintf(buf, len,
			 "%u clients of other users hidden (run as root or with CAP_PERFMON to see them)",
			 hidden);
}

/* One client's row (@wide: info's, with queues and active jobs). */
static void inspect_print_client(struct print *p,
				 const struct snapshot_client *client,
				 bool wide)
{
	char comm[TEXT_PRINTABLE_MAX];

	print_object(p, NULL);
	print_u64(p, "device", NULL, client->device);
	print_u64(p, "id", NULL, client->id);
	print_text(p, wide ? "  " : "        ");
	print_u64(p, "pid", "%-8llu  ", client->pid);
	print_string(p, "comm", NULL, client->comm);
	print_string(p, NULL, "%-16s  ",
		     text_printable(client->comm, comm, sizeof(comm)));
	print_bytes(p, "memory_device_bytes", "%12s  ", client->memory_device_bytes);
	print_bytes(p, "memory_host_bytes", "%12s  ", client->memory_host_bytes);
	print_u64(p, "buffers", wide ? "%7llu  " : "%7llu\n", client->buffers);
	print_u64(p, "queues", wide ? "%6llu  " : NULL, client->queues);
	print_u64(p, "jobs_submitted", NULL, client->jobs_submitted);
	print_u64(p, "jobs_active", wide ? "%6llu\n" : NULL,
		  client->jobs_active);
	print_u64(p, "busy_ns", NULL, client->busy_ns);
	print_object_end(p);
}

void inspect_print_clients(struct print *p, const struct snapshot *snap,
			   const struct snapshot_device *dev, bool wide)
{
	const char *indent = wide ? "  " : "        ";
	char note[128];
	bool any = false;

	print_array(p, "clients");
	for (int c = 0; c < snap->client_count; c++) {
		if (snap->clients[c].device != dev->index)
			continue;
		if (!any && wide)
			print_text(p, "  %-8s  %-16s  %12s  %12s  %7s  %6s  %6s\n",
				   "PID", "COMMAND", "DEVICE MEM", "HOST MEM",
				   "BUFFERS", "QUEUES", "ACTIVE");
		else if (!any)
			print_text(p, "        %-8s  %-16s  %12s  %12s  %7s\n",
				   "PID", "COMMAND", "DEVICE MEM", "HOST MEM",
				   "BUFFERS");
		any = true;
		inspect_print_client(p, &snap->clients[c], wide);
	}
	print_array_end(p);
	inspect_hidden_note(dev->clients_hidden, note, sizeof(note));
	if (!any)
		print_text(p, "%s%snone%s\n", indent, wide ? "" : "clients: ",
			   note[0] ? " of yours" : "");
	if (note[0])
		print_text(p, "%s%s\n", indent, note);
}
