/* SPDX-License-Identifier: MIT */
/*
 * The machine's state and events in the encoding of tern.ko's "tern"
 * generic netlink family (uapi/drm/tern_accel.h): netlink messages one
 * after another, as a dump's replies arrive from the kernel, each a
 * struct nlmsghdr, a struct genlmsghdr and its attributes (struct
 * nlattr, padded to 4 bytes). tern-simd writes them from the model's
 * state structs (model/tern_state.h); libtern walks them back into its
 * tern_sim_device_state() and tern_sim_event_read(), and tern-inspect
 * parses them with libnl as it parses tern.ko's. Like wire.c, this is
 * linked into both.
 */
#ifndef TERN_SIM_NETLINK_H
#define TERN_SIM_NETLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "tern_state.h"

/* Messages being written into a buffer of @cap bytes. */
struct sim_nl {
	uint8_t *buf;
	uint32_t len, cap;
	uint32_t msg;		/* where the message being written starts */
	bool full;		/* something did not fit: the message is cut */
};

void sim_nl_init(struct sim_nl *nl, void *buf, uint32_t cap);
/* Starts a message of command @cmd (DRM_TERN_CMD_*). */
void sim_nl_begin(struct sim_nl *nl, uint8_t cmd);
/*
 * Ends the message: true if it is whole. One that did not fit is taken
 * back, and the buffer holds the messages before it.
 */
bool sim_nl_end(struct sim_nl *nl);
void sim_nl_put(struct sim_nl *nl, uint16_t attr, const void *data,
		uint32_t len);
void sim_nl_put_u32(struct sim_nl *nl, uint16_t attr, uint32_t value);
void sim_nl_put_u64(struct sim_nl *nl, uint16_t attr, uint64_t value);
void sim_nl_put_string(struct sim_nl *nl, uint16_t attr, const char *value);
/* A nest: its attributes follow; sim_nl_nest_end() closes it. */
uint32_t sim_nl_nest_begin(struct sim_nl *nl, uint16_t attr);
void sim_nl_nest_end(struct sim_nl *nl, uint32_t nest);
/* Puts the values of @state, a struct of @set, as attributes. */
void sim_nl_put_state(struct sim_nl *nl, const struct tern_state_set *set,
		      const void *state);

/*
 * Walking: a message's command and attributes, and an attribute's type
 * (nest flag cleared) and payload. Each returns false at the end, or at
 * anything malformed, which ends the walk as the end would.
 */
struct sim_nl_msg {
	uint8_t cmd;
	const uint8_t *attrs;
	uint32_t attrs_len;
};
struct sim_nl_attr {
	uint16_t type;
	const uint8_t *data;
	uint32_t len;
};
bool sim_nl_next_msg(const uint8_t *buf, uint32_t len, uint32_t *off,
		     struct sim_nl_msg *msg);
bool sim_nl_next_attr(const uint8_t *attrs, uint32_t len, uint32_t *off,
		      struct sim_nl_attr *attr);

/*
 * Reads every attribute of @attrs into @state, a struct of @set, through
 * tern_state_get(); an attribute whose type is @nest_attr is handed to
 * @nested, when not NULL, instead. 0, or -EINVAL for a malformed value.
 */
int sim_nl_get_state(const struct tern_state_set *set, void *state,
		     const uint8_t *attrs, uint32_t len, uint16_t nest_attr,
		     void (*nested)(void *ctx, const struct sim_nl_attr *attr),
		     void *ctx);

#endif /* TERN_SIM_NETLINK_H */
