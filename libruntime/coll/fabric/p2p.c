// SPDX-License-Identifier: MIT
/*
 * Point to point: send and recv, chunk by chunk through the receiver's
 * slots for the sender. Routes may take several hops; the fabric forwards
 * them. They are no algorithm the tuner weighs: the sends and recvs
 * launched together are built together, here.
 *
 * Sends and recvs launched together (one, or a group's) are interleaved.
 * The chunks for one peer form a lane: the chunks of our sends to it, in
 * call order; likewise the chunks we take from it. Round k sends the k-th
 * chunk of every outgoing lane, then takes the k-th of every incoming one.
 * A send of round k waits only for a credit the peer returns in round
 * k - COLL_SLOTS, and a take of round k only for sends of round k, so any
 * set of exchanges that matches up across the ranks (both directions at
 * once, many peers, uneven sizes) completes. A rank's sends to itself meet
 * its recvs from itself, in order, as local copies.
 */
#include <stdlib.h>

#include "coll/fabric/internal.h"

static uint64_t coll_op_bytes(const struct coll_op *op)
{
	return op->count * tern_dtype_bytes(op->dtype);
}

/* The chunks one direction of one pair carries: its ops' chunks in order. */
struct coll_lane {
	size_t *ops;			/* indices into the ops, in call order */
	size_t count, pos;
	uint64_t chunk;			/* next chunk of ops[pos] */
};

/* The next chunk of @lane (op index, offset, length); false when done. */
static bool coll_lane_next(struct coll_lane *lane, const struct coll_op *ops,
			   size_t *op, uint64_t *at, uint64_t *len)
{
	while (lane->pos < lane->count) {
		uint64_t bytes = coll_op_bytes(&ops[lane->ops[lane->pos]]);

		if (lane->chunk * COLL_CHUNK_BYTES < bytes) {
			*op = lane->ops[lane->pos];
			*at = lane->chunk * COLL_CHUNK_BYTES;
			*len = coll_chunk_len(bytes, lane->chunk++);
			return true;
		}
		lane->pos++;
		lane->chunk = 0;
	}
	return false;
}

/* Sorts the sends (or recvs) of @ops into one lane per peer. */
static void coll_lanes_fill(struct coll_lane *lanes, int nranks, size_t *idx,
			    const struct coll_op *ops, size_t n,
			    enum coll_kind kind)
{
	size_t at = 0;

	for (int p = 0; p < nranks; p++) {
		lanes[p].ops = idx + at;
		for (size_t i = 0; i < n; i++)
			if (ops[i].kind == kind && ops[i].root == p)
				lanes[p].ops[lanes[p].count++] = i;
		at += lanes[p].count;
	}
}

void coll_p2p_run(struct coll_call *call, const struct coll_op *ops, size_t n)
{
	const int me = call->comm->rank, nranks = call->comm->nranks;
	struct coll_lane *out, *in;
	size_t *idx, op, mine;
	uint64_t at, len, mat, mlen;
	bool more = true;

	out = calloc(2 * (size_t)nranks, sizeof(*out));
	idx = calloc(2 * n + 1, sizeof(*idx));
	if (!out || !idx) {
		call->prog.failed = true;
		goto out;
	}
	in = out + nranks;
	coll_lanes_fill(out, nranks, idx, ops, n, COLL_SEND);
	coll_lanes_fill(in, nranks, idx + n, ops, n, COLL_RECV);
	/* Round by round: one chunk out to every peer, then one in from each. */
	while (more) {
		more = false;
		for (int p = 0; p < nranks; p++) {
			if (p == me || !coll_lane_next(&out[p], ops, &op, &at, &len))
				continue;
			coll_send_copy(&call->prog, p, ops[op].send + at, len);
			more = true;
		}
		for (int p = 0; p < nranks; p++) {
			if (!coll_lane_next(&in[p], ops, &op, &at, &len))
				continue;
			more = true;
			if (p != me) {
				coll_recv_copy(&call->prog, p, ops[op].recv + at,
					       len);
				continue;
			}
			/* Sizes were matched before building: same chunks. */
			if (coll_lane_next(&out[me], ops, &mine, &mat, &mlen))
				coll_emit_copy(&call->prog, ops[op].recv + at,
					       ops[mine].send + mat,
					       mlen < len ? mlen : len);
		}
	}
out:
	free(idx);
	free(out);
}
