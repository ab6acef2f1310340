/* SPDX-License-Identifier: MIT */
/*
 * A process of the test's own making that speaks the simulated machine's
 * wire by hand (simd/wire.h), to send what libtern never would.
 * Shared by test_ring and test_sharing; cmocka's asserts.
 */
#ifndef TERN_TEST_RAW_CLIENT_H
#define TERN_TEST_RAW_CLIENT_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "wire.h"
#include "tern.h"

struct raw_client {
	int sock;
	struct sim_ring_ctl *ring;
	uint8_t *data;
};

static inline int raw_sealed_memfd(const char *name, uint64_t bytes)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW),
			 0);
	return fd;
}

/* Sends @type with @req and returns the reply's status (into @reply). */
static inline tern_status_t raw_call(struct raw_client *c, uint32_t type,
				     const void *req, uint32_t req_len,
				     void *reply, uint32_t reply_len)
{
	int fds[SIM_WIRE_MAX_FDS];
	uint32_t got_type, len;

	assert_int_equal(sim_wire_send(c->sock, type, req, req_len, NULL, 0,
				       NULL, 0), 0);
	assert_int_equal(sim_wire_recv(c->sock, &got_type, reply, reply_len,
				       &len, fds), 0);
	for (int i = 0; i < SIM_WIRE_MAX_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	assert_int_equal(got_type, SIM_MSG_REPLY);
	assert_int_equal(len, reply_len);
	return ((struct sim_reply *)reply)->status;
}

/*
 * Connects to machine @machine in TERN_SIM_DIR and says HELLO with
 * @flags and @pad; the reply's status.
 */
static inline tern_status_t raw_hello(struct raw_client *c,
				      const char *machine, uint32_t flags,
				      uint32_t pad)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct sim_hello hello = { .wire_version = SIM_WIRE_VERSION,
				   .flags = flags, .pad = pad };
	struct sim_hello_reply reply;
	int fds[SIM_WIRE_MAX_FDS], shared[2];
	uint32_t type, len;
	void *map;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s.sock",
		 getenv("TERN_SIM_DIR"), machine);
	c->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(c->sock >= 0);
	assert_int_equal(connect(c->sock, (struct sockaddr *)&addr,
				 sizeof(addr)), 0);
	shared[0] = raw_sealed_memfd("fences", SIM_FENCE_TABLE_BYTES);
	shared[1] = raw_sealed_memfd("ring", SIM_RING_MAP_BYTES);
	map = mmap(NULL, SIM_RING_MAP_BYTES, PROT_READ | PROT_WRITE,
		   MAP_SHARED, shared[1], 0);
	assert_true(map != MAP_FAILED);
	c->ring = map;
	c->data = (uint8_t *)map + SIM_RING_DATA;
	memcpy(hello.magic, SIM_WIRE_MAGIC, sizeof(hello.magic));
	snprintf(hello.lib_version, sizeof(hello.lib_version), "%d.%d.%d",
		 TERN_VERSION_MAJOR, TERN_VERSION_MINOR, TERN_VERSION_PATCH);
	assert_int_equal(sim_wire_send(c->sock, SIM_MSG_HELLO, &hello,
				       sizeof(hello), NULL, 0, shared, 2), 0);
	close(shared[0]);
	close(shared[1]);
	assert_int_equal(sim_wire_recv(c->sock, &type, &reply, sizeof(reply),
				       &len, fds), 0);
	for (int i = 0; i < SIM_WIRE_MAX_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	assert_int_equal(len, sizeof(reply));
	return reply.status;
}

/* Connects to machine @machine in TERN_SIM_DIR and says HELLO. */
static inline void raw_connect(struct raw_client *c, const char *machine)
{
	assert_int_equal(raw_hello(c, machine, 0, 0), TERN_SUCCESS);
}

/*
 * Whether the machine closes the connection within 10 s: the end of the
 * stream, or a reset when it closed with our DOORBELL still unread.
 */
static inline bool raw_closed(struct raw_client *c)
{
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
	char byte;
	ssize_t n;

	if (poll(&pfd, 1, 10000) != 1)
		return false;
	n = recv(c->sock, &byte, 1, 0);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

static inline void raw_close(struct raw_client *c)
{
	munmap(c->ring, SIM_RING_MAP_BYTES);
	close(c->sock);
}

#endif /* TERN_TEST_RAW_CLIENT_H */
