// SPDX-License-Identifier: MIT
/*
 * Snapshots from tern.ko: dumps of the "tern" generic netlink family
 * (devices, links, clients), read by the one parser (snapshot_parse.c)
 * that reads the simulated machine's too, plus the engine clock from
 * DRM_IOCTL_TERN_GET_INFO on each node this user may open. Any user may
 * dump devices and links; clients are every user's own unless the
 * process has CAP_PERFMON or CAP_SYS_ADMIN, and a device's client count
 * still counts them all, which is how the others are known to be hidden.
 * A command its family does not list (DRM_TERN_CMD_CLIENT_GET) reads as
 * no clients, so the tool works with every tern.ko that has the family.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <xf86drm.h>

#include "family.h"
#include "snapshot.h"
#include "tern_accel.h"

/* What a dump callback fills; @error is set when a message is malformed. */
struct kernel_dump {
	struct snapshot *snap;
	int error;
};

/* "platform:tern.0" when the device is on the platform bus (mock hardware). */
static void kernel_guess_bus_id(struct snapshot_device *dev)
{
	char path[160];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s", dev->name);
	if (dev->name[0] && stat(path, &st) == 0)
		snprintf(dev->bus_id, sizeof(dev->bus_id), "platform:%s",
			 dev->name);
}

/* A dump's message, read by the one parser (snapshot_parse.c). */
static int kernel_dump_cb(struct nl_msg *msg, void *arg)
{
	struct kernel_dump *dump = arg;
	int err = snapshot_add(dump->snap, nlmsg_hdr(msg));

	if (err < 0) {
		dump->error = err;
		return NL_STOP;
	}
	return NL_OK;
}

/*
 * Runs dump @cmd through @cb, with the u32 filter @attr = @value unless
 * @attr is 0. Returns 0 or a negative libnl error.
 */
static int kernel_dump(struct nl_sock *sock, int family, uint8_t cmd,
		       int attr, uint32_t value, struct kernel_dump *dump)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return -NLE_NOMEM;
	dump->error = 0;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP,
			 cmd, DRM_TERN_GENL_VERSION) ||
	    (attr && nla_put_u32(msg, attr, value) < 0)) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	err = nl_socket_modify_cb(sock, NL_CB_VALID, NL_CB_CUSTOM,
				  kernel_dump_cb, dump);
	if (err >= 0)
		err = nl_send_auto(sock, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sock);
	if (err >= 0 && dump->error)
		err = dump->error;
	return err < 0 ? err : 0;
}

/* The engine clock (and capabilities) from the node, if we may open it. */
static void kernel_read_node(struct snapshot_device *dev)
{
	struct drm_tern_info info = { 0 };
	int fd = open(dev->node, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		dev->node_errno = errno;
		return;
	}
	if (drmIoctl(fd, DRM_IOCTL_TERN_GET_INFO, &info) == 0) {
		dev->clock_hz = info.engine_clock_hz;
		if (!dev->capabilities)
			dev->capabilities = info.capabilities;
	} else {
		dev->node_errno = errno;
	}
	close(fd);
}

/* Fills what only a node gives: from @old when refreshing, else opens it. */
static void kernel_node_fields(const struct snapshot *old,
			       struct snapshot_device *dev)
{
	if (old) {
		for (int i = 0; i < old->device_count; i++) {
			const struct snapshot_device *was = &old->devices[i];

			if (was->index == dev->index &&
			    strcmp(was->node, dev->node) == 0) {
				dev->clock_hz = was->clock_hz;
				dev->node_errno = was->node_errno;
				if (!dev->capabilities)
					dev->capabilities = was->capabilities;
				return;
			}
		}
	}
	if (dev->node[0])
		kernel_read_node(dev);
}

/* Whether this is the initial user namespace, where tern.ko checks. */
static bool kernel_initial_user_ns(void)
{
	unsigned long inside, outside, count;
	FILE *f = fopen("/proc/self/uid_map", "r");
	int fields;

	if (!f)
		return true;	/* no /proc: nothing says otherwise */
	fields = fscanf(f, "%lu %lu %lu", &inside, &outside, &count);
	fclose(f);
	return fields == 3 && inside == 0 && outside == 0 &&
	       count == 4294967295UL;
}

/*
 * Whether tern.ko shows this process every client: CAP_PERFMON or
 * CAP_SYS_ADMIN in effect, in the initial user namespace.
 */
static bool kernel_sees_all_clients(void)
{
	struct __user_cap_header_struct header = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	uint64_t effective;

	if (syscall(SYS_capget, &header, data))
		return false;
	effective = data[0].effective | (uint64_t)data[1].effective << 32;
	return (effective & (1ull << CAP_PERFMON | 1ull << CAP_SYS_ADMIN)) &&
	       kernel_initial_user_ns();
}

static void kernel_report(const char *prog, const char *what, int err)
{
	fprintf(stderr, "%s: reading tern.ko's %s over netlink: %s\n", prog,
		what, snapshot_error(err));
}

/* The dumps of one snapshot over @conn. Returns 0 or the exit status. */
static int kernel_take(const char *prog, const struct snapshot *old,
		       struct family_conn *conn, struct kernel_dump *dump,
		       bool *retry)
{
	struct snapshot *snap = dump->snap;
	struct timespec now;
	int err;

	snap->source = SNAPSHOT_SOURCE_DRIVER;
	snap->backend = TERN_BACKEND_KERNEL;
	clock_gettime(CLOCK_MONOTONIC, &now);
	snap->taken_ns = (uint64_t)now.tv_sec * 1000000000ull +
			 (uint64_t)now.tv_nsec;

	err = kernel_dump(conn->sock, conn->id, DRM_TERN_CMD_DEVICE_GET, 0, 0,
			  dump);
	if (err < 0 && *retry) {
		/* A kept connection may name a family since reloaded. */
		*retry = false;
		return -1;
	}
	if (err < 0) {
		kernel_report(prog, "devices", err);
		return 1;
	}
	if (snap->device_count == 0) {
		fprintf(stderr,
			"%s: tern.ko is loaded but has no devices: reload it with "
			"devices, e.g. 'sudo modprobe -r tern && sudo modprobe tern "
			"mock_devices=4'\n", prog);
		return 1;
	}
	err = kernel_dump(conn->sock, conn->id, DRM_TERN_CMD_LINK_GET, 0, 0,
			  dump);
	if (err < 0) {
		kernel_report(prog, "links", err);
		return 1;
	}
	/* Nodes first: the file we open must not show up as a client. */
	for (int i = 0; i < snap->device_count; i++) {
		if (!snap->devices[i].bus_id[0])
			kernel_guess_bus_id(&snap->devices[i]);
		kernel_node_fields(old, &snap->devices[i]);
	}
	/* A tern.ko whose family lacks the command has no clients to show. */
	if (conn->has_client_get) {
		err = kernel_dump(conn->sock, conn->id, DRM_TERN_CMD_CLIENT_GET, 0,
				  0, dump);
		if (err < 0) {
			kernel_report(prog, "clients", err);
			return 1;
		}
	}
	for (int i = 0; i < snap->device_count; i++)
		if (!snap->devices[i].health_given)
			snapshot_derive_link_health(snap, &snap->devices[i]);
	snapshot_finish(snap);
	snapshot_count_hidden(snap, kernel_sees_all_clients());
	return 0;
}

int snapshot_kernel_take(const char *prog, const struct snapshot *old,
			 struct family_conn *kept, struct snapshot *snap)
{
	struct family_conn own = { 0 };
	struct family_conn *conn = kept ? kept : &own;
	bool retry = kept && kept->sock;
	int err, ret;

	family_init_policies();
	for (;;) {
		struct kernel_dump dump = { .snap = snap };

		if (!conn->sock) {
			err = family_connect(conn);
			if (err == FAMILY_ABSENT)
				return SNAPSHOT_NO_DRIVER;
			if (err < 0) {
				kernel_report(prog, "family", err);
				return 1;
			}
		}
		ret = kernel_take(prog, old, conn, &dump, &retry);
		if (ret)
			snapshot_free(snap);
		if (ret >= 0)
			break;
		family_close(conn);	/* and connect again */
	}
	if (!kept)
		family_close(conn);
	if (ret) {
		snap->source = SNAPSHOT_SOURCE_DRIVER;
		snap->backend = TERN_BACKEND_KERNEL;
	}
	return ret;
}

uint32_t snapshot_kernel_client_pid(struct family_conn *conn, uint32_t device,
				    uint64_t id)
{
	struct snapshot clients = { 0 };
	struct kernel_dump dump = { .snap = &clients };
	uint32_t pid = 0;

	family_init_policies();
	if ((!conn->sock && family_connect(conn)) || !conn->has_client_get)
		return 0;
	if (kernel_dump(conn->sock, conn->id, DRM_TERN_CMD_CLIENT_GET,
			DRM_TERN_A_CLIENT_DEVICE, device, &dump))
		family_close(conn);	/* a reloaded tern.ko: connect anew */
	for (int c = 0; c < clients.client_count; c++)
		if (clients.clients[c].id == id)
			pid = clients.clients[c].pid;
	free(clients.clients);
	return pid;
}
