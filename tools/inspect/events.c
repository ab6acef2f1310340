// SPDX-License-Identifier: MIT
/*
 * tern-inspect events: follows tern.ko's "events" netlink multicast group,
 * or without tern.ko the simulated machine's events (the same kinds, from
 * the same faults), and prints one line (or one JSON object) per event as
 * it arrives: link state changes and errors, memory errors, engine
 * resets, health changes. Only root (CAP_SYS_ADMIN) may join tern.ko's
 * group where the kernel checks; the machine is its user's own. An engine
 * reset names the guilty client by id; on tern.ko its pid, in this
 * process's pid namespace, comes from a CLIENT_GET dump while it is open.
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

#define EVENTS_PROG "tern-inspect events"
/* Room for a burst (every link of a fabric going down) without loss. */
#define EVENTS_RCVBUF (1 << 20)
/* events_subscribe(): no tern.ko, so the simulated machine's events. */
#define EVENTS_NO_DRIVER (-2)

/*
 * One event, whichever source it came from: the fields tern.ko's events
 * carry, each with whether it came (an older module may leave some out).
 */
struct events_event {
	const char *kind;
	bool is_link;
	uint64_t link, device_a, port_a, device_b, port_b, link_errors;
	bool link_up;
	uint64_t device;
	bool has_mem_error, mem_uncorrected;
	uint64_t mem_address, mem_corrected_count, mem_uncorrected_count;
	bool has_engine;
	uint64_t engine, resets;
	bool has_comm;
	char comm[TEXT_PRINTABLE_MAX];
	bool has_health, has_reasons;
	enum snapshot_health health;
	uint32_t reasons;
};

struct events_state {
	const struct inspect_options *opts;
	long printed;
	struct family_conn dumps;	/* for the guilty clients' pids */
};

/* Who an engine reset failed, the client, its pid here. */
struct events_guilty {
	uint64_t client_id;	/* 0 from a tern.ko that sends a pid instead */
	uint32_t pid;		/* 0 when not known */
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

/* One line, or one JSON document, per event: written once for both. */
static void events_print(struct events_state *state,
			 const struct events_event *ev,
			 const struct events_guilty *guilty)
{
	struct print p;
	char time[40];

	live_timestamp(time, sizeof(time));
	print_begin(&p, state->opts, NULL);
	print_string(&p, "time", "%s ", time);
	print_string(&p, "kind", "%s", ev->kind);
	if (ev->is_link) {
		print_u64(&p, "link", " link %llu", ev->link);
		print_u64(&p, "device_a", " dev %llu", ev->device_a);
		print_u64(&p, "port_a", " port %llu <->", ev->port_a);
		print_u64(&p, "device_b", " dev %llu", ev->device_b);
		print_u64(&p, "port_b", " port %llu", ev->port_b);
		print_string(&p, "state", " %s", ev->link_up ? "up" : "down");
		print_u64(&p, "errors", " errors %llu", ev->link_errors);
	} else {
		print_u64(&p, "device", " dev %llu", ev->device);
	}
	if (ev->has_mem_error) {
		print_string(&p, "error", " %s",
			     ev->mem_uncorrected ? "uncorrected" : "corrected");
		print_u64(&p, "address", " addr 0x%llx", ev->mem_address);
		print_u64(&p, "mem_errors_corrected", " corrected %llu",
			  ev->mem_corrected_count);
		print_u64(&p, "mem_errors_uncorrected", " uncorrected %llu",
			  ev->mem_uncorrected_count);
	}
	if (ev->has_engine) {
		print_u64(&p, "engine", " engine %llu guilty", ev->engine);
		print_u64(&p, "guilty_client_id",
			  guilty->client_id ? " client %llu" : NULL,
			  guilty->client_id);
		print_u64(&p, "guilty_pid", guilty->pid ? " pid %llu" : NULL,
			  guilty->pid);
		print_string(&p, "guilty_comm", NULL,
			     ev->has_comm ? ev->comm : "");
		print_string(&p, NULL, " (%s)", ev->has_comm ? ev->comm : "?");
		print_u64(&p, "resets", " resets %llu", ev->resets);
	}
	if (ev->has_health)
		print_string(&p, "health", " health %s",
			     snapshot_health_name(ev->health));
	if (ev->has_reasons)
		print_reasons(&p, "health_reasons", ev->reasons ? " (%s)" : NULL,
			      ev->reasons);
	print_text(&p, "\n");
	print_end(&p);
	fflush(stdout);
	state->printed++;
}

/* ---- tern.ko: the "events" group of the netlink family ---- */

static uint64_t events_u64(struct nlattr **tb, int attr)
{
	if (!tb[attr])
		return 0;
	return nla_len(tb[attr]) == 8 ? nla_get_u64(tb[attr]) :
					nla_get_u32(tb[attr]);
}

static void events_from_link(struct events_event *ev, struct nlattr **link)
{
	ev->is_link = true;
	ev->link = events_u64(link, DRM_TERN_A_LINK_INDEX);
	ev->device_a = events_u64(link, DRM_TERN_A_LINK_DEVICE_A);
	ev->port_a = events_u64(link, DRM_TERN_A_LINK_PORT_A);
	ev->device_b = events_u64(link, DRM_TERN_A_LINK_DEVICE_B);
	ev->port_b = events_u64(link, DRM_TERN_A_LINK_PORT_B);
	ev->link_up = events_u64(link, DRM_TERN_A_LINK_STATE) == DRM_TERN_PORT_UP;
	ev->link_errors = events_u64(link, DRM_TERN_A_LINK_ERRORS);
}

/*
 * A device event; an engine reset names the guilty client by its id, with
 * its pid from CLIENT_GET (an older tern.ko sent a pid and no id).
 */
static void events_from_device(struct events_state *state,
			       struct events_event *ev, struct nlattr **dev,
			       struct nlattr **e, struct events_guilty *guilty)
{
	ev->device = events_u64(dev, DRM_TERN_A_DEV_INDEX);
	if (dev[DRM_TERN_A_DEV_MEM_ERROR_KIND]) {
		ev->has_mem_error = true;
		ev->mem_uncorrected = events_u64(dev, DRM_TERN_A_DEV_MEM_ERROR_KIND) ==
				      DRM_TERN_MEM_ERROR_UNCORRECTED;
		ev->mem_address = events_u64(dev, DRM_TERN_A_DEV_MEM_ERROR_ADDR);
		ev->mem_corrected_count =
			events_u64(dev, DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED);
		ev->mem_uncorrected_count =
			events_u64(dev, DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED);
	}
	if (e[DRM_TERN_A_ENGINE_INDEX]) {
		ev->has_engine = true;
		ev->engine = events_u64(e, DRM_TERN_A_ENGINE_INDEX);
		ev->resets = events_u64(e, DRM_TERN_A_ENGINE_RESETS);
		ev->has_comm = e[DRM_TERN_A_ENGINE_GUILTY_COMM] != NULL;
		if (ev->has_comm)
			text_printable(nla_get_string(e[DRM_TERN_A_ENGINE_GUILTY_COMM]),
				       ev->comm, sizeof(ev->comm));
		guilty->client_id = events_u64(e, DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID);
		guilty->pid = (uint32_t)events_u64(e, DRM_TERN_A_ENGINE_GUILTY_PID);
		if (guilty->client_id)
			guilty->pid = snapshot_kernel_client_pid(&state->dumps,
								 (uint32_t)ev->device,
								 guilty->client_id);
	}
	ev->has_health = dev[DRM_TERN_A_DEV_HEALTH] != NULL;
	ev->health = (enum snapshot_health)events_u64(dev, DRM_TERN_A_DEV_HEALTH);
	ev->has_reasons = dev[DRM_TERN_A_DEV_HEALTH_REASONS] != NULL;
	ev->reasons = (uint32_t)events_u64(dev, DRM_TERN_A_DEV_HEALTH_REASONS);
}

/* libnl callback: one multicast message, one event. */
static int events_on_message(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct events_state *state = arg;
	struct events_guilty guilty = { 0 };
	struct nlattr *link[DRM_TERN_A_LINK_MAX + 1] = { 0 };
	struct nlattr *dev[DRM_TERN_A_DEV_MAX + 1] = { 0 };
	struct nlattr *engine[DRM_TERN_A_ENGINE_MAX + 1] = { 0 };
	struct events_event ev = { 0 };
	bool is_link = false;
	int err = 0;

	switch (genlmsg_hdr(nlh)->cmd) {
	case DRM_TERN_CMD_LINK_STATE_NTF:
		ev.kind = "link_state";
		is_link = true;
		break;
	case DRM_TERN_CMD_LINK_ERROR_NTF:
		ev.kind = "link_error";
		is_link = true;
		break;
	case DRM_TERN_CMD_MEM_ERROR_NTF:
		ev.kind = "mem_error";
		break;
	case DRM_TERN_CMD_ENGINE_RESET_NTF:
		ev.kind = "engine_reset";
		break;
	case DRM_TERN_CMD_HEALTH_NTF:
		ev.kind = "health";
		break;
	default:
		return NL_SKIP;	/* a newer module's event: not ours to name */
	}
	if (is_link)
		err = genlmsg_parse(nlh, 0, link, DRM_TERN_A_LINK_MAX,
				    family_link_policy);
	if (!err && !link[DRM_TERN_A_LINK_INDEX]) {
		err = genlmsg_parse(nlh, 0, dev, DRM_TERN_A_DEV_MAX,
				    family_device_policy);
		if (!err && dev[DRM_TERN_A_DEV_ENGINE])
			err = nla_parse_nested(engine, DRM_TERN_A_ENGINE_MAX,
					       dev[DRM_TERN_A_DEV_ENGINE],
					       family_engine_policy);
	}
	if (err < 0) {
		fprintf(stderr, EVENTS_PROG ": skipped a malformed %s event: %s\n",
			ev.kind, nl_geterror(err));
		return NL_SKIP;
	}
	if (link[DRM_TERN_A_LINK_INDEX])
		events_from_link(&ev, link);
	else
		events_from_device(state, &ev, dev, engine, &guilty);
	events_print(state, &ev, &guilty);
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

static const char *const events_sim_kinds[] = {
	[TERN_SIM_EVENT_LINK_STATE] = "link_state",
	[TERN_SIM_EVENT_LINK_ERROR] = "link_error",
	[TERN_SIM_EVENT_MEM_ERROR] = "mem_error",
	[TERN_SIM_EVENT_ENGINE_RESET] = "engine_reset",
	[TERN_SIM_EVENT_HEALTH] = "health",
};

/* The machine's event, as tern.ko would have sent it. */
static void events_from_sim(const tern_sim_event_t *in,
			    struct events_event *ev,
			    struct events_guilty *guilty)
{
	char comm[sizeof(in->guilty_comm) + 1];

	ev->kind = events_sim_kinds[in->kind];
	if (in->kind == TERN_SIM_EVENT_LINK_STATE ||
	    in->kind == TERN_SIM_EVENT_LINK_ERROR) {
		ev->is_link = true;
		ev->link = in->link;
		ev->device_a = in->device_a;
		ev->port_a = in->port_a;
		ev->device_b = in->device_b;
		ev->port_b = in->port_b;
		ev->link_up = in->link_up != 0;
		ev->link_errors = in->link_errors;
		return;
	}
	ev->device = in->device;
	if (in->kind == TERN_SIM_EVENT_MEM_ERROR) {
		ev->has_mem_error = true;
		ev->mem_uncorrected = in->mem_uncorrectable != 0;
		ev->mem_address = in->mem_address;
		ev->mem_corrected_count = in->mem_errors_corrected;
		ev->mem_uncorrected_count = in->mem_errors_uncorrected;
	}
	if (in->kind == TERN_SIM_EVENT_ENGINE_RESET) {
		ev->has_engine = true;
		ev->engine = in->engine;
		ev->resets = in->engine_resets;
		ev->has_comm = true;
		memcpy(comm, in->guilty_comm, sizeof(in->guilty_comm));
		comm[sizeof(in->guilty_comm)] = '\0';
		text_printable(comm, ev->comm, sizeof(ev->comm));
		guilty->client_id = in->guilty_client_id;
		guilty->pid = in->guilty_pid > 0 ? (uint32_t)in->guilty_pid : 0;
	}
	ev->has_health = ev->has_reasons = true;
	ev->reasons = in->health_reasons;
	ev->health = snapshot_health_of(in->health_reasons);
}

/* Reads what the machine sent on @fd; false once it has gone. */
static bool events_sim_read(struct events_state *state, int fd)
{
	struct events_guilty guilty = { 0 };
	struct events_event ev = { 0 };
	tern_sim_event_t in;
	tern_status_t status = tern_sim_event_read(fd, &in, 0);

	if (status == TERN_ERROR_TIMEOUT)
		return true;
	if (status) {
		fprintf(stderr, EVENTS_PROG ": %s\n", tern_get_last_error());
		return false;
	}
	if (in.lost)
		fprintf(stderr,
			EVENTS_PROG ": %llu events were lost: they came faster than they were read\n",
			(unsigned long long)in.lost);
	if (in.kind < TERN_SIM_EVENT_LINK_STATE ||
	    in.kind > TERN_SIM_EVENT_HEALTH)
		return true;	/* a newer machine's event */
	events_from_sim(&in, &ev, &guilty);
	events_print(state, &ev, &guilty);
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
	const char *forced = getenv("TERN_BACKEND");
	tern_backend_t backend;
	tern_status_t status;
	int ret;

	src->sock = NULL;
	src->sim_fd = -1;
	if (forced && *forced && strcmp(forced, "kernel") != 0 &&
	    strcmp(forced, "sim") != 0)
		return cli_get_backend(EVENTS_PROG, &backend);	/* explains */
	if (!forced || strcmp(forced, "sim") != 0) {
		ret = events_subscribe(&src->sock);
		if (!ret && nl_socket_modify_cb(src->sock, NL_CB_VALID,
						NL_CB_CUSTOM, events_on_message,
						state) < 0) {
			fprintf(stderr, EVENTS_PROG ": out of memory\n");
			ret = 1;
		}
		if (ret != EVENTS_NO_DRIVER)
			return ret;
		nl_socket_free(src->sock);
		src->sock = NULL;
		if (forced && strcmp(forced, "kernel") == 0) {
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
