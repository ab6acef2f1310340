// SPDX-License-Identifier: MIT
/*
 * The fabric as a device sees it: its ports, the links on them and their
 * counters.
 */
#include "internal.h"

TERN_API tern_status_t tern_device_get_ports(tern_device_t device,
					     tern_port_info_t *ports,
					     uint32_t capacity, uint32_t *count)
{
	struct tern_device *dev = device;
	uint32_t n;
	tern_status_t status;

	if (!count || (capacity && !ports) ||
	    !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = dev->ops->ports(dev->be, ports, capacity, &n);
	if (status == TERN_SUCCESS)
		*count = n;
	return status;
}
