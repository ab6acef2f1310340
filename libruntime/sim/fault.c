// SPDX-License-Identifier: MIT
/*
 * Faults injected into the simulated machine with the words of tern.ko's
 * debugfs files (simd/fault.c takes them), for every process of the
 * machine alike.
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"

/* Asks the machine to take the fault: @line written to debugfs @file. */
static tern_status_t sim_fault(int device_index, const char *file,
			       const char *line)
{
	struct sim_fault req = { .device = (uint32_t)device_index };
	struct sim_reason_reply reply;
	tern_status_t status;

	if (device_index < 0 ||
	    device_index >= sim_device_count())
		return TERN_ERROR_INVALID_DEVICE;
	if (strlen(file) >= sizeof(req.file) ||
	    strlen(line) >= sizeof(req.line)) {
		tern_set_last_error("no fault file '%.40s' takes '%.40s'",
				    file, line);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	snprintf(req.file, sizeof(req.file), "%s", file);
	snprintf(req.line, sizeof(req.line), "%s", line);
	status = sim_call(SIM_MSG_FAULT, &req, sizeof(req), -1, &reply,
			  sizeof(reply), NULL);
	if (status) {
		reply.reason[sizeof(reply.reason) - 1] = '\0';
		tern_set_last_error("%s", reply.reason);
	}
	return status;
}

TERN_API tern_status_t tern_sim_inject_fault(int device_index,
					     const char *file, const char *line)
{
	tern_status_t status;

	if (!file || !line)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = sim_backend_chosen("faults go through debugfs");
	return status ? status : sim_fault(device_index, file, line);
}

TERN_API tern_status_t tern_sim_set_link(int device_index, uint32_t port,
					 int up)
{
	char line[32];

	snprintf(line, sizeof(line), "%u %s", port, up ? "up" : "down");
	return tern_sim_inject_fault(device_index, "fabric_link", line);
}
