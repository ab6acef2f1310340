// SPDX-License-Identifier: MIT
/*
 * The submission ring, as this process writes it (wire.h): SUBMIT and
 * FENCE_PUT records in shared memory that the machine's workers take while
 * they have work, so that a submission costs no system call. When no
 * worker watches, the machine sets the ring's doorbell and the process
 * wakes a worker after its record, through the machine's doorbell page. A record that does not fit, or
 * that would overtake a message on the socket the machine has not served
 * yet, goes on the socket (wire.h).
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

tern_status_t sim_ring_init(struct sim_conn *conn, int *fd)
{
	int ring = memfd_create("tern-sim-ring",
				MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *map;

	if (ring < 0)
		return TERN_ERROR_BACKEND;
	if (ftruncate(ring, (off_t)SIM_RING_MAP_BYTES) ||
	    fcntl(ring, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)) {
		close(ring);
		return TERN_ERROR_BACKEND;
	}
	/* Its pages now, not a fault each at the first records. */
	map = mmap(NULL, SIM_RING_MAP_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, ring, 0);
	if (map == MAP_FAILED) {
		close(ring);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	conn->ring = map;
	conn->ring_data = (uint8_t *)map + SIM_RING_DATA;
	conn->ring_tail = 0;
	*fd = ring;
	return TERN_SUCCESS;
}

void sim_doorbell_map(struct sim_conn *conn, int fd)
{
	struct stat st;
	void *map;

	if (fstat(fd, &st) || (uint64_t)st.st_size != SIM_DOORBELL_BYTES)
		return;
	map = mmap(NULL, SIM_DOORBELL_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map != MAP_FAILED)
		conn->bell = map;
}

void sim_ring_fini(struct sim_conn *conn)
{
	if (conn->ring)
		munmap(conn->ring, SIM_RING_MAP_BYTES);
	if (conn->bell)
		munmap(conn->bell, SIM_DOORBELL_BYTES);
	conn->ring = NULL;
	conn->ring_data = NULL;
	conn->bell = NULL;
}

static void sim_ring_write(struct sim_conn *conn, uint64_t at,
			   const void *src, uint32_t len)
{
	memcpy(conn->ring_data + at % SIM_RING_BYTES, src, len);
}

/* Whether @bytes more fit behind what the machine has not taken. */
static bool sim_ring_room(struct sim_conn *conn, uint64_t bytes)
{
	uint64_t head = __atomic_load_n(&conn->ring->head, __ATOMIC_ACQUIRE);
	uint64_t used = conn->ring_tail - head;

	return used <= SIM_RING_BYTES && SIM_RING_BYTES - used >= bytes;
}

/*
 * Wakes the machine if it asked: a worker, once for each bell it sets, or
 * its thread for us, after every record.
 */
static void sim_ring_bell(struct sim_conn *conn)
{
	uint32_t bell = __atomic_load_n(&conn->ring->doorbell,
					__ATOMIC_SEQ_CST);

	if (!bell || bell == conn->rang)
		return;
	if (bell != SIM_RING_BELL_SOCKET && conn->bell) {
		conn->rang = bell;
		__atomic_fetch_add(&conn->bell->seq, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &conn->bell->seq, FUTEX_WAKE, 1, NULL, NULL,
			0);
	} else if (sim_wire_send(conn->sock, SIM_MSG_DOORBELL, NULL, 0, NULL,
				 0, NULL, 0)) {
		__atomic_store_n(&conn->dead, true, __ATOMIC_RELAXED);
	}
}

void sim_host_wrote(struct tern_be_device *dev)
{
	struct sim_conn *conn = sim_conn_get();

	(void)dev;
	if (!conn || !conn->bell)
		return;		/* the engines' bounded look still sees it */
	__atomic_fetch_add(&conn->bell->host_writes, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&conn->bell->seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &conn->bell->seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * The ring is full: the machine has a megabyte of work from us. Waits a
 * little for it to take some, as a full command ring holds up a driver;
 * false if the machine went (the record then fails on the socket).
 */
static bool sim_ring_wait(struct sim_conn *conn)
{
	struct timespec pause = { 0, 20000 };

	sim_ring_bell(conn);
	nanosleep(&pause, NULL);
	return sim_conn_alive(conn);
}

bool sim_ring_push(struct sim_conn *conn, uint32_t type, const void *payload,
		   uint32_t len, const void *extra, uint32_t extra_len)
{
	struct sim_ring_ctl *ctl = conn->ring;
	const uint32_t size = (len + extra_len + 7) & ~7u;
	const uint32_t record = (uint32_t)sizeof(struct sim_msg_header) + size;
	uint64_t tail = conn->ring_tail, to_end;
	struct sim_msg_header h = { type, len + extra_len };

	if (!ctl || record > SIM_RING_RECORD_MAX ||
	    __atomic_load_n(&ctl->served, __ATOMIC_ACQUIRE) != conn->sent)
		return false;
	to_end = SIM_RING_BYTES - tail % SIM_RING_BYTES;
	while (!sim_ring_room(conn, record + (record > to_end ? to_end : 0)))
		if (!sim_ring_wait(conn))
			return false;
	if (record > to_end) {
		struct sim_msg_header pad = {
			SIM_MSG_RING_PAD,
			(uint32_t)(to_end - sizeof(pad)),
		};

		sim_ring_write(conn, tail, &pad, sizeof(pad));
		tail += to_end;
	}
	sim_ring_write(conn, tail, &h, sizeof(h));
	sim_ring_write(conn, tail + sizeof(h), payload, len);
	if (extra_len)
		sim_ring_write(conn, tail + sizeof(h) + len, extra, extra_len);
	tail += record;
	conn->ring_tail = tail;
	/* The tail, then the doorbell: the machine sets it, then looks. */
	__atomic_store_n(&ctl->tail, tail, __ATOMIC_SEQ_CST);
	sim_ring_bell(conn);
	return true;
}
