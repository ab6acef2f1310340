// SPDX-License-Identifier: MIT
/*
 * The racer: while the workers run, it writes the mock hardware's fault
 * knobs in debugfs (fabric_link, mem_error, engine_hang, and now and then
 * nonsense), clears health in sysfs, reads every debugfs and sysfs file
 * of the devices, dumps the "tern" netlink family's devices, links and
 * clients (with filters that match and ones that do not, and requests the
 * family must refuse) and drains its events group. At the end it brings
 * every link up again.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "fuzz.h"

#define MAX_PATHS	2048
#define PATH_BYTES	160
/* Pause between two actions: a modest rate, not a flood. */
#define PAUSE_MIN_MS	5
#define PAUSE_MAX_MS	30

struct paths {
	char (*path)[PATH_BYTES];
	unsigned int count;
};

struct racer {
	struct rng rng;
	struct fuzz_shared *shared;
	bool faults;
	struct paths debugfs_dirs;	/* the devices' DRM debugfs directories */
	struct paths debugfs_files;	/* every file in them */
	struct paths sysfs_files;	/* every attribute of tern.N/tern/, ports' too */
	struct paths health_clear;
	unsigned int devices, ports, engines;
	uint64_t mem_size;
	struct nl_sock *sock, *events;
	int family;
};

static void paths_add(struct paths *p, const char *path)
{
	if (p->count < MAX_PATHS)
		snprintf(p->path[p->count++], PATH_BYTES, "%s", path);
}

/* Regular files matching @pattern (or their directories, @dirs). */
static void paths_glob(struct paths *p, const char *pattern, bool dirs)
{
	glob_t g;
	struct stat st;

	if (glob(pattern, 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (dirs) {
			char *slash = strrchr(g.gl_pathv[i], '/');

			*slash = '\0';
			paths_add(p, g.gl_pathv[i]);
		} else if (!stat(g.gl_pathv[i], &st) && S_ISREG(st.st_mode)) {
			paths_add(p, g.gl_pathv[i]);
		}
	}
	globfree(&g);
}

static const char *pick(struct racer *r, const struct paths *p)
{
	return p->count ? p->path[rng_below(&r->rng, p->count)] : NULL;
}

static uint64_t read_number(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return strtoull(buf, NULL, 0);
}

static int write_text(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, len) < 0)
		err = errno;
	close(fd);
	return err;
}

static int read_all(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = errno;
	close(fd);
	return err;
}

static void discover(struct racer *r)
{
	struct paths *all[] = { &r->debugfs_dirs, &r->debugfs_files,
				&r->sysfs_files, &r->health_clear };
	char pattern[PATH_BYTES];
	glob_t g;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		all[i]->path = calloc(MAX_PATHS, PATH_BYTES);
		if (!all[i]->path) {
			fprintf(stderr, "tern-fuzz: racer: out of memory\n");
			_exit(1);
		}
	}
	paths_glob(&r->debugfs_dirs, "/sys/kernel/debug/dri/*/engine_hang", true);
	paths_glob(&r->debugfs_dirs, "/sys/kernel/debug/accel/*/engine_hang", true);
	for (unsigned int i = 0; i < r->debugfs_dirs.count; i++) {
		snprintf(pattern, sizeof(pattern), "%s/*", r->debugfs_dirs.path[i]);
		paths_glob(&r->debugfs_files, pattern, false);
	}
	paths_glob(&r->sysfs_files, "/sys/bus/platform/devices/tern.*/tern/*", false);
	paths_glob(&r->health_clear, "/sys/bus/platform/devices/tern.*/tern/health_clear",
		   false);
	/* mock devices are alike: the first one's numbers serve for all */
	r->devices = r->health_clear.count;
	r->engines = (unsigned int)read_number("/sys/bus/platform/devices/tern.0/tern/engines");
	r->mem_size = read_number("/sys/bus/platform/devices/tern.0/tern/mem_total_bytes");
	if (!glob("/sys/bus/platform/devices/tern.0/tern/port*_state", 0, NULL, &g)) {
		r->ports = (unsigned int)g.gl_pathc;
		globfree(&g);
	}
}

/* ---- fault knobs ---- */

static const char *const nonsense[] = {
	"", "\n", "-1 up", "4294967296 down", "0 sideways", "99 up", "up 0",
	"0 up up", "correctable -1", "uncorrectable 0x", "123456789012345678901",
	"0x10", "2147483648", " ", "0\n1\n",
	"0 down 0 down 0 down 0 down 0 down 0 down",
};

/* Random bytes or a known-bad string; false when it wrote nothing. */
static int write_nonsense(struct racer *r, const char *path)
{
	char buf[64];
	size_t len;

	if (rng_chance(&r->rng, 50)) {
		const char *text = nonsense[rng_below(&r->rng,
						      sizeof(nonsense) / sizeof(nonsense[0]))];

		return write_text(path, text, strlen(text));
	}
	len = 1 + (size_t)rng_below(&r->rng, sizeof(buf));
	rng_fill(&r->rng, buf, len);
	return write_text(path, buf, len);
}

/* Writes @command to the knob @dir/@file, or now and then nonsense. */
static void knob_write(struct racer *r, const char *dir, const char *file,
		       const char *command, enum fuzz_call call)
{
	char path[PATH_BYTES];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	stats_record(r->shared, call, rng_chance(&r->rng, 10) ?
		     write_nonsense(r, path) : write_text(path, command, strlen(command)));
}

static void fault_fabric_link(struct racer *r, const char *dir)
{
	static const char *const actions[] = { "up", "up", "up", "down", "down",
					       "error", "error" };
	char command[48];

	snprintf(command, sizeof(command), "%u %s\n",
		 (unsigned int)rng_below(&r->rng, r->ports + 1),
		 actions[rng_below(&r->rng, sizeof(actions) / sizeof(actions[0]))]);
	knob_write(r, dir, "fabric_link", command, CALL_DEBUGFS_FABRIC_LINK);
}

static void fault_mem_error(struct racer *r, const char *dir)
{
	const char *kind = rng_chance(&r->rng, 60) ? "correctable" : "uncorrectable";
	uint64_t offset;
	char command[64];

	switch (rng_below(&r->rng, 5)) {
	case 0:
		snprintf(command, sizeof(command), "%s\n", kind);
		knob_write(r, dir, "mem_error", command, CALL_DEBUGFS_MEM_ERROR);
		return;
	case 1:
		offset = value_boundary(&r->rng);
		break;
	case 2:
		offset = r->mem_size;	/* just past the memory */
		break;
	default:
		offset = rng_below(&r->rng, r->mem_size);
		break;
	}
	snprintf(command, sizeof(command), rng_chance(&r->rng, 50) ? "%s 0x%llx\n" :
		 "%s %llu\n", kind, (unsigned long long)offset);
	knob_write(r, dir, "mem_error", command, CALL_DEBUGFS_MEM_ERROR);
}

static void fault_engine_hang(struct racer *r, const char *dir)
{
	char command[24];

	snprintf(command, sizeof(command), "%u\n",
		 (unsigned int)rng_below(&r->rng, r->engines + 1));
	knob_write(r, dir, "engine_hang", command, CALL_DEBUGFS_ENGINE_HANG);
}

static void health_clear(struct racer *r)
{
	const char *path = pick(r, &r->health_clear);
	int err;

	if (!path)
		return;
	err = rng_chance(&r->rng, 80) ? write_text(path, "1\n", 2) :
					write_nonsense(r, path);
	stats_record(r->shared, CALL_SYSFS_HEALTH_CLEAR, err);
}

static void all_links_up(struct racer *r)
{
	char path[PATH_BYTES], command[24];

	for (unsigned int d = 0; d < r->debugfs_dirs.count; d++) {
		snprintf(path, sizeof(path), "%s/fabric_link", r->debugfs_dirs.path[d]);
		for (unsigned int port = 0; port < r->ports; port++) {
			snprintf(command, sizeof(command), "%u up\n", port);
			write_text(path, command, strlen(command));
		}
	}
}

/* ---- netlink ---- */

struct nl_result {
	unsigned int messages;
	int error;		/* positive errno from an NLMSG_ERROR */
};

static int on_message(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct nl_result *)arg)->messages++;
	return NL_OK;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	(void)who;
	((struct nl_result *)arg)->error = -err->error;
	return NL_STOP;
}

static struct nl_sock *nl_open(struct racer *r)
{
	struct nl_sock *sock = nl_socket_alloc();
	struct timeval bound = { .tv_sec = 2 };

	if (!sock || genl_connect(sock)) {
		if (sock)
			nl_socket_free(sock);
		return NULL;
	}
	/* replies of requests that stopped early must not confuse the next */
	nl_socket_disable_seq_check(sock);
	/* never wait for ever, whatever the kernel does */
	setsockopt(nl_socket_get_fd(sock), SOL_SOCKET, SO_RCVTIMEO, &bound,
		   sizeof(bound));
	if (!r->family)
		r->family = genl_ctrl_resolve(sock, DRM_TERN_GENL_NAME);
	return sock;
}

/* One request; its errno (EIO for libnl's own failures). */
static int nl_request(struct racer *r, uint8_t cmd, int flags, uint16_t attr,
		      uint32_t value)
{
	struct nl_result result = { 0 };
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb;
	int ret;

	if (!msg)
		return ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, r->family, 0, flags,
			 cmd, DRM_TERN_GENL_VERSION) ||
	    (attr && nla_put_u32(msg, attr, value))) {
		nlmsg_free(msg);
		return ENOMEM;
	}
	ret = nl_send_auto(r->sock, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return EIO;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_message, &result);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &result);
	ret = nl_recvmsgs(r->sock, cb);
	nl_cb_put(cb);
	if (result.error)
		return result.error;
	return ret < 0 ? EIO : 0;
}

/* A dump: whole, filtered to what exists, or filtered to nothing. */
static void netlink_dump(struct racer *r, uint8_t cmd, uint16_t filter,
			 uint32_t exists, enum fuzz_call call)
{
	uint64_t roll = rng_below(&r->rng, 100);
	uint32_t value = roll < 80 ? (uint32_t)rng_below(&r->rng, exists ? exists : 1) :
				     (uint32_t)value_boundary(&r->rng);

	stats_record(r->shared, call,
		     nl_request(r, cmd, NLM_F_DUMP, roll < 50 ? 0 : filter, value));
}

/* What the family must refuse or ignore: other commands, attributes, flags. */
static void netlink_other(struct racer *r)
{
	uint8_t cmd = (uint8_t)rng_below(&r->rng, DRM_TERN_CMD_MAX + 3);
	int flags = rng_chance(&r->rng, 50) ? NLM_F_DUMP : 0;
	uint16_t attr = (uint16_t)rng_below(&r->rng, 40);

	stats_record(r->shared, CALL_NETLINK_OTHER,
		     nl_request(r, cmd, flags, attr, (uint32_t)rng_next(&r->rng)));
}

static void netlink_drain_events(struct racer *r)
{
	struct nl_result result = { 0 };
	struct nl_cb *cb;
	int ret;

	if (!r->events)
		return;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_message, &result);
	for (int i = 0; i < 64; i++) {
		unsigned int before = result.messages;

		ret = nl_recvmsgs(r->events, cb);
		for (unsigned int n = before; n < result.messages; n++)
			stats_record(r->shared, CALL_NETLINK_EVENT, 0);
		if (ret == -NLE_NOMEM)	/* the socket overflowed: events lost */
			stats_record(r->shared, CALL_NETLINK_EVENT, ENOBUFS);
		else if (ret < 0)
			break;
	}
	nl_cb_put(cb);
}

static void netlink_setup(struct racer *r)
{
	int group;

	r->sock = nl_open(r);
	r->events = nl_open(r);
	if (!r->sock || r->family <= 0) {
		fprintf(stderr, "tern-fuzz: racer: no \"%s\" netlink family\n",
			DRM_TERN_GENL_NAME);
		return;
	}
	group = r->events ? genl_ctrl_resolve_grp(r->events, DRM_TERN_GENL_NAME,
						  DRM_TERN_MCGRP_EVENTS) : -1;
	if (group < 0 || nl_socket_add_membership(r->events, group) ||
	    nl_socket_set_nonblocking(r->events)) {
		if (r->events)
			nl_socket_free(r->events);
		r->events = NULL;
	}
}

/* ---- the loop ---- */

static void act(struct racer *r)
{
	const char *dir = pick(r, &r->debugfs_dirs);
	uint64_t roll = rng_below(&r->rng, 100);

	if (r->faults && dir && roll < 30) {
		if (roll < 16)
			fault_fabric_link(r, dir);
		else if (roll < 22)
			fault_mem_error(r, dir);
		else if (roll < 28)
			fault_engine_hang(r, dir);
		else
			health_clear(r);
		return;
	}
	roll = rng_below(&r->rng, 100);
	if (roll < 20 && r->debugfs_files.count) {
		stats_record(r->shared, CALL_DEBUGFS_READ,
			     read_all(pick(r, &r->debugfs_files)));
	} else if (roll < 45 && r->sysfs_files.count) {
		stats_record(r->shared, CALL_SYSFS_READ,
			     read_all(pick(r, &r->sysfs_files)));
	} else if (r->sock && r->family > 0) {
		if (roll < 62)
			netlink_dump(r, DRM_TERN_CMD_DEVICE_GET, DRM_TERN_A_DEV_INDEX,
				     r->devices, CALL_NETLINK_DEVICE_GET);
		else if (roll < 77)
			netlink_dump(r, DRM_TERN_CMD_LINK_GET, DRM_TERN_A_LINK_INDEX,
				     r->devices * r->ports / 2, CALL_NETLINK_LINK_GET);
		else if (roll < 92)
			netlink_dump(r, DRM_TERN_CMD_CLIENT_GET, DRM_TERN_A_CLIENT_DEVICE,
				     r->devices, CALL_NETLINK_CLIENT_GET);
		else
			netlink_other(r);
	}
}

void racer_main(const struct fuzz_options *opt, struct fuzz_shared *shared)
{
	static struct racer r;
	struct timespec pause;

	r.shared = shared;
	r.faults = opt->faults;
	rng_seed(&r.rng, seed_derive(opt->seed, ~0ull, 0));
	discover(&r);
	netlink_setup(&r);
	if (opt->verbose)
		fprintf(stderr, "tern-fuzz: racer (pid %d): %u debugfs directories, "
			"%u debugfs files, %u sysfs files, netlink %s, faults %s\n",
			(int)getpid(), r.debugfs_dirs.count, r.debugfs_files.count,
			r.sysfs_files.count, r.sock && r.family > 0 ? "yes" : "no",
			r.faults ? "on" : "off");
	while (!atomic_load(&shared->stop)) {
		act(&r);
		netlink_drain_events(&r);
		pause = (struct timespec){
			0, (long)(PAUSE_MIN_MS + rng_below(&r.rng,
					PAUSE_MAX_MS - PAUSE_MIN_MS + 1)) * 1000000,
		};
		nanosleep(&pause, NULL);
	}
	if (r.faults)
		all_links_up(&r);
	_exit(0);
}
