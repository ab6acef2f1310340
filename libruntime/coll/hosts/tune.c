// SPDX-License-Identifier: MIT
/*
 * The tuner across hosts: each chunk's all-reduce along the rail by ring,
 * halving-doubling or doubling (rail/rail.c), whichever the model expects
 * to finish first on the network's latency and bandwidth
 * (TERN_NET_LATENCY_US, TERN_NET_GBPS, else the provider's figures
 * below); TERN_NET_ALGO forces one where it can run. The fabric's part
 * of a collective across hosts is the fabric's tuner's (fabric/tune.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/hosts/internal.h"

/*
 * A chunk along the rail, alpha-beta: a step costs the network's latency
 * plus its bytes at the network's bandwidth, and its reduction at the
 * host's (the proxy reduces on its CPU).
 */
#define COLL_COST_HOST_REDUCE	(4e9)	/* bytes/s */

double coll_cost_rail(const struct coll_hosts *h, enum coll_rail_algo algo,
		      uint64_t bytes, bool scatter)
{
	const double n = h->nhosts, b = (double)bytes;
	const double alpha = h->net_latency_ns;
	const double beta = 1e9 / h->net_bandwidth;
	const double gamma = 1e9 / COLL_COST_HOST_REDUCE;
	const bool pow2 = (h->nhosts & (h->nhosts - 1)) == 0;
	double steps = 0;

	for (int m = 1; m < h->nhosts; m *= 2)
		steps++;
	/* a reduce-scatter is the all-reduce's first half */
	const double halves = scatter ? 1 : 2;

	switch (algo) {
	case COLL_RAIL_RING:
		return halves * (n - 1) * alpha +
		       halves * (n - 1) / n * b * beta +
		       (n - 1) / n * b * gamma;
	case COLL_RAIL_HALVING:
		if (!pow2)
			return -1;
		return halves * steps * alpha +
		       halves * (n - 1) / n * b * beta +
		       (n - 1) / n * b * gamma;
	case COLL_RAIL_DOUBLING:
		if (!pow2 || scatter)
			return -1;
		return steps * (alpha + b * beta + b * gamma);
	default:
		return -1;
	}
}

static const char *const coll_rail_public[COLL_RAIL_COUNT] = {
	[COLL_RAIL_RING] = "rail-ring",
	[COLL_RAIL_HALVING] = "rail-halving",
	[COLL_RAIL_DOUBLING] = "rail-doubling",
};

/*
 * An all-reduce across hosts of @bytes, all its chunks along the rail by
 * @algo: the host's rings' reduce-scatter and all-gather, the copies
 * through the stage, and the rail. Negative where @algo cannot run.
 */
static double coll_hosts_estimate(const struct tern_comm *top,
				  enum coll_rail_algo algo, uint64_t bytes)
{
	const struct tern_comm *local = top->local;
	const uint64_t shard = bytes / (uint64_t)local->nranks;
	double ns = 0;

	if (coll_cost_rail(top->hosts, algo, COLL_STAGE_BYTES, false) < 0)
		return -1;
	if (local->nranks > 1)
		ns = coll_algo_ring.estimate(local, COLL_ALL_REDUCE, bytes);
	for (uint64_t at = 0; at < shard; at += COLL_STAGE_BYTES)
		ns += coll_cost_rail(top->hosts, algo,
				     shard - at < COLL_STAGE_BYTES ?
				     shard - at : COLL_STAGE_BYTES, false);
	return ns;
}

/*
 * tern_comm_algorithms() across hosts: all-reduce's candidates along the
 * rail, the one its first chunk runs first (the tuner chooses per chunk).
 */
tern_status_t coll_hosts_algorithms(const struct tern_comm *top,
				    enum coll_kind kind, uint64_t bytes,
				    tern_algo_estimate_t *out,
				    uint32_t capacity, uint32_t *count)
{
	const uint64_t first = bytes / (uint64_t)top->local->nranks;
	enum coll_rail_algo chosen;
	uint32_t n = 0;

	if (kind != COLL_ALL_REDUCE) {
		tern_set_last_error("across hosts the tuner models all-reduce only");
		return TERN_ERROR_NOT_SUPPORTED;
	}
	chosen = coll_tune_rail(top->hosts, first < COLL_STAGE_BYTES ?
					    first : COLL_STAGE_BYTES, false);
	for (int i = -1; i < COLL_RAIL_COUNT; i++) {
		/* the chosen first, then the others that can run */
		enum coll_rail_algo a = i < 0 ? chosen : (enum coll_rail_algo)i;
		double ns = coll_hosts_estimate(top, a, bytes);

		if ((i >= 0 && a == chosen) || ns < 0)
			continue;
		if (n < capacity) {
			snprintf(out[n].name, sizeof(out[n].name), "%s",
				 coll_rail_public[a]);
			out[n].us = ns / 1000.0;
		}
		n++;
	}
	*count = n;
	return TERN_SUCCESS;
}

static const char *const coll_rail_names[COLL_RAIL_COUNT] = {
	[COLL_RAIL_RING] = "ring",
	[COLL_RAIL_HALVING] = "halving-doubling",
	[COLL_RAIL_DOUBLING] = "doubling",
};

const char *coll_rail_algo_name(enum coll_rail_algo algo)
{
	return (unsigned int)algo < COLL_RAIL_COUNT ? coll_rail_names[algo] :
						       "unknown";
}

tern_status_t coll_forced_rail(int *algo)
{
	const char *name = getenv("TERN_NET_ALGO");

	*algo = -1;
	if (!name || !*name)
		return TERN_SUCCESS;
	for (int a = 0; a < COLL_RAIL_COUNT; a++) {
		if (strcmp(name, coll_rail_names[a]) == 0) {
			*algo = a;
			return TERN_SUCCESS;
		}
	}
	tern_set_last_error("TERN_NET_ALGO=\"%s\" is none of ring, halving-doubling or doubling",
			    name);
	return TERN_ERROR_INVALID_ARGUMENT;
}

enum coll_rail_algo coll_tune_rail(const struct coll_hosts *h, uint64_t bytes,
				   bool scatter)
{
	enum coll_rail_algo best = COLL_RAIL_RING;
	double best_ns = coll_cost_rail(h, COLL_RAIL_RING, bytes, scatter);

	if (h->forced_rail >= 0 &&
	    coll_cost_rail(h, (enum coll_rail_algo)h->forced_rail, bytes,
			   scatter) >= 0)
		return (enum coll_rail_algo)h->forced_rail;
	for (int a = 1; a < COLL_RAIL_COUNT; a++) {
		double ns = coll_cost_rail(h, (enum coll_rail_algo)a, bytes,
					   scatter);

		if (ns >= 0 && ns < best_ns) {
			best = (enum coll_rail_algo)a;
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

static tern_status_t coll_env_number(const char *name, double max,
				     double *value)
{
	const char *text = getenv(name);
	char *end;
	double v;

	if (!text || !*text)
		return TERN_SUCCESS;
	v = strtod(text, &end);
	if (*end || !(v > 0) || v > max) {
		tern_set_last_error("%s=\"%s\": want a number above 0, at most %g",
				    name, text, max);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	*value = v;
	return TERN_SUCCESS;
}

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
	status = coll_env_number("TERN_NET_GBPS", 100000, &gbps);
	if (status == TERN_SUCCESS)
		status = coll_env_number("TERN_NET_LATENCY_US", 1000000, &us);
	*bandwidth = (uint64_t)(gbps * 1e9 / 8);
	*latency_ns = (uint32_t)(us * 1000);
	return status;
}
