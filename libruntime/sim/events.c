// SPDX-License-Identifier: MIT
/*
 * Following the simulated machine's events (tern-inspect events): a
 * connection of its own, to the machine the TERN_SIM_* settings name,
 * started as any process's first use starts it, that asks for EVENTS and
 * then only reads. The machine sends without waiting (simd/event.c):
 * a follower too slow to read misses events and is told how many.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "netlink.h"
#include "sim.h"

TERN_API tern_status_t tern_sim_events_open(int *fd)
{
	struct sim_settings s;
	struct sim_conn conn;
	struct sim_reply reply;
	tern_status_t status;
	int fds[SIM_WIRE_MAX_FDS], ret;
	uint32_t type, len;

	if (!fd)
		return TERN_ERROR_INVALID_ARGUMENT;
	*fd = -1;
	status = sim_settings_read(&s);
	if (!status)
		status = sim_connect(&s, true, false, &conn);
	if (status)
		return status;
	ret = sim_wire_send(conn.sock, SIM_MSG_EVENTS, NULL, 0, NULL, 0, NULL,
			    0);
	if (!ret)
		ret = sim_wire_recv(conn.sock, &type, &reply, sizeof(reply),
				    &len, fds);
	if (ret || type != SIM_MSG_REPLY || len != sizeof(reply) ||
	    reply.status) {
		tern_set_last_error("the simulated machine '%s' would not send "
				    "its events", s.name);
		sim_disconnect(&conn);
		return TERN_ERROR_BACKEND;
	}
	/* The socket is the caller's now; the fence table goes unused. */
	*fd = conn.sock;
	conn.sock = -1;
	sim_disconnect(&conn);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_sim_event_read_netlink(int fd, void *msg,
						  size_t capacity, size_t *len,
						  uint64_t *lost, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct {
		struct sim_event head;
		uint8_t msg[SIM_EVENT_MAX];
	} event;
	int fds[SIM_WIRE_MAX_FDS], ret;
	uint32_t type, got;

	if (fd < 0 || !msg || !len || capacity < SIM_EVENT_MAX ||
	    timeout_ms < -1)
		return TERN_ERROR_INVALID_ARGUMENT;
	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return errno == EBADF || errno == EINVAL ?
		       TERN_ERROR_INVALID_ARGUMENT : TERN_ERROR_BACKEND;
	if (ret == 0)
		return TERN_ERROR_TIMEOUT;
	if (pfd.revents & POLLNVAL)
		return TERN_ERROR_INVALID_ARGUMENT;
	ret = sim_wire_recv(fd, &type, &event, sizeof(event), &got, fds);
	for (int i = 0; !ret && i < SIM_WIRE_MAX_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (ret == -ENOTSOCK || ret == -EBADF)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (ret || type != SIM_MSG_EVENT || got < sizeof(event.head)) {
		tern_set_last_error("the simulated machine has gone");
		return TERN_ERROR_BACKEND;
	}
	got -= sizeof(event.head);
	memcpy(msg, event.msg, got);
	*len = got;
	if (lost)
		*lost = event.head.lost;
	return TERN_SUCCESS;
}

/* A link event's attributes, into @event. */
static void sim_event_link(const struct sim_nl_msg *msg,
			   tern_sim_event_t *event)
{
	struct tern_state_link link;

	memset(&link, 0, sizeof(link));
	sim_nl_get_state(&tern_state_link_set, &link, msg->attrs,
			 msg->attrs_len, 0, NULL, NULL);
	event->link = link.index;
	event->device_a = link.device_a;
	event->port_a = link.port_a;
	event->device_b = link.device_b;
	event->port_b = link.port_b;
	event->link_up = link.state == DRM_TERN_PORT_UP;
	event->link_errors = link.errors;
}

/* An engine reset's nest: the engine, its resets, whose job it failed. */
static void sim_event_engine(void *ctx, const struct sim_nl_attr *nest)
{
	tern_sim_event_t *event = ctx;
	struct tern_state_engine engine;
	struct sim_nl_attr attr;
	uint32_t off = 0;

	memset(&engine, 0, sizeof(engine));
	sim_nl_get_state(&tern_state_engine_set, &engine, nest->data,
			 nest->len, 0, NULL, NULL);
	event->engine = engine.index;
	event->engine_resets = engine.resets;
	while (sim_nl_next_attr(nest->data, nest->len, &off, &attr)) {
		if (attr.type == DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID &&
		    attr.len >= 8)
			memcpy(&event->guilty_client_id, attr.data, 8);
		else if (attr.type == DRM_TERN_A_ENGINE_GUILTY_PID &&
			 attr.len >= 4)
			memcpy(&event->guilty_pid, attr.data, 4);
		else if (attr.type == DRM_TERN_A_ENGINE_GUILTY_COMM && attr.len)
			sim_wire_strcpy(event->guilty_comm,
					(const char *)attr.data,
					attr.len < sizeof(event->guilty_comm) ?
					attr.len : sizeof(event->guilty_comm));
	}
}

/* A device event's attributes, into @event. */
static void sim_event_device(const struct sim_nl_msg *msg,
			     tern_sim_event_t *event)
{
	struct tern_state_device dev;
	struct sim_nl_attr attr;
	uint32_t off = 0;

	memset(&dev, 0, sizeof(dev));
	sim_nl_get_state(&tern_state_device_set, &dev, msg->attrs,
			 msg->attrs_len, DRM_TERN_A_DEV_ENGINE,
			 sim_event_engine, event);
	event->device = dev.index;
	event->health_reasons = dev.health_reasons;
	event->mem_errors_corrected = dev.mem_errors_corrected;
	event->mem_errors_uncorrected = dev.mem_errors_uncorrected;
	while (sim_nl_next_attr(msg->attrs, msg->attrs_len, &off, &attr)) {
		if (attr.type == DRM_TERN_A_DEV_MEM_ERROR_KIND && attr.len >= 4) {
			uint32_t kind;

			memcpy(&kind, attr.data, sizeof(kind));
			event->mem_uncorrectable =
				kind == DRM_TERN_MEM_ERROR_UNCORRECTED;
		}
		else if (attr.type == DRM_TERN_A_DEV_MEM_ERROR_ADDR &&
			 attr.len >= 8)
			memcpy(&event->mem_address, attr.data, 8);
	}
}

TERN_API tern_status_t tern_sim_event_read(int fd, tern_sim_event_t *event,
					   int timeout_ms)
{
	static const uint32_t kinds[] = {
		[DRM_TERN_CMD_LINK_STATE_NTF] = TERN_SIM_EVENT_LINK_STATE,
		[DRM_TERN_CMD_LINK_ERROR_NTF] = TERN_SIM_EVENT_LINK_ERROR,
		[DRM_TERN_CMD_MEM_ERROR_NTF] = TERN_SIM_EVENT_MEM_ERROR,
		[DRM_TERN_CMD_ENGINE_RESET_NTF] = TERN_SIM_EVENT_ENGINE_RESET,
		[DRM_TERN_CMD_HEALTH_NTF] = TERN_SIM_EVENT_HEALTH,
	};
	uint8_t buf[SIM_EVENT_MAX];
	struct sim_nl_msg msg;
	tern_status_t status;
	uint32_t off = 0;
	uint64_t lost;
	size_t len;

	if (!event)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = tern_sim_event_read_netlink(fd, buf, sizeof(buf), &len, &lost,
					     timeout_ms);
	if (status)
		return status;
	memset(event, 0, sizeof(*event));
	event->lost = lost;
	if (!sim_nl_next_msg(buf, (uint32_t)len, &off, &msg))
		return TERN_SUCCESS;	/* kind 0: nothing this knows */
	if (msg.cmd < sizeof(kinds) / sizeof(kinds[0]))
		event->kind = kinds[msg.cmd];
	if (event->kind == TERN_SIM_EVENT_LINK_STATE ||
	    event->kind == TERN_SIM_EVENT_LINK_ERROR)
		sim_event_link(&msg, event);
	else if (event->kind)
		sim_event_device(&msg, event);
	return TERN_SUCCESS;
}
