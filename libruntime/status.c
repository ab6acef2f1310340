// SPDX-License-Identifier: MIT
/*
 * Status codes as text.
 */
#include "internal.h"

struct tern_status_text {
	const char *name;
	const char *sentence;
};

static const struct tern_status_text tern_status_texts[] = {
	[TERN_SUCCESS] = { "TERN_SUCCESS", "success" },
	[TERN_ERROR_INVALID_ARGUMENT] = { "TERN_ERROR_INVALID_ARGUMENT",
		"invalid argument: NULL, freed or mismatched handle or value" },
	[TERN_ERROR_INVALID_DEVICE] = { "TERN_ERROR_INVALID_DEVICE",
		"device index out of range" },
	[TERN_ERROR_NO_DEVICE] = { "TERN_ERROR_NO_DEVICE",
		"no Tern device available to this backend" },
	[TERN_ERROR_OUT_OF_MEMORY] = { "TERN_ERROR_OUT_OF_MEMORY",
		"out of device or host memory" },
	[TERN_ERROR_NOT_READY] = { "TERN_ERROR_NOT_READY",
		"work still pending" },
	[TERN_ERROR_DEVICE_FAULT] = { "TERN_ERROR_DEVICE_FAULT",
		"a job addressed device memory outside its buffers" },
	[TERN_ERROR_TIMEOUT] = { "TERN_ERROR_TIMEOUT",
		"a job exceeded the job timeout" },
	[TERN_ERROR_CANCELLED] = { "TERN_ERROR_CANCELLED",
		"a job was cancelled before it ran" },
	[TERN_ERROR_PERMISSION] = { "TERN_ERROR_PERMISSION",
		"permission denied: the device node, or a peer without the communicator's secret" },
	[TERN_ERROR_NOT_SUPPORTED] = { "TERN_ERROR_NOT_SUPPORTED",
		"not supported by this device or backend" },
	[TERN_ERROR_BACKEND] = { "TERN_ERROR_BACKEND",
		"unexpected driver or operating system error" },
	[TERN_ERROR_OUT_OF_RANGE] = { "TERN_ERROR_OUT_OF_RANGE",
		"offset or size outside the buffer" },
	[TERN_ERROR_NO_ROUTE] = { "TERN_ERROR_NO_ROUTE",
		"no route to a peer's memory: fabric links are down" },
	[TERN_ERROR_PEER_FAILED] = { "TERN_ERROR_PEER_FAILED",
		"a peer of the collective failed or went away" },
	[TERN_ERROR_LIMIT] = { "TERN_ERROR_LIMIT",
		"a limit on what one process may hold was reached (descriptors, buffers)" },
};

static const struct tern_status_text *tern_status_lookup(tern_status_t status)
{
	size_t i = (size_t)status;

	if (i < sizeof(tern_status_texts) / sizeof(tern_status_texts[0]) &&
	    tern_status_texts[i].name)
		return &tern_status_texts[i];
	return NULL;
}

TERN_API const char *tern_status_string(tern_status_t status)
{
	const struct tern_status_text *text = tern_status_lookup(status);

	return text ? text->sentence : "unknown status code";
}

TERN_API const char *tern_status_name(tern_status_t status)
{
	const struct tern_status_text *text = tern_status_lookup(status);

	return text ? text->name : "TERN_ERROR_UNKNOWN";
}
