// SPDX-License-Identifier: MIT
/*
 * tern-inspect events: follows tern.ko's "events" netlink multicast group
 * and prints one line (or one JSON object) per event as it arrives: link
 * state changes and errors, memory errors, engine resets, health changes.
 * Only root (CAP_SYS_ADMIN) may join the group where the kernel checks.
 * An engine reset names the guilty client by id; its pid, in this
 * process's pid namespace, comes from a CLIENT_GET dump while it is open.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <string.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "cli.h"
#include "family.h"
#include "inspect.h"
#include "json.h"
#include "live.h"
#include "snapshot.h"
#include "text.h"
#include "tern_accel.h"

#define EVENTS_PROG "tern-inspect events"
/* Room for a burst (every link of a fabric going down) without loss. */
#define EVENTS_RCVBUF (1 << 20)

/* One event, whichever attribute set it came with. */
struct events_event {
	const char *kind;
	struct nlattr *dev[TERN_A_DEV_MAX + 1];
	struct nlattr *link[TERN_A_LINK_MAX + 1];
	struct nlattr *engine[TERN_A_ENGINE_MAX + 1];
};

struct events_state {
	const struct inspect_options *opts;
	long printed;
	struct family_conn dumps;	/* for the guilty clients' pids */
};

/* Who an engine reset failed: the client, its pid here, its command. */
struct events_guilty {
	uint64_t client_id;	/* 0 from a tern.ko that sends a pid instead */
	uint32_t pid;		/* 0 when not known */
};

static void events_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect events [-n N] [-t SECONDS] [options]\n"
		"Prints tern.ko's events as they happen, one line each: link state\n"
		"changes and errors, memory errors, engine resets, health changes.\n"
		"\n"
		"Options:\n"
		"  -n, --count N        exit after N events\n"
		"  -t, --timeout SECS   exit after SECS seconds (status 1 if -n was\n"
		"                       given and fewer events came)\n");
	inspect_print_common_options(out);
}

static uint64_t events_u64(struct nlattr **tb, int attr)
{
	if (!tb[attr])
		return 0;
	return nla_len(tb[attr]) == 8 ? nla_get_u64(tb[attr]) :
					nla_get_u32(tb[attr]);
}

static const char *events_string(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_string(tb[attr]) : "";
}

static const char *events_health(struct nlattr **dev)
{
	return snapshot_health_name((enum snapshot_health)
				    events_u64(dev, TERN_A_DEV_HEALTH));
}

/*
 * The guilty client of engine reset @e on device @device: by its id, with
 * its pid from CLIENT_GET; an older tern.ko sent a pid and no id.
 */
static void events_find_guilty(struct events_state *state, struct nlattr **e,
			       uint32_t device, struct events_guilty *guilty)
{
	guilty->client_id = events_u64(e, TERN_A_ENGINE_GUILTY_CLIENT_ID);
	guilty->pid = (uint32_t)events_u64(e, TERN_A_ENGINE_GUILTY_PID);
	if (guilty->client_id)
		guilty->pid = snapshot_kernel_client_pid(&state->dumps, device,
							 guilty->client_id);
}

static void events_print_plain(struct events_event *ev, const char *time,
			       const struct events_guilty *guilty)
{
	struct nlattr **link = ev->link, **dev = ev->dev, **e = ev->engine;
	char reasons[128], comm[TEXT_PRINTABLE_MAX];

	printf("%s %s", time, ev->kind);
	if (link[TERN_A_LINK_INDEX]) {
		printf(" link %llu dev %llu port %llu <-> dev %llu port %llu",
		       (unsigned long long)events_u64(link, TERN_A_LINK_INDEX),
		       (unsigned long long)events_u64(link, TERN_A_LINK_DEVICE_A),
		       (unsigned long long)events_u64(link, TERN_A_LINK_PORT_A),
		       (unsigned long long)events_u64(link, TERN_A_LINK_DEVICE_B),
		       (unsigned long long)events_u64(link, TERN_A_LINK_PORT_B));
		printf(" %s errors %llu\n",
		       events_u64(link, TERN_A_LINK_STATE) == TERN_PORT_UP ?
		       "up" : "down",
		       (unsigned long long)events_u64(link, TERN_A_LINK_ERRORS));
		return;
	}
	printf(" dev %llu", (unsigned long long)events_u64(dev,
							   TERN_A_DEV_INDEX));
	if (dev[TERN_A_DEV_MEM_ERROR_KIND])
		printf(" %s addr 0x%llx corrected %llu uncorrected %llu",
		       events_u64(dev, TERN_A_DEV_MEM_ERROR_KIND) ==
		       TERN_MEM_ERROR_UNCORRECTED ? "uncorrected" : "corrected",
		       (unsigned long long)events_u64(dev, TERN_A_DEV_MEM_ERROR_ADDR),
		       (unsigned long long)events_u64(dev, TERN_A_DEV_MEM_ERRORS_CORRECTED),
		       (unsigned long long)events_u64(dev, TERN_A_DEV_MEM_ERRORS_UNCORRECTED));
	if (e[TERN_A_ENGINE_INDEX]) {
		printf(" engine %llu guilty",
		       (unsigned long long)events_u64(e, TERN_A_ENGINE_INDEX));
		if (guilty->client_id)
			printf(" client %llu",
			       (unsigned long long)guilty->client_id);
		if (guilty->pid)
			printf(" pid %u", guilty->pid);
		printf(" (%s) resets %llu",
		       e[TERN_A_ENGINE_GUILTY_COMM] ?
		       text_printable(events_string(e, TERN_A_ENGINE_GUILTY_COMM),
				      comm, sizeof(comm)) : "?",
		       (unsigned long long)events_u64(e, TERN_A_ENGINE_RESETS));
	}
	if (dev[TERN_A_DEV_HEALTH])
		printf(" health %s", events_health(dev));
	if (dev[TERN_A_DEV_HEALTH_REASONS]) {
		snapshot_health_reasons((uint32_t)events_u64(dev,
							     TERN_A_DEV_HEALTH_REASONS),
					reasons, sizeof(reasons));
		if (reasons[0])
			printf(" (%s)", reasons);
	}
	putchar('\n');
}

static void events_print_json(struct events_event *ev, const char *time,
			      const struct events_guilty *guilty, bool pretty)
{
	struct nlattr **link = ev->link, **dev = ev->dev, **e = ev->engine;
	uint32_t bits = (uint32_t)events_u64(dev, TERN_A_DEV_HEALTH_REASONS);
	struct json_writer w;

	json_init(&w, stdout, pretty);
	json_object_begin(&w, NULL);
	json_u64(&w, "schema_version", INSPECT_SCHEMA_VERSION);
	json_string(&w, "time", time);
	json_string(&w, "kind", ev->kind);
	if (link[TERN_A_LINK_INDEX]) {
		json_u64(&w, "link", events_u64(link, TERN_A_LINK_INDEX));
		json_u64(&w, "device_a", events_u64(link, TERN_A_LINK_DEVICE_A));
		json_u64(&w, "port_a", events_u64(link, TERN_A_LINK_PORT_A));
		json_u64(&w, "device_b", events_u64(link, TERN_A_LINK_DEVICE_B));
		json_u64(&w, "port_b", events_u64(link, TERN_A_LINK_PORT_B));
		json_string(&w, "state",
			    events_u64(link, TERN_A_LINK_STATE) == TERN_PORT_UP ?
			    "up" : "down");
		json_u64(&w, "errors", events_u64(link, TERN_A_LINK_ERRORS));
	} else {
		json_u64(&w, "device", events_u64(dev, TERN_A_DEV_INDEX));
	}
	if (dev[TERN_A_DEV_MEM_ERROR_KIND]) {
		json_string(&w, "error",
			    events_u64(dev, TERN_A_DEV_MEM_ERROR_KIND) ==
			    TERN_MEM_ERROR_UNCORRECTED ? "uncorrected" : "corrected");
		json_u64(&w, "address", events_u64(dev, TERN_A_DEV_MEM_ERROR_ADDR));
		json_u64(&w, "mem_errors_corrected",
			 events_u64(dev, TERN_A_DEV_MEM_ERRORS_CORRECTED));
		json_u64(&w, "mem_errors_uncorrected",
			 events_u64(dev, TERN_A_DEV_MEM_ERRORS_UNCORRECTED));
	}
	if (e[TERN_A_ENGINE_INDEX]) {
		json_u64(&w, "engine", events_u64(e, TERN_A_ENGINE_INDEX));
		json_u64(&w, "guilty_pid", guilty->pid);
		json_string(&w, "guilty_comm",
			    events_string(e, TERN_A_ENGINE_GUILTY_COMM));
		json_u64(&w, "guilty_client_id", guilty->client_id);
		json_u64(&w, "resets", events_u64(e, TERN_A_ENGINE_RESETS));
	}
	if (dev[TERN_A_DEV_HEALTH])
		json_string(&w, "health", events_health(dev));
	if (dev[TERN_A_DEV_HEALTH_REASONS])
		inspect_json_reasons(&w, "health_reasons", bits);
	json_object_end(&w);
	json_finish(&w);
}

/* libnl callback: one multicast message, one event. */
static int events_on_message(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct events_state *state = arg;
	struct events_guilty guilty = { 0 };
	struct events_event ev;
	char time[40];
	int err = 0;

	memset(&ev, 0, sizeof(ev));
	switch (genlmsg_hdr(nlh)->cmd) {
	case TERN_CMD_LINK_STATE_NTF:
		ev.kind = "link_state";
		err = genlmsg_parse(nlh, 0, ev.link, TERN_A_LINK_MAX,
				    family_link_policy);
		break;
	case TERN_CMD_LINK_ERROR_NTF:
		ev.kind = "link_error";
		err = genlmsg_parse(nlh, 0, ev.link, TERN_A_LINK_MAX,
				    family_link_policy);
		break;
	case TERN_CMD_MEM_ERROR_NTF:
		ev.kind = "mem_error";
		break;
	case TERN_CMD_ENGINE_RESET_NTF:
		ev.kind = "engine_reset";
		break;
	case TERN_CMD_HEALTH_NTF:
		ev.kind = "health";
		break;
	default:
		return NL_SKIP;	/* a newer module's event: not ours to name */
	}
	if (!ev.link[TERN_A_LINK_INDEX] && !err) {
		err = genlmsg_parse(nlh, 0, ev.dev, TERN_A_DEV_MAX,
				    family_device_policy);
		if (!err && ev.dev[TERN_A_DEV_ENGINE])
			err = nla_parse_nested(ev.engine, TERN_A_ENGINE_MAX,
					       ev.dev[TERN_A_DEV_ENGINE],
					       family_engine_policy);
	}
	if (err < 0) {
		fprintf(stderr, EVENTS_PROG ": skipped a malformed %s event: %s\n",
			ev.kind, nl_geterror(err));
		return NL_SKIP;
	}
	live_timestamp(time, sizeof(time));
	if (ev.engine[TERN_A_ENGINE_INDEX])
		events_find_guilty(state, ev.engine,
				   (uint32_t)events_u64(ev.dev, TERN_A_DEV_INDEX),
				   &guilty);
	if (state->opts->json)
		events_print_json(&ev, time, &guilty, state->opts->pretty);
	else
		events_print_plain(&ev, time, &guilty);
	fflush(stdout);
	state->printed++;
	return NL_OK;
}

/* Joins "events"; prints why not and returns the exit status on failure. */
static int events_subscribe(struct nl_sock **sockp)
{
	struct nl_sock *sock = nl_socket_alloc();
	int group, ret;

	*sockp = sock;
	if (!sock || genl_connect(sock) < 0) {
		fprintf(stderr, EVENTS_PROG ": cannot open a generic netlink socket\n");
		return 1;
	}
	group = genl_ctrl_resolve_grp(sock, TERN_GENL_NAME, TERN_MCGRP_EVENTS);
	if (group < 0) {
		fprintf(stderr,
			EVENTS_PROG ": tern.ko is not loaded (no \"%s\" netlink family): load it with 'sudo tern-inspect module load' (or 'sudo modprobe tern mock_devices=N' for mock devices)\n",
			TERN_GENL_NAME);
		return 1;
	}
	ret = nl_socket_add_membership(sock, group);
	if (ret == -NLE_PERM) {
		fprintf(stderr,
			EVENTS_PROG ": the kernel lets only root (CAP_SYS_ADMIN) follow tern.ko's events: run 'sudo tern-inspect events'\n");
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, EVENTS_PROG ": cannot join the \"%s\" group: %s\n",
			TERN_MCGRP_EVENTS, nl_geterror(ret));
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

static int events_run(int argc, char **argv, struct inspect_options *opts)
{
	struct events_state state = { .opts = opts };
	int64_t timeout_ms = -1, deadline = 0;
	struct nl_sock *sock;
	long count = 0;
	int ret;

	ret = events_parse(argc, argv, opts, &count, &timeout_ms);
	if (ret)
		return ret < 0 ? 0 : ret;
	family_init_policies();
	ret = events_subscribe(&sock);
	if (!ret && nl_socket_modify_cb(sock, NL_CB_VALID, NL_CB_CUSTOM,
					events_on_message, &state) < 0) {
		fprintf(stderr, EVENTS_PROG ": out of memory\n");
		ret = 1;
	}
	if (ret) {
		nl_socket_free(sock);
		return ret;
	}
	if (timeout_ms >= 0)
		deadline = live_now_ms() + timeout_ms;

	while (!count || state.printed < count) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(sock), .events = POLLIN };
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
			nl_socket_free(sock);
			family_close(&state.dumps);
			return 1;
		}
		if (ret <= 0)
			continue;
		ret = nl_recvmsgs_default(sock);
		if (ret == -NLE_NOMEM)
			fprintf(stderr,
				EVENTS_PROG ": events were lost: the receive buffer overflowed\n");
		else if (ret < 0 && ret != -NLE_AGAIN)
			fprintf(stderr, EVENTS_PROG ": receiving: %s\n",
				nl_geterror(ret));
	}
	nl_socket_free(sock);
	family_close(&state.dumps);
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
