/* SPDX-License-Identifier: MIT */
/*
 * tern-inspect module: what its status, load and unload actions share
 * through libkmod.
 */
#ifndef TOOLS_INSPECT_MODULE_KMOD_H
#define TOOLS_INSPECT_MODULE_KMOD_H

#include <libkmod.h>
#include <stdio.h>

#include "inspect.h"

#define MODULE_NAME "tern"
#define MODULE_PROG "tern-inspect module"

/*
 * A libkmod context for the running kernel and tern's module in it (loaded
 * or not). Prints why on stderr and returns 1 on failure, else 0.
 */
int module_open(struct kmod_ctx **ctx, struct kmod_module **mod);
void module_close(struct kmod_ctx *ctx, struct kmod_module *mod);

/* True while tern.ko is in the kernel (coming, live or going). */
bool module_is_loaded(struct kmod_module *mod);

/* Writes the modules holding tern.ko, comma-separated, or "" to @buf. */
void module_holder_names(struct kmod_module *mod, char *buf, size_t len);

/*
 * Prints to stderr the processes that have a tern device node open or
 * mapped, on one line; nothing when none.
 */
void module_print_users(void);

/* `module load ...` and `module unload`: @argv[0] is the action. */
int module_load(int argc, char **argv, struct inspect_options *opts);
int module_unload(int argc, char **argv, struct inspect_options *opts);
void module_load_usage(FILE *out);

#endif /* TOOLS_INSPECT_MODULE_KMOD_H */
