// SPDX-License-Identifier: MIT
/*
 * Fault injection on the machine, in the words tern.ko's debugfs files
 * take, so that operators and tests drive both the same way:
 *
 *  fabric_link  "<port> down", "<port> up" or "<port> error": the link on
 *               that port goes down or up, or counts one error;
 *  mem_error    "correctable [OFFSET]" or "uncorrectable [OFFSET]": device
 *               memory reports an error at OFFSET (default 0, below the
 *               memory's size; decimal or 0x-hex);
 *  engine_hang  "<engine>": the engine stops making progress until the job
 *               timeout fails the job it holds and resets it.
 *
 * Each is announced as tern.ko announces it (event.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

/* A whole decimal or 0x-hex number, nothing after it. */
static bool machine_parse_u64(const char *text, uint64_t *value)
{
	char *end;

	if (!text || !*text || *text == '-' || *text == '+')
		return false;
	errno = 0;
	*value = strtoull(text, &end, 0);
	return !errno && !*end;
}

static tern_status_t machine_fault_link(struct machine *m, uint32_t device,
					char *words[], int count, char *reason,
					size_t len)
{
	uint64_t port;
	int ret;

	if (count != 2 || !machine_parse_u64(words[0], &port) ||
	    port >= m->fabric.port_count[device]) {
		snprintf(reason, len, "want '<port> down|up|error' with a port "
			 "below %u", m->fabric.port_count[device]);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (strcmp(words[1], "error") == 0) {
		ret = tern_fabric_link_error(&m->fabric, device, (u32)port);
		if (ret >= 0)
			machine_link_event(m, device, (u32)port,
					   DRM_TERN_CMD_LINK_ERROR_NTF);
	} else if (strcmp(words[1], "down") == 0 ||
		   strcmp(words[1], "up") == 0) {
		ret = tern_fabric_set_link(&m->fabric, device, (u32)port,
					   strcmp(words[1], "up") == 0);
		if (ret == 1)
			machine_link_event(m, device, (u32)port,
					   DRM_TERN_CMD_LINK_STATE_NTF);
	} else {
		snprintf(reason, len, "want down, up or error after the port");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (ret < 0) {
		snprintf(reason, len, "no link on port %llu",
			 (unsigned long long)port);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

static tern_status_t machine_fault_mem(struct machine_device *dev,
				       char *words[], int count, char *reason,
				       size_t len)
{
	bool uncorrectable = count >= 1 && strcmp(words[0], "uncorrectable") == 0;
	uint64_t offset = 0;

	if (count < 1 || count > 2 ||
	    (!uncorrectable && strcmp(words[0], "correctable")) ||
	    (count == 2 && !machine_parse_u64(words[1], &offset)) ||
	    offset >= dev->mem_total) {
		snprintf(reason, len, "want 'correctable|uncorrectable "
			 "[OFFSET]' with an offset below %llu",
			 (unsigned long long)dev->mem_total);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	pthread_mutex_lock(&dev->lock);
	if (uncorrectable)
		dev->mem_errors_uncorrected++;
	else
		dev->mem_errors_corrected++;
	pthread_mutex_unlock(&dev->lock);
	machine_mem_error_event(dev, uncorrectable, offset);
	return TERN_SUCCESS;
}

static tern_status_t machine_fault_hang(struct machine_device *dev,
					char *words[], int count, char *reason,
					size_t len)
{
	uint64_t engine;

	if (count != 1 || !machine_parse_u64(words[0], &engine) ||
	    engine >= dev->engine_count) {
		snprintf(reason, len, "want an engine below %u",
			 dev->engine_count);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	atomic_store(&dev->engines[engine].hung, true);
	machine_health_update(dev->machine, dev);
	return TERN_SUCCESS;
}

tern_status_t machine_fault(struct machine *m, const struct sim_fault *req,
			    char *reason, size_t reason_len)
{
	char line[sizeof(req->line) + 1], *words[4], *save = NULL, *word;
	char file[sizeof(req->file) + 1];
	int count = 0;

	memcpy(file, req->file, sizeof(req->file));
	file[sizeof(req->file)] = '\0';
	memcpy(line, req->line, sizeof(req->line));
	line[sizeof(req->line)] = '\0';
	if (req->device >= (uint32_t)m->device_count) {
		snprintf(reason, reason_len, "no device %u; devices are 0-%d",
			 req->device, m->device_count - 1);
		return TERN_ERROR_INVALID_DEVICE;
	}
	for (word = strtok_r(line, " \t\n", &save); word && count < 4;
	     word = strtok_r(NULL, " \t\n", &save))
		words[count++] = word;
	if (word) {
		snprintf(reason, reason_len, "too many words");
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (strcmp(file, "fabric_link") == 0)
		return machine_fault_link(m, req->device, words, count, reason,
					  reason_len);
	if (strcmp(file, "mem_error") == 0)
		return machine_fault_mem(&m->devices[req->device], words,
					 count, reason, reason_len);
	if (strcmp(file, "engine_hang") == 0)
		return machine_fault_hang(&m->devices[req->device], words,
					  count, reason, reason_len);
	snprintf(reason, reason_len,
		 "no fault '%s': fabric_link, mem_error or engine_hang", file);
	return TERN_ERROR_INVALID_ARGUMENT;
}
