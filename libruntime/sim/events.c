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

TERN_API tern_status_t tern_sim_event_read(int fd, tern_sim_event_t *event,
					   int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int fds[SIM_WIRE_MAX_FDS], ret;
	uint32_t type, len;

	if (fd < 0 || !event || timeout_ms < -1)
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
	ret = sim_wire_recv(fd, &type, event, sizeof(*event), &len, fds);
	for (int i = 0; !ret && i < SIM_WIRE_MAX_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (ret == -ENOTSOCK || ret == -EBADF)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (ret || type != SIM_MSG_EVENT || len != sizeof(*event)) {
		tern_set_last_error("the simulated machine has gone");
		return TERN_ERROR_BACKEND;
	}
	return TERN_SUCCESS;
}
