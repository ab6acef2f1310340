/* SPDX-License-Identifier: MIT */
/*
 * tern-inspect top: one frame, the change between two snapshots, and how
 * it is drawn (text fitted to a terminal, or one JSON line).
 */
#ifndef TOOLS_INSPECT_TOP_FRAME_H
#define TOOLS_INSPECT_TOP_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"

/* A device's engines of one type (enum drm_tern_engine_type). */
struct top_type_row {
	uint32_t engines, engines_busy;	/* of the type; running a job now */
	uint64_t busy_ns;		/* their engine time in the interval */
	double utilisation;		/* percent of engines * interval */
};

struct top_device_row {
	const struct snapshot_device *dev;
	uint64_t busy_ns;		/* engine time in the interval, all engines */
	double utilisation;		/* percent of engine_count * interval */
	uint64_t in_bytes, out_bytes;	/* over its links in the interval */
	struct top_type_row types[SNAPSHOT_ENGINE_TYPES];	/* by type */
};

struct top_client_row {
	const struct snapshot_client *client;
	uint64_t busy_ns;		/* its jobs' engine time in the interval */
	double utilisation;		/* percent of its device's engines */
};

struct top_frame {
	const struct snapshot *snap;
	/* False for a first frame, from one snapshot: no rates yet. */
	bool has_rates;
	uint64_t interval_ns;
	char time[40];			/* when it was taken, UTC */
	int device_count, client_count;
	uint32_t clients_hidden;	/* other users', counted, not listed */
	struct top_device_row *devices;
	struct top_client_row *clients;	/* busiest first */
	/* Totals over the devices. */
	uint32_t engines, engines_busy;
	uint64_t mem_used, mem_total, busy_ns, fabric_bytes;
	double utilisation;
	int health_count[3];		/* by enum tern_health */
};

/*
 * The change from @old to @now; @old NULL for a first frame without
 * rates. False when out of memory.
 */
bool top_frame_compute(const struct snapshot *old, const struct snapshot *now,
		       struct top_frame *frame);
void top_frame_free(struct top_frame *frame);

/*
 * Writes the frame as text. @width and @height bound it (0: no bound), for
 * a terminal; @hint is added to the first line ("q quits"). @in_place
 * draws over the previous frame: cursor home first, each line's rest and
 * then the screen's rest erased.
 */
void top_frame_print_plain(const struct top_frame *frame, FILE *out,
			   int width, int height, const char *hint,
			   bool in_place);

/* Writes the frame as one JSON object (one line unless @pretty). */
void top_frame_print_json(const struct top_frame *frame, FILE *out,
			  bool pretty);

#endif /* TOOLS_INSPECT_TOP_FRAME_H */
