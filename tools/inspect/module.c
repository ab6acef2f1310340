// SPDX-License-Identifier: MIT
/*
 * tern-inspect module [status]: whether tern.ko is loaded, its version,
 * users and parameters, and whether an installed tern.ko exists for the
 * running kernel; `module load` and `module unload` are in module_load.c.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli.h"
#include "print.h"
#include "module_kmod.h"

#define MODULE_SYSFS "/sys/module/" MODULE_NAME
#define MODULE_MAX_PARAMS 32

struct module_param {
	char name[64];
	char value[128];
};

struct module_status {
	bool loaded;
	const char *state;		/* "live", "coming", "going" */
	int refcount;
	char holders[256];
	char version[64], srcversion[64];
	char kernel[128];
	char installed_path[512];	/* "" when none is installed */
	char installed_version[64];
	int param_count;
	struct module_param params[MODULE_MAX_PARAMS];
};

static void module_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect module [status] [options]\n"
		"       tern-inspect module load [load options]\n"
		"       tern-inspect module unload\n"
		"\n"
		"status (the default): whether tern.ko is loaded, its version,\n"
		"users and parameters, and whether an installed tern.ko exists\n"
		"for the running kernel. load and unload need root.\n"
		"\n");
	module_load_usage(out);
	fprintf(out, "\nOptions:\n");
	inspect_print_common_options(out);
}

int module_open(struct kmod_ctx **ctx, struct kmod_module **mod)
{
	*mod = NULL;
	*ctx = kmod_new(NULL, NULL);
	if (!*ctx) {
		fprintf(stderr, MODULE_PROG ": cannot read the kernel's modules (libkmod failed)\n");
		return 1;
	}
	if (kmod_module_new_from_name(*ctx, MODULE_NAME, mod) < 0) {
		fprintf(stderr, MODULE_PROG ": libkmod cannot describe module '%s'\n",
			MODULE_NAME);
		kmod_unref(*ctx);
		return 1;
	}
	return 0;
}

void module_close(struct kmod_ctx *ctx, struct kmod_module *mod)
{
	if (mod)
		kmod_module_unref(mod);
	kmod_unref(ctx);
}

bool module_is_loaded(struct kmod_module *mod)
{
	int state = kmod_module_get_initstate(mod);

	return state == KMOD_MODULE_LIVE || state == KMOD_MODULE_COMING ||
	       state == KMOD_MODULE_GOING;
}

void module_holder_names(struct kmod_module *mod, char *buf, size_t len)
{
	struct kmod_list *holders = kmod_module_get_holders(mod), *l;
	size_t used = 0;

	buf[0] = '\0';
	kmod_list_foreach(l, holders) {
		struct kmod_module *holder = kmod_module_get_module(l);

		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s", used ? "," : "",
				 kmod_module_get_name(holder));
		kmod_module_unref(holder);
	}
	kmod_module_unref_list(holders);
}

/* Reads the first line of @path into @buf, without its newline; "" if none. */
static void module_read_line(const char *path, char *buf, size_t len)
{
	FILE *file = fopen(path, "r");

	buf[0] = '\0';
	if (!file)
		return;
	if (fgets(buf, (int)len, file))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(file);
}

static int module_param_order(const void *a, const void *b)
{
	return strcmp(((const struct module_param *)a)->name,
		      ((const struct module_param *)b)->name);
}

static void module_read_params(struct module_status *status)
{
	DIR *dir = opendir(MODULE_SYSFS "/parameters");
	struct dirent *entry;
	char path[512];

	if (!dir)
		return;
	while ((entry = readdir(dir)) && status->param_count < MODULE_MAX_PARAMS) {
		struct module_param *param = &status->params[status->param_count];

		if (entry->d_name[0] == '.')
			continue;
		snprintf(param->name, sizeof(param->name), "%.63s", entry->d_name);
		snprintf(path, sizeof(path), MODULE_SYSFS "/parameters/%.63s",
			 entry->d_name);
		module_read_line(path, param->value, sizeof(param->value));
		status->param_count++;
	}
	closedir(dir);
	qsort(status->params, status->param_count, sizeof(status->params[0]),
	      module_param_order);
}

/* The tern.ko that modprobe would load for the running kernel, if any. */
static void module_find_installed(struct kmod_ctx *ctx,
				  struct module_status *status)
{
	struct kmod_list *found = NULL, *info = NULL, *l;
	struct kmod_module *mod;
	const char *path;

	if (kmod_module_new_from_lookup(ctx, MODULE_NAME, &found) < 0 || !found)
		return;
	mod = kmod_module_get_module(found);
	path = kmod_module_get_path(mod);
	if (path) {
		snprintf(status->installed_path, sizeof(status->installed_path),
			 "%s", path);
		if (kmod_module_get_info(mod, &info) >= 0) {
			kmod_list_foreach(l, info)
				if (!strcmp(kmod_module_info_get_key(l), "version"))
					snprintf(status->installed_version,
						 sizeof(status->installed_version),
						 "%s", kmod_module_info_get_value(l));
			kmod_module_info_free_list(info);
		}
	}
	kmod_module_unref(mod);
	kmod_module_unref_list(found);
}

static int module_read_status(struct module_status *status)
{
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	struct utsname uts;

	memset(status, 0, sizeof(*status));
	if (module_open(&ctx, &mod))
		return 1;
	if (uname(&uts) == 0)
		snprintf(status->kernel, sizeof(status->kernel), "%s", uts.release);
	status->loaded = module_is_loaded(mod);
	if (status->loaded) {
		status->state = kmod_module_initstate_str(
			kmod_module_get_initstate(mod));
		status->refcount = kmod_module_get_refcnt(mod);
		if (status->refcount < 0)
			status->refcount = 0;
		module_holder_names(mod, status->holders,
				    sizeof(status->holders));
		/* Only a module with MODULE_VERSION has these. */
		module_read_line(MODULE_SYSFS "/version", status->version,
				 sizeof(status->version));
		module_read_line(MODULE_SYSFS "/srcversion", status->srcversion,
				 sizeof(status->srcversion));
		module_read_params(status);
	}
	module_find_installed(ctx, status);
	module_close(ctx, mod);
	return 0;
}

static void module_print(const struct inspect_options *opts,
			 const struct module_status *status)
{
	char *holders = strdup(status->holders), *name, *rest = NULL;
	bool loaded = status->loaded, installed = status->installed_path[0];
	struct print p;
	char fmt[64];

	print_begin(&p, opts, NULL);
	print_string(&p, "module", NULL, MODULE_NAME);
	print_bool(&p, "loaded", "tern.ko: %s", loaded, "loaded", "not loaded");
	print_string(&p, "state", loaded ? " (%s)\n" : "\n",
		     loaded ? status->state : "unloaded");
	print_string(&p, "kernel_release", "  kernel:      %s\n",
		     status->kernel);
	print_string(&p, "version", NULL, status->version);
	print_string(&p, NULL, loaded ? "  version:     %s\n" : NULL,
		     status->version[0] ? status->version : "(none given)");
	print_string(&p, "srcversion",
		     loaded && status->srcversion[0] ? "  srcversion:  %s\n" :
						       NULL, status->srcversion);
	print_u64(&p, "refcount", loaded ? "  users:       %llu " : NULL,
		  (uint64_t)status->refcount);
	print_array(&p, "holders");
	for (name = holders ? strtok_r(holders, ",", &rest) : NULL; name;
	     name = strtok_r(NULL, ",", &rest))
		print_element_string(&p, NULL, name);
	print_array_end(&p);
	print_string(&p, NULL, loaded ? "(holders: %s)\n" : NULL,
		     status->holders[0] ? status->holders : "none");
	print_bool(&p, "installed", NULL, installed, NULL, NULL);
	print_string(&p, "installed_path", installed ? "  installed:   %s" : NULL,
		     status->installed_path);
	print_string(&p, "installed_version", NULL, status->installed_version);
	if (installed && status->installed_version[0])
		print_text(&p, ", version %s", status->installed_version);
	if (installed)
		print_text(&p, "\n");
	else
		print_text(&p, "  installed:   no tern.ko for %s (install it: 'sudo make install-dkms', then 'sudo dkms install tern/%d.%d.%d'; or load a file with --path)\n",
			   status->kernel, TERN_VERSION_MAJOR,
			   TERN_VERSION_MINOR, TERN_VERSION_PATCH);
	if (loaded)
		print_text(&p, "  parameters:\n");
	print_object(&p, "parameters");
	for (int i = 0; i < status->param_count; i++) {
		snprintf(fmt, sizeof(fmt), "    %-16s %%s\n",
			 status->params[i].name);
		print_string(&p, status->params[i].name, loaded ? fmt : NULL,
			     status->params[i].value);
	}
	print_object_end(&p);
	if (!loaded)
		print_text(&p, "  load it:     sudo tern-inspect module load [--mock-devices N] [--topology SPEC]%s\n",
			   installed ? "" : " --path FILE");
	print_end(&p);
	free(holders);
}

static int module_status_run(int argc, char **argv,
			     struct inspect_options *opts)
{
	struct module_status status;
	int ret;

	ret = inspect_parse_args("module status", argc, argv, opts, NULL,
				 module_usage);
	if (ret != INSPECT_RUN)
		return ret;
	if (module_read_status(&status))
		return 1;
	module_print(opts, &status);
	return 0;
}

static const struct option module_shared_options[] = {
	INSPECT_SHARED_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int module_run(int argc, char **argv, struct inspect_options *opts)
{
	char *status_argv[] = { "status", NULL };
	int opt;

	/* Shared options, then the action (status, load, unload) if any. */
	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+jph", module_shared_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'h':
			module_usage(stdout);
			return 0;
		default:
			if (inspect_shared_option(opt, opts))
				break;
			return inspect_option_error("module", "module", opt,
						    argv);
		}
	}
	if (optind >= argc)
		return module_status_run(1, status_argv, opts);
	argc -= optind;
	argv += optind;
	if (strcmp(argv[0], "status") == 0)
		return module_status_run(argc, argv, opts);
	if (strcmp(argv[0], "load") == 0)
		return module_load(argc, argv, opts);
	if (strcmp(argv[0], "unload") == 0)
		return module_unload(argc, argv, opts);
	fprintf(stderr,
		MODULE_PROG ": unknown action '%s'; actions are: status load unload (see 'tern-inspect module --help')\n",
		argv[0]);
	return EXIT_USAGE;
}

const struct inspect_command inspect_module_command = {
	.name = "module",
	.summary = "tern.ko: loaded, version, parameters; load/unload",
	.usage = module_usage,
	.run = module_run,
};
