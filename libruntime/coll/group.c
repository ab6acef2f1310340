// SPDX-License-Identifier: MIT
/*
 * Groups (tern_group_start / tern_group_end, as ncclGroupStart/End): the
 * collectives a thread calls in between are kept, and launched together
 * at the outermost end, one program per communicator. Sends and recvs of
 * one communicator are interleaved there chunk by chunk (fabric/p2p.c),
 * which is what lets a pair exchange any amount both ways on one stream,
 * and a rank exchange with many peers at once (all-to-allv). Splits in a
 * group happen at its end too (split.c), so one thread can split every
 * rank of a team. Groups nest up to TERN_GROUP_MAX_DEPTH; the state is
 * the calling thread's own. A group one of whose streams was destroyed
 * before its end launches none of its collectives
 * (TERN_ERROR_INVALID_ARGUMENT). The calls come here from api.c, which
 * decides whether to keep them.
 */
#include <stdlib.h>

#include "coll/coll.h"

struct coll_deferred {
	struct tern_comm *comm;
	struct tern_stream *stream;
	struct coll_op op;
};

struct coll_deferred_split {
	struct tern_comm *comm;
	int color, key;
	tern_comm_t *out;
	uint64_t round;
};

static __thread struct {
	int depth;
	tern_status_t error;		/* the first call that could not be kept */
	struct coll_deferred *ops;
	size_t count, cap;
	struct coll_deferred_split *splits;
	size_t split_count, split_cap;
} coll_group;

int coll_group_depth(void)
{
	return coll_group.depth;
}

tern_status_t coll_group_add(struct tern_comm *comm, struct tern_stream *stream,
			     const struct coll_op *op)
{
	for (size_t i = 0; i < coll_group.count; i++)
		if (coll_group.ops[i].comm == comm &&
		    coll_group.ops[i].stream != stream)
			return TERN_ERROR_INVALID_ARGUMENT;	/* one stream per comm */
	if (coll_group.count == coll_group.cap) {
		size_t cap = coll_group.cap ? coll_group.cap * 2 : 16;
		struct coll_deferred *bigger =
			realloc(coll_group.ops, cap * sizeof(*bigger));

		if (!bigger) {
			if (!coll_group.error)
				coll_group.error = TERN_ERROR_OUT_OF_MEMORY;
			return TERN_ERROR_OUT_OF_MEMORY;
		}
		coll_group.ops = bigger;
		coll_group.cap = cap;
	}
	coll_group.ops[coll_group.count].comm = comm;
	coll_group.ops[coll_group.count].stream = stream;
	coll_group.ops[coll_group.count].op = *op;
	coll_group.count++;
	return TERN_SUCCESS;
}

tern_status_t coll_group_add_split(struct tern_comm *comm, int color, int key,
				   tern_comm_t *out)
{
	struct coll_deferred_split *bigger;

	for (size_t i = 0; i < coll_group.split_count; i++)
		if (coll_group.splits[i].comm == comm)
			return TERN_ERROR_INVALID_ARGUMENT;	/* once per group */
	if (coll_group.split_count == coll_group.split_cap) {
		size_t cap = coll_group.split_cap ? coll_group.split_cap * 2 : 16;

		bigger = realloc(coll_group.splits, cap * sizeof(*bigger));
		if (!bigger)
			return TERN_ERROR_OUT_OF_MEMORY;
		coll_group.splits = bigger;
		coll_group.split_cap = cap;
	}
	coll_group.splits[coll_group.split_count++] =
		(struct coll_deferred_split){ comm, color, key, out, 0 };
	return TERN_SUCCESS;
}

/*
 * The group's splits: all entered first, so that the last rank of each
 * team builds at once, then waited for.
 */
static tern_status_t coll_group_splits(void)
{
	tern_status_t first = TERN_SUCCESS, status;
	bool *entered = calloc(coll_group.split_count + 1, sizeof(*entered));

	if (!entered)
		return TERN_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; i < coll_group.split_count; i++) {
		struct coll_deferred_split *s = &coll_group.splits[i];

		status = coll_comm_valid(s->comm) ?
			 coll_split_enter(s->comm, s->color, s->key, s->out,
					  &s->round) :
			 TERN_ERROR_INVALID_ARGUMENT;
		entered[i] = status == TERN_SUCCESS;
		if (status && !first)
			first = status;
	}
	for (size_t i = 0; i < coll_group.split_count; i++) {
		if (!entered[i])
			continue;
		status = coll_split_wait(coll_group.splits[i].comm,
					 coll_group.splits[i].round);
		if (status && !first)
			first = status;
	}
	free(entered);
	return first;
}

TERN_API tern_status_t tern_group_start(void)
{
	if (coll_group.depth >= TERN_GROUP_MAX_DEPTH)
		return TERN_ERROR_INVALID_ARGUMENT;
	coll_group.depth++;
	return TERN_SUCCESS;
}

/* Launches the kept ops of the comm of ops[@first], and marks them done. */
static tern_status_t coll_group_launch(size_t first, struct coll_op *scratch)
{
	struct tern_comm *comm = coll_group.ops[first].comm;
	struct tern_stream *stream = coll_group.ops[first].stream;
	tern_status_t status;
	size_t n = 0;

	for (size_t i = first; i < coll_group.count; i++) {
		if (coll_group.ops[i].comm != comm)
			continue;
		scratch[n++] = coll_group.ops[i].op;
		coll_group.ops[i].comm = NULL;
	}
	/* It may have been destroyed, or failed, since the call. */
	if (!coll_comm_valid(comm))
		return TERN_ERROR_INVALID_ARGUMENT;
	status = coll_comm_error(comm);
	if (status)
		return status;
	return coll_launch(comm, stream, scratch, n);
}

TERN_API tern_status_t tern_group_end(void)
{
	tern_status_t status, first_error;
	struct coll_op *scratch;

	if (coll_group.depth == 0)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (--coll_group.depth)
		return TERN_SUCCESS;
	first_error = coll_group.error;
	/*
	 * A stream destroyed since its call launches nothing of the group:
	 * half a collective would wait for its other half for good.
	 */
	for (size_t i = 0; i < coll_group.count && !first_error; i++)
		if (!tern_handle_valid(coll_group.ops[i].stream,
				       TERN_HANDLE_STREAM))
			first_error = TERN_ERROR_INVALID_ARGUMENT;
	scratch = first_error ? NULL :
		  malloc((coll_group.count ? coll_group.count : 1) *
			 sizeof(*scratch));
	if (!scratch && !first_error)
		first_error = TERN_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; scratch && i < coll_group.count; i++) {
		if (!coll_group.ops[i].comm)
			continue;
		status = coll_group_launch(i, scratch);
		if (status && !first_error)
			first_error = status;
	}
	free(scratch);
	status = coll_group_splits();
	if (status && !first_error)
		first_error = status;
	free(coll_group.splits);
	coll_group.splits = NULL;
	coll_group.split_count = 0;
	coll_group.split_cap = 0;
	free(coll_group.ops);
	coll_group.ops = NULL;
	coll_group.count = 0;
	coll_group.cap = 0;
	coll_group.error = TERN_SUCCESS;
	return first_error;
}
