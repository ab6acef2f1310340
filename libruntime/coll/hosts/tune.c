// SPDX-License-Identifier: MIT
/*
 * The tuner across hosts: each chunk's all-reduce along the rail by the
 * row of the table below (ring, halving-doubling or doubling, each in
 * its file in rail/) the model expects to finish first on the network's
 * latency and bandwidth (TERN_NET_LATENCY_US, TERN_NET_GBPS, else the
 * provider's figures below); TERN_NET_ALGO forces one where it can run.
 * The fabric's part of a collective across hosts is the fabric's tuner's
 * (fabric/tune.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/hosts/internal.h"
#include "settings.h"

/*
 * The algorithms along the rail, each described in its own file in
 * rail/, in the order the tuner weighs them: the ring, which runs on any
 * hosts, first. A rank's TERN_NET_ALGO travels to the others as its row.
 */
static const struct coll_rail_algo *const coll_rails[] = {
	&coll_rail_ring, &coll_rail_halving, &coll_rail_doubling,
};

#define COLL_RAILS	((int)(sizeof(coll_rails) / sizeof(coll_rails[0])))

/*
 * An all-reduce across hosts of @bytes, all its chunks along the rail by
 * @algo: the host's rings' reduce-scatter and all-gather, the copies
 * through the stage, and the rail. Negative where @algo cannot run.
 */
static double coll_hosts_estimate(const struct tern_comm *top,
				  const struct coll_rail_algo *algo,
				  uint64_t bytes)
{
	const struct tern_comm *local = top->local;
	const uint64_t shard = bytes / (uint64_t)local->nranks;
	double ns = 0;

	if (!algo->can_run(top->hosts, false))
		return -1;
	if (local->nranks > 1)
		ns = coll_algo_ring.estimate(local, COLL_ALL_REDUCE, bytes);
	for (uint64_t at = 0; at < shard; at += COLL_STAGE_BYTES)
		ns += algo->estimate(top->hosts,
				     shard - at < COLL_STAGE_BYTES ?
				     shard - at : COLL_STAGE_BYTES, false);
	return ns;
}

tern_status_t coll_hosts_algorithms(const struct tern_comm *top,
				    enum coll_kind kind, uint64_t bytes,
				    tern_algo_estimate_t *out,
				    uint32_t capacity, uint32_t *count)
{
	const uint64_t first = bytes / (uint64_t)top->local->nranks;
	const struct coll_rail_algo *chosen;
	uint32_t n = 0;

	if (kind != COLL_ALL_REDUCE) {
		tern_set_last_error("across hosts the tuner models all-reduce only");
		return TERN_ERROR_NOT_SUPPORTED;
	}
	chosen = coll_tune_rail(top->hosts, first < COLL_STAGE_BYTES ?
					    first : COLL_STAGE_BYTES, false);
	for (int i = -1; i < COLL_RAILS; i++) {
		/* the chosen first, then the others that can run */
		const struct coll_rail_algo *a = i < 0 ? chosen : coll_rails[i];
		double ns = coll_hosts_estimate(top, a, bytes);

		if ((i >= 0 && a == chosen) || ns < 0)
			continue;
		if (n < capacity) {
			snprintf(out[n].name, sizeof(out[n].name), "%s",
				 a->listed_as);
			out[n].us = ns / 1000.0;
		}
		n++;
	}
	*count = n;
	return TERN_SUCCESS;
}

/* TERN_NET_ALGO's row of the table; its names are the setting's choices. */
tern_status_t coll_forced_rail(int *algo)
{
	const char *name = NULL;
	tern_status_t status = tern_setting_choice("TERN_NET_ALGO", &name);

	*algo = -1;
	for (int a = 0; name && a < COLL_RAILS; a++)
		if (strcmp(name, coll_rails[a]->name) == 0)
			*algo = a;
	return status;
}

bool coll_forced_rail_fits(int algo)
{
	return algo >= -1 && algo < COLL_RAILS;
}

const struct coll_rail_algo *coll_tune_rail(const struct coll_hosts *h,
					    uint64_t bytes, bool scatter)
{
	const struct coll_rail_algo *best = NULL;
	double best_ns = 0;

	if (h->forced_rail >= 0 &&
	    coll_rails[h->forced_rail]->can_run(h, scatter))
		return coll_rails[h->forced_rail];
	for (int a = 0; a < COLL_RAILS; a++) {
		const struct coll_rail_algo *r = coll_rails[a];
		double ns;

		if (!r->can_run(h, scatter))
			continue;
		ns = r->estimate(h, bytes, scatter);
		if (!best || ns < best_ns) {
			best = r;
			best_ns = ns;
		}
	}
	return best;
}

/*
 * What the model takes a provider's network to be, per rank, where
 * TERN_NET_GBPS and TERN_NET_LATENCY_US do not say: a Trn2 instance's
 * EFA shared by its 16 chips, InfiniBand's HDR, TCP on a 25 GbE port, and
 * memory between processes.
 */
static const struct {
	const char *prefix;
	double gbps, latency_us;
} coll_net_defaults[] = {
	{ "efa", 200, 15 }, { "verbs", 200, 3 }, { "shm", 40, 1 },
	{ "tcp", 25, 30 },
};

tern_status_t coll_net_figures(const char *provider, uint64_t *bandwidth,
			       uint32_t *latency_ns)
{
	double gbps = 25, us = 30;
	tern_status_t status;

	for (size_t i = 0; i < sizeof(coll_net_defaults) /
			       sizeof(coll_net_defaults[0]); i++) {
		if (strncmp(provider, coll_net_defaults[i].prefix,
			    strlen(coll_net_defaults[i].prefix)) == 0) {
			gbps = coll_net_defaults[i].gbps;
			us = coll_net_defaults[i].latency_us;
			break;
		}
	}
	status = tern_setting_real("TERN_NET_GBPS", &gbps);
	if (status == TERN_SUCCESS)
		status = tern_setting_real("TERN_NET_LATENCY_US", &us);
	*bandwidth = (uint64_t)(gbps * 1e9 / 8);
	*latency_ns = (uint32_t)(us * 1000);
	return status;
}
