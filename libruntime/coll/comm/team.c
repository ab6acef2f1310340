// SPDX-License-Identifier: MIT
/*
 * A team: the ranks of one communicator that live in this process (all of
 * a tern_comm_init_all). A rank that fails tells its teammates directly:
 * each stores its own abort word, so their jobs waiting for the failed
 * rank stop at once.
 */
#include <stdlib.h>

#include "coll/comm/comm.h"

tern_status_t coll_team_create(struct tern_comm **comms, int n)
{
	struct coll_team *team;

	team = calloc(1, sizeof(*team) + (size_t)n * sizeof(team->members[0]));
	if (!team)
		return TERN_ERROR_OUT_OF_MEMORY;
	pthread_mutex_init(&team->lock, NULL);
	pthread_cond_init(&team->cond, NULL);
	team->n = n;
	team->left = n;
	for (int r = 0; r < n; r++) {
		team->members[r] = comms[r];
		comms[r]->team = team;
	}
	return TERN_SUCCESS;
}

void coll_team_tell(struct tern_comm *comm)
{
	struct coll_team *team = comm->team;

	if (!team)
		return;
	pthread_mutex_lock(&team->lock);
	for (int r = 0; r < team->n; r++)
		if (team->members[r] && team->members[r] != comm)
			coll_comm_fail(team->members[r],
				       TERN_ERROR_PEER_FAILED, true);
	pthread_mutex_unlock(&team->lock);
}

void coll_team_leave(struct tern_comm *comm)
{
	struct coll_team *team = comm->team;
	bool last;

	if (!team)
		return;
	pthread_mutex_lock(&team->lock);
	team->members[comm->rank] = NULL;
	last = --team->left == 0;
	pthread_mutex_unlock(&team->lock);
	comm->team = NULL;
	if (last) {
		pthread_cond_destroy(&team->cond);
		pthread_mutex_destroy(&team->lock);
		free(team);
	}
}
