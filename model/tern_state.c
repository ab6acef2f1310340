// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A device's state as attributes, and its health: tern_state.h's lists
 * made into tables that tern.ko, tern-simd and tern-inspect share.
 */
#include "tern_fabric.h"
#include "tern_state.h"
#include "tern_tile.h"

#ifdef __KERNEL__
#include <linux/stddef.h>
#else
#include <stddef.h>
#endif

/*
 * A line of a table: where the value lives and how it travels. The size
 * term is 0, and fails to compile when the field is not as wide as TYPE.
 */
#define TERN_STATE_SIZE_U32	4
#define TERN_STATE_SIZE_U64	8
#define TERN_STATE_LINE(st, name, type, attr) \
	{ attr, offsetof(st, name) + \
	  sizeof(char[sizeof(((st *)0)->name) == TERN_STATE_SIZE_##type ? 1 : -1]) - 1, \
	  TERN_STATE_##type },

static const struct tern_state_field tern_device_fields[] = {
#define TERN_DEVICE_VALUE(name, type, attr, unit, metric, text, help) \
	TERN_STATE_LINE(struct tern_state_device, name, type, attr)
#include "tern_state_list.h"
};

static const struct tern_state_field tern_engine_fields[] = {
#define TERN_ENGINE_VALUE(name, type, attr, unit, metric, text, help) \
	TERN_STATE_LINE(struct tern_state_engine, name, type, attr)
#include "tern_state_list.h"
};

static const struct tern_state_field tern_link_fields[] = {
#define TERN_LINK_VALUE(name, type, attr, unit, metric, text, help) \
	TERN_STATE_LINE(struct tern_state_link, name, type, attr)
#include "tern_state_list.h"
};

static const struct tern_state_field tern_client_fields[] = {
#define TERN_CLIENT_VALUE(name, type, attr, unit, metric, text, help) \
	TERN_STATE_LINE(struct tern_state_client, name, type, attr)
#include "tern_state_list.h"
};

const struct tern_state_set tern_state_device_set = {
	tern_device_fields, ARRAY_SIZE(tern_device_fields), DRM_TERN_A_DEV_PAD,
};

const struct tern_state_set tern_state_engine_set = {
	tern_engine_fields, ARRAY_SIZE(tern_engine_fields), DRM_TERN_A_ENGINE_PAD,
};

const struct tern_state_set tern_state_link_set = {
	tern_link_fields, ARRAY_SIZE(tern_link_fields), DRM_TERN_A_LINK_PAD,
};

const struct tern_state_set tern_state_client_set = {
	tern_client_fields, ARRAY_SIZE(tern_client_fields), DRM_TERN_A_CLIENT_PAD,
};

int tern_state_put(const struct tern_state_set *set, const void *state,
		   tern_state_put_fn put, void *ctx)
{
	const u8 *base = state;
	unsigned int i;
	int ret;

	for (i = 0; i < set->count; i++) {
		const struct tern_state_field *f = &set->fields[i];
		u64 value;

		if (!f->attr)
			continue;
		if (f->type == TERN_STATE_U32)
			value = *(const u32 *)(base + f->offset);
		else
			value = *(const u64 *)(base + f->offset);
		ret = put(ctx, f->attr, f->type, value, set->pad);
		if (ret)
			return ret;
	}
	return 0;
}

int tern_state_get(const struct tern_state_set *set, void *state, u16 attr,
		   const void *payload, u32 len)
{
	u8 *base = state;
	unsigned int i;

	for (i = 0; i < set->count; i++) {
		const struct tern_state_field *f = &set->fields[i];

		if (!attr || f->attr != attr)
			continue;
		if (f->type == TERN_STATE_U32) {
			if (len < sizeof(u32))
				return -EINVAL;
			memcpy(base + f->offset, payload, sizeof(u32));
		} else {
			if (len < sizeof(u64))
				return -EINVAL;
			memcpy(base + f->offset, payload, sizeof(u64));
		}
		return 0;
	}
	return 0;
}

void tern_state_engine_target(struct tern_state_engine *state,
			      const struct tern_model_target *target)
{
	state->type = target->type;
	state->core = target->type == DRM_TERN_ENGINE_DMA ?
		      DRM_TERN_ENGINE_NO_CORE : target->core;
}

const char *tern_engine_type_name(u32 type)
{
	static const char *const names[] = {
		[DRM_TERN_ENGINE_DMA] = "dma",
		[DRM_TERN_ENGINE_TENSOR] = "tensor",
		[DRM_TERN_ENGINE_VECTOR] = "vector",
		[DRM_TERN_ENGINE_SCALAR] = "scalar",
	};

	if (type >= ARRAY_SIZE(names))
		return "unknown";
	return names[type];
}

void tern_state_device_add_engine(struct tern_state_device *dev,
				  const struct tern_state_engine *engine)
{
	dev->engines_busy += engine->busy != 0;
	dev->jobs_completed += engine->jobs_completed;
	dev->jobs_failed += engine->jobs_failed;
	dev->job_timeouts += engine->timeouts;
	dev->engine_resets += engine->resets;
	dev->engine_hang_resets += engine->hang_resets;
}

void tern_health_input_add_engine(struct tern_health_input *in,
				  const struct tern_state_engine *engine)
{
	in->engines_hung += engine->hung != 0;
	in->engine_hang_resets += engine->hang_resets;
}

u32 tern_health_reasons(const struct tern_health_input *now,
			const struct tern_health_input *baseline)
{
	static const struct tern_health_input never;
	const struct tern_health_input *base = baseline ? baseline : &never;
	u32 reasons = 0;

	if (now->links_down)
		reasons |= DRM_TERN_HEALTH_REASON_LINK_DOWN;
	if (now->link_errors > base->link_errors)
		reasons |= DRM_TERN_HEALTH_REASON_LINK_ERRORS;
	if (now->engine_hang_resets > base->engine_hang_resets)
		reasons |= DRM_TERN_HEALTH_REASON_ENGINE_RESET;
	if (now->engines_hung)
		reasons |= DRM_TERN_HEALTH_REASON_ENGINE_HUNG;
	if (now->mem_errors_uncorrected > base->mem_errors_uncorrected)
		reasons |= DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED;
	return reasons;
}

u32 tern_health_of(u32 reasons)
{
	if (reasons & DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED)
		return DRM_TERN_HEALTH_FAILED;
	return reasons ? DRM_TERN_HEALTH_DEGRADED : DRM_TERN_HEALTH_OK;
}

const char *tern_health_name(u32 health)
{
	static const char *const names[] = {
		[DRM_TERN_HEALTH_OK] = "ok",
		[DRM_TERN_HEALTH_DEGRADED] = "degraded",
		[DRM_TERN_HEALTH_FAILED] = "failed",
	};

	if (health >= ARRAY_SIZE(names))
		return "unknown";
	return names[health];
}

void tern_fabric_health_input(const struct tern_fabric *fabric, u32 device,
			      struct tern_health_input *in)
{
	u32 port;

	if (device >= fabric->device_count)
		return;
	for (port = 0; port < fabric->port_count[device]; port++) {
		s16 link = fabric->port_link[device][port];

		if (link < 0)
			continue;
		in->links_down += !tern_load_u32(&fabric->links[link].up);
		in->link_errors += tern_counter_read(&fabric->links[link].errors);
	}
}

void tern_fabric_link_state(const struct tern_fabric *fabric, u32 index,
			    struct tern_state_link *state)
{
	const struct tern_fabric_link *link = &fabric->links[index];

	memset(state, 0, sizeof(*state));
	state->index = index;
	state->device_a = link->end[0].device;
	state->port_a = link->end[0].port;
	state->device_b = link->end[1].device;
	state->port_b = link->end[1].port;
	state->state = tern_load_u32(&link->up) ? DRM_TERN_PORT_UP :
						  DRM_TERN_PORT_DOWN;
	state->bytes_a_to_b = tern_counter_read(&link->bytes[0]);
	state->bytes_b_to_a = tern_counter_read(&link->bytes[1]);
	state->packets_a_to_b = tern_counter_read(&link->packets[0]);
	state->packets_b_to_a = tern_counter_read(&link->packets[1]);
	state->errors = tern_counter_read(&link->errors);
	state->bandwidth = link->bandwidth;
	state->latency_ns = link->latency_ns;
}
