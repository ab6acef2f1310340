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
 *
 * The rule is decided apart from starting the backend, so that tools can
 * ask which and why (tern_get_backend_reason()) without starting a
 * simulated machine, and need not copy the rule.
 */
#include <pthread.h>
#include <string.h>

#include "internal.h"
#include "settings.h"

/* The rule's answer, once: which backend and why, or why none. */
static pthread_once_t tern_backend_decided = PTHREAD_ONCE_INIT;
static const struct tern_backend_ops *tern_backend_choice;
static tern_backend_reason_t tern_backend_why;
static tern_status_t tern_backend_choice_status;
static bool tern_backend_choice_ready;	/* found by its own init */

/* The chosen backend, started, once. */
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

/* The rule: the only place that reads TERN_BACKEND. */
static void tern_backend_decide(void)
{
	const char *name = NULL;

	if (tern_setting_choice("TERN_BACKEND", &name)) {
		tern_backend_choice_status = TERN_ERROR_INVALID_ARGUMENT;
	} else if (name) {
		tern_backend_choice = strcmp(name, "kernel") == 0 ?
				      &tern_kernel_backend : &tern_sim_backend;
		tern_backend_why = TERN_BACKEND_REASON_SETTING;
	} else if (tern_kernel_backend.init() == TERN_SUCCESS &&
		   tern_kernel_has_devices()) {
		tern_backend_choice = &tern_kernel_backend;
		tern_backend_why = TERN_BACKEND_REASON_NODE_FOUND;
		tern_backend_choice_ready = true;
	} else {
		tern_debug("no Tern device node found, using the simulator");
		tern_backend_choice = &tern_sim_backend;
		tern_backend_why = TERN_BACKEND_REASON_NO_NODE;
	}
}

static void tern_backend_select(void)
{
	pthread_once(&tern_backend_decided, tern_backend_decide);
	if (!tern_backend_choice)
		tern_backend_status = tern_backend_choice_status;
	else if (tern_backend_choice_ready)
		tern_backend = tern_backend_choice;
	else
		tern_backend_status = tern_backend_try(tern_backend_choice);
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

TERN_API tern_status_t tern_get_backend_reason(tern_backend_t *backend,
					       tern_backend_reason_t *reason)
{
	if (!backend || !reason)
		return TERN_ERROR_INVALID_ARGUMENT;
	pthread_once(&tern_backend_decided, tern_backend_decide);
	if (!tern_backend_choice)
		return tern_backend_choice_status;
	*backend = tern_backend_choice->kind;
	*reason = tern_backend_why;
	return TERN_SUCCESS;
}

TERN_API const char *tern_backend_reason_string(tern_backend_t backend,
						tern_backend_reason_t reason)
{
	switch (reason) {
	case TERN_BACKEND_REASON_SETTING:
		return backend == TERN_BACKEND_SIM ? "TERN_BACKEND=sim" :
		       backend == TERN_BACKEND_KERNEL ? "TERN_BACKEND=kernel" :
							"TERN_BACKEND";
	case TERN_BACKEND_REASON_NODE_FOUND:
		return "Tern device node found";
	case TERN_BACKEND_REASON_NO_NODE:
		return "no Tern device node found";
	default:
		return "unknown";
	}
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
