// SPDX-License-Identifier: MIT
/*
 * The registry of live handles.
 *
 * Every public call checks its handles here before touching them, so a
 * NULL, made-up or already freed handle is answered with
 * TERN_ERROR_INVALID_ARGUMENT instead of a crash. This is best effort: a
 * freed handle whose memory was reused for a new handle of the same kind
 * looks valid, and a handle freed by one thread while another uses it is a
 * race the caller must avoid.
 *
 * An open-addressing hash set keyed by address, with tombstones.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

#define TERN_SLOT_EMPTY		0
#define TERN_SLOT_TOMBSTONE	((uintptr_t)1)

struct tern_handle_slot {
	uintptr_t key;
	enum tern_handle_kind kind;
};

static pthread_rwlock_t tern_handles_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct tern_handle_slot *tern_handles;
static size_t tern_handles_cap;		/* a power of two, or 0 */
static size_t tern_handles_used;	/* live entries and tombstones */

static size_t tern_handle_hash(uintptr_t key)
{
	uint64_t x = key;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

/* The slot holding @key, or NULL. Lock held. */
static struct tern_handle_slot *tern_handle_find(uintptr_t key)
{
	size_t mask = tern_handles_cap - 1, i;

	if (!tern_handles_cap)
		return NULL;
	for (i = tern_handle_hash(key) & mask;; i = (i + 1) & mask) {
		if (tern_handles[i].key == key)
			return &tern_handles[i];
		if (tern_handles[i].key == TERN_SLOT_EMPTY)
			return NULL;
	}
}

static void tern_handle_insert(struct tern_handle_slot *table, size_t cap,
			       uintptr_t key, enum tern_handle_kind kind)
{
	size_t mask = cap - 1, i;

	for (i = tern_handle_hash(key) & mask;; i = (i + 1) & mask) {
		if (table[i].key <= TERN_SLOT_TOMBSTONE) {
			table[i].key = key;
			table[i].kind = kind;
			return;
		}
	}
}

/* Rehashes into a table sized for @live entries. Lock held. */
static bool tern_handle_rehash(size_t live)
{
	size_t cap = 64, i;
	struct tern_handle_slot *table;

	while (cap < live * 4)
		cap *= 2;
	table = calloc(cap, sizeof(*table));
	if (!table)
		return false;
	for (i = 0; i < tern_handles_cap; i++)
		if (tern_handles[i].key > TERN_SLOT_TOMBSTONE)
			tern_handle_insert(table, cap, tern_handles[i].key,
					   tern_handles[i].kind);
	free(tern_handles);
	tern_handles = table;
	tern_handles_cap = cap;
	tern_handles_used = live;
	return true;
}

static size_t tern_handle_live_count(void)
{
	size_t i, live = 0;

	for (i = 0; i < tern_handles_cap; i++)
		live += tern_handles[i].key > TERN_SLOT_TOMBSTONE;
	return live;
}

tern_status_t tern_handle_register(const void *handle,
				   enum tern_handle_kind kind)
{
	tern_status_t status = TERN_SUCCESS;

	pthread_rwlock_wrlock(&tern_handles_lock);
	/* Keep at most half the table used so probes stay short. */
	if ((tern_handles_used + 1) * 2 > tern_handles_cap &&
	    !tern_handle_rehash(tern_handle_live_count() + 1)) {
		status = TERN_ERROR_OUT_OF_MEMORY;
	} else {
		tern_handle_insert(tern_handles, tern_handles_cap,
				   (uintptr_t)handle, kind);
		tern_handles_used++;
	}
	pthread_rwlock_unlock(&tern_handles_lock);
	return status;
}

void tern_handle_unregister(const void *handle)
{
	struct tern_handle_slot *slot;

	pthread_rwlock_wrlock(&tern_handles_lock);
	slot = tern_handle_find((uintptr_t)handle);
	if (slot)
		slot->key = TERN_SLOT_TOMBSTONE;
	pthread_rwlock_unlock(&tern_handles_lock);
}

bool tern_handle_valid(const void *handle, enum tern_handle_kind kind)
{
	struct tern_handle_slot *slot;
	bool valid;

	if ((uintptr_t)handle <= TERN_SLOT_TOMBSTONE)
		return false;
	pthread_rwlock_rdlock(&tern_handles_lock);
	slot = tern_handle_find((uintptr_t)handle);
	valid = slot && slot->kind == kind;
	pthread_rwlock_unlock(&tern_handles_lock);
	return valid;
}
