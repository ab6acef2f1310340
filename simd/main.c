// SPDX-License-Identifier: MIT
/*
 * tern-simd: the simulated machine's process. libtern starts it on first
 * use, with the socket and lock paths of the machine and its shape:
 *
 *   tern-simd --socket PATH --lock PATH [--devices N] [--mem-mb M]
 *             [--job-timeout-ms T] [--topology SPEC] [--cores C]
 *             [--sbuf-kb S] [--psum-kb P] [--idle-ms I]
 *             [--host-mem-mb H] [--client-host-mb H] [--client-jobs J]
 *             [--client-job-mb J] [--client-buffers B]
 *             [--persistent] [--ready-fd FD] [--foreground]
 *
 * The --host-mem-mb and --client-* limits (limits.c) are 0 for the
 * default.
 *
 * It detaches (a session of its own, no terminal, its parent gone), takes
 * the lock for as long as it lives, so that there is never more than one
 * machine on a socket and a socket whose lock is free is known to be
 * stale, listens, and then writes "ready" (or "busy" when another machine
 * holds the lock, or "error: WHY") to FD. Nothing else is ever printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "machine.h"

struct simd_options {
	const char *socket_path, *lock_path;
	struct sim_shape shape;
	struct machine_limits limits;
	struct machine *machine;
	uint64_t idle_ms;
	bool persistent, foreground;
	int ready_fd;
	int listen_fd;
};

static void simd_tell(struct simd_options *o, const char *what)
{
	/* run by hand, with nobody waiting on a pipe: say it on stderr */
	if (o->ready_fd < 0) {
		if (strncmp(what, "error: ", 7) == 0)
			fprintf(stderr, "tern-simd: %s", what + 7);
		return;
	}
	if (write(o->ready_fd, what, strlen(what)) < 0) {
		/* The starter went: nobody to tell. */
	}
	close(o->ready_fd);
	o->ready_fd = -1;
}

static bool simd_number(const char *text, unsigned long max,
			unsigned long *value)
{
	char *end;

	errno = 0;
	*value = strtoul(text, &end, 10);
	return text[0] >= '0' && text[0] <= '9' && !*end && !errno &&
	       *value <= max;
}

static int simd_parse(int argc, char **argv, struct simd_options *o)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "lock", required_argument, NULL, 'l' },
		{ "devices", required_argument, NULL, 'd' },
		{ "mem-mb", required_argument, NULL, 'm' },
		{ "job-timeout-ms", required_argument, NULL, 't' },
		{ "topology", required_argument, NULL, 'T' },
		{ "idle-ms", required_argument, NULL, 'i' },
		{ "persistent", no_argument, NULL, 'p' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "host-mem-mb", required_argument, NULL, 'H' },
		{ "client-host-mb", required_argument, NULL, 'h' },
		{ "client-jobs", required_argument, NULL, 'j' },
		{ "client-job-mb", required_argument, NULL, 'J' },
		{ "client-buffers", required_argument, NULL, 'b' },
		{ "cores", required_argument, NULL, 'c' },
		{ "sbuf-kb", required_argument, NULL, 'S' },
		{ "psum-kb", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int opt;

	o->shape.devices = 4;
	o->shape.mem_mb = 256;
	o->shape.job_timeout_ms = 5000;
	o->shape.sbuf_kb = TERN_TRN2_SBUF_PARTITION_BYTES >> 10;
	o->shape.psum_kb = TERN_TRN2_PSUM_PARTITION_BYTES >> 10;
	o->idle_ms = 30000;
	o->ready_fd = -1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			o->socket_path = optarg;
			break;
		case 'l':
			o->lock_path = optarg;
			break;
		case 'T':
			sim_wire_strcpy(o->shape.topology, optarg,
					sizeof(o->shape.topology));
			break;
		case 'p':
			o->persistent = true;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'H': case 'h': case 'J':
			if (!simd_number(optarg, 1ul << 30, &v))
				return -1;
			if (opt == 'H')
				o->limits.host_bytes = (uint64_t)v << 20;
			else if (opt == 'h')
				o->limits.client_host_bytes = (uint64_t)v << 20;
			else
				o->limits.client_job_bytes = (uint64_t)v << 20;
			break;
		case 'c': case 'S': case 'P':
			/* machine_init() checks the ranges */
			if (!simd_number(optarg, 0xfffffffful, &v))
				return -1;
			if (opt == 'c')
				o->shape.cores = (uint32_t)v;
			else if (opt == 'S')
				o->shape.sbuf_kb = (uint32_t)v;
			else
				o->shape.psum_kb = (uint32_t)v;
			break;
		case 'j': case 'b':
			if (!simd_number(optarg, 0xfffffffful, &v))
				return -1;
			if (opt == 'j')
				o->limits.client_jobs = (uint32_t)v;
			else
				o->limits.client_buffers = (uint32_t)v;
			break;
		case 'd': case 'm': case 't': case 'i': case 'r':
			if (!simd_number(optarg, opt == 'i' ? 86400000ul :
					 0xfffffffful, &v))
				return -1;
			if (opt == 'd')
				o->shape.devices = (uint32_t)v;
			else if (opt == 'm')
				o->shape.mem_mb = (uint32_t)v;
			else if (opt == 't')
				o->shape.job_timeout_ms = (uint32_t)v;
			else if (opt == 'i')
				o->idle_ms = v;
			else
				o->ready_fd = (int)v;
			break;
		default:
			return -1;
		}
	}
	return optind == argc && o->socket_path && o->lock_path ? 0 : -1;
}

/* Leaves the starter's session and terminal; the starter reaps our parent. */
static int simd_detach(struct simd_options *o)
{
	pid_t pid;
	int null;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	setsid();
	if (chdir("/")) {
		/* Nothing is relative to the working directory. */
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	/* The starter's other descriptors are none of ours. */
	if (o->ready_fd > 3)
		close_range(3, (unsigned int)o->ready_fd - 1, 0);
	close_range((unsigned int)(o->ready_fd >= 3 ? o->ready_fd + 1 : 3),
		    ~0u, 0);
	return 0;
}

/* The lock, held until exit; a machine that is going may hold it briefly. */
static int simd_lock(struct simd_options *o)
{
	int fd = open(o->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	struct timespec pause = { 0, 20000000 };

	if (fd < 0)
		return -1;
	for (int tries = 0; tries < 100; tries++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK)
			break;
		nanosleep(&pause, NULL);
	}
	close(fd);
	return -2;
}

static int simd_listen(struct simd_options *o)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(o->socket_path) >= sizeof(addr.sun_path))
		return -1;
	strcpy(addr.sun_path, o->socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* We hold the lock: any socket there is a dead machine's. */
	unlink(o->socket_path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    chmod(o->socket_path, 0600) || listen(fd, 128)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *simd_accept_main(void *arg)
{
	struct simd_options *o = arg;

	for (;;) {
		int fd = accept4(o->listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE || errno == ENFILE ||
			    errno == ENOMEM) {
				struct timespec pause = { 0, 10000000 };

				if (errno != EINTR && errno != ECONNABORTED)
					nanosleep(&pause, NULL);
				continue;
			}
			break;
		}
		if (machine_client_start(o->machine, fd))
			close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct machine machine;
	struct simd_options o = { .listen_fd = -1 };
	char reason[200], message[224];
	pthread_t accept_thread;
	int lock;

	if (simd_parse(argc, argv, &o)) {
		fprintf(stderr,
			"Usage: tern-simd --socket PATH --lock PATH [--devices N] "
			"[--mem-mb M] [--job-timeout-ms T] [--topology SPEC] "
			"[--cores C] [--sbuf-kb S] [--psum-kb P] "
			"[--idle-ms I] [--host-mem-mb H] [--client-host-mb H] "
			"[--client-jobs J] [--client-job-mb J] "
			"[--client-buffers B] [--persistent] [--ready-fd FD] "
			"[--foreground]\n"
			"The simulated Tern machine; libtern starts it.\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	umask(077);
	/*
	 * Jobs are made on one thread and freed on another: without this,
	 * each thread's heap shrinks on a free and grows on the next job.
	 */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	if (!o.foreground && simd_detach(&o))
		return 1;
	lock = simd_lock(&o);
	if (lock == -2) {
		simd_tell(&o, "busy\n");
		return 0;
	}
	if (lock < 0) {
		snprintf(message, sizeof(message), "error: cannot lock %.180s: %s\n",
			 o.lock_path, strerror(errno));
		simd_tell(&o, message);
		return 1;
	}
	o.machine = &machine;
	machine.persistent = o.persistent;
	machine.idle_ns = o.idle_ms * 1000000ull;
	if (machine_init(&machine, &o.shape, reason, sizeof(reason))) {
		/* the shape asked for is not one a machine can have */
		snprintf(message, sizeof(message), "error: %s\n", reason);
		simd_tell(&o, message);
		return 2;
	}
	machine_limits_init(&machine, &o.limits);
	o.listen_fd = simd_listen(&o);
	if (o.listen_fd < 0 ||
	    pthread_create(&accept_thread, NULL, simd_accept_main, &o)) {
		snprintf(message, sizeof(message),
			 "error: cannot listen on %.180s: %s\n", o.socket_path,
			 strerror(errno));
		simd_tell(&o, message);
		return 1;
	}
	simd_tell(&o, "ready\n");
	machine_wait_until_done(&machine);
	/* Gone before the lock is: a starter that finds no socket starts anew. */
	unlink(o.socket_path);
	/* A forced stop leaves clients attached: their state goes with us. */
	if (machine.client_count)
		_exit(0);
	return 0;
}
