/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What a Tern device reports of itself, written once: every value of a
 * device, of its engines, of the fabric's links and of its clients (open
 * files), each with the attribute of the "tern" generic netlink family
 * that carries it (uapi/drm/tern_accel.h, Documentation/netlink/tern.yaml),
 * and the rule that turns a device's state into its health.
 *
 * tern.ko and tern-simd fill the structs below and send them with
 * tern_state_put(); tern-inspect reads them back with tern_state_get()
 * whichever of the two answered, and prints them from the same lists.
 * Adding a value is a line in its list (tern_state_list.h), its field in
 * the struct, and the code that counts it; make check holds tern.yaml to
 * the lists (tests/netlink/check_yaml.py) and test_state the structs.
 *
 * Each line of a list is X(name, TYPE, attr, UNIT, metric, text, help):
 *  name    the struct's field, and its key in tern-inspect's JSON
 *  TYPE    U32 or U64, as the attribute carries it (and the field holds it)
 *  attr    its netlink attribute; 0 for one the reader works out itself
 *  UNIT    what it counts (enum tern_state_unit, without TERN_UNIT_)
 *  metric  its family in tern-inspect metrics, with the labels that tell
 *	    the family's members apart, or NULL; a family ending in _total
 *	    is a counter, any other a gauge
 *  text    how tern-inspect info prints it: "section/label:\tconversion"
 *	    starts a line of that section, "section/conversion" goes on,
 *	    "section/" is JSON only; NULL: not there, or printed elsewhere
 *  help    one line: what it is (a metric family's HELP is its first's)
 * Strings (names, the command of a client) are sent beside these. The
 * lists are included, not macros, and the structs' fields written out in
 * the lists' order, because the kernel's style has no macro that declares
 * a field; test_state holds each struct to its list.
 */
#ifndef TERN_STATE_H
#define TERN_STATE_H

#include "tern_model_port.h"
#include "tern_accel.h"

enum tern_state_type {
	TERN_STATE_U32,
	TERN_STATE_U64,
};

enum tern_state_unit {
	TERN_UNIT_ID,		/* names something: an index, an id */
	TERN_UNIT_COUNT,
	TERN_UNIT_BYTES,
	TERN_UNIT_NS,
	TERN_UNIT_BOOL,
	TERN_UNIT_BYTES_PER_S,
	TERN_UNIT_CAPS,		/* DRM_TERN_CAP_* bits */
	TERN_UNIT_HEALTH,	/* enum tern_health */
	TERN_UNIT_REASONS,	/* DRM_TERN_HEALTH_REASON_* bits */
	TERN_UNIT_PORT_STATE,	/* DRM_TERN_PORT_UP or DRM_TERN_PORT_DOWN */
	TERN_UNIT_ENGINE_TYPE,	/* enum drm_tern_engine_type */
	TERN_UNIT_CORE,		/* a core's index, or DRM_TERN_ENGINE_NO_CORE */
};

/* A device: the values of its DEVICE_GET message. */
struct tern_state_device {
	u32 index;
	u32 fabric_id;
	u64 capabilities;
	u32 engine_count;
	u32 port_count;
	u32 health;
	u32 health_reasons;
	u64 memory_used_bytes;
	u64 memory_total_bytes;
	u64 memory_host_used_bytes;
	u32 buffers;
	u32 engines_busy;
	u32 client_count;
	u32 clients_hidden;
	u64 jobs_completed;
	u64 jobs_failed;
	u64 job_timeouts;
	u64 engine_resets;
	u64 engine_hang_resets;
	u64 mem_errors_corrected;
	u64 mem_errors_uncorrected;
};

/* An engine: the values of a DRM_TERN_A_DEV_ENGINE nest. */
struct tern_state_engine {
	u32 index;
	u32 type;
	u32 core;
	u32 busy;
	u32 hung;
	u64 busy_ns;
	u32 jobs_queued;
	u64 jobs_completed;
	u64 jobs_failed;
	u64 timeouts;
	u64 resets;
	u64 hang_resets;
	u64 steps;
	u64 step_max_ns;
};

/* A fabric link: the values of its LINK_GET message. */
struct tern_state_link {
	u32 index;
	u32 device_a;
	u32 port_a;
	u32 device_b;
	u32 port_b;
	u32 state;
	u64 bytes_a_to_b;
	u64 bytes_b_to_a;
	u64 packets_a_to_b;
	u64 packets_b_to_a;
	u64 errors;
	u64 bandwidth;
	u32 latency_ns;
};

/* A client: the values of its CLIENT_GET message. */
struct tern_state_client {
	u32 device;
	u64 id;
	u32 pid;
	u64 memory_device_bytes;
	u64 memory_host_bytes;
	u32 buffers;
	u32 queues;
	u64 jobs_submitted;
	u32 jobs_active;
	u64 busy_ns;
};

/* What tern_state_put() and tern_state_get() need of a list's line. */
struct tern_state_field {
	u16 attr;
	u16 offset;
	u8 type;		/* enum tern_state_type */
};

/* A list: its lines and its attribute set's PAD (for 64-bit values). */
struct tern_state_set {
	const struct tern_state_field *fields;
	u16 count;
	u16 pad;
};

extern const struct tern_state_set tern_state_device_set;
extern const struct tern_state_set tern_state_engine_set;
extern const struct tern_state_set tern_state_link_set;
extern const struct tern_state_set tern_state_client_set;

/*
 * How a host writes one attribute: @value as @type (enum tern_state_type)
 * under @attr, a 64-bit one aligned with @pad where that matters. 0, or an
 * error that stops tern_state_put().
 */
typedef int (*tern_state_put_fn)(void *ctx, u16 attr, u8 type, u64 value,
				 u16 pad);

/*
 * Writes every value of @state (a struct of @set) that has an attribute,
 * in the list's order, through @put. 0, or @put's first error.
 */
int tern_state_put(const struct tern_state_set *set, const void *state,
		   tern_state_put_fn put, void *ctx);

/*
 * Stores @attr's @payload of @len bytes into @state (a struct of @set)
 * when @set has @attr; an attribute it has not is ignored, as a newer
 * sender's would be. 0, or -EINVAL when @payload is too short.
 */
int tern_state_get(const struct tern_state_set *set, void *state, u16 attr,
		   const void *payload, u32 len);

struct tern_model_target;

/*
 * Sets what @state's engine is from @target (tern_model_engine_target()):
 * its type, and its core, DRM_TERN_ENGINE_NO_CORE for a DMA engine.
 * tern.ko and tern-simd both report an engine through this.
 */
void tern_state_engine_target(struct tern_state_engine *state,
			      const struct tern_model_target *target);

/* "dma", "tensor", "vector" or "scalar"; "unknown" for another @type. */
const char *tern_engine_type_name(u32 type);

/*
 * Adds @engine's counters to its device's sums in @dev: jobs, timeouts,
 * resets and whether it is busy. A device's counters are its engines'.
 */
void tern_state_device_add_engine(struct tern_state_device *dev,
				  const struct tern_state_engine *engine);

/*
 * What a device's health follows from: its links and engines now, and
 * the counters behind the lasting reasons (a device's baseline is these
 * counters as they were when its health was last cleared).
 */
struct tern_health_input {
	u32 links_down;			/* its ports whose link is down */
	u64 link_errors;		/* errors the links on its ports counted */
	u32 engines_hung;		/* engines hung now */
	u64 engine_hang_resets;		/* resets of its engines while hung */
	u64 mem_errors_uncorrected;
};

/*
 * The DRM_TERN_HEALTH_REASON_* bits of a device in state @now whose health
 * was last cleared at @baseline (NULL: never). LINK_DOWN and ENGINE_HUNG
 * are states and last while they do; LINK_ERRORS, ENGINE_RESET and
 * MEM_UNCORRECTED are counters' growth past the baseline. Correctable
 * memory errors are no reason, as with ECC memory.
 */
u32 tern_health_reasons(const struct tern_health_input *now,
			const struct tern_health_input *baseline);

/* Adds @engine to @in: whether it is hung, its resets while hung. */
void tern_health_input_add_engine(struct tern_health_input *in,
				  const struct tern_state_engine *engine);

/* The enum tern_health @reasons make: FAILED for MEM_UNCORRECTED. */
u32 tern_health_of(u32 reasons);

/* "ok", "degraded" or "failed"; "unknown" for a newer state. */
const char *tern_health_name(u32 health);

struct tern_fabric;

/* Adds the links on @device's ports to @in: those down, their errors. */
void tern_fabric_health_input(const struct tern_fabric *fabric, u32 device,
			      struct tern_health_input *in);

/* @fabric's link @index, as a link message reports it. */
void tern_fabric_link_state(const struct tern_fabric *fabric, u32 index,
			    struct tern_state_link *state);

#endif /* TERN_STATE_H */
