// SPDX-License-Identifier: MIT
/*
 * The simulated machine as tern-inspect sees it: what tern.ko's netlink
 * family would answer (the machine writes it, simd/inspect.c), handed on
 * as is for tools that parse tern.ko's, and read back into
 * tern_sim_device_state_t through the model's state lists.
 */
#include <stdlib.h>
#include <string.h>

#include "netlink.h"
#include "sim.h"

#define SIM_NOT_HERE "its netlink family tells the same"

/* One DUMP request's answer, its messages alone, into *@msgs. */
static tern_status_t sim_dump_one(uint32_t cmd, uint32_t device, void **msgs,
				  size_t *len)
{
	struct sim_dump req = { .cmd = cmd, .device = device };
	struct sim_reply *reply;
	tern_status_t status;
	uint32_t got;

	reply = malloc(SIM_WIRE_MAX_PAYLOAD);
	if (!reply)
		return TERN_ERROR_OUT_OF_MEMORY;
	status = sim_call_var(SIM_MSG_DUMP, &req, sizeof(req), reply,
			      SIM_WIRE_MAX_PAYLOAD, &got);
	if (status) {
		free(reply);
		return status;
	}
	got -= sizeof(*reply);
	memmove(reply, reply + 1, got);
	*msgs = reply;
	*len = got;
	return TERN_SUCCESS;
}

/*
 * Every device's message, asked for one device at a time: a machine of
 * 64 chips of 16 cores has more engines than one answer holds.
 */
static tern_status_t sim_dump_devices(void **msgs, size_t *len)
{
	int count = sim_device_count();
	uint8_t *all = malloc(1);
	size_t total = 0;

	if (!all)
		return TERN_ERROR_OUT_OF_MEMORY;
	for (int d = 0; d < count; d++) {
		tern_status_t status;
		uint8_t *grown;
		size_t got;
		void *one;

		status = sim_dump_one(DRM_TERN_CMD_DEVICE_GET, (uint32_t)d, &one,
				      &got);
		if (status) {
			free(all);
			return status;
		}
		grown = realloc(all, total + got + 1);
		if (!grown) {
			free(one);
			free(all);
			return TERN_ERROR_OUT_OF_MEMORY;
		}
		all = grown;
		memcpy(all + total, one, got);
		total += got;
		free(one);
	}
	*msgs = all;
	*len = total;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_sim_netlink_dump(int cmd, int device, void **msgs,
					     size_t *len)
{
	tern_status_t status;

	if (!msgs || !len || device < -1 ||
	    (cmd != DRM_TERN_CMD_DEVICE_GET && cmd != DRM_TERN_CMD_LINK_GET &&
	     cmd != DRM_TERN_CMD_CLIENT_GET) ||
	    (cmd == DRM_TERN_CMD_LINK_GET && device != -1))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = sim_backend_chosen(SIM_NOT_HERE);
	if (status)
		return status;
	if (device >= sim_device_count())
		return TERN_ERROR_INVALID_DEVICE;
	if (cmd == DRM_TERN_CMD_DEVICE_GET && device < 0)
		return sim_dump_devices(msgs, len);
	return sim_dump_one((uint32_t)cmd,
			    device < 0 ? SIM_DUMP_ALL : (uint32_t)device,
			    msgs, len);
}

/* An engine nest, into the engine of @state it names. */
static void sim_state_engine(void *ctx, const struct sim_nl_attr *attr)
{
	tern_sim_device_state_t *state = ctx;
	struct tern_state_engine in;
	tern_sim_engine_state_t *out;

	memset(&in, 0, sizeof(in));
	if (sim_nl_get_state(&tern_state_engine_set, &in, attr->data,
			     attr->len, 0, NULL, NULL) ||
	    in.index >= TERN_SIM_MAX_ENGINES)
		return;
	out = &state->engines[in.index];
	out->busy_ns = in.busy_ns;
	out->jobs_completed = in.jobs_completed;
	out->jobs_failed = in.jobs_failed;
	out->timeouts = in.timeouts;
	out->resets = in.resets;
	out->hang_resets = in.hang_resets;
	out->jobs_queued = in.jobs_queued;
	out->busy = in.busy != 0;
	out->hung = in.hung != 0;
	out->steps = in.steps;
	out->longest_step_ns = in.step_max_ns;
}

static tern_status_t sim_state_device(const uint8_t *buf, size_t len,
				      tern_sim_device_state_t *state)
{
	struct tern_state_device in;
	struct sim_nl_msg msg;
	uint32_t off = 0;

	memset(&in, 0, sizeof(in));
	if (!sim_nl_next_msg(buf, (uint32_t)len, &off, &msg) ||
	    sim_nl_get_state(&tern_state_device_set, &in, msg.attrs,
			     msg.attrs_len, DRM_TERN_A_DEV_ENGINE,
			     sim_state_engine, state))
		return TERN_ERROR_BACKEND;
	state->mem_total = in.memory_total_bytes;
	state->mem_used = in.memory_used_bytes;
	state->mem_host_used = in.memory_host_used_bytes;
	state->buffer_count = in.buffers;
	state->mem_errors_corrected = in.mem_errors_corrected;
	state->mem_errors_uncorrected = in.mem_errors_uncorrected;
	state->engine_count = in.engine_count < TERN_SIM_MAX_ENGINES ?
			      in.engine_count : TERN_SIM_MAX_ENGINES;
	state->health_reasons = in.health_reasons;
	state->client_count = in.client_count;
	return TERN_SUCCESS;
}

static void sim_state_clients(const uint8_t *buf, size_t len,
			      tern_sim_device_state_t *state)
{
	struct sim_nl_msg msg;
	uint32_t off = 0, n = 0;

	while (n < TERN_SIM_MAX_CLIENTS &&
	       sim_nl_next_msg(buf, (uint32_t)len, &off, &msg)) {
		tern_sim_client_state_t *out = &state->clients[n++];
		struct tern_state_client in;
		struct sim_nl_attr attr;
		uint32_t at = 0;

		memset(&in, 0, sizeof(in));
		sim_nl_get_state(&tern_state_client_set, &in, msg.attrs,
				 msg.attrs_len, 0, NULL, NULL);
		while (sim_nl_next_attr(msg.attrs, msg.attrs_len, &at, &attr))
			if (attr.type == DRM_TERN_A_CLIENT_COMM && attr.len)
				sim_wire_strcpy(out->comm, (const char *)attr.data,
						attr.len < sizeof(out->comm) ?
						attr.len : sizeof(out->comm));
		out->id = in.id;
		out->pid = (int32_t)in.pid;
		out->mem_device = in.memory_device_bytes;
		out->mem_host = in.memory_host_bytes;
		out->buffers = in.buffers;
		out->queues = in.queues;
		out->jobs_active = in.jobs_active;
		out->jobs_submitted = in.jobs_submitted;
		out->busy_ns = in.busy_ns;
	}
}

TERN_API tern_status_t tern_sim_device_state(int device_index,
					     tern_sim_device_state_t *state)
{
	tern_status_t status;
	void *msgs;
	size_t len;

	if (!state)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (device_index < 0) {
		status = sim_backend_chosen(SIM_NOT_HERE);
		return status ? status : TERN_ERROR_INVALID_DEVICE;
	}
	memset(state, 0, sizeof(*state));
	status = tern_sim_netlink_dump(DRM_TERN_CMD_DEVICE_GET, device_index,
				       &msgs, &len);
	if (status)
		return status;
	status = sim_state_device(msgs, len, state);
	free(msgs);
	if (status)
		return status;
	status = tern_sim_netlink_dump(DRM_TERN_CMD_CLIENT_GET, device_index,
				       &msgs, &len);
	if (status)
		return status;
	sim_state_clients(msgs, len, state);
	free(msgs);
	return TERN_SUCCESS;
}
