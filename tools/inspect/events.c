// SPDX-License-Identifier: MIT
/*
 * tern-inspect events: follows tern.ko's "events" netlink multicast group,
 * or without tern.ko the simulated machine's events (the same messages,
 * from the same faults, read by the same parser, snapshot_parse.c), and
 * prints one line (or one JSON object) per event as it arrives: link
 * state changes and errors, memory errors, engine resets, health changes.
 * Only root (CAP_SYS_ADMIN) may join tern.ko's group where the kernel
 * checks; the machine is its user's own. An engine reset names the guilty
 * client by id; on tern.ko its pid, in this process's pid namespace,
 * comes from a CLIENT_GET dump while it is open; the machine sends it.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "cli.h"
#include "family.h"
#include "inspect.h"
#include "print.h"
#include "live.h"
#include "snapshot.h"
#include "text.h"
#include "tern_accel.h"
#include "tern_sim.h"

#define EVENTS_PROG "tern-inspect events"
/* Room for a burst (every link of a fabric going down) without loss. */
#define EVENTS_RCVBUF (1 << 20)
/* events_subscribe(): no tern.ko, so the simulated machine's events. */
#define EVENTS_NO_DRIVER (-2)

struct events_state {
	const struct inspect_options *opts;
	long printed;
	struct family_conn dumps;	/* tern.ko's: the guilty clients' pids */
	bool from_driver;		/* tern.ko's events, not the machine's */
};

static void events_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect events [-n N] [-t SECONDS] [options]\n"
		"Prints the devices' events as they happen, one line each: link state\n"
		"changes and errors, memory errors, engine resets, health changes\n"
		"(tern.ko's, else the simulated machine's).\n"
		"\n"
		"Options:\n"
		"  -n, --count N        exit after N events\n"
		"  -t, --timeout SECS   exit after SECS seconds (status 1 if -n was\n"
		"                       given and fewer events came)\n");
	inspect_print_common_options(out);
}

static const char *const events_kinds[] = {
	[DRM_TERN_CMD_LINK_STATE_NTF] = "link_state",
	[DRM_TERN_CMD_LINK_ERROR_NTF] = "link_error",
	[DRM_TERN_CMD_MEM_ERROR_NTF] = "mem_error",
	[DRM_TERN_CMD_ENGINE_RESET_NTF] = "engine_reset",
	[DRM_TERN_CMD_HEALTH_NTF] = "health",
};

static void events_print_link(struct print *p, const struct snapshot_link *link)
{
	print_u64(p, "link", " link %llu", link->index);
	print_u64(p, "device_a", " dev %llu", link->device_a);
	print_u64(p, "port_a", " port %llu <->", link->port_a);
	print_u64(p, "device_b", " dev %llu", link->device_b);
	print_u64(p, "port_b", " port %llu", link->port_b);
	print_string(p, "state", " %s", link->up ? "up" : "down");
	print_u64(p, "errors", " errors %llu", link->errors);
}

/*
 * A device event: an engine reset names the guilty client by its id, and
 * by its pid where the sender gave one (the simulated machine) or, on
 * tern.ko, a CLIENT_GET dump finds it.
 */
static void events_print_device(struct events_state *state, struct print *p,
				const struct snapshot_device *dev,
				const struct snapshot_extra *extra)
{
	char comm[TEXT_PRINTABLE_MAX];
	uint32_t pid = extra->guilty_pid;

	print_u64(p, "device", " dev %llu", dev->index);
	if (extra->has_mem_error) {
		print_string(p, "error", " %s",
			     extra->mem_error_kind == DRM_TERN_MEM_ERROR_UNCORRECTED ?
			     "uncorrected" : "corrected");
		print_u64(p, "address", " addr 0x%llx", extra->mem_error_addr);
		print_u64(p, "mem_errors_corrected", " corrected %llu",
			  dev->mem_errors_corrected);
		print_u64(p, "mem_errors_uncorrected", " uncorrected %llu",
			  dev->mem_errors_uncorrected);
	}
	if (extra->engine >= 0) {
		if (!pid && extra->guilty_client_id && state->from_driver)
			pid = snapshot_kernel_client_pid(&state->dumps, dev->index,
							 extra->guilty_client_id);
		text_printable(extra->guilty_comm, comm, sizeof(comm));
		print_u64(p, "engine", " engine %llu guilty", (uint64_t)extra->engine);
		print_u64(p, "guilty_client_id",
			  extra->guilty_client_id ? " client %llu" : NULL,
			  extra->guilty_client_id);
		print_u64(p, "guilty_pid", pid ? " pid %llu" : NULL, pid);
		print_string(p, "guilty_comm", NULL,
			     extra->has_guilty_comm ? comm : "");
		print_string(p, NULL, " (%s)", extra->has_guilty_comm ? comm : "?");
		print_u64(p, "resets", " resets %llu",
			  extra->engine_values.resets);
	}
	if (dev->health_given)
		print_string(p, "health", " health %s",
			     tern_health_name(dev->health));
	if (extra->has_reasons)
		print_reasons(p, "health_reasons",
			      dev->health_reasons ? " (%s)" : NULL,
			      dev->health_reasons);
}

/*
 * One event, whichever source sent it, read by the one parser: one line,
 * or one JSON document, written once for both.
 */
static void events_handle(struct events_state *state, struct nlmsghdr *nlh)
{
	uint8_t cmd = genlmsg_hdr(nlh)->cmd;
	bool is_link = cmd == DRM_TERN_CMD_LINK_STATE_NTF ||
		       cmd == DRM_TERN_CMD_LINK_ERROR_NTF;
	struct snapshot_extra extra;
	struct snapshot_device dev;
	struct snapshot_link link;
	struct print p;
	char time[40];
	int err;

	if (cmd >= sizeof(events_kinds) / sizeof(events_kinds[0]) ||
	    !events_kinds[cmd])
		return;	/* a newer sender's event: not ours to name */
	err = is_link ? snapshot_parse_link(nlh, &link) :
			snapshot_parse_device(nlh, &dev, &extra);
	if (err < 0) {
		fprintf(stderr, EVENTS_PROG ": skipped a malformed %s event: %s\n",
			events_kinds[cmd], snapshot_error(err));
		return;
	}
	live_timestamp(time, sizeof(time));
	print_begin(&p, state->opts, NULL);
	print_string(&p, "time", "%s ", time);
	print_string(&p, "kind", "%s", events_kinds[cmd]);
	if (is_link)
		events_print_link(&p, &link);
	else
		events_print_device(state, &p, &dev, &extra);
	if (!is_link)
		snapshot_device_free(&dev);
	print_text(&p, "\n");
	print_end(&p);
	fflush(stdout);
	state->printed++;
}

/* ---- tern.ko: the "events" group of the netlink family ---- */

/* libnl callback: one multicast message, one event. */
static int events_on_message(struct nl_msg *msg, void *arg)
{
	events_handle(arg, nlmsg_hdr(msg));
	return NL_OK;
}

/*
 * Joins "events"; prints why not and returns the exit status on failure,
 * or EVENTS_NO_DRIVER (printing nothing) without tern.ko.
 */
static int events_subscribe(struct nl_sock **sockp)
{
	struct nl_sock *sock = nl_socket_alloc();
	int group, ret;

	*sockp = sock;
	if (!sock || genl_connect(sock) < 0) {
		fprintf(stderr, EVENTS_PROG ": cannot open a generic netlink socket\n");
		return 1;
	}
	group = genl_ctrl_resolve_grp(sock, DRM_TERN_GENL_NAME, DRM_TERN_MCGRP_EVENTS);
	if (group < 0)
		return EVENTS_NO_DRIVER;
	ret = nl_socket_add_membership(sock, group);
	if (ret == -NLE_PERM) {
		fprintf(stderr,
			EVENTS_PROG ": the kernel lets only root (CAP_SYS_ADMIN) follow tern.ko's events: run 'sudo tern-inspect events'\n");
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, EVENTS_PROG ": cannot join the \"%s\" group: %s\n",
			DRM_TERN_MCGRP_EVENTS, nl_geterror(ret));
		return 1;
	}
	/* Events answer no request: any sequence number is theirs. */
	nl_socket_disable_seq_check(sock);
	nl_socket_set_nonblocking(sock);
	nl_socket_set_buffer_size(sock, EVENTS_RCVBUF, 0);
	return 0;
}

static const struct option events_options[] = {
	{ "count", required_argument, NULL, 'n' },
	{ "timeout", required_argument, NULL, 't' },
	INSPECT_SHARED_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int events_parse(int argc, char **argv, struct inspect_options *opts,
			long *count, int64_t *timeout_ms)
{
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+:n:t:jph", events_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (!cli_parse_long(optarg, 1, 1000000000, count)) {
				fprintf(stderr,
					EVENTS_PROG ": -n '%s': expected a number of events, 1-1000000000\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (!live_parse_seconds(optarg, 0.001, 31536000, timeout_ms)) {
				fprintf(stderr,
					EVENTS_PROG ": -t '%s': expected seconds, 0.001-31536000 (e.g. 30 or 2.5)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			events_usage(stdout);
			return -1;
		default:
			if (inspect_shared_option(opt, opts))
				break;
			return inspect_option_error("events", "events", opt,
						    argv);
		}
	}
	if (optind < argc)
		return inspect_extra_argument("events", "events", argv[optind]);
	return 0;
}

/* ---- the simulated machine ---- */

/* Reads what the machine sent on @fd; false once it has gone. */
static bool events_sim_read(struct events_state *state, int fd)
{
	uint8_t msg[TERN_SIM_EVENT_MAX_BYTES];
	uint64_t lost = 0;
	size_t len;
	tern_status_t status = tern_sim_event_read_netlink(fd, msg, sizeof(msg),
							   &len, &lost, 0);

	if (status == TERN_ERROR_TIMEOUT)
		return true;
	if (status) {
		fprintf(stderr, EVENTS_PROG ": %s\n", tern_get_last_error());
		return false;
	}
	if (lost)
		fprintf(stderr,
			EVENTS_PROG ": %llu events were lost: they came faster than they were read\n",
			(unsigned long long)lost);
	if (nlmsg_ok((struct nlmsghdr *)msg, (int)len))
		events_handle(state, (struct nlmsghdr *)msg);
	return true;
}

/* ---- the command ---- */

/* Where the events come from: tern.ko's group, else the machine's. */
struct events_source {
	struct nl_sock *sock;
	int sim_fd;
};

static int events_open(struct events_state *state, struct events_source *src)
{
	tern_backend_reason_t reason;
	tern_backend_t backend;
	tern_status_t status;
	int ret;

	src->sock = NULL;
	src->sim_fd = -1;
	if (tern_get_backend_reason(&backend, &reason))
		return cli_get_backend(EVENTS_PROG, &backend);	/* explains */
	/* tern.ko's group, if it is there, unless TERN_BACKEND=sim. */
	if (backend == TERN_BACKEND_KERNEL ||
	    reason != TERN_BACKEND_REASON_SETTING) {
		ret = events_subscribe(&src->sock);
		if (!ret && nl_socket_modify_cb(src->sock, NL_CB_VALID,
						NL_CB_CUSTOM, events_on_message,
						state) < 0) {
			fprintf(stderr, EVENTS_PROG ": out of memory\n");
			ret = 1;
		}
		state->from_driver = true;
		if (ret != EVENTS_NO_DRIVER)
			return ret;
		state->from_driver = false;
		nl_socket_free(src->sock);
		src->sock = NULL;
		if (reason == TERN_BACKEND_REASON_SETTING) {
			fprintf(stderr,
				EVENTS_PROG ": tern.ko is not loaded (no \"%s\" netlink family): load it with 'sudo tern-inspect module load' (or 'sudo modprobe tern mock_devices=N' for mock devices), or unset TERN_BACKEND to follow the simulator\n",
				DRM_TERN_GENL_NAME);
			return 1;
		}
	}
	status = tern_sim_events_open(&src->sim_fd);
	if (status) {
		fprintf(stderr, EVENTS_PROG ": following the simulated machine: %s (%s)\n",
			tern_get_last_error(), tern_status_name(status));
		return 1;
	}
	return 0;
}

static void events_close(struct events_state *state, struct events_source *src)
{
	nl_socket_free(src->sock);
	if (src->sim_fd >= 0)
		close(src->sim_fd);
	family_close(&state->dumps);
}

/* Reads what came; false when the source has ended. */
static bool events_receive(struct events_state *state,
			   struct events_source *src)
{
	int ret;

	if (src->sim_fd >= 0)
		return events_sim_read(state, src->sim_fd);
	ret = nl_recvmsgs_default(src->sock);
	if (ret == -NLE_NOMEM)
		fprintf(stderr,
			EVENTS_PROG ": events were lost: the receive buffer overflowed\n");
	else if (ret < 0 && ret != -NLE_AGAIN)
		fprintf(stderr, EVENTS_PROG ": receiving: %s\n",
			nl_geterror(ret));
	return true;
}

static int events_run(int argc, char **argv, struct inspect_options *opts)
{
	struct events_state state = { .opts = opts };
	struct events_source src;
	int64_t timeout_ms = -1, deadline = 0;
	long count = 0;
	int ret;

	ret = events_parse(argc, argv, opts, &count, &timeout_ms);
	if (ret)
		return ret < 0 ? 0 : ret;
	family_init_policies();
	ret = events_open(&state, &src);
	if (ret) {
		events_close(&state, &src);
		return ret;
	}
	if (timeout_ms >= 0)
		deadline = live_now_ms() + timeout_ms;

	while (!count || state.printed < count) {
		struct pollfd pfd = {
			.fd = src.sim_fd >= 0 ? src.sim_fd :
						nl_socket_get_fd(src.sock),
			.events = POLLIN,
		};
		int wait = -1;

		if (timeout_ms >= 0) {
			int64_t left = deadline - live_now_ms();

			if (left <= 0)
				break;
			wait = left > 1000000 ? 1000000 : (int)left;
		}
		ret = poll(&pfd, 1, wait);
		if (ret < 0 && errno != EINTR) {
			fprintf(stderr, EVENTS_PROG ": poll: %s\n", strerror(errno));
			events_close(&state, &src);
			return 1;
		}
		if (ret > 0 && !events_receive(&state, &src)) {
			events_close(&state, &src);
			return 1;
		}
	}
	events_close(&state, &src);
	if (count && state.printed < count) {
		fprintf(stderr,
			EVENTS_PROG ": %ld of the %ld events asked for arrived before the timeout\n",
			state.printed, count);
		return 1;
	}
	return 0;
}

const struct inspect_command inspect_events_command = {
	.name = "events",
	.summary = "follow link, memory, engine and health events",
	.usage = events_usage,
	.run = events_run,
};
