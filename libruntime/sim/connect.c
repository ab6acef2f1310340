// SPDX-License-Identifier: MIT
/*
 * Finding the simulated machine, starting it, and greeting it.
 *
 * A machine is named (TERN_SIM_MACHINE, default "default") and lives in a
 * directory only its user can enter: TERN_SIM_DIR, else
 * $XDG_RUNTIME_DIR/tern, else /tmp/tern-UID. There, NAME.sock is its
 * socket and NAME.lock the lock it holds while it lives. A process that
 * finds no machine starts one (tern-simd, as daemon.c finds it) with the
 * shape its TERN_SIM_* settings ask for.
 *
 * A process that named no machine takes whichever fits: "default" when
 * its shape does; if not, an idle "default" gives way to it (ends, and
 * the process starts its own), and a busy or persistent one is left
 * alone for a machine of the process's shape, named as
 * TERN_SIM_MACHINE=auto names it. A process that named its machine and
 * finds it of another shape, or finds a machine of another version, or a
 * directory or socket it cannot trust, is refused with a sentence saying
 * what to do (tern_get_last_error()), never served by a guess. Sentences
 * about a machine begin "the simulated machine ": the tools tell them so
 * from a malformed setting.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "settings.h"
#include "sim.h"
#include "tern_fabric.h"

extern char **environ;

/*
 * Reads the number @name (settings.c: its range and default) into
 * *@value; marks @bit wanted when the user set it. False if malformed.
 */
static bool sim_setting_number(const char *name, uint32_t bit,
			       uint32_t *want, uint64_t *value)
{
	int64_t v = 0;

	if (tern_setting_number(name, &v) != TERN_SUCCESS)
		return false;
	*value = (uint64_t)v;
	if (tern_setting_is_set(name))
		*want |= bit;
	return true;
}

/* @name's value if the user set it, else NULL (not its default). */
static const char *sim_setting_given(const char *name)
{
	return tern_setting_is_set(name) ? tern_setting_text(name) : NULL;
}

bool sim_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") == n;
}

/*
 * TERN_SIM_MACHINE=auto: a machine per shape, named after it, so that
 * programs asking for different shapes (a test suite) each get their own.
 */
static void sim_auto_name(const struct sim_shape *shape, char *out,
			  size_t len)
{
	uint32_t hash = 2166136261u;	/* FNV-1a of the topology, the cores */
	char cores[48] = "";

	if (shape->cores)
		snprintf(cores, sizeof(cores), "/%u/%u/%u", shape->cores,
			 shape->sbuf_kb, shape->psum_kb);
	for (const char *p = shape->topology; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 16777619u;
	for (const char *p = cores; *p; p++)
		hash = (hash ^ (uint8_t)*p) * 16777619u;
	snprintf(out, len, "auto-%u-%u-%u-%08x", shape->devices,
		 shape->mem_mb, shape->job_timeout_ms, hash);
}

/*
 * The machine's limits a process may set when it starts one (limits.c);
 * their ranges are in settings.c.
 */
static const struct {
	const char *env, *option;
} sim_limits[] = {
	{ "TERN_SIM_HOST_MEM_MB", "--host-mem-mb" },
	{ "TERN_SIM_CLIENT_HOST_MB", "--client-host-mb" },
	{ "TERN_SIM_CLIENT_JOBS", "--client-jobs" },
	{ "TERN_SIM_CLIENT_JOB_MB", "--client-job-mb" },
	{ "TERN_SIM_CLIENT_BUFFERS", "--client-buffers" },
};
#define SIM_LIMITS	(int)(sizeof(sim_limits) / sizeof(sim_limits[0]))

tern_status_t sim_settings_read(struct sim_settings *s)
{
	const char *topology = sim_setting_given("TERN_SIM_TOPOLOGY");
	const char *name = sim_setting_given("TERN_SIM_MACHINE");
	const char *dir = sim_setting_given("TERN_SIM_DIR");
	uint64_t devices, mem, timeout, idle, cores, sbuf, psum;
	struct tern_fabric *fabric;
	const char *clock = NULL;
	uint32_t unused = 0;
	bool data = true;
	int n;

	memset(s, 0, sizeof(*s));
	if (tern_setting_choice("TERN_SIM_CLOCK", &clock) ||
	    tern_setting_on("TERN_SIM_DATA", &data))
		return TERN_ERROR_INVALID_ARGUMENT;
	s->model_clock = strcmp(clock, "model") == 0;
	s->skip_data = !data;
	if (!sim_setting_number("TERN_SIM_DEVICES", SIM_WANT_DEVICES,
				&s->want, &devices) ||
	    !sim_setting_number("TERN_SIM_MEM_MB", SIM_WANT_MEM_MB,
				&s->want, &mem) ||
	    !sim_setting_number("TERN_SIM_JOB_TIMEOUT_MS", SIM_WANT_TIMEOUT,
				&s->want, &timeout) ||
	    !sim_setting_number("TERN_SIM_IDLE_MS", 0, &unused, &idle) ||
	    !sim_setting_number("TERN_SIM_CORES", SIM_WANT_CORES, &s->want,
				&cores) ||
	    !sim_setting_number("TERN_SIM_SBUF_KB", SIM_WANT_CORES, &s->want,
				&sbuf) ||
	    !sim_setting_number("TERN_SIM_PSUM_KB", SIM_WANT_CORES, &s->want,
				&psum))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (psum % 2) {
		tern_set_last_error("TERN_SIM_PSUM_KB=\"%llu\" is not an even number of KiB: PSUM is made of 2 KiB banks",
				    (unsigned long long)psum);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	for (n = 0; n < SIM_LIMITS; n++)
		if (!sim_setting_number(sim_limits[n].env, 0, &unused,
					&s->limits[n]))
			return TERN_ERROR_INVALID_ARGUMENT;
	/* A preset names its machine: its device count is the default. */
	if (!(s->want & SIM_WANT_DEVICES) &&
	    tern_fabric_preset_devices(topology))
		devices = tern_fabric_preset_devices(topology);
	/* and is a Trainium2 chip of 8 cores */
	if (!tern_setting_is_set("TERN_SIM_CORES") &&
	    tern_fabric_preset_devices(topology))
		cores = TERN_TRN2_CORES;
	s->shape.devices = (uint32_t)devices;
	s->shape.mem_mb = (uint32_t)mem;
	s->shape.job_timeout_ms = (uint32_t)timeout;
	s->shape.cores = (uint32_t)cores;
	s->shape.sbuf_kb = (uint32_t)sbuf;
	s->shape.psum_kb = (uint32_t)psum;
	s->idle_ms = idle;
	if (topology) {
		if (strlen(topology) >= sizeof(s->shape.topology))
			goto bad_topology;
		sim_wire_strcpy(s->shape.topology, topology,
				sizeof(s->shape.topology));
		s->want |= SIM_WANT_TOPOLOGY;
	}
	fabric = malloc(sizeof(*fabric));
	if (!fabric)
		return TERN_ERROR_OUT_OF_MEMORY;
	n = tern_fabric_init(fabric, (u32)devices, topology);
	free(fabric);
	if (n)
		goto bad_topology;

	/* Unnamed, the machine is whichever fits (sim_connect()). */
	s->anywhere = !name;
	if (s->anywhere)
		name = "default";
	if (strcmp(name, "auto") == 0) {
		sim_auto_name(&s->shape, s->name, sizeof(s->name));
		name = s->name;
	}
	if (!sim_name_ok(name)) {
		tern_set_last_error("TERN_SIM_MACHINE=\"%s\" is not a name of "
				    "1-64 letters, digits, '.', '_' or '-'",
				    name);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (name != s->name)
		snprintf(s->name, sizeof(s->name), "%s", name);
	if (dir)
		n = snprintf(s->dir, sizeof(s->dir), "%s", dir);
	else if (getenv("XDG_RUNTIME_DIR") && *getenv("XDG_RUNTIME_DIR"))
		n = snprintf(s->dir, sizeof(s->dir), "%s/tern",
			     getenv("XDG_RUNTIME_DIR"));
	else
		n = snprintf(s->dir, sizeof(s->dir), "/tmp/tern-%u",
			     (unsigned)geteuid());
	/* Room for "/NAME.sock" in a socket address. */
	if (n < 0 || (size_t)n + strlen(name) + 7 > sizeof(s->dir)) {
		tern_set_last_error("the simulated machine's directory '%s' is "
				    "too long for a socket (TERN_SIM_DIR)",
				    s->dir);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;

bad_topology:
	tern_set_last_error("TERN_SIM_TOPOLOGY=\"%s\" does not fit %llu devices",
			    topology, (unsigned long long)devices);
	return TERN_ERROR_INVALID_ARGUMENT;
}

/* The directory, made if missing; refused unless it is ours alone. */
static tern_status_t sim_dir_check(const struct sim_settings *s)
{
	struct stat st;

	if (mkdir(s->dir, 0700) && errno != EEXIST) {
		tern_set_last_error("cannot make the simulated machine's "
				    "directory %s: %s", s->dir,
				    strerror(errno));
		return TERN_ERROR_PERMISSION;
	}
	if (lstat(s->dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		tern_set_last_error("%s is not a directory of uid %u's alone "
				    "(mode 0700): remove it or set "
				    "TERN_SIM_DIR", s->dir,
				    (unsigned)geteuid());
		return TERN_ERROR_PERMISSION;
	}
	return TERN_SUCCESS;
}

/* Settings checked the length: the path always fits. */
static void sim_path(const struct sim_settings *s, const char *suffix,
		     char *out, size_t len)
{
	if (snprintf(out, len, "%s/%s.%s", s->dir, s->name, suffix) >=
	    (int)len)
		out[0] = '\0';
}

/* Starts tern-simd; what it said on its ready descriptor in @said. */
static tern_status_t sim_spawn(const struct sim_settings *s, bool persistent,
			       char *said, size_t said_len)
{
	char daemon[4096], sock[160], lock[160], devices[16], mem[16];
	char timeout[16], idle[24], ready[16], limits[SIM_LIMITS][24];
	char cores[16], sbuf[16], psum[16];
	char *argv[48];
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t none, all;
	struct pollfd pfd;
	int pipefd[2], argc = 0, child_fd, status;
	size_t got = 0;
	pid_t pid;

	if (!sim_daemon_find(daemon, sizeof(daemon))) {
		char searched[512];

		sim_daemon_searched(searched, sizeof(searched));
		tern_set_last_error("no simulated machine runs, and %s",
				    searched);
		return TERN_ERROR_NO_DEVICE;
	}
	if (pipe2(pipefd, O_CLOEXEC))
		return TERN_ERROR_BACKEND;
	child_fd = pipefd[1] == 3 ? 4 : 3;
	sim_path(s, "sock", sock, sizeof(sock));
	sim_path(s, "lock", lock, sizeof(lock));
	snprintf(devices, sizeof(devices), "%u", s->shape.devices);
	snprintf(mem, sizeof(mem), "%u", s->shape.mem_mb);
	snprintf(timeout, sizeof(timeout), "%u", s->shape.job_timeout_ms);
	snprintf(idle, sizeof(idle), "%llu", (unsigned long long)s->idle_ms);
	snprintf(ready, sizeof(ready), "%d", child_fd);
	argv[argc++] = daemon;
	argv[argc++] = "--socket";
	argv[argc++] = sock;
	argv[argc++] = "--lock";
	argv[argc++] = lock;
	argv[argc++] = "--devices";
	argv[argc++] = devices;
	argv[argc++] = "--mem-mb";
	argv[argc++] = mem;
	argv[argc++] = "--job-timeout-ms";
	argv[argc++] = timeout;
	argv[argc++] = "--idle-ms";
	argv[argc++] = idle;
	argv[argc++] = "--ready-fd";
	argv[argc++] = ready;
	argv[argc++] = "--topology";
	argv[argc++] = (char *)s->shape.topology;
	snprintf(cores, sizeof(cores), "%u", s->shape.cores);
	snprintf(sbuf, sizeof(sbuf), "%u", s->shape.sbuf_kb);
	snprintf(psum, sizeof(psum), "%u", s->shape.psum_kb);
	argv[argc++] = "--cores";
	argv[argc++] = cores;
	argv[argc++] = "--sbuf-kb";
	argv[argc++] = sbuf;
	argv[argc++] = "--psum-kb";
	argv[argc++] = psum;
	if (persistent)
		argv[argc++] = "--persistent";
	for (int i = 0; i < SIM_LIMITS; i++) {
		if (!s->limits[i])
			continue;
		snprintf(limits[i], sizeof(limits[i]), "%llu",
			 (unsigned long long)s->limits[i]);
		argv[argc++] = (char *)sim_limits[i].option;
		argv[argc++] = limits[i];
	}
	argv[argc] = NULL;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, pipefd[1], child_fd);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	status = posix_spawn(&pid, daemon, &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	close(pipefd[1]);
	if (status) {
		close(pipefd[0]);
		tern_set_last_error("cannot run %s: %s", daemon,
				    strerror(status));
		return TERN_ERROR_BACKEND;
	}
	/* It forks at once and its parent exits: reap that. */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	while (got + 1 < said_len && poll(&pfd, 1, 10000) == 1) {
		ssize_t n = read(pipefd[0], said + got, said_len - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	said[got] = '\0';
	close(pipefd[0]);
	return TERN_SUCCESS;
}

static int sim_dial(const struct sim_settings *s)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	sim_path(s, "sock", addr.sun_path, sizeof(addr.sun_path));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/*
 * HELLO and its reply. NOT_READY: the machine went or is going, try
 * again; *@other_shape when it refused this process's shape.
 */
static tern_status_t sim_hello(const struct sim_settings *s,
			       struct sim_conn *conn, bool *other_shape)
{
	struct sim_hello hello = { .wire_version = SIM_WIRE_VERSION };
	struct sim_hello_reply *reply = &conn->machine;
	int fds[SIM_WIRE_MAX_FDS], shared[2], ret, i;
	tern_status_t status;
	uint32_t type, len;

	memcpy(hello.magic, SIM_WIRE_MAGIC, sizeof(hello.magic));
	snprintf(hello.lib_version, sizeof(hello.lib_version), "%d.%d.%d",
		 TERN_VERSION_MAJOR, TERN_VERSION_MINOR, TERN_VERSION_PATCH);
	hello.want = s->want;
	hello.shape = s->shape;
	hello.flags = s->anywhere ? SIM_HELLO_GIVE_WAY : 0;
	status = sim_fences_init(conn, &shared[0]);
	if (status)
		return status;
	status = sim_ring_init(conn, &shared[1]);
	if (status) {
		close(shared[0]);
		return status;
	}
	ret = sim_wire_send(conn->sock, SIM_MSG_HELLO, &hello, sizeof(hello),
			    NULL, 0, shared, 2);
	close(shared[0]);
	close(shared[1]);
	if (!ret)
		ret = sim_wire_recv(conn->sock, &type, reply, sizeof(*reply),
				    &len, fds);
	if (!ret && fds[0] >= 0)
		sim_doorbell_map(conn, fds[0]);
	for (i = 0; !ret && i < SIM_WIRE_MAX_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (ret)
		return TERN_ERROR_NOT_READY;	/* it went: try again */
	if (type != SIM_MSG_REPLY || len != sizeof(*reply)) {
		tern_set_last_error("the simulated machine '%s' runs another "
				    "version of Tern: stop it (its process is "
				    "tern-simd)", s->name);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	reply->reason[sizeof(reply->reason) - 1] = '\0';
	*other_shape = reply->status == TERN_ERROR_INVALID_ARGUMENT;
	if (reply->status == TERN_ERROR_NOT_READY)
		tern_debug("the simulated machine '%s' (pid %d) is going: %s",
			   s->name, (int)reply->pid, reply->reason);
	else if (*other_shape && s->anywhere)
		tern_debug("the simulated machine '%s' (pid %d) is not of "
			   "this shape: %s", s->name, (int)reply->pid,
			   reply->reason);
	else if (reply->status == TERN_ERROR_INVALID_ARGUMENT ||
		 reply->status == TERN_ERROR_NOT_SUPPORTED)
		tern_set_last_error("the simulated machine '%s' (pid %d) does "
				    "not fit this process: %s; stop it "
				    "(tern-inspect sim stop %s) or pick "
				    "another with TERN_SIM_MACHINE", s->name,
				    (int)reply->pid, reply->reason, s->name);
	else if (reply->status)
		tern_set_last_error("the simulated machine '%s' refused this "
				    "process: %s", s->name, reply->reason);
	return (tern_status_t)reply->status;
}

/* Why a socket path that does not answer is there. */
static tern_status_t sim_not_a_machine(const struct sim_settings *s)
{
	char sock[160];
	struct stat st;

	sim_path(s, "sock", sock, sizeof(sock));
	if (lstat(sock, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		tern_set_last_error("%s is not a simulated machine's socket: "
				    "remove it", sock);
		return TERN_ERROR_BACKEND;
	}
	return TERN_SUCCESS;
}

/* A pause before trying again, for a machine starting or going. */
static void sim_pause(void)
{
	struct timespec pause = { 0, 20000000 };

	nanosleep(&pause, NULL);
}

/* sim_connect() to the machine @s names, and that one only. */
static tern_status_t sim_connect_named(const struct sim_settings *s,
				       bool start, bool persistent,
				       struct sim_conn *conn,
				       bool *other_shape)
{
	tern_status_t status = TERN_ERROR_NOT_READY;
	char said[256];
	int attempt, fd;

	*other_shape = false;
	memset(conn, 0, sizeof(*conn));
	conn->sock = -1;
	for (attempt = 0; attempt < 20; attempt++) {
		fd = sim_dial(s);
		if (fd >= 0) {
			conn->sock = fd;
			status = sim_hello(s, conn, other_shape);
			if (status != TERN_ERROR_NOT_READY)
				break;
			sim_disconnect(conn);
			sim_pause();
			continue;
		}
		if (fd == -EACCES || fd == -EPERM) {
			tern_set_last_error("no access to the simulated "
					    "machine's socket in %s", s->dir);
			return TERN_ERROR_PERMISSION;
		}
		if (fd != -ENOENT && fd != -ECONNREFUSED)
			return TERN_ERROR_BACKEND;
		status = sim_not_a_machine(s);
		if (status)
			return status;
		if (!start) {
			tern_set_last_error("no simulated machine '%s' runs",
					    s->name);
			return TERN_ERROR_NO_DEVICE;
		}
		status = sim_spawn(s, persistent, said, sizeof(said));
		if (status)
			return status;
		if (strncmp(said, "error: ", 7) == 0) {
			said[strcspn(said, "\n")] = '\0';
			tern_set_last_error("the simulated machine did not "
					    "start: %s", said + 7);
			return TERN_ERROR_INVALID_ARGUMENT;
		}
		if (strncmp(said, "busy", 4) == 0)
			sim_pause();
		status = TERN_ERROR_NOT_READY;
	}
	if (status == TERN_ERROR_NOT_READY) {
		tern_set_last_error("the simulated machine '%s' did not answer",
				    s->name);
		status = TERN_ERROR_BACKEND;
	}
	if (status)
		sim_disconnect(conn);
	return status;
}

tern_status_t sim_connect(struct sim_settings *s, bool start,
			  bool persistent, struct sim_conn *conn)
{
	tern_status_t status = sim_dir_check(s);
	bool other_shape = false;
	char busy[sizeof(s->name)];

	if (status)
		return status;
	status = sim_connect_named(s, start, persistent, conn, &other_shape);
	if (s->anywhere && other_shape) {
		/* It stays, not to be disturbed: this shape gets its own. */
		memcpy(busy, s->name, sizeof(busy));
		sim_auto_name(&s->shape, s->name, sizeof(s->name));
		s->anywhere = false;
		tern_debug("the simulated machine '%s' stays (in use, "
			   "persistent or new): this process uses '%s'",
			   busy, s->name);
		status = sim_connect_named(s, start, persistent, conn,
					   &other_shape);
	}
	if (status)
		return status;
	s->anywhere = false;	/* a fork child joins this machine */
	conn->pid = sim_self_pid();
	pthread_mutex_init(&conn->call_lock, NULL);
	pthread_mutex_init(&conn->send_lock, NULL);
	return TERN_SUCCESS;
}

void sim_disconnect(struct sim_conn *conn)
{
	if (conn->sock >= 0)
		close(conn->sock);
	conn->sock = -1;
	sim_fences_fini(conn);
	sim_ring_fini(conn);
}
