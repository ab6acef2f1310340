// SPDX-License-Identifier: MIT
/*
 * The simulated machine as an operator sees it: started, stopped and
 * listed by name (tern-inspect sim). Each call is a connection of its own
 * that asks for no shape, so it reaches a machine of any shape, and goes
 * when the call returns; the process's devices, if any, are not touched.
 */
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sim.h"

/* How long a stopped machine may take to go: its jobs end first. */
#define SIM_STOP_WAIT_MS	10000

static void sim_machine_info(const struct sim_settings *s,
			     const struct sim_hello_reply *hello,
			     tern_sim_machine_t *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", s->name);
	info->pid = hello->pid;
	info->device_count = hello->shape.devices;
	info->memory_mb = hello->shape.mem_mb;
	info->job_timeout_ms = hello->shape.job_timeout_ms;
	sim_wire_strcpy(info->topology, hello->shape.topology,
			sizeof(info->topology));
	info->persistent = hello->persistent != 0;
	info->idle_ms = hello->idle_ms;
	info->processes = hello->processes;
	info->started_ns = hello->started_ns;
}

static int sim_machine_cmp(const void *a, const void *b)
{
	return strcmp(((const tern_sim_machine_t *)a)->name,
		      ((const tern_sim_machine_t *)b)->name);
}

/* The settings for machine @name (NULL: TERN_SIM_MACHINE's), any shape. */
static tern_status_t sim_admin_settings(const char *name,
					struct sim_settings *s)
{
	tern_status_t status = sim_settings_read(s);

	if (status)
		return status;
	if (name) {
		if (!sim_name_ok(name)) {
			tern_set_last_error("\"%s\" is not a machine name of "
					    "1-64 letters, digits, '.', '_' or "
					    "'-'", name);
			return TERN_ERROR_INVALID_ARGUMENT;
		}
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->anywhere = false;
	}
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_sim_machine_start(int persistent,
					      tern_sim_machine_t *info,
					      int *started)
{
	struct sim_settings s;
	struct sim_conn conn;
	tern_status_t status;

	if (!started)
		return TERN_ERROR_INVALID_ARGUMENT;
	*started = 0;
	status = sim_admin_settings(NULL, &s);
	if (status)
		return status;
	status = sim_connect(&s, false, false, &conn);
	if (status == TERN_ERROR_NO_DEVICE) {
		status = sim_connect(&s, true, persistent != 0, &conn);
		*started = status == TERN_SUCCESS;
	}
	if (status)
		return status;
	if (info)
		sim_machine_info(&s, &conn.machine, info);
	sim_disconnect(&conn);
	return TERN_SUCCESS;
}

/* Waits for the machine on @sock to close it: it is then gone. */
static bool sim_wait_gone(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLRDHUP };
	char byte;

	while (poll(&pfd, 1, SIM_STOP_WAIT_MS) == 1)
		if (recv(sock, &byte, 1, MSG_DONTWAIT) <= 0)
			return true;
	return false;
}

TERN_API tern_status_t tern_sim_machine_stop(const char *name, int force,
					     tern_sim_machine_t *info)
{
	struct sim_stop req = { .force = force != 0 };
	struct sim_reason_reply reply;
	struct sim_settings s;
	struct sim_conn conn;
	tern_status_t status;
	int fds[SIM_WIRE_MAX_FDS], ret;
	uint32_t type, len;

	status = sim_admin_settings(name, &s);
	if (status)
		return status;
	s.want = 0;
	s.anywhere = false;
	status = sim_connect(&s, false, false, &conn);
	if (status)
		return status;
	if (info)
		sim_machine_info(&s, &conn.machine, info);
	ret = sim_wire_send(conn.sock, SIM_MSG_STOP, &req, sizeof(req), NULL,
			    0, NULL, 0);
	if (!ret)
		ret = sim_wire_recv(conn.sock, &type, &reply, sizeof(reply),
				    &len, fds);
	if (ret || type != SIM_MSG_REPLY || len != sizeof(reply)) {
		status = TERN_ERROR_BACKEND;
		tern_set_last_error("the simulated machine '%s' did not answer "
				    "the request to stop", s.name);
	} else if (reply.r.status) {
		status = (tern_status_t)reply.r.status;
		reply.reason[sizeof(reply.reason) - 1] = '\0';
		tern_set_last_error("the simulated machine '%s' did not stop: "
				    "%s", s.name, reply.reason);
	} else if (!sim_wait_gone(conn.sock)) {
		status = TERN_ERROR_TIMEOUT;
		tern_set_last_error("the simulated machine '%s' (pid %d) was "
				    "told to stop but is still there",
				    s.name, (int)conn.machine.pid);
	}
	sim_disconnect(&conn);
	return status;
}

TERN_API tern_status_t tern_sim_machine_list(tern_sim_machine_t *machines,
					     uint32_t capacity,
					     uint32_t *count)
{
	struct sim_settings s;
	struct dirent *entry;
	tern_status_t status;
	uint32_t n = 0;
	DIR *dir;

	if (!count || (capacity && !machines))
		return TERN_ERROR_INVALID_ARGUMENT;
	*count = 0;
	status = sim_admin_settings(NULL, &s);
	if (status)
		return status;
	dir = opendir(s.dir);
	if (!dir)
		return TERN_SUCCESS;	/* no directory, no machine */
	while ((entry = readdir(dir))) {
		size_t len = strlen(entry->d_name);
		struct sim_conn conn;

		if (len <= 5 || len - 5 >= sizeof(s.name) ||
		    strcmp(entry->d_name + len - 5, ".sock"))
			continue;
		memcpy(s.name, entry->d_name, len - 5);
		s.name[len - 5] = '\0';
		s.want = 0;
		s.anywhere = false;
		if (!sim_name_ok(s.name) || sim_connect(&s, false, false, &conn))
			continue;	/* stale, or not a machine of ours */
		if (n < capacity)
			sim_machine_info(&s, &conn.machine, &machines[n]);
		n++;
		sim_disconnect(&conn);
	}
	closedir(dir);
	qsort(machines, n < capacity ? n : capacity, sizeof(*machines),
	      sim_machine_cmp);
	*count = n;
	return TERN_SUCCESS;
}
