// SPDX-License-Identifier: MIT
/*
 * The "tern" netlink family's DEVICE_GET dump, through libnl-genl-3, as
 * far as the module parameter tests need it: how many engine nests each
 * device's message carries.
 */
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "tern_accel.h"
#include "unload.h"

struct engine_counts {
	uint32_t devices;
	uint32_t engines[UNLOAD_MAX_DEVICES];
};

static int on_device(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlmsg_hdr(msg));
	struct engine_counts *counts = arg;
	struct nlattr *pos;
	uint32_t engines = 0;
	int rem;

	nla_for_each_attr(pos, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0),
			  rem)
		engines += nla_type(pos) == DRM_TERN_A_DEV_ENGINE;
	if (counts->devices < UNLOAD_MAX_DEVICES)
		counts->engines[counts->devices] = engines;
	counts->devices++;
	return NL_OK;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	(void)who;
	*(int *)arg = err->error;
	return NL_STOP;
}

uint32_t unload_netlink_engines(uint32_t *engines, uint32_t max)
{
	struct engine_counts counts = { 0 };
	struct nl_sock *sock = nl_socket_alloc();
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	struct nl_msg *msg = nlmsg_alloc();
	int family, error = 0, ret;

	assert_non_null(sock);
	assert_non_null(cb);
	assert_non_null(msg);
	assert_int_equal(genl_connect(sock), 0);
	family = genl_ctrl_resolve(sock, DRM_TERN_GENL_NAME);
	assert_true(family > 0);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				    NLM_F_DUMP, DRM_TERN_CMD_DEVICE_GET,
				    DRM_TERN_GENL_VERSION));
	assert_true(nl_send_auto(sock, msg) >= 0);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_device, &counts);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &error);
	ret = nl_recvmsgs(sock, cb);
	if (error || ret < 0)
		fail_msg("DEVICE_GET dump: error %d, %s", error, nl_geterror(ret));
	nlmsg_free(msg);
	nl_cb_put(cb);
	nl_socket_free(sock);
	for (uint32_t i = 0; i < max && i < counts.devices; i++)
		engines[i] = counts.engines[i];
	return counts.devices;
}
