/* SPDX-License-Identifier: MIT */
/*
 * What tern-inspect knows about the machine at one moment: every device
 * with its engines, counters and health, every fabric link, every client
 * (open file of a device). Read from tern.ko's "tern" netlink family and
 * sysfs, or, with no driver, from the user's simulated machine through
 * libtern. Every subcommand renders a snapshot;
 * `top` takes two and shows the difference.
 */
#ifndef TOOLS_INSPECT_SNAPSHOT_H
#define TOOLS_INSPECT_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "tern.h"
#include "tern_state.h"

/*
 * The most engines tern-inspect takes of one device: far more than tern.ko
 * (16 DMA engines and 64 cores of 3: 208) or the simulator (4 and 16 of
 * 3: 52) make. A device that reports more is refused with
 * SNAPSHOT_TOO_MANY_ENGINES rather than shown in part.
 */
#define SNAPSHOT_MAX_ENGINES 4096

/*
 * The type of an engine whose sender did not say (a tern.ko older than
 * DRM_TERN_A_ENGINE_TYPE): tern_engine_type_name() calls it "unknown".
 */
#define SNAPSHOT_ENGINE_TYPE_UNKNOWN UINT32_MAX

/*
 * The values of a message of the "tern" family, by the names of the
 * model's list (model/tern_state_list.h) and, the same bytes, as the
 * model's struct (@values) that tern_state_get() fills, as the kernel's
 * struct_group() does; snapshot.c checks that both agree.
 */
#define SNAPSHOT_CTYPE_U32	uint32_t
#define SNAPSHOT_CTYPE_U64	uint64_t
#define SNAPSHOT_FIELD(name, type, attr, unit, metric, text, help) \
	SNAPSHOT_CTYPE_##type name;

/* A device: its message's values, names, engines, and what follows. */
struct snapshot_device {
	union {
		struct tern_state_device values;
		struct {
#define TERN_DEVICE_VALUE SNAPSHOT_FIELD
#include "tern_state_list.h"
		};
	};
	char name[64];			/* "tern.0" */
	char node[64];			/* "/dev/accel/accel0" or "sim:0" */
	char bus_id[96];		/* "platform:tern.0" */
	char driver_version[32];	/* "" on the simulator */
	bool health_given;		/* an older tern.ko sends none */
	uint64_t clock_hz;
	uint32_t links_up;		/* of port_count, from the links */
	/*
	 * engine_count engines, in index order (NULL for none), each listed
	 * with zero counters, an unknown type and no core until its nest
	 * says more; snapshot_device_free() frees them.
	 */
	struct tern_state_engine *engines;
	/*
	 * errno from opening the node to read what netlink does not give
	 * (the engine clock): EACCES when this user may not open it; 0 when
	 * read or not tried (the simulator).
	 */
	int node_errno;
};

/* One link: end A (device, port) to end B; counters since load. */
struct snapshot_link {
	union {
		struct tern_state_link values;
		struct {
#define TERN_LINK_VALUE SNAPSHOT_FIELD
#include "tern_state_list.h"
		};
	};
	bool up;			/* state is DRM_TERN_PORT_UP */
};

/* A client, one open file of a device. */
struct snapshot_client {
	union {
		struct tern_state_client values;
		struct {
#define TERN_CLIENT_VALUE SNAPSHOT_FIELD
#include "tern_state_list.h"
		};
	};
	char comm[32];
};

enum snapshot_source {
	SNAPSHOT_SOURCE_DRIVER,	/* tern.ko: netlink and sysfs */
	SNAPSHOT_SOURCE_SIM,	/* the simulated machine, through libtern */
};

struct snapshot {
	enum snapshot_source source;
	tern_backend_t backend;
	uint64_t taken_ns;		/* CLOCK_MONOTONIC */
	char topology[64];		/* "torus:4x4", "ring", ... or "" */
	uint32_t torus_rows, torus_cols;	/* 0 unless a torus */
	int device_count;
	struct snapshot_device *devices;
	int link_count;
	struct snapshot_link *links;
	int client_count;
	struct snapshot_client *clients;
};

/*
 * Takes a snapshot: from tern.ko when its netlink family is there (and
 * TERN_BACKEND is not "sim"), else from the simulator. On failure prints
 * why on stderr, prefixed with @prog, in words an operator can act on
 * (module not loaded and how to load it, no devices, no permission), and
 * returns the exit status (1, or EXIT_USAGE for bad TERN_* settings).
 * Returns 0 on success; free with snapshot_free().
 */
int snapshot_take(const char *prog, struct snapshot *snap);

struct family_conn;

/*
 * What a live view (top) keeps from one snapshot to the next: tern.ko's
 * netlink connection, opened once instead of for every frame. Zero it
 * before the first snapshot_refresh(); end it with snapshot_session_end().
 */
struct snapshot_session {
	struct family_conn *netlink;
};

/*
 * Takes a new snapshot from the same source as @old into @snap, over
 * @session's connection.
 */
int snapshot_refresh(const char *prog, struct snapshot_session *session,
		     const struct snapshot *old, struct snapshot *snap);

void snapshot_session_end(struct snapshot_session *session);

void snapshot_free(struct snapshot *snap);

/* A device's engines of one type (enum drm_tern_engine_type), summed. */
struct snapshot_engine_type {
	uint32_t engines;	/* of that type */
	uint32_t busy;		/* of them, running a job now */
	uint64_t busy_ns;	/* their time with a job, together */
};
#define SNAPSHOT_ENGINE_TYPES	(DRM_TERN_ENGINE_SCALAR + 1)

/*
 * @dev's engines by type into @types, indexed by type; an engine of no
 * known type counts in none.
 */
void snapshot_engine_types(const struct snapshot_device *dev,
			   struct snapshot_engine_type types[SNAPSHOT_ENGINE_TYPES]);

/* Whether engine @e is a core's: not a DMA engine, of no core. */
static inline bool snapshot_engine_has_core(const struct tern_state_engine *e)
{
	return e->core != DRM_TERN_ENGINE_NO_CORE;
}

/*
 * Makes room for @dev's engine_count engines, listed as above: 0, or -1
 * when out of memory. snapshot_device_free() frees them again.
 */
int snapshot_device_alloc_engines(struct snapshot_device *dev);
void snapshot_device_free(struct snapshot_device *dev);

/*
 * What a parser's error @err (negative) means: SNAPSHOT_TOO_MANY_ENGINES
 * in words, else libnl's.
 */
#define SNAPSHOT_TOO_MANY_ENGINES (-1000)
const char *snapshot_error(int err);

/*
 * Looks up a device by the argument an operator typed: its index ("3"),
 * its node ("/dev/accel/accel3") or its bus id. NULL if none; the caller
 * reports "no device 'X'; devices are 0-15" and exits EXIT_USAGE.
 */
const struct snapshot_device *snapshot_find_device(const struct snapshot *snap,
						   const char *which);

/* The device with fabric id @fabric_id, or NULL. */
const struct snapshot_device *snapshot_device_by_fabric_id(
	const struct snapshot *snap, uint32_t fabric_id);

/*
 * Writes the names of @reasons ("link_down", "link_errors",
 * "engine_reset", "engine_hung", "mem_uncorrected": the model's list),
 * comma-separated, to @buf; "" when none. A device's health and its name
 * are the model's (tern_health_of(), tern_health_name()).
 */
void snapshot_health_reasons(uint32_t reasons, char *buf, int len);

/*
 * Whether the links are exactly a @rows x @cols torus with wraparound in
 * both dimensions, device fabric ids row * cols + col (a dimension of 2
 * has two parallel links, as tern_fabric_init() makes it). Uses the
 * driver's "torus:RxC" when it gave one, else tries every shape with both
 * dimensions at least 2. False for anything else.
 */
bool snapshot_find_torus(const struct snapshot *snap, uint32_t *rows,
			 uint32_t *cols);

/*
 * Whether the links form one cycle through every device (two or more);
 * if so, writes the device indexes in cycle order, starting at device 0,
 * to @order (device_count entries).
 */
bool snapshot_find_ring(const struct snapshot *snap, int *order);

/* The @nth link (0, 1, ...) joining fabric ids @a and @b, or NULL. */
const struct snapshot_link *snapshot_link_between(const struct snapshot *snap,
						  uint32_t a, uint32_t b,
						  int nth);

/* ---- the one parser (snapshot_parse.c), for both sources and events ---- */

struct nlmsghdr;

/* What a device message says besides its values: events' own. */
struct snapshot_extra {
	bool has_reasons;		/* DRM_TERN_A_DEV_HEALTH_REASONS came */
	bool has_mem_error;		/* a memory error event's */
	uint32_t mem_error_kind;	/* enum tern_mem_error_kind */
	uint64_t mem_error_addr;
	int engine;			/* the last engine nest's index, or -1 */
	struct tern_state_engine engine_values;	/* that nest's values */
	bool has_guilty_comm;		/* an engine reset's */
	char guilty_comm[64];
	uint64_t guilty_client_id;
	uint32_t guilty_pid;		/* 0: not sent (tern.ko sends none) */
	char topology[64];
};

/*
 * One message into @dev, @link or @client (zeroed first), and @extra (may
 * be NULL). 0 or a negative libnl error for a malformed message, or
 * SNAPSHOT_TOO_MANY_ENGINES. A parsed @dev holds its engines: free it
 * with snapshot_device_free() unless it goes into a snapshot.
 */
int snapshot_parse_device(struct nlmsghdr *nlh, struct snapshot_device *dev,
			  struct snapshot_extra *extra);
int snapshot_parse_link(struct nlmsghdr *nlh, struct snapshot_link *link);
int snapshot_parse_client(struct nlmsghdr *nlh, struct snapshot_client *client);

/*
 * A dump's message added to @snap: a device, link or client by its
 * command (another command's is skipped). 0 or a negative libnl error.
 */
int snapshot_add(struct snapshot *snap, struct nlmsghdr *nlh);

/* ---- for the sources (snapshot_kernel.c, snapshot_sim.c) and tests ---- */

/*
 * Sets @dev's health from its links alone, by the model's rule, for
 * sources that report no health of their own.
 */
void snapshot_derive_link_health(const struct snapshot *snap,
				 struct snapshot_device *dev);

/*
 * Puts devices, links and clients in index order and fills what follows
 * from them: each device's links_up and client_count (when the source
 * gave none), the torus shape.
 */
void snapshot_finish(struct snapshot *snap);

/*
 * After snapshot_finish(): each device's clients_hidden, its clients
 * counted but not listed, unless @sees_all (this process may see every
 * client, so a difference is a file opened or closed between two dumps).
 */
void snapshot_count_hidden(struct snapshot *snap, bool sees_all);

/*
 * From tern.ko. Returns SNAPSHOT_NO_DRIVER, printing nothing, when its
 * netlink family is not registered; @old, when not NULL, is an earlier
 * snapshot whose node-derived fields are reused instead of opening nodes.
 * @kept, when not NULL, is a connection to use and keep open (connected
 * here if it is not yet, again if tern.ko was reloaded); else one is
 * opened and closed.
 */
#define SNAPSHOT_NO_DRIVER (-1)
int snapshot_kernel_take(const char *prog, const struct snapshot *old,
			 struct family_conn *kept, struct snapshot *snap);

/*
 * The pid, in this process's pid namespace, of client @id of device
 * @device, from a CLIENT_GET dump over @conn (connected here if it is
 * not; closed on error, to connect anew next time). 0 when it is gone,
 * is another user's and this process may not see it, or its process is
 * in no pid namespace this one sees.
 */
uint32_t snapshot_kernel_client_pid(struct family_conn *conn, uint32_t device,
				    uint64_t id);

/* From libtern (its simulator unless it chose tern.ko's nodes). */
int snapshot_sim_take(const char *prog, struct snapshot *snap);

#endif /* TOOLS_INSPECT_SNAPSHOT_H */
