// SPDX-License-Identifier: MIT
/*
 * Backend selection, once per process.
 *
 * TERN_BACKEND=kernel or =sim forces a backend. Without it (or empty) the
 * kernel backend is used when any Tern device node exists (even one this
 * process may not open, so that the permission problem is reported rather
 * than hidden behind the simulator), and the simulator otherwise.
 *
 * A configuration that cannot be honoured is never replaced by a guess: an
 * unknown TERN_BACKEND, or a malformed TERN_SIM_* value when the simulator
 * is chosen, makes every call that needs a backend return
 * TERN_ERROR_INVALID_ARGUMENT. Whatever the refusal, its sentence goes to
 * stderr once, here (debug.c), so that a program that only looks at
 * status codes still tells its user why.
 */
#include <pthread.h>
#include <string.h>

#include "internal.h"
#include "settings.h"

static pthread_once_t tern_backend_once = PTHREAD_ONCE_INIT;
static const struct tern_backend_ops *tern_backend;
static tern_status_t tern_backend_status;

static tern_status_t tern_backend_try(const struct tern_backend_ops *ops)
{
	tern_status_t status = ops->init();

	if (status == TERN_SUCCESS)
		tern_backend = ops;
	return status;
}

static bool tern_kernel_has_devices(void)
{
	int count;
	tern_status_t status = tern_kernel_backend.device_count(&count);

	return status == TERN_SUCCESS || status == TERN_ERROR_PERMISSION;
}

static void tern_backend_select(void)
{
	const char *name = NULL;

	if (tern_setting_choice("TERN_BACKEND", &name)) {
		tern_backend_status = TERN_ERROR_INVALID_ARGUMENT;
	} else if (name && strcmp(name, "kernel") == 0) {
		tern_backend_status = tern_backend_try(&tern_kernel_backend);
	} else if (name) {
		tern_backend_status = tern_backend_try(&tern_sim_backend);
	} else if (tern_kernel_backend.init() == TERN_SUCCESS &&
		   tern_kernel_has_devices()) {
		tern_backend = &tern_kernel_backend;
	} else {
		tern_debug("no Tern device node found, using the simulator");
		tern_backend_status = tern_backend_try(&tern_sim_backend);
	}
	if (tern_backend)
		tern_debug("backend: %s", tern_backend_name(tern_backend->kind));
	else
		tern_report_refusal(tern_backend_status);
}

tern_status_t tern_backend_ops_get(const struct tern_backend_ops **ops)
{
	pthread_once(&tern_backend_once, tern_backend_select);
	*ops = tern_backend;
	return tern_backend ? TERN_SUCCESS : tern_backend_status;
}

TERN_API tern_status_t tern_get_backend(tern_backend_t *backend)
{
	const struct tern_backend_ops *ops;
	tern_status_t status;

	if (!backend)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = tern_backend_ops_get(&ops);
	if (status == TERN_SUCCESS)
		*backend = ops->kind;
	return status;
}

TERN_API const char *tern_backend_name(tern_backend_t backend)
{
	switch (backend) {
	case TERN_BACKEND_KERNEL:
		return "kernel";
	case TERN_BACKEND_SIM:
		return "sim";
	default:
		return "unknown";
	}
}
