// SPDX-License-Identifier: MIT
/*
 * Splitting a communicator (tern_comm_split, like ncclCommSplit; api.c
 * checks the call): every rank of a communicator calls it with a color
 * and a key; the ranks of one color form a new communicator, ranked by
 * key, ties broken by the old rank. A rank with TERN_SPLIT_NOCOLOR gets
 * none. The new communicator plans its rings from
 * the fabric links between its own members, so a row of a torus is a
 * ring of its own and its traffic stays in the row.
 *
 * Ranks in this process (a team) meet in the team: each enters its color
 * and key, and the last to enter builds every new communicator. Outside a
 * group, a call waits for the others (up to TERN_COMM_INIT_TIMEOUT_MS);
 * inside one, the split happens at tern_group_end(), so one thread can
 * split every rank. Ranks in other processes exchange their colors and
 * keys with an all-gather on the parent, then meet with
 * tern_comm_init_rank() under an id every member derives alike from the
 * parent's.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/coll.h"
#include "coll/init/init.h"
#include "submit.h"

struct coll_member {
	int rank, key;
};

static int coll_member_cmp(const void *a, const void *b)
{
	const struct coll_member *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank - y->rank;
}

/* The members of @color in their new order; returns how many. */
static int coll_members(int n, const int *colors, const int *keys, int color,
			struct coll_member *out)
{
	int k = 0;

	for (int r = 0; r < n; r++)
		if (colors[r] == color)
			out[k++] = (struct coll_member){ r, keys[r] };
	qsort(out, (size_t)k, sizeof(*out), coll_member_cmp);
	return k;
}

/* Builds every color's comm from @entries (a complete round). */
static tern_status_t coll_split_build(struct tern_comm *const *members, int n,
				      const struct coll_split_entry *entries)
{
	int colors[COLL_MAX_RANKS], keys[COLL_MAX_RANKS];
	bool done[COLL_MAX_RANKS] = { false };
	struct tern_comm *made[COLL_MAX_RANKS] = { NULL };
	tern_status_t status = TERN_SUCCESS;

	for (int r = 0; r < n; r++) {
		colors[r] = entries[r].color;
		keys[r] = entries[r].key;
	}
	for (int r = 0; r < n && status == TERN_SUCCESS; r++) {
		struct coll_member m[COLL_MAX_RANKS];
		struct tern_device *devs[COLL_MAX_RANKS];
		struct tern_comm *comms[COLL_MAX_RANKS];
		int k;

		if (done[r] || colors[r] == TERN_SPLIT_NOCOLOR)
			continue;
		k = coll_members(n, colors, keys, colors[r], m);
		for (int i = 0; i < k; i++) {
			devs[i] = members[m[i].rank]->dev;
			done[m[i].rank] = true;
		}
		status = coll_init_team(comms, k, devs);
		for (int i = 0; status == TERN_SUCCESS && i < k; i++)
			made[m[i].rank] = comms[i];
	}
	for (int r = 0; r < n; r++) {
		if (status && made[r])
			tern_comm_destroy(made[r]);
		*entries[r].out = status ? NULL : made[r];
	}
	return status;
}

tern_status_t coll_split_enter(struct tern_comm *comm, int color, int key,
			       tern_comm_t *out, uint64_t *round)
{
	struct coll_team *team = comm->team;
	struct tern_comm *members[COLL_MAX_RANKS];
	struct coll_split_entry entries[COLL_MAX_RANKS];
	tern_status_t status;
	int n;

	pthread_mutex_lock(&team->lock);
	if (team->entry[comm->rank].entered) {
		pthread_mutex_unlock(&team->lock);
		return TERN_ERROR_INVALID_ARGUMENT;	/* already splitting */
	}
	team->entry[comm->rank] = (struct coll_split_entry){
		true, color, key, out
	};
	*round = team->round;
	if (++team->arrived < team->n) {
		pthread_mutex_unlock(&team->lock);
		return TERN_SUCCESS;
	}
	/* The last to arrive builds, without the lock (the watchdog takes it). */
	n = team->n;
	memcpy(entries, team->entry, sizeof(entries[0]) * (size_t)n);
	for (int r = 0; r < n; r++)
		members[r] = team->members[r];
	pthread_mutex_unlock(&team->lock);
	status = coll_split_build(members, n, entries);
	pthread_mutex_lock(&team->lock);
	memset(team->entry, 0, sizeof(team->entry));
	team->arrived = 0;
	team->round_status = status;
	team->round++;
	pthread_cond_broadcast(&team->cond);
	pthread_mutex_unlock(&team->lock);
	return TERN_SUCCESS;
}

tern_status_t coll_split_wait(struct tern_comm *comm, uint64_t round)
{
	struct coll_team *team = comm->team;
	int64_t ms = coll_init_timeout_ms();
	tern_status_t status;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	pthread_mutex_lock(&team->lock);
	while (team->round == round &&
	       pthread_cond_timedwait(&team->cond, &team->lock, &ts) == 0)
		;
	if (team->round == round) {
		/* The others never came: withdraw. */
		team->entry[comm->rank].entered = false;
		team->arrived--;
		status = TERN_ERROR_PEER_FAILED;
	} else {
		status = team->round_status;
	}
	pthread_mutex_unlock(&team->lock);
	return status;
}

/*
 * Ranks in other processes: each makes an id it could be rank 0 of, and
 * all-gathers it with its color and key; each new comm's first member's
 * id is the one its members use, the others' ports go back. A rank that
 * cannot make an id gathers a void one, so its comm fails on every member
 * alike instead of leaving them waiting.
 */
struct coll_split_say {
	int32_t color, key;
	tern_unique_id_t id;
};

#define COLL_SPLIT_WORDS	(sizeof(struct coll_split_say) / 4)

static tern_status_t coll_split_linked(struct tern_comm *comm, int color,
				       int key, tern_comm_t *out)
{
	const int n = comm->nranks;
	const size_t say_bytes = sizeof(struct coll_split_say);
	struct coll_member m[COLL_MAX_RANKS];
	int colors[COLL_MAX_RANKS], keys[COLL_MAX_RANKS], k, me = 0;
	struct coll_op op = { .kind = COLL_ALL_GATHER, .dtype = TERN_INT32 };
	struct coll_split_say *said;
	struct tern_buffer *buf;
	tern_unique_id_t root_id;
	tern_stream_t stream;
	tern_status_t status;
	char *cpu;

	status = tern_buffer_alloc_internal(comm->dev, TERN_MEMORY_HOST,
					    say_bytes * (size_t)(n + 1), &buf,
					    (void **)&cpu);
	if (status)
		return status;
	status = tern_stream_create(comm->dev, &stream);
	if (status) {
		tern_buffer_free(buf);
		return status;
	}
	said = (struct coll_split_say *)(void *)cpu;
	said->color = color;
	said->key = key;
	if (color == TERN_SPLIT_NOCOLOR || tern_get_unique_id(&said->id))
		memset(&said->id, 0, sizeof(said->id));
	op.send = buf->be->va;
	op.recv = buf->be->va + say_bytes;
	op.count = COLL_SPLIT_WORDS;
	status = coll_launch(comm, stream, &op, 1);
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(stream);
	for (int r = 0; r < n; r++) {
		colors[r] = said[1 + r].color;
		keys[r] = said[1 + r].key;
	}
	if (status == TERN_SUCCESS && color != TERN_SPLIT_NOCOLOR) {
		k = coll_members(n, colors, keys, color, m);
		for (int i = 0; i < k; i++)
			if (m[i].rank == comm->rank)
				me = i;
		root_id = said[1 + m[0].rank].id;
		status = tern_comm_init_rank(out, k, &root_id, me, comm->dev);
	} else if (status == TERN_SUCCESS) {
		*out = NULL;
	}
	coll_id_release(&said->id);	/* unless init_rank took it */
	tern_stream_destroy(stream);
	tern_buffer_free(buf);
	return status;
}

tern_status_t coll_comm_split(struct tern_comm *comm, int color, int key,
			      tern_comm_t *out)
{
	tern_status_t status;
	uint64_t round;

	if (!comm->team && !comm->link) {
		/* One rank: a comm of its own, or none. */
		if (color == TERN_SPLIT_NOCOLOR) {
			*out = NULL;
			return TERN_SUCCESS;
		}
		return coll_init_team(out, 1, &comm->dev);
	}
	if (comm->link)
		return coll_split_linked(comm, color, key, out);
	status = coll_split_enter(comm, color, key, out, &round);
	if (status == TERN_SUCCESS)
		status = coll_split_wait(comm, round);
	return status;
}
