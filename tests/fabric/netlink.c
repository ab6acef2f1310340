// SPDX-License-Identifier: MIT
/*
 * The generic netlink family "tern" through libnl-genl-3: the family
 * resolves, DEVICE_GET and LINK_GET dump what the ioctls report, their
 * filters keep one message and refuse what names nothing, the link
 * counters move by exactly the bytes a job sent, a device's identity,
 * health and job counters are all there and right, and the strict policy
 * refuses what a request may not carry.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "fabric.h"

/* ---- helpers ---- */

_Static_assert(DRM_TERN_A_DEV_MAX <= NL_MAX_ATTR && DRM_TERN_A_LINK_MAX <= NL_MAX_ATTR &&
	       DRM_TERN_A_CLIENT_MAX <= NL_MAX_ATTR, "NL_MAX_ATTR is too small");

static uint64_t number(struct nlattr *attr)
{
	if (nla_len(attr) == 4)
		return nla_get_u32(attr);
	if (nla_len(attr) == 8)
		return nla_get_u64(attr);
	return 0;
}

/* Every DRM_TERN_A_DEV_ENGINE nest, in order (genlmsg_parse keeps the last). */
static void parse_engines(struct nlmsghdr *nlh, struct nl_reply *reply)
{
	struct nlattr *pos;
	int rem;

	nla_for_each_attr(pos, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		struct nlattr *tb[DRM_TERN_A_ENGINE_MAX + 1];
		struct nl_engine *engine;

		if (nla_type(pos) != DRM_TERN_A_DEV_ENGINE)
			continue;
		if (reply->engines++ >= NL_MAX_ENGINES)
			continue;
		engine = &reply->engine[reply->engines - 1];
		assert_int_equal(nla_parse_nested(tb, DRM_TERN_A_ENGINE_MAX, pos, NULL), 0);
		for (int i = 1; i <= DRM_TERN_A_ENGINE_MAX; i++) {
			if (!tb[i])
				continue;
			engine->has[i] = 1;
			engine->attr[i] = number(tb[i]);
		}
		if (tb[DRM_TERN_A_ENGINE_GUILTY_COMM])
			nla_strlcpy(engine->guilty_comm, tb[DRM_TERN_A_ENGINE_GUILTY_COMM],
				    sizeof(engine->guilty_comm));
	}
}

static int on_message(struct nl_msg *msg, void *arg)
{
	struct nl_replies *out = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NL_MAX_ATTR + 1];
	struct nl_reply *reply;

	if (out->count == ARRAY_SIZE(out->msg) ||
	    genlmsg_parse(nlh, 0, tb, NL_MAX_ATTR, NULL) < 0)
		return NL_STOP;
	reply = &out->msg[out->count++];
	memset(reply, 0, sizeof(*reply));
	reply->cmd = genlmsg_hdr(nlh)->cmd;
	for (int i = 1; i <= NL_MAX_ATTR; i++) {
		if (!tb[i])
			continue;
		reply->has[i] = 1;
		reply->attr[i] = number(tb[i]);
		nla_strlcpy(reply->str[i], tb[i], sizeof(reply->str[i]));
	}
	parse_engines(nlh, reply);
	if (reply->cmd == DRM_TERN_CMD_DEVICE_GET) {
		if (tb[DRM_TERN_A_DEV_NAME])
			nla_strlcpy(reply->name, tb[DRM_TERN_A_DEV_NAME],
				    sizeof(reply->name));
		if (tb[DRM_TERN_A_DEV_NODE])
			nla_strlcpy(reply->node, tb[DRM_TERN_A_DEV_NODE],
				    sizeof(reply->node));
	}
	return NL_OK;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	struct nl_replies *out = arg;

	(void)who;
	out->error = err->error;
	return NL_STOP;
}

struct nl_sock *netlink_open(int *family)
{
	struct nl_sock *sock = nl_socket_alloc();

	assert_non_null(sock);
	assert_int_equal(genl_connect(sock), 0);
	*family = genl_ctrl_resolve(sock, DRM_TERN_GENL_NAME);
	if (*family <= 0)
		fail_msg("genl_ctrl_resolve(\"%s\"): %s", DRM_TERN_GENL_NAME,
			 nl_geterror(*family));
	return sock;
}

static int any_sequence(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/* @events: multicast messages, which answer no request (sequence 0). */
static int receive(struct nl_sock *sock, struct nl_replies *out, int events)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	assert_non_null(cb);
	if (events)
		nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_sequence, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_message, out);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, out);
	ret = nl_recvmsgs(sock, cb);
	nl_cb_put(cb);
	return ret;
}

int netlink_dump(struct nl_sock *sock, int family, uint8_t cmd, uint16_t attr,
	    uint32_t value, struct nl_replies *out)
{
	struct nl_msg *msg = nlmsg_alloc();
	int ret;

	memset(out, 0, sizeof(*out));
	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				    NLM_F_DUMP, cmd, DRM_TERN_GENL_VERSION));
	if (attr)
		assert_int_equal(nla_put_u32(msg, attr, value), 0);
	ret = nl_send_auto(sock, msg);
	nlmsg_free(msg);
	assert_true(ret >= 0);

	ret = receive(sock, out, 0);
	if (out->error)
		return out->error;
	if (ret < 0)
		fail_msg("receiving the dump: %s", nl_geterror(ret));
	return 0;
}

void netlink_device(struct nl_sock *sock, int family, uint32_t index,
		    struct nl_reply *out)
{
	static struct nl_replies replies;

	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_DEVICE_GET,
				      DRM_TERN_A_DEV_INDEX, index, &replies), 0);
	assert_int_equal(replies.count, 1);
	*out = replies.msg[0];
}

struct nl_sock *netlink_events_open(void)
{
	int family, group;
	struct nl_sock *sock = netlink_open(&family);

	group = genl_ctrl_resolve_grp(sock, DRM_TERN_GENL_NAME, DRM_TERN_MCGRP_EVENTS);
	assert_true(group > 0);
	assert_int_equal(nl_socket_add_membership(sock, group), 0);
	return sock;
}

int netlink_next(struct nl_sock *sock, int bound_ms, struct nl_reply *out)
{
	struct pollfd pfd = { .fd = nl_socket_get_fd(sock), .events = POLLIN };
	static struct nl_replies replies;

	if (poll(&pfd, 1, bound_ms) <= 0)
		return 0;
	memset(&replies, 0, sizeof(replies));
	receive(sock, &replies, 1);
	/* one event per datagram */
	assert_int_equal(replies.count, 1);
	*out = replies.msg[0];
	return 1;
}

struct nl_reply netlink_event_about(struct nl_sock *events, uint32_t device,
				    uint8_t cmd, int bound_ms)
{
	struct nl_reply event;

	while (netlink_next(events, bound_ms, &event)) {
		if (event.cmd == cmd && event.has[DRM_TERN_A_DEV_INDEX] &&
		    event.attr[DRM_TERN_A_DEV_INDEX] == device)
			return event;
	}
	fail_msg("no event %u about device %u within %d ms", cmd, device, bound_ms);
	return event;
}

void netlink_assert_no_event(struct nl_sock *events, uint32_t device,
			     uint8_t cmd, int bound_ms)
{
	struct nl_reply event;

	while (netlink_next(events, bound_ms, &event))
		if (event.cmd == cmd && event.attr[DRM_TERN_A_DEV_INDEX] == device)
			fail_msg("unexpected event %u about device %u", cmd, device);
}

const struct nl_reply *netlink_find_client(const struct nl_replies *in,
					   uint64_t id)
{
	for (uint32_t i = 0; i < in->count; i++)
		if (in->msg[i].attr[DRM_TERN_A_CLIENT_ID] == id)
			return &in->msg[i];
	return NULL;
}

const struct nl_reply *netlink_new_client(const struct nl_replies *then,
					  const struct nl_replies *now)
{
	const struct nl_reply *found = NULL;

	assert_int_equal(now->count, then->count + 1);
	for (uint32_t i = 0; i < now->count; i++) {
		if (netlink_find_client(then, now->msg[i].attr[DRM_TERN_A_CLIENT_ID]))
			continue;
		assert_null(found);
		found = &now->msg[i];
	}
	assert_non_null(found);
	return found;
}

int netlink_open_client(struct nl_sock *sock, int family, uint32_t device,
			uint64_t *id)
{
	static struct nl_replies then, now;
	int fd;

	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET,
				      DRM_TERN_A_CLIENT_DEVICE, device, &then), 0);
	fd = uapi_open_device(device);
	assert_true(fd >= 0);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET,
				      DRM_TERN_A_CLIENT_DEVICE, device, &now), 0);
	*id = netlink_new_client(&then, &now)->attr[DRM_TERN_A_CLIENT_ID];
	return fd;
}

void netlink_assert_guilty(const struct nl_reply *event, uint64_t id)
{
	const struct nl_engine *engine = &event->engine[0];
	char comm[32];
	FILE *f;

	assert_int_equal(event->cmd, DRM_TERN_CMD_ENGINE_RESET_NTF);
	assert_int_equal(event->engines, 1);
	if (!engine->has[DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID])
		fail_msg("the reset event names no guilty client");
	assert_int_equal(engine->attr[DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID], id);
	/* a pid of one namespace would mislead listeners in another */
	if (engine->has[DRM_TERN_A_ENGINE_GUILTY_PID])
		fail_msg("the reset event carries a pid (%llu)",
			 (unsigned long long)engine->attr[DRM_TERN_A_ENGINE_GUILTY_PID]);
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	assert_string_equal(engine->guilty_comm, comm);
}

/* ---- the family and its dumps ---- */

static void test_nl_family_resolves(void **state)
{
	struct nl_sock *sock = nl_socket_alloc();

	(void)state;
	assert_int_equal(genl_connect(sock), 0);
	assert_true(genl_ctrl_resolve(sock, DRM_TERN_GENL_NAME) > 0);
	assert_true(genl_ctrl_resolve_grp(sock, DRM_TERN_GENL_NAME,
					  DRM_TERN_MCGRP_EVENTS) > 0);
	nl_socket_free(sock);
}

static void assert_device_reply(const struct nl_reply *reply)
{
	uint32_t index = (uint32_t)reply->attr[DRM_TERN_A_DEV_INDEX];
	struct drm_tern_info info;
	struct drm_tern_topology topology = { 0 };
	char name[32];

	assert_int_equal(reply->cmd, DRM_TERN_CMD_DEVICE_GET);
	assert_true(reply->has[DRM_TERN_A_DEV_INDEX]);
	assert_true(index < fabric.devices);
	info = uapi_get_info(fabric.fd[index]);
	assert_ioctl_ok(uapi_ioctl(fabric.fd[index], DRM_IOCTL_TERN_TOPOLOGY,
				   &topology));
	assert_int_equal(reply->attr[DRM_TERN_A_DEV_FABRIC_ID], topology.fabric_id);
	assert_int_equal(reply->attr[DRM_TERN_A_DEV_MEM_SIZE], info.device_memory_size);
	assert_int_equal(reply->attr[DRM_TERN_A_DEV_MEM_USED], info.device_memory_used);
	assert_int_equal(reply->attr[DRM_TERN_A_DEV_ENGINE_COUNT], info.engine_count);
	assert_int_equal(reply->attr[DRM_TERN_A_DEV_PORT_COUNT], topology.port_count);
	assert_string_equal(reply->node, fabric.node[index]);
	snprintf(name, sizeof(name), "tern.%u", index);
	assert_string_equal(reply->name, name);
}

static void test_nl_device_dump(void **state)
{
	static struct nl_replies out;
	uint64_t seen = 0;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_DEVICE_GET, 0, 0, &out), 0);
	assert_int_equal(out.count, fabric.devices);
	for (uint32_t i = 0; i < out.count; i++) {
		assert_device_reply(&out.msg[i]);
		seen |= 1ull << out.msg[i].attr[DRM_TERN_A_DEV_INDEX];
	}
	/* each device once */
	assert_int_equal(__builtin_popcountll(seen), fabric.devices);
	nl_socket_free(sock);
}

static void test_nl_device_filter(void **state)
{
	static struct nl_replies out;
	uint32_t last = fabric.devices - 1;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_DEVICE_GET,
				 DRM_TERN_A_DEV_INDEX, last, &out), 0);
	assert_int_equal(out.count, 1);
	assert_int_equal(out.msg[0].attr[DRM_TERN_A_DEV_INDEX], last);
	assert_device_reply(&out.msg[0]);
	nl_socket_free(sock);
}

static void test_nl_link_dump(void **state)
{
	static struct nl_replies out;
	struct ports ports;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	ports_read(&ports);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET, 0, 0, &out), 0);
	/* a ring of N has N links */
	assert_int_equal(out.count, fabric.devices);
	for (uint32_t i = 0; i < out.count; i++) {
		const struct nl_reply *link = &out.msg[i];
		uint64_t a = link->attr[DRM_TERN_A_LINK_DEVICE_A];
		uint64_t pa = link->attr[DRM_TERN_A_LINK_PORT_A];
		const struct drm_tern_port_info *end;

		assert_int_equal(link->cmd, DRM_TERN_CMD_LINK_GET);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_INDEX], i);
		assert_true(a < fabric.devices && pa < RING_PORTS);
		end = &ports.port[a][pa];
		assert_int_equal(link->attr[DRM_TERN_A_LINK_DEVICE_B], end->peer_fabric_id);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_PORT_B], end->peer_port);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_STATE], DRM_TERN_PORT_UP);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_BYTES_A_TO_B], end->tx_bytes);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_BYTES_B_TO_A], end->rx_bytes);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_ERRORS], end->errors);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_BANDWIDTH], end->bandwidth);
		assert_int_equal(link->attr[DRM_TERN_A_LINK_LATENCY_NS], end->latency_ns);
	}
	nl_socket_free(sock);
}

static void test_nl_link_filter(void **state)
{
	static struct nl_replies out;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET,
				 DRM_TERN_A_LINK_INDEX, 1, &out), 0);
	assert_int_equal(out.count, 1);
	assert_int_equal(out.msg[0].attr[DRM_TERN_A_LINK_INDEX], 1);
	nl_socket_free(sock);
}

/* The change of @attr of every link between two dumps. */
static uint64_t moved(const struct nl_replies *before,
		      const struct nl_replies *after, uint32_t link, int attr)
{
	return after->msg[link].attr[attr] - before->msg[link].attr[attr];
}

/*
 * Asserts that only the link 0->1 moved, by @bytes from device 0 to 1
 * and @back_bytes the other way, one transfer for each non-zero.
 */
static void assert_only_link01_moved(const struct nl_replies *before,
				     const struct nl_replies *after,
				     uint64_t bytes, uint64_t back_bytes)
{
	assert_int_equal(after->count, before->count);
	for (uint32_t i = 0; i < after->count; i++) {
		const struct nl_reply *link = &after->msg[i];
		int from0 = link->attr[DRM_TERN_A_LINK_DEVICE_A] == 0;
		int is01 = (from0 && link->attr[DRM_TERN_A_LINK_DEVICE_B] == 1 &&
			    link->attr[DRM_TERN_A_LINK_PORT_A] == RING_NEXT) ||
			   (!from0 && link->attr[DRM_TERN_A_LINK_DEVICE_A] == 1 &&
			    link->attr[DRM_TERN_A_LINK_DEVICE_B] == 0 &&
			    link->attr[DRM_TERN_A_LINK_PORT_A] == RING_PREV);
		uint64_t ab = is01 ? (from0 ? bytes : back_bytes) : 0;
		uint64_t ba = is01 ? (from0 ? back_bytes : bytes) : 0;

		assert_int_equal(moved(before, after, i, DRM_TERN_A_LINK_BYTES_A_TO_B), ab);
		assert_int_equal(moved(before, after, i, DRM_TERN_A_LINK_BYTES_B_TO_A), ba);
		assert_int_equal(moved(before, after, i, DRM_TERN_A_LINK_PACKETS_A_TO_B),
				 ab ? 1 : 0);
		assert_int_equal(moved(before, after, i, DRM_TERN_A_LINK_PACKETS_B_TO_A),
				 ba ? 1 : 0);
	}
}

static void test_nl_link_counters_move_by_bytes_sent(void **state)
{
	static struct nl_replies before, after;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET, 0, 0, &before), 0);
	assert_int_equal(copy_to_device1(5), 1);
	assert_device1_got(5);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET, 0, 0, &after), 0);
	assert_only_link01_moved(&before, &after, FABRIC_COPY_BYTES, 0);

	/* a read of device 1's memory flows back */
	before = after;
	assert_int_equal(copy_on_device0(fx.import_va, fx.local.va + 8192,
					 FABRIC_COPY_BYTES / 2), 1);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET, 0, 0, &after), 0);
	assert_only_link01_moved(&before, &after, 0, FABRIC_COPY_BYTES / 2);
	nl_socket_free(sock);
}

static void test_nl_link_get_rejects_unknown_attribute(void **state)
{
	static struct nl_replies out;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	/* the request policy knows only the index filter */
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET,
				 DRM_TERN_A_LINK_DEVICE_A, 0, &out), -EINVAL);
	assert_int_equal(out.count, 0);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_DEVICE_GET,
				 DRM_TERN_A_DEV_FABRIC_ID, 0, &out), -EINVAL);
	assert_int_equal(out.count, 0);
	nl_socket_free(sock);
}

/* ---- identity, health and counters of a device ---- */

/* The VERSION file at the top of the tree, which tern.ko reports. */
static void read_version(char *out, size_t size)
{
	FILE *f = fopen("VERSION", "r");

	if (!f)
		fail_msg("VERSION: %s (run from the top of the tree)", strerror(errno));
	assert_non_null(fgets(out, (int)size, f));
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

static const int device_attrs[] = {
	DRM_TERN_A_DEV_CAPABILITIES, DRM_TERN_A_DEV_BUS_ID, DRM_TERN_A_DEV_DRIVER_VERSION,
	DRM_TERN_A_DEV_HEALTH, DRM_TERN_A_DEV_HEALTH_REASONS, DRM_TERN_A_DEV_MEM_HOST_USED,
	DRM_TERN_A_DEV_BUFFER_COUNT, DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED,
	DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED, DRM_TERN_A_DEV_JOBS_COMPLETED,
	DRM_TERN_A_DEV_JOBS_FAILED, DRM_TERN_A_DEV_JOB_TIMEOUTS, DRM_TERN_A_DEV_ENGINE_RESETS,
	DRM_TERN_A_DEV_ENGINES_BUSY, DRM_TERN_A_DEV_CLIENT_COUNT, DRM_TERN_A_DEV_ENGINE,
	DRM_TERN_A_DEV_TOPOLOGY, DRM_TERN_A_DEV_ENGINE_HANG_RESETS,
};

static const int engine_attrs[] = {
	DRM_TERN_A_ENGINE_INDEX, DRM_TERN_A_ENGINE_BUSY, DRM_TERN_A_ENGINE_BUSY_NS,
	DRM_TERN_A_ENGINE_JOBS_QUEUED, DRM_TERN_A_ENGINE_JOBS_COMPLETED,
	DRM_TERN_A_ENGINE_JOBS_FAILED, DRM_TERN_A_ENGINE_TIMEOUTS, DRM_TERN_A_ENGINE_RESETS,
	DRM_TERN_A_ENGINE_HUNG, DRM_TERN_A_ENGINE_HANG_RESETS,
	DRM_TERN_A_ENGINE_TYPE, DRM_TERN_A_ENGINE_CORE,
};

/*
 * What engine @e of a device is, as GET_INFO numbers them: the DMA
 * engines, of no core, then a tensor, a vector and a scalar per core.
 */
static void assert_engine_kind(const struct nl_engine *engine, uint32_t e,
			       const struct drm_tern_info *info)
{
	uint32_t dma = info->dma_engine_count;

	if (e < dma) {
		assert_int_equal(engine->attr[DRM_TERN_A_ENGINE_TYPE],
				 DRM_TERN_ENGINE_DMA);
		assert_int_equal(engine->attr[DRM_TERN_A_ENGINE_CORE],
				 DRM_TERN_ENGINE_NO_CORE);
		return;
	}
	assert_int_equal(engine->attr[DRM_TERN_A_ENGINE_TYPE],
			 DRM_TERN_ENGINE_TENSOR + (e - dma) % 3);
	assert_int_equal(engine->attr[DRM_TERN_A_ENGINE_CORE], (e - dma) / 3);
	assert_true(engine->attr[DRM_TERN_A_ENGINE_CORE] < info->core_count);
}

/* Every attribute there, engines in order, device totals = engine sums. */
static void assert_device_complete(const struct nl_reply *dev, uint32_t index)
{
	uint64_t sum[DRM_TERN_A_ENGINE_MAX + 1] = { 0 };
	struct drm_tern_info info = uapi_get_info(fabric.fd[index]);
	char want[64], version[32];

	for (size_t i = 0; i < ARRAY_SIZE(device_attrs); i++)
		if (!dev->has[device_attrs[i]])
			fail_msg("device %u: no attribute %d", index, device_attrs[i]);
	/* event-only attributes stay out of a dump */
	assert_false(dev->has[DRM_TERN_A_DEV_MEM_ERROR_KIND]);
	assert_false(dev->has[DRM_TERN_A_DEV_MEM_ERROR_ADDR]);

	assert_int_equal(dev->attr[DRM_TERN_A_DEV_CAPABILITIES], info.capabilities);
	snprintf(want, sizeof(want), "platform:tern.%u", index);
	assert_string_equal(dev->str[DRM_TERN_A_DEV_BUS_ID], want);
	read_version(version, sizeof(version));
	assert_string_equal(dev->str[DRM_TERN_A_DEV_DRIVER_VERSION], version);
	assert_string_equal(dev->str[DRM_TERN_A_DEV_TOPOLOGY], "ring");

	assert_int_equal(dev->engines, dev->attr[DRM_TERN_A_DEV_ENGINE_COUNT]);
	assert_true(dev->engines <= NL_MAX_ENGINES);
	for (uint32_t e = 0; e < dev->engines; e++) {
		const struct nl_engine *engine = &dev->engine[e];

		for (size_t i = 0; i < ARRAY_SIZE(engine_attrs); i++)
			if (!engine->has[engine_attrs[i]])
				fail_msg("device %u engine %u: no attribute %d",
					 index, e, engine_attrs[i]);
		assert_false(engine->has[DRM_TERN_A_ENGINE_GUILTY_PID]);
		assert_false(engine->has[DRM_TERN_A_ENGINE_GUILTY_COMM]);
		assert_false(engine->has[DRM_TERN_A_ENGINE_GUILTY_CLIENT_ID]);
		assert_int_equal(engine->attr[DRM_TERN_A_ENGINE_INDEX], e);
		assert_engine_kind(engine, e, &info);
		for (int a = 1; a <= DRM_TERN_A_ENGINE_MAX; a++)
			sum[a] += engine->attr[a];
	}
	assert_int_equal(dev->attr[DRM_TERN_A_DEV_JOBS_COMPLETED],
			 sum[DRM_TERN_A_ENGINE_JOBS_COMPLETED]);
	assert_int_equal(dev->attr[DRM_TERN_A_DEV_JOBS_FAILED],
			 sum[DRM_TERN_A_ENGINE_JOBS_FAILED]);
	assert_int_equal(dev->attr[DRM_TERN_A_DEV_JOB_TIMEOUTS],
			 sum[DRM_TERN_A_ENGINE_TIMEOUTS]);
	assert_int_equal(dev->attr[DRM_TERN_A_DEV_ENGINE_RESETS],
			 sum[DRM_TERN_A_ENGINE_RESETS]);
	assert_int_equal(dev->attr[DRM_TERN_A_DEV_ENGINE_HANG_RESETS],
			 sum[DRM_TERN_A_ENGINE_HANG_RESETS]);
	assert_int_equal(dev->attr[DRM_TERN_A_DEV_ENGINES_BUSY],
			 sum[DRM_TERN_A_ENGINE_BUSY]);
	/* this process holds a file of every device */
	assert_true(dev->attr[DRM_TERN_A_DEV_CLIENT_COUNT] >= 1);
}

static void test_nl_device_attributes(void **state)
{
	static struct nl_replies out;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_DEVICE_GET, 0, 0, &out), 0);
	assert_int_equal(out.count, fabric.devices);
	for (uint32_t i = 0; i < out.count; i++)
		assert_device_complete(&out.msg[i],
				       (uint32_t)out.msg[i].attr[DRM_TERN_A_DEV_INDEX]);
	nl_socket_free(sock);
}

/* The last device: no test before the fault tests makes it unhealthy. */
static void test_nl_untouched_device_is_healthy(void **state)
{
	struct nl_reply dev;
	uint32_t last = fabric.devices - 1;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	netlink_device(sock, family, last, &dev);
	assert_int_equal(dev.attr[DRM_TERN_A_DEV_HEALTH], DRM_TERN_HEALTH_OK);
	assert_int_equal(dev.attr[DRM_TERN_A_DEV_HEALTH_REASONS], 0);
	assert_int_equal(dev.attr[DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED], 0);
	assert_int_equal(dev.attr[DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED], 0);
	assert_int_equal(dev.attr[DRM_TERN_A_DEV_JOB_TIMEOUTS], 0);
	assert_int_equal(dev.attr[DRM_TERN_A_DEV_ENGINE_RESETS], 0);
	for (uint32_t e = 0; e < dev.engines; e++)
		assert_int_equal(dev.engine[e].attr[DRM_TERN_A_ENGINE_HUNG], 0);
	nl_socket_free(sock);
}

static void test_nl_device_counts_jobs_and_buffers(void **state)
{
	struct nl_reply before, after;
	struct uapi_bo host;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	netlink_device(sock, family, 0, &before);
	/* the fixture's queue is on engine 0 */
	assert_int_equal(copy_on_device0(fx.local.va, fx.local.va + 8192, 4096), 1);
	assert_int_equal(copy_on_device0(uapi_unmapped_va(), fx.local.va, 4096),
			 -EFAULT);
	uapi_bo_create(fabric.fd[0], DRM_TERN_PLACEMENT_HOST, 3 * 4096, &host);
	netlink_device(sock, family, 0, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_JOBS_COMPLETED] -
			 before.attr[DRM_TERN_A_DEV_JOBS_COMPLETED], 1);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_JOBS_FAILED] -
			 before.attr[DRM_TERN_A_DEV_JOBS_FAILED], 1);
	assert_int_equal(after.engine[0].attr[DRM_TERN_A_ENGINE_JOBS_COMPLETED] -
			 before.engine[0].attr[DRM_TERN_A_ENGINE_JOBS_COMPLETED], 1);
	assert_int_equal(after.engine[0].attr[DRM_TERN_A_ENGINE_JOBS_FAILED] -
			 before.engine[0].attr[DRM_TERN_A_ENGINE_JOBS_FAILED], 1);
	assert_true(after.engine[0].attr[DRM_TERN_A_ENGINE_BUSY_NS] >
		    before.engine[0].attr[DRM_TERN_A_ENGINE_BUSY_NS]);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_BUFFER_COUNT] -
			 before.attr[DRM_TERN_A_DEV_BUFFER_COUNT], 1);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_MEM_HOST_USED] -
			 before.attr[DRM_TERN_A_DEV_MEM_HOST_USED], host.size);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_MEM_USED],
			 before.attr[DRM_TERN_A_DEV_MEM_USED]);

	uapi_bo_close(fabric.fd[0], &host);
	netlink_device(sock, family, 0, &after);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_BUFFER_COUNT],
			 before.attr[DRM_TERN_A_DEV_BUFFER_COUNT]);
	assert_int_equal(after.attr[DRM_TERN_A_DEV_MEM_HOST_USED],
			 before.attr[DRM_TERN_A_DEV_MEM_HOST_USED]);
	nl_socket_free(sock);
}

/* A filter that names no device or link: -ENODEV, nothing dumped. */
static void test_nl_filter_names_nothing(void **state)
{
	static struct nl_replies out;
	int family;
	struct nl_sock *sock = netlink_open(&family);

	(void)state;
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_DEVICE_GET,
				      DRM_TERN_A_DEV_INDEX, fabric.devices, &out), -ENODEV);
	assert_int_equal(out.count, 0);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_LINK_GET,
				      DRM_TERN_A_LINK_INDEX, 100000, &out), -ENODEV);
	assert_int_equal(out.count, 0);
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET,
				      DRM_TERN_A_CLIENT_DEVICE, fabric.devices, &out),
			 -ENODEV);
	assert_int_equal(out.count, 0);
	/* the client filter is the only attribute CLIENT_GET takes */
	assert_int_equal(netlink_dump(sock, family, DRM_TERN_CMD_CLIENT_GET,
				      DRM_TERN_A_CLIENT_PID, 1, &out), -EINVAL);
	nl_socket_free(sock);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

int netlink_tests(void)
{
	const struct CMUnitTest tests[] = {
		T(test_nl_family_resolves),
		T(test_nl_device_dump),
		T(test_nl_device_filter),
		T(test_nl_link_dump),
		T(test_nl_link_filter),
		T(test_nl_link_counters_move_by_bytes_sent),
		T(test_nl_link_get_rejects_unknown_attribute),
		T(test_nl_device_attributes),
		T(test_nl_untouched_device_is_healthy),
		T(test_nl_device_counts_jobs_and_buffers),
		T(test_nl_filter_names_nothing),
	};

	return cmocka_run_group_tests_name("fabric_netlink", tests, NULL, NULL);
}
