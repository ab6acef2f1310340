/* SPDX-License-Identifier: MIT */
/*
 * The fabric tests of tern.ko: fault injection through debugfs
 * (fabric_link), rerouting around a link that is down, the generic
 * netlink family "tern" and libtern's collectives when links fail. They
 * need root, debugfs and mock devices joined in a ring of three or more
 * (mock_topology=ring), and are written for the test VM. The raw-ioctl
 * helpers are the uapi suite's (tests/uapi/uapi.h).
 *
 * On a ring, port 0 of device d goes to port 1 of device d + 1: "the link
 * 0->1" is device 0's port 0.
 */
#ifndef TERN_FABRIC_TEST_H
#define TERN_FABRIC_TEST_H

#include "../uapi/uapi.h"

#define FABRIC_MAX_DEVICES	64
#define RING_PORTS		2
#define RING_NEXT		0	/* port toward device d + 1 */
#define RING_PREV		1	/* port toward device d - 1 */
#define FABRIC_COPY_BYTES	5000u

struct fabric {
	uint32_t devices;
	int fd[FABRIC_MAX_DEVICES];			/* one file per device */
	char node[FABRIC_MAX_DEVICES][64];		/* its device node */
	char link_file[FABRIC_MAX_DEVICES][96];		/* its fabric_link */
};

extern struct fabric fabric;

/* Every test's fixture on device 0: a queue, a buffer, device 1's import. */
struct fixture {
	uint32_t queue;
	struct uapi_bo local;		/* device 0's buffer */
	struct uapi_bo remote;		/* device 1's buffer, mapped on device 1 */
	uint32_t import;		/* remote imported on device 0 */
	uint64_t import_va;
};

extern struct fixture fx;

/* Opens the files of every device (fabric.fd); 0 or a reason to skip. */
const char *fabric_open(void);
int fixture_setup(void **state);
/* Brings every link up again and releases the fixture. */
int fixture_teardown(void **state);

/* Writes @command to @device's fabric_link: 0 or the write's errno. */
int link_write(uint32_t device, const char *command);
/* Every link up; fails the test if one cannot be brought up. */
void links_all_up(void);

/* Every port of every device, as TOPOLOGY reports them. */
struct ports {
	struct drm_tern_port_info port[FABRIC_MAX_DEVICES][RING_PORTS];
};

void ports_read(struct ports *ports);

/* Runs a COPY on device 0's queue; returns the fence status. */
int copy_on_device0(uint64_t src, uint64_t dst, uint64_t bytes);
/* Copies FABRIC_COPY_BYTES of a pattern into device 1's buffer. */
int copy_to_device1(uint8_t seed);
void assert_device1_got(uint8_t seed);

/* ---- generic netlink (netlink.c) ---- */

struct nl_sock;

#define NL_MAX_ATTR	32
#define NL_MAX_ENGINES	32	/* engine nests kept per message */
#define NL_MAX_REPLIES	384	/* messages kept per dump */

/* One DRM_TERN_A_DEV_ENGINE nest, its attributes as numbers. */
struct nl_engine {
	int has[DRM_TERN_A_ENGINE_MAX + 1];
	uint64_t attr[DRM_TERN_A_ENGINE_MAX + 1];
	char guilty_comm[32];
};

/* One message of the "tern" family, its attributes as numbers. */
struct nl_reply {
	uint8_t cmd;
	int has[NL_MAX_ATTR + 1];
	uint64_t attr[NL_MAX_ATTR + 1];	/* u32 and u64 attributes */
	char str[NL_MAX_ATTR + 1][32];	/* every attribute, as a string */
	char name[64], node[64];	/* DRM_TERN_A_DEV_NAME, DRM_TERN_A_DEV_NODE */
	uint32_t engines;		/* DRM_TERN_A_DEV_ENGINE nests, all counted */
	struct nl_engine engine[NL_MAX_ENGINES];
};

struct nl_replies {
	struct nl_reply msg[NL_MAX_REPLIES];
	uint32_t count;
	int error;		/* of an NLMSG_ERROR: a negative errno */
};

/* A socket of the family, its id in @family; fails the test on error. */
struct nl_sock *netlink_open(int *family);
/*
 * Dumps @cmd, with a u32 attribute @attr = @value in the request unless
 * @attr is 0; returns 0 or the kernel's negative errno.
 */
int netlink_dump(struct nl_sock *sock, int family, uint8_t cmd, uint16_t attr,
	    uint32_t value, struct nl_replies *out);
/*
 * Receives the next message, waiting for one at most @bound_ms (a bound,
 * not a timing); returns 1 with it in @out, 0 when none came.
 */
int netlink_next(struct nl_sock *sock, int bound_ms, struct nl_reply *out);

/* DEVICE_GET of device @index alone; fails the test on error. */
void netlink_device(struct nl_sock *sock, int family, uint32_t index,
		    struct nl_reply *out);
/* A socket listening to the "events" group; fails the test on error. */
struct nl_sock *netlink_events_open(void);
/*
 * The next event @cmd about @device on @events, others skipped; fails the
 * test if none comes within @bound_ms.
 */
struct nl_reply netlink_event_about(struct nl_sock *events, uint32_t device,
				    uint8_t cmd, int bound_ms);
/* Fails the test if an event @cmd about @device comes within @bound_ms. */
void netlink_assert_no_event(struct nl_sock *events, uint32_t device,
			     uint8_t cmd, int bound_ms);
/* The client @id in CLIENT_GET replies @in, or NULL. */
const struct nl_reply *netlink_find_client(const struct nl_replies *in,
					   uint64_t id);
/* The one client of @now that @then did not have; fails the test if not one. */
const struct nl_reply *netlink_new_client(const struct nl_replies *then,
					  const struct nl_replies *now);
/*
 * Opens a file of @device; its client id, as CLIENT_GET lists it, in
 * *@id. Returns the file; fails the test on error.
 */
int netlink_open_client(struct nl_sock *sock, int family, uint32_t device,
			uint64_t *id);
/*
 * Fails the test unless engine reset event @event names the file @id as
 * guilty, and its command as this process's: a client id, never a pid.
 */
void netlink_assert_guilty(const struct nl_reply *event, uint64_t id);

/* ---- the devices' sysfs and fault injection (sysfs.c, faults.c) ---- */

/* /sys/bus/platform/devices/tern.<device>/tern/<file> as a number. */
uint64_t sysfs_number(uint32_t device, const char *file);
/* ... and as a string, newline dropped. */
void sysfs_string(uint32_t device, const char *file, char *out, size_t size);
/* Writes @command to @device's debugfs @file: 0 or the write's errno. */
int debugfs_write(uint32_t device, const char *file, const char *command);

int link_tests(void);
int netlink_tests(void);
int client_tests(void);
int sysfs_tests(void);
int event_tests(void);
int fault_tests(void);
/* Job timeouts and health: what counts against it, and clearing it. */
int health_tests(void);
/* Collectives through libtern while links fail (collectives.c). */
int collective_tests(void);

#endif /* TERN_FABRIC_TEST_H */
