// SPDX-License-Identifier: MIT
/*
 * DRM_TERN_CMD_CLIENT_GET: every open file of a device is a client, named by
 * the process that opened it; what it holds (buffers, imports among them,
 * queues) and what it ran is counted exactly, it goes when the file
 * closes, a dump longer than one message buffer lists each client once,
 * pids are those of the dumping process's pid namespace, and DRM fdinfo
 * shows the same client. Who may see what: a user sees only the clients
 * it opened, CAP_PERFMON or CAP_SYS_ADMIN sees every client, and only
 * CAP_SYS_ADMIN may join the "events" group.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <xf86drm.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "fabric.h"

/* More files than one dump buffer (32 KiB) has room for. */
#define MANY_FILES	256

static struct nl_sock *sock;
static int family;
static struct nl_replies before, after;

static int clients_setup(void **state)
{
	(void)state;
	sock = netlink_open(&family);
	return 0;
}

static int clients_teardown(void **state)
{
	(void)state;
	nl_socket_free(sock);
	sock = NULL;
	return 0;
}

static void dump_clients(uint32_t device, struct nl_replies *out)
{
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET,
				      DRM_TERN_A_CLIENT_DEVICE, device, out), 0);
	for (uint32_t i = 0; i < out->count; i++) {
		assert_int_equal(out->msg[i].cmd, DRM_TERN_CMD_CLIENT_GET);
		assert_int_equal(out->msg[i].attr[DRM_TERN_A_CLIENT_DEVICE], device);
	}
}

/* The client @id on @device now; the test fails if it is gone. */
static struct nl_reply client_now(uint32_t device, uint64_t id)
{
	const struct nl_reply *client;

	dump_clients(device, &after);
	client = netlink_find_client(&after, id);
	if (!client)
		fail_msg("client %llu is not listed", (unsigned long long)id);
	return *client;
}

static void my_comm(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/comm", "r");

	assert_non_null(f);
	assert_non_null(fgets(out, (int)size, f));
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

static uint64_t client_count(uint32_t device)
{
	struct nl_reply dev;

	netlink_device(sock, family, device, &dev);
	return dev.attr[DRM_TERN_A_DEV_CLIENT_COUNT];
}

static void test_client_is_this_process(void **state)
{
	uint32_t d = fabric.devices - 1;
	uint64_t clients = client_count(d);
	struct uapi_bo device_bo, host_bo;
	struct uapi_stream s = { .size = 0 };
	struct nl_reply c;
	char comm[32];
	uint64_t id;
	uint32_t queue;
	int fd;

	(void)state;
	dump_clients(d, &before);
	fd = uapi_open_device(d);
	assert_true(fd >= 0);
	dump_clients(d, &after);
	c = *netlink_new_client(&before, &after);
	id = c.attr[DRM_TERN_A_CLIENT_ID];
	my_comm(comm, sizeof(comm));
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_PID], getpid());
	assert_string_equal(c.str[DRM_TERN_A_CLIENT_COMM], comm);
	for (int a = DRM_TERN_A_CLIENT_MEM_DEVICE; a <= DRM_TERN_A_CLIENT_BUSY_NS; a++) {
		assert_true(c.has[a]);
		assert_int_equal(c.attr[a], 0);
	}
	assert_int_equal(client_count(d), clients + 1);

	/* a buffer's bytes count from its creation, exactly */
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_DEVICE, 3 * 4096 + 1, &device_bo);
	c = client_now(d, id);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_DEVICE], device_bo.size);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_HOST], 0);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_BUFFERS], 1);
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 8192, &host_bo);
	c = client_now(d, id);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_DEVICE], device_bo.size);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_HOST], host_bo.size);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_BUFFERS], 2);

	queue = uapi_queue_create(fd, 0);
	uapi_emit_fill(&s, device_bo.va, 4096, 0x5a5a5a5a);
	assert_int_equal(uapi_run(fd, queue, &s), 1);
	c = client_now(d, id);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_QUEUES], 1);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_JOBS_SUBMITTED], 1);
	/* it ended before its fence signalled */
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_JOBS_ACTIVE], 0);
	assert_true(c.attr[DRM_TERN_A_CLIENT_BUSY_NS] > 0);

	uapi_bo_close(fd, &device_bo);
	c = client_now(d, id);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_DEVICE], 0);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_HOST], host_bo.size);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_BUFFERS], 1);

	uapi_bo_close(fd, &host_bo);
	close(fd);
	dump_clients(d, &after);
	assert_null(netlink_find_client(&after, id));
	assert_int_equal(after.count, before.count);
	assert_int_equal(client_count(d), clients);
}

/* An imported buffer counts for the importing file too. */
static void test_client_counts_imports(void **state)
{
	uint32_t exporter = fabric.devices - 1, importer = fabric.devices - 2;
	struct uapi_bo bo;
	struct nl_reply c;
	uint32_t handle;
	int fd, dma_buf;

	(void)state;
	uapi_bo_create(fabric.fd[exporter], DRM_TERN_PLACEMENT_DEVICE, 64 * 1024, &bo);
	dump_clients(importer, &before);
	fd = uapi_open_device(importer);
	dump_clients(importer, &after);
	c = *netlink_new_client(&before, &after);
	assert_int_equal(drmPrimeHandleToFD(fabric.fd[exporter], bo.handle,
					    DRM_CLOEXEC | DRM_RDWR, &dma_buf), 0);
	assert_int_equal(drmPrimeFDToHandle(fd, dma_buf, &handle), 0);
	close(dma_buf);
	c = client_now(importer, c.attr[DRM_TERN_A_CLIENT_ID]);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_MEM_DEVICE], bo.size);
	assert_int_equal(c.attr[DRM_TERN_A_CLIENT_BUFFERS], 1);
	close(fd);
	uapi_bo_close(fabric.fd[exporter], &bo);
}

/* A dump in several parts lists every client once, in id order. */
static void test_client_dump_in_parts(void **state)
{
	uint32_t d = fabric.devices - 1;
	int fds[MANY_FILES];

	(void)state;
	dump_clients(d, &before);
	for (int i = 0; i < MANY_FILES; i++) {
		fds[i] = uapi_open_device(d);
		assert_true(fds[i] >= 0);
	}
	dump_clients(d, &after);
	for (int i = 0; i < MANY_FILES; i++)
		close(fds[i]);
	assert_int_equal(after.count, before.count + MANY_FILES);
	for (uint32_t i = 1; i < after.count; i++)
		assert_true(after.msg[i].attr[DRM_TERN_A_CLIENT_ID] >
			    after.msg[i - 1].attr[DRM_TERN_A_CLIENT_ID]);
}

/* Without a filter: the clients of every device, ours among them. */
static void test_client_dump_all_devices(void **state)
{
	uint32_t ours[FABRIC_MAX_DEVICES] = { 0 };

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET, 0, 0,
				      &after), 0);
	for (uint32_t i = 0; i < after.count; i++) {
		uint64_t d = after.msg[i].attr[DRM_TERN_A_CLIENT_DEVICE];

		assert_true(d < fabric.devices);
		if (after.msg[i].attr[DRM_TERN_A_CLIENT_PID] == (uint64_t)getpid())
			ours[d]++;
	}
	for (uint32_t d = 0; d < fabric.devices; d++)
		if (!ours[d])
			fail_msg("no client of this process on device %u", d);
}

/* Whether the running kernel is @major.@minor or later. */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int have_major = 0, have_minor = 0;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &have_major, &have_minor), 2);
	return have_major > major || (have_major == major && have_minor >= minor);
}

/* The value of @key in @fd's fdinfo, as a number; -1 if it has no such line. */
static int64_t fdinfo_number(int fd, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	int64_t value = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			value = strtoll(line + len + 1, NULL, 10);
	fclose(f);
	return value;
}

/*
 * DRM fdinfo (6.5 and later): the client id netlink reports, the bytes of
 * its buffers by placement, its time on each engine, adding up to its
 * busy time; none of it before 6.5.
 */
static void test_client_fdinfo(void **state)
{
	uint32_t d = fabric.devices - 1;
	struct uapi_stream s = { .size = 0 };
	struct uapi_bo device_bo, host_bo;
	uint32_t engines, engine, queue;
	struct nl_reply c;
	int64_t busy = 0;
	int fd;

	(void)state;
	dump_clients(d, &before);
	fd = uapi_open_device(d);
	assert_true(fd >= 0);
	dump_clients(d, &after);
	c = *netlink_new_client(&before, &after);
	if (!kernel_at_least(6, 5)) {
		assert_int_equal(fdinfo_number(fd, "drm-client-id"), -1);
		assert_int_equal(fdinfo_number(fd, "drm-engine-e0"), -1);
		close(fd);
		return;
	}
	engines = uapi_get_info(fd).engine_count;
	/* the last engine that runs FILL: the last DMA engine */
	engine = uapi_get_info(fd).dma_engine_count - 1;
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_DEVICE, 40960, &device_bo);
	uapi_bo_create(fd, DRM_TERN_PLACEMENT_HOST, 8192, &host_bo);
	queue = uapi_queue_create(fd, engine);
	uapi_emit_fill(&s, device_bo.va, 4096, 0x11111111);
	assert_int_equal(uapi_run(fd, queue, &s), 1);

	c = client_now(d, c.attr[DRM_TERN_A_CLIENT_ID]);
	assert_int_equal(fdinfo_number(fd, "drm-client-id"), c.attr[DRM_TERN_A_CLIENT_ID]);
	assert_int_equal(fdinfo_number(fd, "drm-memory-device"), device_bo.size);
	assert_int_equal(fdinfo_number(fd, "drm-memory-host"), host_bo.size);
	for (uint32_t e = 0; e < engines; e++) {
		char key[32];
		int64_t ns;

		snprintf(key, sizeof(key), "drm-engine-e%u", e);
		ns = fdinfo_number(fd, key);
		assert_true(ns >= 0);
		/* only its queue's engine ran one of its jobs */
		if (e != engine)
			assert_int_equal(ns, 0);
		busy += ns;
	}
	assert_true(busy > 0);
	/* nothing runs now: the same time netlink reports */
	assert_int_equal(busy, c.attr[DRM_TERN_A_CLIENT_BUSY_NS]);
	uapi_bo_close(fd, &device_bo);
	uapi_bo_close(fd, &host_bo);
	close(fd);
}

/* The pid of the client named @comm in @in, or -1 if none is. */
static int64_t pid_of_comm(const struct nl_replies *in, const char *comm)
{
	for (uint32_t i = 0; i < in->count; i++)
		if (!strcmp(in->msg[i].str[DRM_TERN_A_CLIENT_COMM], comm))
			return (int64_t)in->msg[i].attr[DRM_TERN_A_CLIENT_PID];
	return -1;
}

#define PIDNS_COMM	"tern-pidns"

/*
 * The process in the new pid namespace: opens @device, dumps its clients
 * and reports the pids it sees, its own and the test's (named @test_comm),
 * on @report; holds the file open until @go closes.
 */
static void __attribute__((noreturn))
pidns_child(uint32_t device, const char *test_comm, int report, int go)
{
	static struct nl_replies seen;
	int64_t pids[2];
	struct nl_sock *child_sock;
	int child_family, fd;
	char byte;

	prctl(PR_SET_NAME, PIDNS_COMM);
	fd = uapi_open_device(device);
	child_sock = netlink_open(&child_family);
	if (fd < 0 || netlink_dump(child_sock, child_family, DRM_TERN_CMD_CLIENT_GET,
				   DRM_TERN_A_CLIENT_DEVICE, device, &seen))
		_exit(2);
	pids[0] = pid_of_comm(&seen, PIDNS_COMM);
	pids[1] = pid_of_comm(&seen, test_comm);
	if (write(report, pids, sizeof(pids)) != sizeof(pids))
		_exit(3);
	while (read(go, &byte, 1) > 0)
		;
	_exit(0);
}

/*
 * A client's pid is reported in the dumping process's pid namespace:
 * a process that is pid 1 of a new namespace sees itself as 1 and a
 * client outside its namespace as 0; from here it has its real pid.
 */
static void test_client_pid_namespace(void **state)
{
	uint32_t d = fabric.devices - 1;
	int report[2], go[2], grandchild[2], status, fd;
	int64_t seen_by_child[2];
	pid_t child, inner = 0;
	char comm[32];

	(void)state;
	my_comm(comm, sizeof(comm));
	fd = uapi_open_device(d);	/* the test's own client */
	assert_true(fd >= 0);
	assert_int_equal(pipe(report), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(grandchild), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		/* Only this process's children enter the new namespace. */
		close(go[1]);
		if (unshare(CLONE_NEWPID))
			_exit(4);
		inner = fork();
		if (inner == 0)
			pidns_child(d, comm, report[1], go[0]);
		if (inner < 0 ||
		    write(grandchild[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(5);
		close(go[0]);
		if (waitpid(inner, &status, 0) != inner)
			_exit(6);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 7);
	}
	close(go[0]);
	close(report[1]);
	close(grandchild[1]);
	assert_int_equal(read(grandchild[0], &inner, sizeof(inner)),
			 sizeof(inner));
	assert_int_equal(read(report[0], seen_by_child, sizeof(seen_by_child)),
			 sizeof(seen_by_child));

	/* while the child holds its file: seen from here, its real pid */
	dump_clients(d, &after);
	assert_int_equal(pid_of_comm(&after, PIDNS_COMM), inner);
	close(go[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(report[0]);
	close(grandchild[0]);
	close(fd);

	/* seen from the new namespace: itself pid 1, this process invisible */
	assert_int_equal(seen_by_child[0], 1);
	assert_int_equal(seen_by_child[1], 0);
}

/* ---- who may see what ---- */

#define NOBODY		65534
#define CAP_BIT(cap)	(1ull << (cap))

/* What a child that becomes user nobody does. */
struct as_user {
	uint64_t caps;		/* the capabilities it keeps, CAP_BIT()s */
	bool socket_first;	/* open its netlink socket while still root */
};

/* What it saw, reported on a pipe. */
struct as_user_view {
	int32_t error;		/* 0, or the step that failed */
	uint32_t uid;
	uint32_t seen;		/* clients CLIENT_GET listed, every device */
	uint32_t own;		/* of those, its own (its pid) */
	uint32_t test;		/* of those, the test process's */
	uint64_t own_id;	/* its client's id */
	uint64_t device_clients;	/* DRM_TERN_A_DEV_CLIENT_COUNT of its device */
	int32_t join;		/* nl_socket_add_membership() of "events" */
};

/* Sets the effective and permitted capabilities to @caps, nothing else. */
static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct header = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = (uint32_t)caps, .permitted = (uint32_t)caps },
		{ .effective = (uint32_t)(caps >> 32),
		  .permitted = (uint32_t)(caps >> 32) },
	};

	return (int)syscall(SYS_capset, &header, data);
}

/* Becomes uid and gid nobody, keeping only @caps. */
static int become_nobody(uint64_t caps)
{
	if (caps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -1;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	return set_caps(caps);
}

/* The child: opens @device's node as nobody, dumps, reports, waits. */
static void __attribute__((noreturn))
as_user_child(uint32_t device, const struct as_user *how, pid_t test,
	      int report, int go)
{
	static struct nl_replies seen;
	struct as_user_view view = { 0 };
	struct nl_sock *child_sock = NULL;
	int child_family = 0, group, fd;
	char byte;

	if (how->socket_first)
		child_sock = netlink_open(&child_family);
	if (become_nobody(how->caps)) {
		view.error = 1;
		goto report;
	}
	view.uid = getuid();
	if (!child_sock)
		child_sock = netlink_open(&child_family);
	fd = open(fabric.node[device], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		view.error = 2;
		goto report;
	}
	if (netlink_dump(child_sock, child_family, DRM_TERN_CMD_CLIENT_GET, 0, 0,
			 &seen)) {
		view.error = 3;
		goto report;
	}
	view.seen = seen.count;
	for (uint32_t i = 0; i < seen.count; i++) {
		uint64_t pid = seen.msg[i].attr[DRM_TERN_A_CLIENT_PID];

		if (pid == (uint64_t)getpid()) {
			view.own++;
			view.own_id = seen.msg[i].attr[DRM_TERN_A_CLIENT_ID];
		}
		view.test += pid == (uint64_t)test;
	}
	if (netlink_dump(child_sock, child_family, DRM_TERN_CMD_DEVICE_GET,
			 DRM_TERN_A_DEV_INDEX, device, &seen) || seen.count != 1) {
		view.error = 4;
		goto report;
	}
	view.device_clients = seen.msg[0].attr[DRM_TERN_A_DEV_CLIENT_COUNT];
	group = genl_ctrl_resolve_grp(child_sock, DRM_TERN_GENL_NAME,
				      DRM_TERN_MCGRP_EVENTS);
	view.join = group < 0 ? group :
		    nl_socket_add_membership(child_sock, group);
report:
	if (write(report, &view, sizeof(view)) != sizeof(view))
		_exit(3);
	while (read(go, &byte, 1) > 0)
		;
	_exit(0);
}

/* A child that is nobody as @how says, holding a file of @device. */
struct as_user_run {
	pid_t pid;
	int go;
	struct as_user_view view;
};

/*
 * Starts the child and waits for what it saw. The node is open to
 * everyone (as a udev rule may make it) only until the child opened it.
 */
static void as_user_start(uint32_t device, const struct as_user *how,
			  struct as_user_run *run)
{
	int report[2], go[2];
	struct stat st;

	assert_int_equal(stat(fabric.node[device], &st), 0);
	assert_int_equal(chmod(fabric.node[device], 0666), 0);
	assert_int_equal(pipe(report), 0);
	assert_int_equal(pipe(go), 0);
	run->pid = fork();
	assert_true(run->pid >= 0);
	if (run->pid == 0) {
		close(report[0]);
		close(go[1]);
		as_user_child(device, how, getppid(), report[1], go[0]);
	}
	close(report[1]);
	close(go[0]);
	run->go = go[1];
	memset(&run->view, 0, sizeof(run->view));
	run->view.error = -1;
	if (read(report[0], &run->view, sizeof(run->view)) != sizeof(run->view))
		run->view.error = -1;
	close(report[0]);
	assert_int_equal(chmod(fabric.node[device], st.st_mode & 07777), 0);
	if (run->view.error)
		fail_msg("the child as nobody failed at step %d",
			 run->view.error);
	assert_int_equal(run->view.uid, NOBODY);
}

static void as_user_end(struct as_user_run *run)
{
	int status;

	close(run->go);
	assert_int_equal(waitpid(run->pid, &status, 0), run->pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Clients of process @pid in @in. */
static uint32_t clients_of(const struct nl_replies *in, pid_t pid)
{
	uint32_t count = 0;

	for (uint32_t i = 0; i < in->count; i++)
		count += in->msg[i].attr[DRM_TERN_A_CLIENT_PID] == (uint64_t)pid;
	return count;
}

/*
 * Another user sees its own client and none of root's (this process has
 * a file of every device), though the device still counts them all;
 * root sees both.
 */
static void test_client_other_user_sees_own_only(void **state)
{
	uint32_t d = fabric.devices - 1;
	const struct as_user how = { 0 };
	const struct nl_reply *c;
	struct as_user_run run;

	(void)state;
	as_user_start(d, &how, &run);
	assert_int_equal(run.view.own, 1);
	assert_int_equal(run.view.test, 0);
	assert_int_equal(run.view.seen, 1);

	dump_clients(d, &after);
	c = netlink_find_client(&after, run.view.own_id);
	if (!c)
		fail_msg("root does not see nobody's client %llu",
			 (unsigned long long)run.view.own_id);
	assert_int_equal(c->attr[DRM_TERN_A_CLIENT_PID], run.pid);
	assert_true(clients_of(&after, getpid()) >= 1);
	assert_int_equal(run.view.device_clients, after.count);
	as_user_end(&run);
}

/*
 * CAP_PERFMON or CAP_SYS_ADMIN sees every client, as root does; another
 * capability grants nothing.
 */
static void test_client_capabilities_see_all(void **state)
{
	static const struct {
		int cap;
		bool sees_all;
	} cases[] = {
		{ CAP_PERFMON, true },
		{ CAP_SYS_ADMIN, true },
		{ CAP_NET_ADMIN, false },
	};
	uint32_t d = fabric.devices - 1;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct as_user how = { .caps = CAP_BIT(cases[i].cap) };
		struct as_user_run run;

		as_user_start(d, &how, &run);
		assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET,
					      0, 0, &after), 0);
		assert_int_equal(run.view.own, 1);
		if (cases[i].sees_all) {
			assert_int_equal(run.view.seen, after.count);
			assert_int_equal(run.view.test,
					 clients_of(&after, getpid()));
		} else {
			assert_int_equal(run.view.seen, 1);
			assert_int_equal(run.view.test, 0);
		}
		as_user_end(&run);
	}
}

/*
 * A request counts with the credentials of both the socket's opener and
 * the sender, as netlink_capable() does: a socket root opened, used by
 * nobody, sees no client, not even nobody's own.
 */
static void test_client_socket_of_root_sees_nothing(void **state)
{
	const struct as_user how = { .socket_first = true };
	struct as_user_run run;

	(void)state;
	as_user_start(fabric.devices - 1, &how, &run);
	assert_int_equal(run.view.seen, 0);
	as_user_end(&run);
}

/*
 * Why the running kernel cannot refuse a multicast group to a process
 * without a capability (GENL_MCAST_CAP_*, Linux 6.7, backported to
 * 6.1.68), in @why; NULL when it can. Debian's release ("6.1.0-57-amd64")
 * does not give the upstream version, its uname version ("... Debian
 * 6.1.192-3 ...") does.
 */
static const char *mcast_caps_missing(char *why, size_t size)
{
	int major = 0, minor = 0, patch = 0;
	const char *debian;
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	debian = strstr(u.version, "Debian ");
	if (sscanf(debian ? debian + strlen("Debian ") : u.release,
		   "%d.%d.%d", &major, &minor, &patch) < 2)
		major = minor = 0;
	if (major > 6 || (major == 6 && minor >= 7) ||
	    (major == 6 && minor == 1 && patch >= 68))
		return NULL;
	snprintf(why, size,
		 "Linux %d.%d.%d is not known to check multicast group capabilities (6.1.68 and 6.7 do)",
		 major, minor, patch);
	return why;
}

/* Only CAP_SYS_ADMIN may join "events"; CAP_PERFMON is not enough. */
static void test_event_group_needs_sys_admin(void **state)
{
	static const struct {
		uint64_t caps;
		int join;
	} cases[] = {
		{ 0, -NLE_PERM },
		{ CAP_BIT(CAP_PERFMON), -NLE_PERM },
		{ CAP_BIT(CAP_SYS_ADMIN), 0 },
	};
	char why[160];

	(void)state;
	if (mcast_caps_missing(why, sizeof(why))) {
		print_message("skipped: %s\n", why);
		skip();
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct as_user how = { .caps = cases[i].caps };
		struct as_user_run run;

		as_user_start(fabric.devices - 1, &how, &run);
		if (run.view.join != cases[i].join)
			fail_msg("nobody with capabilities 0x%llx joining \"%s\": %d (%s), want %d",
				 (unsigned long long)cases[i].caps,
				 DRM_TERN_MCGRP_EVENTS, run.view.join,
				 nl_geterror(run.view.join), cases[i].join);
		as_user_end(&run);
	}
}

#define T(f) cmocka_unit_test(f)

int client_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_client_is_this_process),
		T(test_client_counts_imports),
		T(test_client_dump_in_parts),
		T(test_client_dump_all_devices),
		T(test_client_pid_namespace),
		T(test_client_fdinfo),
		T(test_client_other_user_sees_own_only),
		T(test_client_capabilities_see_all),
		T(test_client_socket_of_root_sees_nothing),
		T(test_event_group_needs_sys_admin),
	};

	return cmocka_run_group_tests_name("fabric_clients", tests,
					   clients_setup, clients_teardown);
}
