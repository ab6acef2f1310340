/* SPDX-License-Identifier: MIT */
/*
 * What init/ gives the rest of the collectives: making communicators,
 * all in this process (all.c, tern_comm_init_all) or one rank per
 * process (rank.c, tern_comm_init_rank), and the settings that bound how
 * long their ranks wait for each other.
 */
#ifndef TERN_COLL_INIT_INIT_H
#define TERN_COLL_INIT_INIT_H

#include "coll/comm/comm.h"

/* Communicators of @n distinct devices in this process, as one team. */
tern_status_t coll_init_team(struct tern_comm **comms, int n,
			     struct tern_device *const *devices);
/* TERN_COMM_INIT_TIMEOUT_MS, or -1 if it is not a number in range. */
int64_t coll_init_timeout_ms(void);
/* TERN_COMM_CUT_MS (COLL_CUT_MS), or -1 if it is not a number in range. */
int64_t coll_cut_ms(void);

#endif /* TERN_COLL_INIT_INIT_H */
