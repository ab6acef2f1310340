// SPDX-License-Identifier: MIT
/*
 * tern-inspect sim [status|start|stop]: the simulated machines of this
 * user, the processes (tern-simd) holding the simulated devices that
 * every process of the user shares (Documentation/simulator.rst).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "inspect.h"
#include "tern_sim.h"
#include "json.h"

#define SIM_PROG "tern-inspect sim"
#define SIM_MAX_MACHINES 256

static void sim_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect sim [status] [options]\n"
		"       tern-inspect sim start [-P|--persistent]\n"
		"       tern-inspect sim stop [-f|--force] [NAME]\n"
		"\n"
		"status (the default): each simulated machine running in\n"
		"TERN_SIM_DIR: its name, process, shape and the processes using it.\n"
		"start: starts the machine TERN_SIM_MACHINE names (default\n"
		"'default'), shaped by TERN_SIM_DEVICES, TERN_SIM_MEM_MB,\n"
		"TERN_SIM_TOPOLOGY and TERN_SIM_JOB_TIMEOUT_MS, unless it runs;\n"
		"--persistent keeps it when no process uses it.\n"
		"stop: stops machine NAME (default: TERN_SIM_MACHINE's) and waits\n"
		"for it to go; refused while other processes use it, unless\n"
		"--force, which takes their devices away.\n"
		"\n"
		"Exit status: 0 done; 1 no such machine, in use, or it would not\n"
		"start; 2 bad command line or TERN_SIM_* settings.\n"
		"\n"
		"Options:\n"
		"  -P, --persistent  (start) stay with no process attached\n"
		"  -f, --force       (stop) stop even while processes use it\n");
	inspect_print_common_options(out);
}

/*
 * One column of the status table and its JSON member, written once. A
 * field with @text shows that in the table; its JSON value is @u64 when
 * it has one (a time as nanoseconds), else the text. No @title: JSON only.
 */
struct sim_field {
	const char *title;
	const char *key;
	int width;		/* negative: left-aligned */
	uint64_t (*u64)(const tern_sim_machine_t *m);
	const char *(*text)(const tern_sim_machine_t *m, char *buf,
			    size_t len);
};

static const char *sim_name(const tern_sim_machine_t *m, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return m->name;
}

static const char *sim_topology(const tern_sim_machine_t *m, char *buf,
				size_t len)
{
	(void)buf;
	(void)len;
	return m->topology[0] ? m->topology : "-";
}

static const char *sim_lifetime(const tern_sim_machine_t *m, char *buf,
				size_t len)
{
	if (m->persistent)
		return "persistent";
	snprintf(buf, len, "idle %us", m->idle_ms / 1000);
	return buf;
}

static const char *sim_lifetime_kind(const tern_sim_machine_t *m, char *buf,
				     size_t len)
{
	(void)buf;
	(void)len;
	return m->persistent ? "persistent" : "idle";
}

static const char *sim_started(const tern_sim_machine_t *m, char *buf,
			       size_t len)
{
	time_t t = (time_t)(m->started_ns / 1000000000ull);
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		return "-";
	return buf;
}

static uint64_t sim_pid(const tern_sim_machine_t *m) { return (uint64_t)m->pid; }
static uint64_t sim_devices(const tern_sim_machine_t *m) { return m->device_count; }
static uint64_t sim_mem(const tern_sim_machine_t *m) { return m->memory_mb; }
static uint64_t sim_timeout(const tern_sim_machine_t *m) { return m->job_timeout_ms; }
static uint64_t sim_procs(const tern_sim_machine_t *m) { return m->processes; }
static uint64_t sim_idle(const tern_sim_machine_t *m) { return m->idle_ms; }
static uint64_t sim_start_ns(const tern_sim_machine_t *m) { return m->started_ns; }

static const struct sim_field sim_fields[] = {
	{ "NAME", "name", -24, NULL, sim_name },
	{ "PID", "pid", 7, sim_pid, NULL },
	{ "DEVICES", "devices", 7, sim_devices, NULL },
	{ "MEM_MB", "memory_mb", 7, sim_mem, NULL },
	{ "TIMEOUT_MS", "job_timeout_ms", 10, sim_timeout, NULL },
	{ "PROCS", "processes", 5, sim_procs, NULL },
	{ "LIFETIME", NULL, -10, NULL, sim_lifetime },
	{ NULL, "lifetime", 0, NULL, sim_lifetime_kind },
	{ NULL, "idle_ms", 0, sim_idle, NULL },
	{ "STARTED", "started_ns", -19, sim_start_ns, sim_started },
	{ "TOPOLOGY", "topology", -1, NULL, sim_topology },
};

#define SIM_FIELD_COUNT (sizeof(sim_fields) / sizeof(sim_fields[0]))

static void sim_print_text(const tern_sim_machine_t *machines, uint32_t n)
{
	char buf[64];

	if (!n) {
		printf("no simulated machine runs\n");
		return;
	}
	for (size_t f = 0; f < SIM_FIELD_COUNT; f++)
		if (sim_fields[f].title)
			printf("%s%*s", f ? "  " : "", sim_fields[f].width,
			       sim_fields[f].title);
	printf("\n");
	for (uint32_t i = 0; i < n; i++) {
		for (size_t f = 0; f < SIM_FIELD_COUNT; f++) {
			const struct sim_field *field = &sim_fields[f];

			if (!field->title)
				continue;
			if (field->text)
				printf("%s%*s", f ? "  " : "", field->width,
				       field->text(&machines[i], buf,
						   sizeof(buf)));
			else
				printf("%s%*llu", f ? "  " : "", field->width,
				       (unsigned long long)field->u64(&machines[i]));
		}
		printf("\n");
	}
}

static void sim_print_json(const struct inspect_options *opts,
			   const tern_sim_machine_t *machines, uint32_t n)
{
	struct json_writer w;
	char buf[64];

	json_init(&w, stdout, opts->pretty);
	json_object_begin(&w, NULL);
	json_u64(&w, "schema_version", INSPECT_SCHEMA_VERSION);
	json_array_begin(&w, "machines");
	for (uint32_t i = 0; i < n; i++) {
		json_object_begin(&w, NULL);
		for (size_t f = 0; f < SIM_FIELD_COUNT; f++) {
			const struct sim_field *field = &sim_fields[f];

			if (!field->key)
				continue;
			if (field->u64)
				json_u64(&w, field->key,
					 field->u64(&machines[i]));
			else
				json_string(&w, field->key,
					    field->text(&machines[i], buf,
							sizeof(buf)));
		}
		json_object_end(&w);
	}
	json_array_end(&w);
	json_object_end(&w);
	json_finish(&w);
}

/* Prints why libtern refused, and returns the exit status that fits. */
static int sim_failed(const char *what, tern_status_t status)
{
	fprintf(stderr, SIM_PROG ": %s: %s\n", what, tern_get_last_error());
	return status == TERN_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : 1;
}

static int sim_status(int argc, char **argv, struct inspect_options *opts)
{
	struct inspect_args args = { 0 };
	tern_sim_machine_t *machines;
	tern_status_t status;
	uint32_t n = 0;
	int ret;

	ret = inspect_parse_args("sim status", argc, argv, opts, &args,
				 sim_usage);
	if (ret != INSPECT_RUN)
		return ret;
	machines = calloc(SIM_MAX_MACHINES, sizeof(*machines));
	if (!machines) {
		fprintf(stderr, SIM_PROG ": out of memory\n");
		return 1;
	}
	status = tern_sim_machine_list(machines, SIM_MAX_MACHINES, &n);
	if (status) {
		free(machines);
		return sim_failed("cannot list the machines", status);
	}
	if (n > SIM_MAX_MACHINES)
		n = SIM_MAX_MACHINES;
	if (opts->json)
		sim_print_json(opts, machines, n);
	else
		sim_print_text(machines, n);
	free(machines);
	return 0;
}

static int sim_start(int argc, char **argv, struct inspect_options *opts)
{
	bool persistent = false;
	const struct inspect_flag flags[] = { { 'P', "persistent", &persistent } };
	struct inspect_args args = { .flags = flags, .flag_count = 1 };
	tern_sim_machine_t m;
	tern_status_t status;
	int started, ret;

	ret = inspect_parse_args("sim start", argc, argv, opts, &args,
				 sim_usage);
	if (ret != INSPECT_RUN)
		return ret;
	status = tern_sim_machine_start(persistent, &m, &started);
	if (status)
		return sim_failed("cannot start the machine", status);
	if (opts->json) {
		sim_print_json(opts, &m, 1);
		return 0;
	}
	printf("%s '%s' (pid %d): %u devices of %u MiB%s\n",
	       started ? "started" : "already running:", m.name, (int)m.pid,
	       m.device_count, m.memory_mb,
	       m.persistent ? ", persistent" : "");
	if (!started && persistent && !m.persistent)
		printf("it was not started persistent: it goes %u s after its "
		       "last process\n", m.idle_ms / 1000);
	return 0;
}

static int sim_stop(int argc, char **argv, struct inspect_options *opts)
{
	bool force = false;
	const struct inspect_flag flags[] = { { 'f', "force", &force } };
	struct inspect_args args = { .flags = flags, .flag_count = 1,
				     .max_operands = 1 };
	tern_sim_machine_t m;
	const char *name;
	tern_status_t status;
	int ret;

	ret = inspect_parse_args("sim stop", argc, argv, opts, &args,
				 sim_usage);
	if (ret != INSPECT_RUN)
		return ret;
	name = args.operand_count ? args.operands[0] : NULL;
	status = tern_sim_machine_stop(name, force, &m);
	if (status == TERN_ERROR_NOT_READY) {
		fprintf(stderr, SIM_PROG ": %s (use --force to stop it anyway)\n",
			tern_get_last_error());
		return 1;
	}
	if (status)
		return sim_failed("cannot stop the machine", status);
	if (opts->json)
		sim_print_json(opts, &m, 1);
	else
		printf("stopped '%s' (pid %d)\n", m.name, (int)m.pid);
	return 0;
}

static int sim_run(int argc, char **argv, struct inspect_options *opts)
{
	if (argc < 2 || argv[1][0] == '-')
		return sim_status(argc, argv, opts);
	if (strcmp(argv[1], "status") == 0)
		return sim_status(argc - 1, argv + 1, opts);
	if (strcmp(argv[1], "start") == 0)
		return sim_start(argc - 1, argv + 1, opts);
	if (strcmp(argv[1], "stop") == 0)
		return sim_stop(argc - 1, argv + 1, opts);
	fprintf(stderr,
		SIM_PROG ": unknown action '%s'; actions are: status start stop (see 'tern-inspect sim --help')\n",
		argv[1]);
	return EXIT_USAGE;
}

const struct inspect_command inspect_sim_command = {
	.name = "sim",
	.summary = "the simulated machines: status, start, stop",
	.usage = sim_usage,
	.run = sim_run,
};
