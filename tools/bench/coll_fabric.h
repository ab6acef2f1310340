/* SPDX-License-Identifier: MIT */
/*
 * Fabric efficiency of a collective: the bytes its busiest directed link
 * carried, from the ports' tx counters, against the least that link must
 * carry on this topology.
 */
#ifndef TOOLS_BENCH_COLL_FABRIC_H
#define TOOLS_BENCH_COLL_FABRIC_H

#include <stdint.h>

#include "tern.h"

#define COLL_FABRIC_MAX_PORTS 64
#define COLL_FABRIC_MAX_RANKS 64	/* TERN_SIM_DEVICES at most */

/* Every rank's ports' tx_bytes at one moment. */
struct coll_fabric_snapshot {
	int nranks;
	uint32_t ports[COLL_FABRIC_MAX_RANKS];		/* per rank */
	uint64_t tx[COLL_FABRIC_MAX_RANKS][COLL_FABRIC_MAX_PORTS];		/* per rank, port */
};

/*
 * The fewest links that are up on any rank (links to other devices count:
 * they are ways out too); 0 when the backend has no fabric.
 */
tern_status_t coll_fabric_min_links(const tern_device_t *devices, int nranks,
				    uint32_t *links);

tern_status_t coll_fabric_read(const tern_device_t *devices, int nranks,
			       struct coll_fabric_snapshot *snap);

/* The most bytes any one port sent between @before and @after. */
uint64_t coll_fabric_busiest(const struct coll_fabric_snapshot *before,
			     const struct coll_fabric_snapshot *after);

#endif /* TOOLS_BENCH_COLL_FABRIC_H */
