// SPDX-License-Identifier: MIT
/*
 * The model's lists as tern-inspect's tables (values.h).
 */
#include <string.h>

#include "snapshot.h"
#include "values.h"

#define VALUE_LINE(st, name, type, unit, metric, text, help) \
	{ #name, TERN_STATE_##type, TERN_UNIT_##unit, offsetof(st, name), \
	  metric, text, help },

static const struct value_line device_lines[] = {
#define TERN_DEVICE_VALUE(name, type, attr, unit, metric, text, help) \
	VALUE_LINE(struct snapshot_device, name, type, unit, metric, text, help)
#include "tern_state_list.h"
};

static const struct value_line engine_lines[] = {
#define TERN_ENGINE_VALUE(name, type, attr, unit, metric, text, help) \
	VALUE_LINE(struct tern_state_engine, name, type, unit, metric, text, help)
#include "tern_state_list.h"
};

static const struct value_line link_lines[] = {
#define TERN_LINK_VALUE(name, type, attr, unit, metric, text, help) \
	VALUE_LINE(struct snapshot_link, name, type, unit, metric, text, help)
#include "tern_state_list.h"
};

static const struct value_line client_lines[] = {
#define TERN_CLIENT_VALUE(name, type, attr, unit, metric, text, help) \
	VALUE_LINE(struct snapshot_client, name, type, unit, metric, text, help)
#include "tern_state_list.h"
};

#define VALUE_LIST(lines) { lines, sizeof(lines) / sizeof(lines[0]) }

const struct value_list values_device = VALUE_LIST(device_lines);
const struct value_list values_engine = VALUE_LIST(engine_lines);
const struct value_list values_link = VALUE_LIST(link_lines);
const struct value_list values_client = VALUE_LIST(client_lines);

uint64_t value_get(const struct value_line *line, const void *object)
{
	const char *field = (const char *)object + line->offset;
	uint32_t v32;
	uint64_t v64;

	if (line->type == TERN_STATE_U32) {
		memcpy(&v32, field, sizeof(v32));
		return v32;
	}
	memcpy(&v64, field, sizeof(v64));
	return v64;
}
