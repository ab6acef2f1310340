// SPDX-License-Identifier: MIT
/*
 * tern-inspect module load and unload, through libkmod: the mock-hardware
 * parameters checked before the kernel sees them, the dependencies of a
 * tern.ko outside /lib/modules loaded by name (it has no modules.dep
 * entry), and a busy module's users named (module_users.c).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "print.h"
#include "module_kmod.h"

#define MODULE_LOAD_HINT "sudo tern-inspect module load"

void module_load_usage(FILE *out)
{
	fprintf(out,
		"load options (tern.ko's mock-hardware parameters):\n"
		"  --mock-devices N      mock devices, 0-64 (mock_devices)\n"
		"  --topology SPEC       fabric: auto, none, ring, full, torus:RxC or\n"
		"                        custom:A-B,... (mock_topology)\n"
		"  --mem-mb N            device memory per device in MiB, 1-65536\n"
		"  --engines N           engines per device, 1-16 (mock_engines)\n"
		"  --job-timeout-ms N    job timeout, 1-600000 (job_timeout_ms)\n"
		"  --path FILE           load this tern.ko instead of the installed one\n");
}

static const struct option module_load_options[] = {
	{ "mock-devices", required_argument, NULL, 'D' },
	{ "topology", required_argument, NULL, 'T' },
	{ "mem-mb", required_argument, NULL, 'M' },
	{ "engines", required_argument, NULL, 'E' },
	{ "job-timeout-ms", required_argument, NULL, 'J' },
	{ "path", required_argument, NULL, 'P' },
	INSPECT_SHARED_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* A numeric option: its name, its module parameter and its range. */
struct module_number {
	int opt;
	const char *flag, *param, *wanted;
	long min, max;
};

static const struct module_number module_numbers[] = {
	{ 'D', "--mock-devices", "mock_devices", "a number of devices", 0, 64 },
	{ 'M', "--mem-mb", "mock_mem_mb", "MiB of device memory", 1, 65536 },
	{ 'E', "--engines", "mock_engines", "a number of engines", 1, 16 },
	{ 'J', "--job-timeout-ms", "job_timeout_ms", "milliseconds", 1, 600000 },
};

/* "torus:RxC" with R and C whole numbers. */
static bool module_torus_ok(const char *shape)
{
	const char *x = strchr(shape, 'x');

	if (!x || x == shape || !x[1])
		return false;
	for (const char *c = shape; *c; c++)
		if (c != x && !isdigit((unsigned char)*c))
			return false;
	return true;
}

/* The kernel checks the topology fully; this catches typos and spaces. */
static bool module_topology_ok(const char *spec)
{
	static const char *const words[] = { "auto", "none", "ring", "full" };

	for (const char *c = spec; *c; c++)
		if (isspace((unsigned char)*c) || *c == '"')
			return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(spec, words[i]) == 0)
			return true;
	if (strncmp(spec, "torus:", 6) == 0)
		return module_torus_ok(spec + 6);
	return strncmp(spec, "custom:", 7) == 0 && spec[7] != '\0';
}

static int module_need_root(const char *action)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr,
		MODULE_PROG ": %sing tern.ko needs root: sudo tern-inspect module %s ...\n",
		action, action);
	return 1;
}

static void module_append(char *buf, size_t len, const char *param,
			  const char *value)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", param,
		 value);
}

/* Why the kernel refused tern.ko (@err a negative errno), in words. */
static void module_report_insert_error(const char *what, int err,
				       struct kmod_module *mod)
{
	struct kmod_list *info = NULL, *l;
	const char *vermagic = NULL;
	struct utsname uts;

	fprintf(stderr, MODULE_PROG ": loading %s failed: %s", what,
		strerror(-err));
	switch (-err) {
	case ENOEXEC:
		uname(&uts);
		if (kmod_module_get_info(mod, &info) >= 0)
			kmod_list_foreach(l, info)
				if (!strcmp(kmod_module_info_get_key(l), "vermagic"))
					vermagic = kmod_module_info_get_value(l);
		fprintf(stderr, " (built for %s; this kernel is %s)\n",
			vermagic ? vermagic : "another kernel", uts.release);
		kmod_module_info_free_list(info);
		return;
	case EINVAL:
	case ENOENT:
		fprintf(stderr,
			" (the kernel refused it or a parameter; see 'dmesg | tail')\n");
		return;
	default:
		fputc('\n', stderr);
	}
}

/* Loads each module in tern.ko's "depends" by name, as modprobe would. */
static int module_load_depends(struct kmod_ctx *ctx, struct kmod_module *mod)
{
	struct kmod_list *info = NULL, *l;
	char depends[512] = "", *name, *rest = NULL;
	int ret = 0;

	if (kmod_module_get_info(mod, &info) >= 0) {
		kmod_list_foreach(l, info)
			if (!strcmp(kmod_module_info_get_key(l), "depends"))
				snprintf(depends, sizeof(depends), "%s",
					 kmod_module_info_get_value(l));
		kmod_module_info_free_list(info);
	}
	for (name = strtok_r(depends, ",", &rest); name && !ret;
	     name = strtok_r(NULL, ",", &rest)) {
		struct kmod_list *found = NULL;
		struct kmod_module *dep;

		if (kmod_module_new_from_lookup(ctx, name, &found) < 0 || !found) {
			fprintf(stderr,
				MODULE_PROG ": tern.ko needs module '%s', which this kernel does not have\n",
				name);
			return 1;
		}
		dep = kmod_module_get_module(found);
		ret = kmod_module_probe_insert_module(dep, 0, NULL, NULL, NULL,
						      NULL);
		if (ret < 0) {
			module_report_insert_error(name, ret, dep);
			ret = 1;
		}
		kmod_module_unref(dep);
		kmod_module_unref_list(found);
	}
	return ret;
}

/* Inserts tern.ko from @path, or the installed one; prints why not. */
static int module_insert(struct kmod_ctx *ctx, const char *path,
			 const char *options, char *loaded_from, size_t len)
{
	struct kmod_list *found = NULL;
	struct kmod_module *mod = NULL;
	struct utsname uts;
	int ret;

	if (path) {
		ret = kmod_module_new_from_path(ctx, path, &mod);
		if (ret < 0) {
			fprintf(stderr, MODULE_PROG ": --path '%s': %s\n", path,
				strerror(-ret));
			return 1;
		}
		snprintf(loaded_from, len, "%s", path);
		ret = module_load_depends(ctx, mod);
		if (!ret) {
			ret = kmod_module_insert_module(mod, 0, options);
			if (ret < 0)
				module_report_insert_error(path, ret, mod);
		}
		kmod_module_unref(mod);
		return ret ? 1 : 0;
	}

	if (kmod_module_new_from_lookup(ctx, MODULE_NAME, &found) < 0 ||
	    !found || !kmod_module_get_path(mod = kmod_module_get_module(found))) {
		uname(&uts);
		fprintf(stderr,
			MODULE_PROG ": no tern.ko is installed for kernel %s: install it ('sudo make install-dkms', then 'sudo dkms install tern/%d.%d.%d'; see Documentation/install.rst), or pass --path FILE\n",
			uts.release, TERN_VERSION_MAJOR, TERN_VERSION_MINOR,
			TERN_VERSION_PATCH);
		if (mod)
			kmod_module_unref(mod);
		kmod_module_unref_list(found);
		return 1;
	}
	snprintf(loaded_from, len, "%s", kmod_module_get_path(mod));
	ret = kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED,
					      options, NULL, NULL, NULL);
	if (ret < 0)
		module_report_insert_error(loaded_from, ret, mod);
	kmod_module_unref(mod);
	kmod_module_unref_list(found);
	return ret < 0 ? 1 : 0;
}

static int module_usage_error(const char *message, const char *flag,
			      const char *value)
{
	fprintf(stderr, MODULE_PROG " load: %s '%s': %s (see 'tern-inspect module --help')\n",
		flag, value, message);
	return EXIT_USAGE;
}

int module_load(int argc, char **argv, struct inspect_options *opts)
{
	struct print p;
	char options[512] = "", loaded_from[PATH_MAX] = "", wanted[96];
	const char *path = NULL;
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	int opt, ret;
	long value;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+:jph", module_load_options,
				  NULL)) != -1) {
		const struct module_number *number = NULL;

		for (size_t i = 0; i < sizeof(module_numbers) / sizeof(module_numbers[0]); i++)
			if (module_numbers[i].opt == opt)
				number = &module_numbers[i];
		if (number) {
			snprintf(wanted, sizeof(wanted), "expected %s, %ld-%ld",
				 number->wanted, number->min, number->max);
			if (!cli_parse_long(optarg, number->min, number->max,
					    &value))
				return module_usage_error(wanted, number->flag,
							  optarg);
			module_append(options, sizeof(options), number->param,
				      optarg);
			continue;
		}
		switch (opt) {
		case 'T':
			if (!module_topology_ok(optarg))
				return module_usage_error(
					"expected auto, none, ring, full, torus:RxC or custom:A-B,...",
					"--topology", optarg);
			module_append(options, sizeof(options), "mock_topology",
				      optarg);
			break;
		case 'P':
			if (access(optarg, R_OK) != 0)
				return module_usage_error(strerror(errno),
							  "--path", optarg);
			path = optarg;
			break;
		case 'h':
			module_load_usage(stdout);
			return 0;
		default:
			if (inspect_shared_option(opt, opts))
				break;
			return inspect_option_error("module load", "module", opt,
						    argv);
		}
	}
	if (optind < argc)
		return inspect_extra_argument("module load", "module",
					      argv[optind]);
	if (module_need_root("load"))
		return 1;
	if (module_open(&ctx, &mod))
		return 1;
	if (module_is_loaded(mod)) {
		fprintf(stderr,
			MODULE_PROG ": tern.ko is already loaded; unload it first (sudo tern-inspect module unload) to load it with other parameters\n");
		module_close(ctx, mod);
		return 1;
	}
	ret = module_insert(ctx, path, options, loaded_from,
			    sizeof(loaded_from));
	module_close(ctx, mod);
	if (ret)
		return ret;

	print_begin(&p, opts, NULL);
	print_string(&p, "action", NULL, "load");
	print_string(&p, "path", "loaded tern.ko from %s ", loaded_from);
	print_string(&p, "parameters", NULL, options);
	print_string(&p, NULL, "(%s)\n",
		     options[0] ? options : "default parameters");
	print_bool(&p, "loaded", NULL, true, NULL, NULL);
	print_end(&p);
	return 0;
}

static int module_report_busy(struct kmod_module *mod)
{
	char holders[256];

	module_holder_names(mod, holders, sizeof(holders));
	fprintf(stderr,
		MODULE_PROG ": tern.ko is in use and cannot be unloaded: %d reference%s",
		kmod_module_get_refcnt(mod),
		kmod_module_get_refcnt(mod) == 1 ? "" : "s");
	if (holders[0])
		fprintf(stderr, ", held by module%s %s",
			strchr(holders, ',') ? "s" : "", holders);
	fputc('\n', stderr);
	module_print_users();
	fprintf(stderr, MODULE_PROG ": stop those users, then unload again\n");
	return 1;
}

static void module_unload_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect module unload\n"
		"Unloads tern.ko (needs root), unless a process or module uses it.\n");
}

int module_unload(int argc, char **argv, struct inspect_options *opts)
{
	struct print p;
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	char holders[256];
	int ret;

	ret = inspect_parse_args("module unload", argc, argv, opts, NULL,
				 module_unload_usage);
	if (ret != INSPECT_RUN)
		return ret;
	if (module_need_root("unload"))
		return 1;
	if (module_open(&ctx, &mod))
		return 1;
	if (!module_is_loaded(mod)) {
		fprintf(stderr, MODULE_PROG ": tern.ko is not loaded\n");
		module_close(ctx, mod);
		return 1;
	}
	module_holder_names(mod, holders, sizeof(holders));
	if (kmod_module_get_refcnt(mod) > 0 || holders[0]) {
		ret = module_report_busy(mod);
		module_close(ctx, mod);
		return ret;
	}
	ret = kmod_module_remove_module(mod, 0);
	if (ret == -EBUSY || ret == -EAGAIN) {
		ret = module_report_busy(mod);
	} else if (ret < 0) {
		fprintf(stderr, MODULE_PROG ": unloading tern.ko failed: %s\n",
			strerror(-ret));
		ret = 1;
	}
	module_close(ctx, mod);
	if (ret)
		return ret;
	print_begin(&p, opts, NULL);
	print_string(&p, "action", NULL, "unload");
	print_text(&p, "unloaded tern.ko\n");
	print_bool(&p, "loaded", NULL, false, NULL, NULL);
	print_end(&p);
	return 0;
}
