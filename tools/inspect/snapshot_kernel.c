// SPDX-License-Identifier: MIT
/*
 * Snapshots from tern.ko: dumps of the "tern" generic netlink family
 * (devices, links, clients), plus the engine clock from
 * DRM_IOCTL_TERN_GET_INFO on each node this user may open. Any user may
 * dump devices and links; clients are every user's own unless the
 * process has CAP_PERFMON or CAP_SYS_ADMIN, and a device's client count
 * still counts them all, which is how the others are known to be hidden.
 * Attributes an older tern.ko does not send are left zero, and a command
 * its family does not list (DRM_TERN_CMD_CLIENT_GET) reads as no clients, so
 * the tool works with every tern.ko that has the family.
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
	bool *health_given;	/* per device: the driver sent DRM_TERN_A_DEV_HEALTH */
	int capacity;
	int error;
};

/* Grows *@array (of @size-byte items) to hold one more than @count. */
static void *kernel_grow(void *array, int count, int *capacity, size_t size)
{
	int want;
	void *grown;

	if (count < *capacity)
		return array;
	want = *capacity ? *capacity * 2 : 16;
	grown = realloc(array, (size_t)want * size);
	if (grown)
		*capacity = want;
	return grown;
}

static uint32_t kernel_u32(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : 0;
}

static uint64_t kernel_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

static void kernel_string(struct nlattr **tb, int attr, char *buf, size_t len)
{
	if (tb[attr])
		nla_strlcpy(buf, tb[attr], len);
}

static int kernel_parse_engine(struct nlattr *nest, struct snapshot_engine *eng)
{
	struct nlattr *tb[DRM_TERN_A_ENGINE_MAX + 1];
	int err = nla_parse_nested(tb, DRM_TERN_A_ENGINE_MAX, nest,
				   family_engine_policy);

	if (err < 0)
		return err;
	eng->index = kernel_u32(tb, DRM_TERN_A_ENGINE_INDEX);
	eng->busy = kernel_u32(tb, DRM_TERN_A_ENGINE_BUSY) != 0;
	eng->hung = kernel_u32(tb, DRM_TERN_A_ENGINE_HUNG) != 0;
	eng->busy_ns = kernel_u64(tb, DRM_TERN_A_ENGINE_BUSY_NS);
	eng->jobs_queued = kernel_u32(tb, DRM_TERN_A_ENGINE_JOBS_QUEUED);
	eng->jobs_completed = kernel_u64(tb, DRM_TERN_A_ENGINE_JOBS_COMPLETED);
	eng->jobs_failed = kernel_u64(tb, DRM_TERN_A_ENGINE_JOBS_FAILED);
	eng->timeouts = kernel_u64(tb, DRM_TERN_A_ENGINE_TIMEOUTS);
	eng->resets = kernel_u64(tb, DRM_TERN_A_ENGINE_RESETS);
	eng->hang_resets = kernel_u64(tb, DRM_TERN_A_ENGINE_HANG_RESETS);
	return 0;
}

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

static int kernel_device_cb(struct nl_msg *msg, void *arg)
{
	struct kernel_dump *dump = arg;
	struct snapshot *snap = dump->snap;
	struct nlattr *tb[DRM_TERN_A_DEV_MAX + 1];
	struct snapshot_device *dev;
	struct nlattr *nla;
	bool *given;
	int rem, err;

	err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, DRM_TERN_A_DEV_MAX,
			    family_device_policy);
	if (err < 0 || !tb[DRM_TERN_A_DEV_INDEX]) {
		dump->error = err < 0 ? err : -NLE_MISSING_ATTR;
		return NL_STOP;
	}
	dev = kernel_grow(snap->devices, snap->device_count, &dump->capacity,
			  sizeof(*dev));
	if (!dev) {
		dump->error = -NLE_NOMEM;
		return NL_STOP;
	}
	snap->devices = dev;
	given = realloc(dump->health_given,
			(size_t)dump->capacity * sizeof(*given));
	if (!given) {
		dump->error = -NLE_NOMEM;
		return NL_STOP;
	}
	dump->health_given = given;
	given[snap->device_count] = tb[DRM_TERN_A_DEV_HEALTH] != NULL;
	dev = &snap->devices[snap->device_count++];
	memset(dev, 0, sizeof(*dev));

	dev->index = kernel_u32(tb, DRM_TERN_A_DEV_INDEX);
	dev->fabric_id = kernel_u32(tb, DRM_TERN_A_DEV_FABRIC_ID);
	kernel_string(tb, DRM_TERN_A_DEV_NAME, dev->name, sizeof(dev->name));
	kernel_string(tb, DRM_TERN_A_DEV_NODE, dev->node, sizeof(dev->node));
	kernel_string(tb, DRM_TERN_A_DEV_BUS_ID, dev->bus_id, sizeof(dev->bus_id));
	if (!dev->bus_id[0])
		kernel_guess_bus_id(dev);
	kernel_string(tb, DRM_TERN_A_DEV_DRIVER_VERSION, dev->driver_version,
		      sizeof(dev->driver_version));
	dev->capabilities = kernel_u64(tb, DRM_TERN_A_DEV_CAPABILITIES);
	dev->mem_total = kernel_u64(tb, DRM_TERN_A_DEV_MEM_SIZE);
	dev->mem_used = kernel_u64(tb, DRM_TERN_A_DEV_MEM_USED);
	dev->mem_host_used = kernel_u64(tb, DRM_TERN_A_DEV_MEM_HOST_USED);
	dev->buffer_count = kernel_u32(tb, DRM_TERN_A_DEV_BUFFER_COUNT);
	dev->engine_count = kernel_u32(tb, DRM_TERN_A_DEV_ENGINE_COUNT);
	dev->engines_busy = kernel_u32(tb, DRM_TERN_A_DEV_ENGINES_BUSY);
	dev->port_count = kernel_u32(tb, DRM_TERN_A_DEV_PORT_COUNT);
	dev->client_count = kernel_u32(tb, DRM_TERN_A_DEV_CLIENT_COUNT);
	dev->health = (enum snapshot_health)kernel_u32(tb, DRM_TERN_A_DEV_HEALTH);
	if (dev->health > SNAPSHOT_HEALTH_FAILED)
		dev->health = SNAPSHOT_HEALTH_FAILED;	/* newer, worse states */
	dev->health_reasons = kernel_u32(tb, DRM_TERN_A_DEV_HEALTH_REASONS);
	dev->mem_errors_corrected = kernel_u64(tb, DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED);
	dev->mem_errors_uncorrected =
		kernel_u64(tb, DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED);
	dev->jobs_completed = kernel_u64(tb, DRM_TERN_A_DEV_JOBS_COMPLETED);
	dev->jobs_failed = kernel_u64(tb, DRM_TERN_A_DEV_JOBS_FAILED);
	dev->job_timeouts = kernel_u64(tb, DRM_TERN_A_DEV_JOB_TIMEOUTS);
	dev->engine_resets = kernel_u64(tb, DRM_TERN_A_DEV_ENGINE_RESETS);
	dev->engine_hang_resets = kernel_u64(tb, DRM_TERN_A_DEV_ENGINE_HANG_RESETS);
	if (tb[DRM_TERN_A_DEV_TOPOLOGY] && !snap->topology[0])
		nla_strlcpy(snap->topology, tb[DRM_TERN_A_DEV_TOPOLOGY],
			    sizeof(snap->topology));

	/* DRM_TERN_A_DEV_ENGINE repeats, one nest per engine. */
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0),
			  genlmsg_attrlen(nlmsg_data(nlmsg_hdr(msg)), 0), rem) {
		struct snapshot_engine eng = { 0 };

		if (nla_type(nla) != DRM_TERN_A_DEV_ENGINE)
			continue;
		err = kernel_parse_engine(nla, &eng);
		if (err < 0) {
			dump->error = err;
			return NL_STOP;
		}
		if (eng.index < SNAPSHOT_MAX_ENGINES)
			dev->engines[eng.index] = eng;
	}
	/* Without engine nests, list the engines with zero counters. */
	for (uint32_t e = 0; e < dev->engine_count && e < SNAPSHOT_MAX_ENGINES; e++)
		dev->engines[e].index = e;
	return NL_OK;
}

static int kernel_link_cb(struct nl_msg *msg, void *arg)
{
	struct kernel_dump *dump = arg;
	struct snapshot *snap = dump->snap;
	struct nlattr *tb[DRM_TERN_A_LINK_MAX + 1];
	struct snapshot_link *link;
	int err;

	err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, DRM_TERN_A_LINK_MAX,
			    family_link_policy);
	if (err < 0) {
		dump->error = err;
		return NL_STOP;
	}
	link = kernel_grow(snap->links, snap->link_count, &dump->capacity,
			   sizeof(*link));
	if (!link) {
		dump->error = -NLE_NOMEM;
		return NL_STOP;
	}
	snap->links = link;
	link = &snap->links[snap->link_count++];
	memset(link, 0, sizeof(*link));
	link->index = kernel_u32(tb, DRM_TERN_A_LINK_INDEX);
	link->device_a = kernel_u32(tb, DRM_TERN_A_LINK_DEVICE_A);
	link->port_a = kernel_u32(tb, DRM_TERN_A_LINK_PORT_A);
	link->device_b = kernel_u32(tb, DRM_TERN_A_LINK_DEVICE_B);
	link->port_b = kernel_u32(tb, DRM_TERN_A_LINK_PORT_B);
	link->up = kernel_u32(tb, DRM_TERN_A_LINK_STATE) == DRM_TERN_PORT_UP;
	link->bytes_a_to_b = kernel_u64(tb, DRM_TERN_A_LINK_BYTES_A_TO_B);
	link->bytes_b_to_a = kernel_u64(tb, DRM_TERN_A_LINK_BYTES_B_TO_A);
	link->packets_a_to_b = kernel_u64(tb, DRM_TERN_A_LINK_PACKETS_A_TO_B);
	link->packets_b_to_a = kernel_u64(tb, DRM_TERN_A_LINK_PACKETS_B_TO_A);
	link->errors = kernel_u64(tb, DRM_TERN_A_LINK_ERRORS);
	link->bandwidth = kernel_u64(tb, DRM_TERN_A_LINK_BANDWIDTH);
	link->latency_ns = kernel_u32(tb, DRM_TERN_A_LINK_LATENCY_NS);
	return NL_OK;
}

static int kernel_client_cb(struct nl_msg *msg, void *arg)
{
	struct kernel_dump *dump = arg;
	struct snapshot *snap = dump->snap;
	struct nlattr *tb[DRM_TERN_A_CLIENT_MAX + 1];
	struct snapshot_client *client;
	int err;

	err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, DRM_TERN_A_CLIENT_MAX,
			    family_client_policy);
	if (err < 0) {
		dump->error = err;
		return NL_STOP;
	}
	client = kernel_grow(snap->clients, snap->client_count,
			     &dump->capacity, sizeof(*client));
	if (!client) {
		dump->error = -NLE_NOMEM;
		return NL_STOP;
	}
	snap->clients = client;
	client = &snap->clients[snap->client_count++];
	memset(client, 0, sizeof(*client));
	client->device = kernel_u32(tb, DRM_TERN_A_CLIENT_DEVICE);
	client->id = kernel_u64(tb, DRM_TERN_A_CLIENT_ID);
	client->pid = kernel_u32(tb, DRM_TERN_A_CLIENT_PID);
	kernel_string(tb, DRM_TERN_A_CLIENT_COMM, client->comm,
		      sizeof(client->comm));
	client->mem_device = kernel_u64(tb, DRM_TERN_A_CLIENT_MEM_DEVICE);
	client->mem_host = kernel_u64(tb, DRM_TERN_A_CLIENT_MEM_HOST);
	client->buffers = kernel_u32(tb, DRM_TERN_A_CLIENT_BUFFERS);
	client->queues = kernel_u32(tb, DRM_TERN_A_CLIENT_QUEUES);
	client->jobs_submitted = kernel_u64(tb, DRM_TERN_A_CLIENT_JOBS_SUBMITTED);
	client->jobs_active = kernel_u32(tb, DRM_TERN_A_CLIENT_JOBS_ACTIVE);
	client->busy_ns = kernel_u64(tb, DRM_TERN_A_CLIENT_BUSY_NS);
	return NL_OK;
}

/*
 * Runs dump @cmd through @cb, with the u32 filter @attr = @value unless
 * @attr is 0. Returns 0 or a negative libnl error.
 */
static int kernel_dump(struct nl_sock *sock, int family, uint8_t cmd,
		       int attr, uint32_t value, nl_recvmsg_msg_cb_t cb,
		       struct kernel_dump *dump)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		return -NLE_NOMEM;
	dump->capacity = 0;
	dump->error = 0;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP,
			 cmd, DRM_TERN_GENL_VERSION) ||
	    (attr && nla_put_u32(msg, attr, value) < 0)) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	err = nl_socket_modify_cb(sock, NL_CB_VALID, NL_CB_CUSTOM, cb, dump);
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
		what, nl_geterror(err));
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
			  kernel_device_cb, dump);
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
			  kernel_link_cb, dump);
	if (err < 0) {
		kernel_report(prog, "links", err);
		return 1;
	}
	/* Nodes first: the file we open must not show up as a client. */
	for (int i = 0; i < snap->device_count; i++)
		kernel_node_fields(old, &snap->devices[i]);
	/* A tern.ko whose family lacks the command has no clients to show. */
	if (conn->has_client_get) {
		err = kernel_dump(conn->sock, conn->id, DRM_TERN_CMD_CLIENT_GET, 0,
				  0, kernel_client_cb, dump);
		if (err < 0) {
			kernel_report(prog, "clients", err);
			return 1;
		}
	}
	for (int i = 0; i < snap->device_count; i++)
		if (!dump->health_given[i])
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
		free(dump.health_given);
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
			DRM_TERN_A_CLIENT_DEVICE, device, kernel_client_cb, &dump))
		family_close(conn);	/* a reloaded tern.ko: connect anew */
	for (int c = 0; c < clients.client_count; c++)
		if (clients.clients[c].id == id)
			pid = clients.clients[c].pid;
	free(clients.clients);
	return pid;
}
