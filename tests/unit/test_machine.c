// SPDX-License-Identifier: MIT
/*
 * The simulated machine as processes see it: a process of another shape,
 * a corrupt socket, a directory not the user's alone, a machine of
 * another version and another user are each refused with a sentence
 * saying why; a process that named no machine is not: an idle machine of
 * another shape gives way to it, a busy one leaves it a machine of its
 * own; a process refused still makes unique ids; a process killed at any
 * point leaves nothing held and the others go on; a process cannot reach
 * another's buffers; a job waiting on a semaphore holds no CPU of the
 * machine's; it answers dumps and sends events in the encoding of
 * tern.ko's netlink family.
 *
 * This program holds machine "m-PID" (2 devices) open for the whole run;
 * the cases that need a process of their own run this program again as a
 * child (--child NAME), in TERN_SIM_DIR (made here when not set).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "test.h"
#include "packets.h"
#include "sim_child.h"
#include "sim_test.h"
#include "submit.h"
#include "tern.h"
#include "tern_sim.h"
#include "tern_accel.h"

#define BUF_BYTES	(1u << 20)
#define KILL_CYCLES	100

static char machine_name[64];
static tern_device_t dev[2];
static tern_stream_t stream;
static tern_buffer_t scratch;

static void child_run(const char *name, const char *const *env)
{
	int rc = child_wait(child_start(name, env, -1));

	if (rc)
		fail_msg("child %s failed (%d)", name, rc);
}

/* ---- children ---- */

/* Exit 0 when the backend is refused with @want and @words in the reason. */
static int expect_refusal(tern_status_t want, const char *words)
{
	tern_backend_t backend;
	tern_status_t status = tern_get_backend(&backend);

	if (status == want && strstr(tern_get_last_error(), words))
		return 0;
	fprintf(stderr, "got %s, \"%s\"; want %s with \"%s\"\n",
		tern_status_name(status), tern_get_last_error(),
		tern_status_name(want), words);
	return 1;
}

/* Holds memory on two devices with work in flight that never ends. */
static int child_hold(void)
{
	tern_buffer_t buf[2], host;
	tern_stream_t s[2];
	tern_comm_t comm[2];
	tern_device_t d[2];
	uint8_t packets[256];
	struct tern_packet_builder b;
	uint64_t va;

	for (int i = 0; i < 2; i++) {
		if (tern_device_open(i, &d[i]) ||
		    tern_buffer_alloc(d[i], TERN_MEMORY_DEVICE, BUF_BYTES,
				      &buf[i]) ||
		    tern_stream_create(d[i], &s[i]))
			return 1;
	}
	if (tern_buffer_alloc(d[0], TERN_MEMORY_HOST, 4096, &host) ||
	    tern_buffer_device_address(host, &va))
		return 1;
	/* A semaphore nothing signals, then a collective behind it. */
	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_sem_wait(&b, va, 1, false);
	if (tern_stream_submit(s[0], packets, b.size, NULL, 0, NULL))
		return 1;
	if (tern_comm_init_all(comm, 2, d) == TERN_SUCCESS)
		for (int i = 0; i < 2; i++)
			tern_all_reduce(tern_ptr(buf[i], 0), tern_ptr(buf[i], 0),
					1024, TERN_FLOAT32, TERN_SUM, comm[i],
					s[i]);
	if (write(3, "r", 1) != 1)
		return 1;
	for (;;)
		pause();	/* killed here */
}

/*
 * A buffer whose bytes are 0xab at an address no buffer of a fresh
 * process of the parent has; tells the parent the address, then checks
 * its bytes when the parent says so.
 */
static int child_victim(void)
{
	tern_buffer_t pad, victim;
	uint64_t va;
	uint8_t *cpu;
	char go;

	if (tern_device_open(0, &dev[0]) ||
	    tern_buffer_alloc(dev[0], TERN_MEMORY_DEVICE, 8 * BUF_BYTES, &pad) ||
	    tern_buffer_alloc(dev[0], TERN_MEMORY_DEVICE, 4096, &victim) ||
	    tern_buffer_map(victim, (void **)&cpu) ||
	    tern_buffer_device_address(victim, &va))
		return 1;
	memset(cpu, 0xab, 4096);
	if (write(3, &va, sizeof(va)) != sizeof(va) ||
	    read(3, &go, 1) != 1)
		return 1;
	for (int i = 0; i < 4096; i++)
		if (cpu[i] != 0xab)
			return 2;
	return 0;
}

/* Uses device 0 of whichever machine it gets, and goes. */
static int child_use(void)
{
	return tern_device_open(0, &dev[0]) || tern_device_close(dev[0]);
}

/* The machines running, sorted by name, into @m; how many. */
static uint32_t child_machines(tern_sim_machine_t m[4])
{
	uint32_t n = 0;

	return tern_sim_machine_list(m, 4, &n) ? 0 : n;
}

/* Ends machine @name, its processes or not. */
static int child_stop(const char *name)
{
	return tern_sim_machine_stop(name, 1, NULL) != TERN_SUCCESS;
}

/* Whether this process sees @want devices; says what it saw if not. */
static bool child_sees_devices(int want)
{
	int count = 0;

	if (tern_device_count(&count) == TERN_SUCCESS && count == want)
		return true;
	fprintf(stderr, "%d devices (%s)\n", count, tern_get_last_error());
	return false;
}

/* 3 devices, on "default" alone: the idle one of 2 gave way. */
static int child_gave_way(void)
{
	tern_sim_machine_t m[4];
	uint32_t n;

	if (!child_sees_devices(3))
		return 1;
	n = child_machines(m);
	if (n != 1 || strcmp(m[0].name, "default") ||
	    m[0].device_count != 3) {
		fprintf(stderr, "%u machines, the first '%s' of %u devices\n",
			n, n ? m[0].name : "", n ? m[0].device_count : 0);
		return 1;
	}
	return child_stop("default");
}

/* 3 devices, on a machine of its own: "default", busy, stays as it was. */
static int child_own_machine(void)
{
	tern_sim_machine_t m[4];
	uint32_t n;

	if (!child_sees_devices(3))
		return 1;
	n = child_machines(m);
	if (n != 2 || strncmp(m[0].name, "auto-3-", 7) ||
	    m[0].device_count != 3 || strcmp(m[1].name, "default") ||
	    m[1].device_count != 2 || m[1].processes != 1) {
		fprintf(stderr, "%u machines, not auto-3-* and default\n", n);
		return 1;
	}
	return child_stop(m[0].name);
}

/* Holds "default" (2 devices) until told, then ends it. */
static int child_hold_default(void)
{
	char go;

	if (tern_device_open(0, &dev[0]) || write(3, "r", 1) != 1 ||
	    read(3, &go, 1) != 1 || tern_device_close(dev[0]))
		return 1;
	return child_stop("default");
}

/* The backend refused, an id is made all the same. */
static int child_unique_id(void)
{
	tern_backend_t backend;
	tern_unique_id_t id;
	tern_status_t status;

	if (tern_get_backend(&backend) != TERN_ERROR_INVALID_ARGUMENT)
		return 1;
	status = tern_get_unique_id(&id);
	if (status) {
		fprintf(stderr, "tern_get_unique_id: %s (%s)\n",
			tern_status_name(status), tern_get_last_error());
		return 1;
	}
	return 0;
}

static int child_main(const char *name)
{
	if (strcmp(name, "shape") == 0)
		return expect_refusal(TERN_ERROR_INVALID_ARGUMENT,
				      "it has 2 devices, TERN_SIM_DEVICES asks "
				      "for 3");
	if (strcmp(name, "corrupt") == 0)
		return expect_refusal(TERN_ERROR_BACKEND,
				      "is not a simulated machine's socket");
	if (strcmp(name, "unsafe-dir") == 0)
		return expect_refusal(TERN_ERROR_PERMISSION,
				      "is not a directory of uid");
	if (strcmp(name, "version") == 0)
		return expect_refusal(TERN_ERROR_NOT_SUPPORTED,
				      "runs another version of Tern");
	if (strcmp(name, "other-user") == 0) {
		if (setgid(65534) || setuid(65534))
			return 1;
		return expect_refusal(TERN_ERROR_PERMISSION,
				      "is not a directory of uid 65534");
	}
	if (strcmp(name, "hold") == 0)
		return child_hold();
	if (strcmp(name, "use") == 0)
		return child_use();
	if (strcmp(name, "gave-way") == 0)
		return child_gave_way();
	if (strcmp(name, "own-machine") == 0)
		return child_own_machine();
	if (strcmp(name, "hold-default") == 0)
		return child_hold_default();
	if (strcmp(name, "unique-id") == 0)
		return child_unique_id();
	if (strcmp(name, "victim") == 0)
		return child_victim();
	return 1;
}

/* ---- refusals ---- */

static void machine_env(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "TERN_SIM_MACHINE=%s", name);
}

static void test_shape_mismatch(void **state)
{
	char machine[96];
	const char *env[] = { machine, "TERN_SIM_DEVICES=3", NULL };

	(void)state;
	machine_env(machine, sizeof(machine), machine_name);
	child_run("shape", env);
}

static void test_corrupt_socket(void **state)
{
	char machine[96], path[4200];
	const char *env[] = { machine, NULL };
	int fd;

	(void)state;
	snprintf(machine, sizeof(machine), "TERN_SIM_MACHINE=corrupt-%d",
		 (int)getpid());
	snprintf(path, sizeof(path), "%s/corrupt-%d.sock",
		 getenv("TERN_SIM_DIR"), (int)getpid());
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "junk", 4), 4);
	close(fd);
	child_run("corrupt", env);
	/* Reported, not replaced: the file is still there. */
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
}

static void test_unsafe_dir(void **state)
{
	char dir[] = "/tmp/tern-unsafe.XXXXXX", env_dir[64];
	const char *env[] = { env_dir, NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(env_dir, sizeof(env_dir), "TERN_SIM_DIR=%s", dir);
	child_run("unsafe-dir", env);
	rmdir(dir);
}

/* A listener that answers HELLO as no Tern machine of this build would. */
static void *fake_machine(void *arg)
{
	int listener = *(int *)arg, fd;
	char buf[512];
	uint32_t reply[3] = { 0x100, 4, 0 };

	fd = accept(listener, NULL, NULL);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) > 0 &&
		    write(fd, reply, sizeof(reply)) != sizeof(reply))
			fprintf(stderr, "fake machine: write failed\n");
		close(fd);
	}
	return NULL;
}

static void test_other_version(void **state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char machine[96];
	const char *env[] = { machine, NULL };
	pthread_t thread;
	int listener;

	(void)state;
	snprintf(machine, sizeof(machine), "TERN_SIM_MACHINE=old-%d",
		 (int)getpid());
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/old-%d.sock",
		 getenv("TERN_SIM_DIR"), (int)getpid());
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(listener >= 0);
	assert_int_equal(bind(listener, (struct sockaddr *)&addr,
			      sizeof(addr)), 0);
	assert_int_equal(listen(listener, 4), 0);
	assert_int_equal(pthread_create(&thread, NULL, fake_machine,
					&listener), 0);
	child_run("version", env);
	pthread_join(thread, NULL);
	close(listener);
	unlink(addr.sun_path);
}

static void test_other_user(void **state)
{
	char machine[96];
	const char *env[] = { machine, NULL };

	(void)state;
	if (geteuid() != 0)
		skip();
	machine_env(machine, sizeof(machine), machine_name);
	child_run("other-user", env);
}

/* ---- a process that named no machine ---- */

/*
 * The environment of a child that names no machine, in a directory of
 * its own (@dir, made here) and asks for @devices: the machine it meets
 * is then "default".
 */
struct unnamed_env {
	char dir[32], dir_var[64], devices[32];
	const char *env[6];
};

static void unnamed_env(struct unnamed_env *u, const char *devices)
{
	snprintf(u->dir_var, sizeof(u->dir_var), "TERN_SIM_DIR=%s", u->dir);
	snprintf(u->devices, sizeof(u->devices), "TERN_SIM_DEVICES=%s",
		 devices);
	u->env[0] = "TERN_SIM_MACHINE=";
	u->env[1] = u->dir_var;
	u->env[2] = u->devices;
	u->env[3] = "TERN_SIM_IDLE_MS=60000";	/* idle, not gone */
	u->env[4] = NULL;
}

static void unnamed_dir_make(struct unnamed_env *u)
{
	snprintf(u->dir, sizeof(u->dir), "/tmp/tern-unnamed.XXXXXX");
	assert_non_null(mkdtemp(u->dir));
}

/* The machines are stopped: their lock files are all that is left. */
static void unnamed_dir_remove(struct unnamed_env *u)
{
	char path[sizeof(u->dir) + 256 + 2];
	struct dirent *e;
	DIR *d = opendir(u->dir);

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", u->dir,
				 e->d_name);
			unlink(path);
		}
	closedir(d);
	assert_int_equal(rmdir(u->dir), 0);
}

/* An idle machine of another shape gives way: one machine, the new shape. */
static void test_idle_machine_gives_way(void **state)
{
	struct unnamed_env u;

	(void)state;
	unnamed_dir_make(&u);
	unnamed_env(&u, "2");
	child_run("use", u.env);
	unnamed_env(&u, "3");
	child_run("gave-way", u.env);
	unnamed_dir_remove(&u);
}

/* A busy one stays; the new shape gets a machine of its own. */
static void test_busy_machine_stays(void **state)
{
	struct unnamed_env u;
	int fds[2];
	pid_t hold;
	char ready;

	(void)state;
	unnamed_dir_make(&u);
	unnamed_env(&u, "2");
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	hold = child_start("hold-default", u.env, fds[1]);
	close(fds[1]);
	assert_int_equal(read(fds[0], &ready, 1), 1);
	unnamed_env(&u, "3");
	child_run("own-machine", u.env);
	assert_int_equal(write(fds[0], "g", 1), 1);
	assert_int_equal(child_wait(hold), 0);
	close(fds[0]);
	unnamed_dir_remove(&u);
}

/* An id needs no device: a process whose backend is refused makes one. */
static void test_unique_id_needs_no_device(void **state)
{
	char machine[96];
	const char *env[] = { machine, "TERN_SIM_DEVICES=3", NULL };

	(void)state;
	machine_env(machine, sizeof(machine), machine_name);
	child_run("unique-id", env);
}

/* ---- processes that die ---- */

static uint64_t used(int i)
{
	uint64_t u = 0, total = 0;

	assert_ok(tern_device_memory_usage(dev[i], &u, &total));
	return u;
}

static void test_killed_process_leaves_nothing(void **state)
{
	char machine[96];
	const char *env[] = { machine, NULL };
	uint64_t base[2] = { used(0), used(1) };
	unsigned int seed = (unsigned int)getpid();

	(void)state;
	machine_env(machine, sizeof(machine), machine_name);
	for (int cycle = 0; cycle < KILL_CYCLES; cycle++) {
		int fds[2], delay_us = rand_r(&seed) % 20000;
		struct timespec pause = { 0, delay_us * 1000L };
		uint64_t deadline;
		pid_t pid;
		char ready;

		assert_int_equal(pipe(fds), 0);
		pid = child_start("hold", env, fds[1]);
		close(fds[1]);
		/* Half the time mid-work, half once all is in flight. */
		if (cycle % 2)
			assert_int_equal(read(fds[0], &ready, 1), 1);
		nanosleep(&pause, NULL);
		kill(pid, SIGKILL);
		assert_int_equal(child_wait(pid), 128);
		close(fds[0]);
		deadline = now_ns() + 10000000000ull;
		while ((used(0) != base[0] || used(1) != base[1]) &&
		       now_ns() < deadline)
			usleep(1000);
		if (used(0) != base[0] || used(1) != base[1])
			fail_msg("cycle %d: memory %llu and %llu, not back to "
				 "%llu and %llu", cycle,
				 (unsigned long long)used(0),
				 (unsigned long long)used(1),
				 (unsigned long long)base[0],
				 (unsigned long long)base[1]);
		/* This process's work goes on. */
		assert_ok(tern_memset_async(scratch, 0, cycle & 0xff, 4096,
					    stream));
		assert_ok(tern_stream_synchronize(stream));
	}
}

/* ---- isolation ---- */

static void test_cannot_reach_other_process(void **state)
{
	tern_device_t fresh;
	tern_stream_t s;
	tern_buffer_t mine;
	uint64_t victim_va, mine_va;
	uint8_t packets[256], *cpu;
	struct tern_packet_builder b;
	int fds[2];
	pid_t pid;
	char machine[96];
	const char *env[] = { machine, NULL };

	(void)state;
	machine_env(machine, sizeof(machine), machine_name);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	pid = child_start("victim", env, fds[1]);
	close(fds[1]);
	assert_int_equal(read(fds[0], &victim_va, sizeof(victim_va)),
			 sizeof(victim_va));

	/* A fresh context: nothing of its own at the victim's address. */
	assert_ok(tern_device_open(0, &fresh));
	assert_ok(tern_stream_create(fresh, &s));
	assert_ok(tern_buffer_alloc(fresh, TERN_MEMORY_DEVICE, 4096, &mine));
	assert_ok(tern_buffer_device_address(mine, &mine_va));
	assert_true(victim_va >= mine_va + 4096);
	assert_ok(tern_buffer_map(mine, (void **)&cpu));
	memset(cpu, 0x11, 4096);

	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_copy(&b, mine_va, victim_va, 64);		/* read */
	assert_ok(tern_stream_submit(s, packets, b.size, NULL, 0, NULL));
	assert_status(tern_stream_synchronize(s), TERN_ERROR_DEVICE_FAULT);
	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_fill(&b, victim_va, 64, 0);			/* write */
	assert_ok(tern_stream_submit(s, packets, b.size, NULL, 0, NULL));
	assert_status(tern_stream_synchronize(s), TERN_ERROR_DEVICE_FAULT);
	for (int i = 0; i < 4096; i++)
		assert_int_equal(cpu[i], 0x11);

	assert_int_equal(write(fds[0], "g", 1), 1);
	assert_int_equal(child_wait(pid), 0);	/* its bytes unchanged */
	close(fds[0]);
	assert_ok(tern_stream_destroy(s));
	assert_ok(tern_buffer_free(mine));
	assert_ok(tern_device_close(fresh));
}

/* ---- engines ---- */

static pid_t machine_pid(void)
{
	tern_sim_machine_t m[64];
	uint32_t n = 0;

	assert_ok(tern_sim_machine_list(m, 64, &n));
	for (uint32_t i = 0; i < n && i < 64; i++)
		if (strcmp(m[i].name, machine_name) == 0)
			return m[i].pid;
	fail_msg("machine %s is not listed", machine_name);
	return -1;
}

/* CPU seconds @pid has used, user and system. */
static double cpu_seconds(pid_t pid)
{
	unsigned long utime = 0, stime = 0;
	char path[64], line[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	/* After "(comm)": state is field 3, utime 14 and stime 15. */
	p = strrchr(line, ')');
	assert_non_null(p);
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
				"%*u %*u %lu %lu", &utime, &stime), 2);
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * A job stalled on a semaphore nothing writes for a second: the machine
 * sleeps meanwhile (well under a third of a CPU, where watching would
 * take all of one), and the job still passes once the host writes it.
 */
static void test_waiting_job_holds_no_cpu(void **state)
{
	struct timespec second = { 1, 0 };
	struct tern_packet_builder b;
	uint8_t packets[64];
	tern_buffer_t host;
	uint64_t *word, va;
	double before, used;
	pid_t pid = machine_pid();

	(void)state;
	assert_ok(tern_buffer_alloc(dev[0], TERN_MEMORY_HOST, 4096, &host));
	assert_ok(tern_buffer_device_address(host, &va));
	assert_ok(tern_buffer_map(host, (void **)&word));
	tern_packets_init(&b, packets, sizeof(packets));
	tern_packet_sem_wait(&b, va, 1, false);
	assert_ok(tern_stream_submit(stream, packets, b.size, NULL, 0, NULL));
	before = cpu_seconds(pid);
	nanosleep(&second, NULL);
	used = cpu_seconds(pid) - before;
	assert_status(tern_stream_query(stream), TERN_ERROR_NOT_READY);
	if (used > 0.3)
		fail_msg("the machine used %.2f s of CPU in 1 s while its "
			 "only job waited", used);
	__atomic_store_n(word, 1, __ATOMIC_SEQ_CST);
	assert_ok(tern_stream_synchronize(stream));
	assert_ok(tern_buffer_free(host));
}

/* ---- the machine as tern-inspect sim sees it ---- */

static void test_admin_lists_and_refuses(void **state)
{
	tern_sim_machine_t m[64], one;
	uint32_t n = 0, i;
	int started = -1;

	(void)state;
	assert_ok(tern_sim_machine_list(m, 64, &n));
	for (i = 0; i < n && i < 64; i++)
		if (strcmp(m[i].name, machine_name) == 0)
			break;
	if (i == n || i == 64)
		fail_msg("machine %s is not listed", machine_name);
	assert_int_equal(m[i].device_count, 2);
	assert_int_equal(m[i].memory_mb, 64);
	assert_true(m[i].pid > 0);
	assert_true(m[i].processes >= 1);	/* this program */

	/* It runs: start finds it, the same process. */
	assert_ok(tern_sim_machine_start(0, &one, &started));
	assert_int_equal(started, 0);
	assert_int_equal(one.pid, m[i].pid);
	/* In use by this program: not stopped unless forced. */
	assert_status(tern_sim_machine_stop(NULL, 0, NULL),
		      TERN_ERROR_NOT_READY);
	assert_true(strstr(tern_get_last_error(), "other process"));

	assert_status(tern_sim_machine_start(0, NULL, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_machine_list(NULL, 1, &n),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_machine_list(m, 1, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_machine_stop("../x", 0, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_machine_stop("none-such", 0, NULL),
		      TERN_ERROR_NO_DEVICE);
	/* Still there, still serving. */
	assert_ok(tern_device_memory_usage(dev[0], &(uint64_t){ 0 },
					   &(uint64_t){ 0 }));
}

/* Faults and device state: garbage gets a status and a reason, no harm. */
static void test_fault_and_state_refuse_garbage(void **state)
{
	static tern_sim_device_state_t st;
	char longline[200];

	(void)state;
	assert_status(tern_sim_inject_fault(0, NULL, "0 down"),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_inject_fault(0, "fabric_link", NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_inject_fault(0, "melt", "now"),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_true(strstr(tern_get_last_error(), "no fault 'melt'"));
	assert_status(tern_sim_inject_fault(0, "fabric_link", "0 sideways"),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_inject_fault(0, "fabric_link", "99 down"),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_inject_fault(0, "mem_error", "often"),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_inject_fault(0, "engine_hang", "99"),
		      TERN_ERROR_INVALID_ARGUMENT);
	memset(longline, '7', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	assert_status(tern_sim_inject_fault(0, "fabric_link", longline),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_inject_fault(-1, "fabric_link", "0 down"),
		      TERN_ERROR_INVALID_DEVICE);
	assert_status(tern_sim_inject_fault(2, "fabric_link", "0 down"),
		      TERN_ERROR_INVALID_DEVICE);
	assert_status(tern_sim_device_state(0, NULL),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_device_state(2, &st), TERN_ERROR_INVALID_DEVICE);
	assert_status(tern_sim_device_state(-5, &st), TERN_ERROR_INVALID_DEVICE);

	/* Nothing was lost: device 0 healthy, this program's open listed. */
	assert_ok(tern_sim_device_state(0, &st));
	assert_int_equal(st.mem_errors_uncorrected, 0);
	assert_true(st.client_count >= 1);
	for (uint32_t e = 0; e < st.engine_count; e++)
		assert_false(st.engines[e].hung);
	assert_ok(tern_device_memory_usage(dev[0], &(uint64_t){ 0 },
					   &(uint64_t){ 0 }));
}

/*
 * Events: what a fault announces, garbage refused, and a follower that
 * does not read is told what it missed without holding the machine up.
 */
static void test_events(void **state)
{
	tern_sim_event_t ev;
	uint64_t lost = 0;
	int fd, slow, pipefd[2];

	(void)state;
	assert_status(tern_sim_events_open(NULL), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_event_read(-1, &ev, 0),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(write(pipefd[1], "garbage!", 8), 8);
	assert_status(tern_sim_event_read(pipefd[0], &ev, 0),
		      TERN_ERROR_INVALID_ARGUMENT);
	close(pipefd[0]);
	close(pipefd[1]);

	assert_ok(tern_sim_events_open(&fd));
	assert_status(tern_sim_event_read(fd, NULL, 0),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_event_read(fd, &ev, -2),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_event_read(fd, &ev, 0), TERN_ERROR_TIMEOUT);
	assert_ok(tern_sim_inject_fault(1, "fabric_link", "1 error"));
	assert_ok(tern_sim_event_read(fd, &ev, 5000));
	assert_int_equal(ev.kind, TERN_SIM_EVENT_LINK_ERROR);
	assert_int_equal(ev.device_a, 0);
	assert_int_equal(ev.device_b, 1);
	assert_int_equal(ev.port_b, 1);
	assert_int_equal(ev.link_errors, 1);
	assert_int_equal(ev.lost, 0);
	for (uint32_t d = 0; d < 2; d++) {
		assert_ok(tern_sim_event_read(fd, &ev, 5000));
		assert_int_equal(ev.kind, TERN_SIM_EVENT_HEALTH);
		assert_int_equal(ev.device, d);
		assert_int_equal(ev.health_reasons, 1u << 1);	/* link_errors */
	}

	/* A follower that reads nothing while thousands of events come. */
	assert_ok(tern_sim_events_open(&slow));
	for (int i = 0; i < 4000; i++)
		assert_ok(tern_sim_inject_fault(0, "fabric_link", "0 error"));
	assert_ok(tern_device_memory_usage(dev[0], &(uint64_t){ 0 },
					   &(uint64_t){ 0 }));
	while (tern_sim_event_read(slow, &ev, 0) == TERN_SUCCESS)
		assert_int_equal(ev.lost, 0);
	assert_true(ev.link_errors < 4001);	/* it had no room for all */
	/* The next, with room again, comes whole and says what was missed. */
	assert_ok(tern_sim_inject_fault(0, "fabric_link", "0 error"));
	assert_ok(tern_sim_event_read(slow, &ev, 5000));
	assert_int_equal(ev.kind, TERN_SIM_EVENT_LINK_ERROR);
	assert_int_equal(ev.link_errors, 4002);
	lost = ev.lost;
	assert_true(lost > 0 && lost < 4000);
	close(slow);
	close(fd);
}

/*
 * Counts the messages of @msgs, each of command @cmd, and stores each's
 * u32 attribute @attr (~0u where it has none) into @values; asserts that
 * every message and attribute is whole.
 */
static int each_message(const void *msgs, size_t len, uint8_t cmd,
			uint16_t attr, uint32_t *values, int cap)
{
	const uint8_t *p = msgs;
	int n = 0;

	while (len >= NLMSG_HDRLEN + GENL_HDRLEN) {
		const struct nlmsghdr *nlh = (const void *)p;
		const struct genlmsghdr *genl = NLMSG_DATA(nlh);
		const uint8_t *a = (const uint8_t *)genl + GENL_HDRLEN;
		const uint8_t *end = p + nlh->nlmsg_len;

		assert_true(nlh->nlmsg_len <= len);
		assert_int_equal(genl->cmd, cmd);
		assert_int_equal(genl->version, DRM_TERN_GENL_VERSION);
		assert_true(n < cap);
		values[n] = ~0u;
		while (a + NLA_HDRLEN <= end) {
			const struct nlattr *nla = (const void *)a;

			assert_true(nla->nla_len >= NLA_HDRLEN &&
				    a + nla->nla_len <= end);
			if (nla->nla_type == attr && nla->nla_len == NLA_HDRLEN + 4)
				memcpy(&values[n], a + NLA_HDRLEN, 4);
			a += NLA_ALIGN(nla->nla_len);
		}
		n++;
		len -= NLMSG_ALIGN(nlh->nlmsg_len);
		p += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	assert_int_equal(len, 0);
	return n;
}

/*
 * The machine answers a dump and sends its events as tern.ko's netlink
 * family does: one message per device (with its index), per link (as
 * many as the ports say), per open; garbage refused.
 */
static void test_netlink_encoding(void **state)
{
	tern_port_info_t ports[16];
	uint32_t values[64], count, connected = 0;
	uint8_t msg[TERN_SIM_EVENT_MAX_BYTES];
	size_t len;
	void *msgs;
	uint64_t lost;
	int fd;

	(void)state;
	assert_status(tern_sim_netlink_dump(DRM_TERN_CMD_DEVICE_GET, -1, NULL,
					    &len), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_netlink_dump(99, -1, &msgs, &len),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_netlink_dump(DRM_TERN_CMD_LINK_GET, 0, &msgs,
					    &len), TERN_ERROR_INVALID_ARGUMENT);
	assert_status(tern_sim_netlink_dump(DRM_TERN_CMD_DEVICE_GET, 2, &msgs,
					    &len), TERN_ERROR_INVALID_DEVICE);

	assert_ok(tern_sim_netlink_dump(DRM_TERN_CMD_DEVICE_GET, -1, &msgs,
					&len));
	assert_int_equal(each_message(msgs, len, DRM_TERN_CMD_DEVICE_GET,
				      DRM_TERN_A_DEV_INDEX, values, 64), 2);
	assert_int_equal(values[0], 0);
	assert_int_equal(values[1], 1);
	free(msgs);

	for (int d = 0; d < 2; d++) {
		assert_ok(tern_device_get_ports(dev[d], ports, 16, &count));
		for (uint32_t p = 0; p < count; p++)
			connected += ports[p].state != TERN_LINK_UNCONNECTED;
	}
	assert_ok(tern_sim_netlink_dump(DRM_TERN_CMD_LINK_GET, -1, &msgs, &len));
	assert_int_equal(each_message(msgs, len, DRM_TERN_CMD_LINK_GET,
				      DRM_TERN_A_LINK_INDEX, values, 64),
			 connected / 2);
	free(msgs);

	/* This process's opens of device 1, every one its own. */
	assert_ok(tern_sim_netlink_dump(DRM_TERN_CMD_CLIENT_GET, 1, &msgs,
					&len));
	count = (uint32_t)each_message(msgs, len, DRM_TERN_CMD_CLIENT_GET,
				       DRM_TERN_A_CLIENT_PID, values, 64);
	assert_true(count >= 1);
	for (uint32_t c = 0; c < count; c++)
		assert_int_equal(values[c], (uint32_t)getpid());
	free(msgs);

	assert_ok(tern_sim_events_open(&fd));
	assert_status(tern_sim_event_read_netlink(fd, msg, sizeof(msg) - 1,
						  &len, &lost, 0),
		      TERN_ERROR_INVALID_ARGUMENT);
	assert_ok(tern_sim_inject_fault(0, "mem_error", "correctable 64"));
	assert_ok(tern_sim_event_read_netlink(fd, msg, sizeof(msg), &len,
					      &lost, 5000));
	assert_int_equal(each_message(msg, len, DRM_TERN_CMD_MEM_ERROR_NTF,
				      DRM_TERN_A_DEV_MEM_ERROR_KIND, values,
				      64), 1);
	assert_int_equal(values[0], DRM_TERN_MEM_ERROR_CORRECTED);
	assert_int_equal(lost, 0);
	close(fd);
}

static int open_fixture(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		if (tern_device_open(i, &dev[i]))
			return -1;
	if (tern_stream_create(dev[0], &stream) ||
	    tern_buffer_alloc(dev[0], TERN_MEMORY_DEVICE, 4096, &scratch))
		return -1;
	return 0;
}

static int close_fixture(void **state)
{
	(void)state;
	tern_buffer_free(scratch);
	tern_stream_destroy(stream);
	for (int i = 0; i < 2; i++)
		tern_device_close(dev[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_mismatch),
		cmocka_unit_test(test_corrupt_socket),
		cmocka_unit_test(test_unsafe_dir),
		cmocka_unit_test(test_other_version),
		cmocka_unit_test(test_other_user),
		cmocka_unit_test(test_idle_machine_gives_way),
		cmocka_unit_test(test_busy_machine_stays),
		cmocka_unit_test(test_unique_id_needs_no_device),
		cmocka_unit_test(test_killed_process_leaves_nothing),
		cmocka_unit_test(test_cannot_reach_other_process),
		cmocka_unit_test(test_waiting_job_holds_no_cpu),
		cmocka_unit_test(test_admin_lists_and_refuses),
		cmocka_unit_test(test_fault_and_state_refuse_garbage),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_netlink_encoding),
	};

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	if (sim_own_machine("m", machine_name, sizeof(machine_name), "2",
			    "64"))
		return 1;
	return cmocka_run_group_tests_name("machine", tests, open_fixture,
					   close_fixture) ? 1 : 0;
}
