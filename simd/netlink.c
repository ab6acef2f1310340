// SPDX-License-Identifier: MIT
/*
 * Netlink messages written and walked without a socket (netlink.h): the
 * layout of <linux/netlink.h> and <linux/genetlink.h>, which libnl reads
 * from any buffer. A 64-bit value is written unpadded, as the kernel
 * writes it where unaligned loads are cheap (x86-64, arm64); readers copy
 * it out either way.
 */
#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "netlink.h"

void sim_nl_init(struct sim_nl *nl, void *buf, uint32_t cap)
{
	nl->buf = buf;
	nl->len = 0;
	nl->cap = cap;
	nl->msg = 0;
	nl->full = false;
}

/* Room for @len more bytes (aligned), zeroed; NULL when there is none. */
static void *sim_nl_reserve(struct sim_nl *nl, uint32_t len)
{
	uint32_t aligned = NLMSG_ALIGN(len);
	void *at;

	if (nl->full || aligned > nl->cap - nl->len) {
		nl->full = true;
		return NULL;
	}
	at = nl->buf + nl->len;
	memset(at, 0, aligned);
	nl->len += aligned;
	return at;
}

void sim_nl_begin(struct sim_nl *nl, uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;

	nl->msg = nl->len;
	nlh = sim_nl_reserve(nl, NLMSG_HDRLEN + GENL_HDRLEN);
	if (!nlh)
		return;
	/* No family id: the machine's messages come from no socket. */
	nlh->nlmsg_type = NLMSG_MIN_TYPE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	genl = (struct genlmsghdr *)((uint8_t *)nlh + NLMSG_HDRLEN);
	genl->cmd = cmd;
	genl->version = DRM_TERN_GENL_VERSION;
}

bool sim_nl_end(struct sim_nl *nl)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(nl->buf + nl->msg);

	if (nl->full) {
		nl->len = nl->msg;
		return false;
	}
	nlh->nlmsg_len = nl->len - nl->msg;
	return true;
}

void sim_nl_put(struct sim_nl *nl, uint16_t attr, const void *data,
		uint32_t len)
{
	struct nlattr *nla = sim_nl_reserve(nl, NLA_HDRLEN + len);

	if (!nla)
		return;
	nla->nla_len = (uint16_t)(NLA_HDRLEN + len);
	nla->nla_type = attr;
	memcpy((uint8_t *)nla + NLA_HDRLEN, data, len);
}

void sim_nl_put_u32(struct sim_nl *nl, uint16_t attr, uint32_t value)
{
	sim_nl_put(nl, attr, &value, sizeof(value));
}

void sim_nl_put_u64(struct sim_nl *nl, uint16_t attr, uint64_t value)
{
	sim_nl_put(nl, attr, &value, sizeof(value));
}

void sim_nl_put_string(struct sim_nl *nl, uint16_t attr, const char *value)
{
	sim_nl_put(nl, attr, value, (uint32_t)strlen(value) + 1);
}

uint32_t sim_nl_nest_begin(struct sim_nl *nl, uint16_t attr)
{
	uint32_t at = nl->len;
	struct nlattr *nla = sim_nl_reserve(nl, NLA_HDRLEN);

	if (nla)
		nla->nla_type = attr | NLA_F_NESTED;
	return at;
}

void sim_nl_nest_end(struct sim_nl *nl, uint32_t nest)
{
	if (!nl->full)
		((struct nlattr *)(nl->buf + nest))->nla_len =
			(uint16_t)(nl->len - nest);
}

static int sim_nl_put_value(void *ctx, u16 attr, u8 type, u64 value, u16 pad)
{
	(void)pad;
	if (type == TERN_STATE_U32)
		sim_nl_put_u32(ctx, attr, (uint32_t)value);
	else
		sim_nl_put_u64(ctx, attr, value);
	return 0;
}

void sim_nl_put_state(struct sim_nl *nl, const struct tern_state_set *set,
		      const void *state)
{
	tern_state_put(set, state, sim_nl_put_value, nl);
}

bool sim_nl_next_msg(const uint8_t *buf, uint32_t len, uint32_t *off,
		     struct sim_nl_msg *msg)
{
	struct nlmsghdr nlh;
	struct genlmsghdr genl;

	if (*off > len || len - *off < NLMSG_HDRLEN + GENL_HDRLEN)
		return false;
	memcpy(&nlh, buf + *off, sizeof(nlh));
	if (nlh.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    nlh.nlmsg_len > len - *off)
		return false;
	memcpy(&genl, buf + *off + NLMSG_HDRLEN, sizeof(genl));
	msg->cmd = genl.cmd;
	msg->attrs = buf + *off + NLMSG_HDRLEN + GENL_HDRLEN;
	msg->attrs_len = nlh.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	*off += NLMSG_ALIGN(nlh.nlmsg_len);
	return true;
}

bool sim_nl_next_attr(const uint8_t *attrs, uint32_t len, uint32_t *off,
		      struct sim_nl_attr *attr)
{
	struct nlattr nla;

	if (*off > len || len - *off < NLA_HDRLEN)
		return false;
	memcpy(&nla, attrs + *off, sizeof(nla));
	if (nla.nla_len < NLA_HDRLEN || nla.nla_len > len - *off)
		return false;
	attr->type = nla.nla_type & NLA_TYPE_MASK;
	attr->data = attrs + *off + NLA_HDRLEN;
	attr->len = nla.nla_len - NLA_HDRLEN;
	*off += NLA_ALIGN(nla.nla_len);
	return true;
}

int sim_nl_get_state(const struct tern_state_set *set, void *state,
		     const uint8_t *attrs, uint32_t len, uint16_t nest_attr,
		     void (*nested)(void *ctx, const struct sim_nl_attr *attr),
		     void *ctx)
{
	struct sim_nl_attr attr;
	uint32_t off = 0;

	while (sim_nl_next_attr(attrs, len, &off, &attr)) {
		if (nested && attr.type == nest_attr)
			nested(ctx, &attr);
		else if (tern_state_get(set, state, attr.type, attr.data,
					attr.len))
			return -EINVAL;
	}
	return 0;
}
