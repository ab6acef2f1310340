// SPDX-License-Identifier: MIT
/*
 * A process's submission ring (wire.h), as the machine takes it: records
 * the process wrote into shared memory, taken by whichever thread gets
 * there first with the client's lock: a worker watching the rings while
 * it has work, or the client's own thread before it reads the socket (so
 * that records and messages keep the process's order) and on DOORBELL.
 *
 * The process can write anything there at any time, so every record is
 * copied out before it is read, and a record that makes no sense (a tail
 * behind the head or too far ahead of it, a size past the ring's end, a
 * type that has no place there) closes the connection, as a malformed
 * message on the socket does: only that process is hurt.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "machine.h"

int machine_ring_map(struct machine_ring *ring, int fd)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	void *map;

	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(fd, &st) ||
	    (uint64_t)st.st_size != SIM_RING_MAP_BYTES)
		return -1;
	ring->buf = malloc(SIM_RING_RECORD_MAX);
	if (!ring->buf)
		return -1;
	map = mmap(NULL, SIM_RING_MAP_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		free(ring->buf);
		ring->buf = NULL;
		return -1;
	}
	ring->ctl = map;
	ring->data = (const uint8_t *)map + SIM_RING_DATA;
	atomic_init(&ring->head, 0);
	return 0;
}

void machine_ring_unmap(struct machine_ring *ring)
{
	if (ring->ctl)
		munmap(ring->ctl, SIM_RING_MAP_BYTES);
	free(ring->buf);
	ring->ctl = NULL;
	ring->buf = NULL;
}

bool machine_ring_pending(struct machine_ring *ring)
{
	return ring->ctl && !atomic_load(&ring->broken) &&
	       !atomic_load(&ring->full) &&
	       __atomic_load_n(&ring->ctl->tail, __ATOMIC_ACQUIRE) !=
	       atomic_load_explicit(&ring->head, memory_order_relaxed);
}

/* Not a length: the record is a job its process has no room for yet. */
#define MACHINE_RING_FULL	UINT64_MAX

/*
 * Takes the record at @head; its length in the ring, 0 if it is bad, or
 * MACHINE_RING_FULL.
 */
static uint64_t machine_ring_take(struct machine_client *client,
				  uint64_t head, uint64_t tail)
{
	int ret;

	struct machine_ring *ring = &client->ring;
	const uint64_t at = head % SIM_RING_BYTES;
	struct sim_msg_header h;
	uint64_t record;

	memcpy(&h, ring->data + at, sizeof(h));
	record = sizeof(h) + (((uint64_t)h.size + 7) & ~7ull);
	if (record > SIM_RING_BYTES - at || record > tail - head)
		return 0;
	if (h.type == SIM_MSG_RING_PAD)
		return record == SIM_RING_BYTES - at ? record : 0;
	if (record > SIM_RING_RECORD_MAX)
		return 0;
	memcpy(ring->buf, ring->data + at + sizeof(h), h.size);
	ret = machine_client_post(client, h.type, ring->buf, h.size);
	if (ret == MACHINE_POST_FULL) {
		/*
		 * Taken again once a job of the process ends (which clears
		 * full), unless one ended meanwhile: each sees the other.
		 */
		atomic_store(&ring->full, true);
		if (!machine_client_job_fits(client, ring->full_size))
			return MACHINE_RING_FULL;
		atomic_store(&ring->full, false);
		ret = machine_client_post(client, h.type, ring->buf, h.size);
		if (ret == MACHINE_POST_FULL)
			return MACHINE_RING_FULL;
	}
	return ret ? 0 : record;
}

void machine_ring_served(struct machine_ring *ring)
{
	if (ring->ctl)
		__atomic_store_n(&ring->ctl->served, ++ring->served,
				 __ATOMIC_RELEASE);
}

int machine_ring_drain(struct machine_client *client)
{
	struct machine_ring *ring = &client->ring;
	uint64_t head, tail, record;

	if (!ring->ctl || atomic_load(&ring->broken))
		return ring->ctl ? -1 : 0;
	head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	tail = __atomic_load_n(&ring->ctl->tail, __ATOMIC_ACQUIRE);
	if (tail - head > SIM_RING_BYTES)
		goto broken;
	while (head != tail) {
		record = machine_ring_take(client, head, tail);
		if (record == MACHINE_RING_FULL)
			return 1;
		if (!record)
			goto broken;
		head += record;
		atomic_store_explicit(&ring->head, head, memory_order_relaxed);
		__atomic_store_n(&ring->ctl->head, head, __ATOMIC_RELEASE);
	}
	return 0;
broken:
	atomic_store(&ring->broken, true);
	/* The client's thread sees the socket end, and ends the client. */
	shutdown(client->sock, SHUT_RDWR);
	return -1;
}
