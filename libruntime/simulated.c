// SPDX-License-Identifier: MIT
/*
 * What only the simulator offers a process: faults injected with the
 * words of tern.ko's debugfs (a device's state is in sim/inspect.c).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static tern_status_t simulated_ops(const struct tern_backend_ops **ops)
{
	tern_status_t status = tern_backend_ops_get(ops);

	if (status == TERN_SUCCESS && !(*ops)->fault) {
		tern_set_last_error("this needs the simulator: on tern.ko, "
				    "faults go through debugfs");
		return TERN_ERROR_NOT_SUPPORTED;
	}
	return status;
}

TERN_API tern_status_t tern_sim_inject_fault(int device_index,
					     const char *file, const char *line)
{
	const struct tern_backend_ops *ops;
	tern_status_t status;

	if (!file || !line)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = simulated_ops(&ops);
	return status ? status : ops->fault(device_index, file, line);
}

TERN_API tern_status_t tern_sim_set_link(int device_index, uint32_t port,
					 int up)
{
	char line[32];

	snprintf(line, sizeof(line), "%u %s", port, up ? "up" : "down");
	return tern_sim_inject_fault(device_index, "fabric_link", line);
}
