/* SPDX-License-Identifier: MIT */
/*
 * Collectives inside libtern (not installed). Each part has a folder and
 * a header of what it gives the others; a part calls only into the parts
 * below it:
 *
 *   api.c, group.c, split.c, launch.c   the calls of tern.h, on their way
 *   init/     making communicators: in one process, or one rank each
 *   hosts/    collectives across hosts: the hierarchy, the rail
 *   fabric/   collectives over one host's fabric: rings, cost, tuner,
 *             the algorithms, the packet programs
 *   comm/     a communicator: its areas, its jobs, its failure
 *   trust/    the unique id and the proofs made with its secret
 *
 * The path of a call: api.c checks the arguments and describes the
 * operation (struct coll_op); on a comm in error it fails, inside a group
 * it is kept for the group's end (group.c), else launch.c hands it to
 * the fabric's tuner (fabric/build.c), whose algorithm emits the program
 * that fabric/prog.c submits in communicator order, or across hosts to
 * hosts/hier.c. comm/monitor.c watches the work in flight; comm/team.c
 * and comm/link.c carry a failure to the ranks in this process and in
 * others.
 *
 * This header is what the calls give each other, top to bottom: api.c
 * to group.c, split.c and launch.c; group.c to split.c and launch.c;
 * split.c to launch.c.
 */
#ifndef TERN_COLL_COLL_H
#define TERN_COLL_COLL_H

#include "coll/fabric/fabric.h"

/* ---- group.c: tern_group_start() / tern_group_end() ---- */

/* Nesting depth of the calling thread's group; 0 outside one. */
int coll_group_depth(void);
/* Keeps @op for the group's end. */
tern_status_t coll_group_add(struct tern_comm *comm, struct tern_stream *stream,
			     const struct coll_op *op);
/* Keeps a split for the group's end. */
tern_status_t coll_group_add_split(struct tern_comm *comm, int color, int key,
				   tern_comm_t *out);

/* ---- split.c: tern_comm_split's work ---- */

/* Splits @comm (checked, not in error), outside a group. */
tern_status_t coll_comm_split(struct tern_comm *comm, int color, int key,
			      tern_comm_t *out);
/*
 * A split of a team's comm, in two halves so that one thread can enter
 * every rank's (in a group) before any waits: enter records ours, and the
 * last rank to enter builds the new comms; wait waits for that.
 */
tern_status_t coll_split_enter(struct tern_comm *comm, int color, int key,
			       tern_comm_t *out, uint64_t *round);
tern_status_t coll_split_wait(struct tern_comm *comm, uint64_t round);

/* ---- launch.c: one host or across hosts ---- */

/*
 * Builds @n operations (checked) of @comm into one program and submits
 * it on @stream, under the comm's lock: collectives in order, then the
 * point-to-point ones interleaved chunk by chunk so that any exchange
 * between them makes progress. The comm's error if it has one (nothing
 * enqueued).
 */
tern_status_t coll_launch(struct tern_comm *comm, struct tern_stream *stream,
			  const struct coll_op *ops, size_t n);

#endif /* TERN_COLL_COLL_H */
