/* SPDX-License-Identifier: MIT */
/*
 * libtern's simulator administration, for tools such as tern-inspect and
 * for tests: faults injected into the simulated devices, what tern.ko's
 * "tern" netlink family would say of them and of their events, and the
 * simulated machines themselves (tern-simd, Documentation/simulator.rst).
 * Frameworks need none of it: tern.h is theirs. Every call returns a
 * tern_status_t, and those that need the simulator return
 * TERN_ERROR_NOT_SUPPORTED on the kernel backend, where tern.ko's debugfs
 * and netlink family do the same.
 */
#ifndef TERN_SIM_H
#define TERN_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "tern.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fault injection on the simulator: takes the link on @port of simulated
 * device @device_index down (@up = 0) or up, for every process of the
 * machine. TERN_ERROR_NOT_SUPPORTED on the
 * kernel backend, where the driver's debugfs does this.
 */
tern_status_t tern_sim_set_link(int device_index, uint32_t port, int up);

/*
 * Any fault tern.ko's debugfs takes, on the simulator, with the same
 * words: @file "fabric_link" ("PORT down|up|error"), "mem_error"
 * ("correctable|uncorrectable [OFFSET]") or "engine_hang" ("ENGINE"), and
 * @line what is written to it. TERN_ERROR_INVALID_ARGUMENT, with the
 * reason in tern_get_last_error(), for words it does not take;
 * TERN_ERROR_NOT_SUPPORTED on the kernel backend.
 */
tern_status_t tern_sim_inject_fault(int device_index, const char *file,
				    const char *line);

/* A simulated device as tern-inspect shows it, every process's alike. */
#define TERN_SIM_MAX_ENGINES	16
#define TERN_SIM_MAX_CLIENTS	64
typedef struct {
	uint64_t busy_ns, jobs_completed, jobs_failed, timeouts, resets;
	uint64_t hang_resets;		/* of resets, those after a hang */
	uint32_t jobs_queued;
	int busy, hung;
	/* Steps its jobs ran (each bounded by the model's work budget), the longest in ns. */
	uint64_t steps, longest_step_ns;
} tern_sim_engine_state_t;
typedef struct {
	uint64_t id;			/* the open device's, machine-wide */
	int32_t pid;
	char comm[32];
	uint64_t mem_device, mem_host;
	uint32_t buffers, queues, jobs_active;
	uint64_t jobs_submitted, busy_ns;
} tern_sim_client_state_t;
typedef struct {
	uint64_t mem_total, mem_used, mem_host_used;
	uint32_t buffer_count;
	uint64_t mem_errors_corrected, mem_errors_uncorrected;
	/*
	 * The device's first engines, at most TERN_SIM_MAX_ENGINES (the size
	 * of this struct is libtern's ABI): a chip of cores may have more,
	 * which tern_sim_netlink_dump() reports, each with its type and core.
	 */
	uint32_t engine_count;
	tern_sim_engine_state_t engines[TERN_SIM_MAX_ENGINES];
	/* DRM_TERN_HEALTH_REASON_* bits (tern_accel.h), as tern.ko derives them. */
	uint32_t health_reasons;
	/* Every open of the device; the first TERN_SIM_MAX_CLIENTS listed. */
	uint32_t client_count;
	tern_sim_client_state_t clients[TERN_SIM_MAX_CLIENTS];
} tern_sim_device_state_t;

/*
 * Fills @state for simulated device @device_index, from the machine's
 * answer to tern_sim_netlink_dump(). TERN_ERROR_NOT_SUPPORTED on the
 * kernel backend, whose netlink family tells the same.
 */
tern_status_t tern_sim_device_state(int device_index,
				    tern_sim_device_state_t *state);

/*
 * What tern.ko's "tern" generic netlink family answers dump @cmd
 * (DRM_TERN_CMD_DEVICE_GET, _LINK_GET or _CLIENT_GET of tern_accel.h),
 * from the simulated machine: the netlink messages one after another, each
 * a struct nlmsghdr, a struct genlmsghdr and its attributes, as a netlink
 * socket delivers a dump, into *@msgs (*@len bytes; free() it). @device
 * limits a device or client dump to that device; -1 asks for all. For
 * tools that read tern.ko and the simulator with one parser. Clients past
 * what one answer holds (thousands) are left out; the devices' client
 * counts still count them. TERN_ERROR_NOT_SUPPORTED on the kernel backend.
 */
tern_status_t tern_sim_netlink_dump(int cmd, int device, void **msgs,
				    size_t *len);

/*
 * The simulated machine's events, as tern.ko's "events" netlink group
 * sends them: link state changes and errors, memory errors, engine resets
 * and health changes, of every process's devices alike.
 */
typedef enum {
	TERN_SIM_EVENT_LINK_STATE = 1,
	TERN_SIM_EVENT_LINK_ERROR = 2,
	TERN_SIM_EVENT_MEM_ERROR = 3,
	TERN_SIM_EVENT_ENGINE_RESET = 4,
	TERN_SIM_EVENT_HEALTH = 5,
} tern_sim_event_kind_t;

typedef struct {
	uint32_t kind;			/* tern_sim_event_kind_t */
	/* Link events: the link and its ends (fabric id, port). */
	uint32_t link, device_a, port_a, device_b, port_b;
	uint32_t link_up;
	uint64_t link_errors;
	/* Device events: the device, and its health reasons now. */
	uint32_t device;
	uint32_t health_reasons;	/* DRM_TERN_HEALTH_REASON_* bits */
	/* MEM_ERROR: which kind, where, and the device's counts. */
	uint32_t mem_uncorrectable;
	uint32_t engine;		/* ENGINE_RESET: the engine reset */
	uint64_t mem_address, mem_errors_corrected, mem_errors_uncorrected;
	/* ENGINE_RESET: its resets so far; whose job it failed. */
	uint64_t engine_resets, guilty_client_id;
	int32_t guilty_pid;
	char guilty_comm[32];
	/* Events this follower missed (it read too slowly) before this one. */
	uint64_t lost;
} tern_sim_event_t;

/*
 * Follows the events of the machine the TERN_SIM_* settings name (it is
 * not started): *@fd becomes readable (poll) when an event is there.
 * TERN_ERROR_NO_DEVICE when no machine runs.
 */
tern_status_t tern_sim_events_open(int *fd);
/*
 * Reads the next event from @fd, waiting up to @timeout_ms (-1: for
 * ever). TERN_ERROR_TIMEOUT when none came; TERN_ERROR_BACKEND once the
 * machine has gone. Close @fd with close().
 */
tern_status_t tern_sim_event_read(int fd, tern_sim_event_t *event,
				  int timeout_ms);
/*
 * The same event as tern.ko's "events" group sends it: one netlink message
 * (struct nlmsghdr, struct genlmsghdr, attributes) into @msg of @capacity
 * bytes, at least TERN_SIM_EVENT_MAX_BYTES; its size into *@len, and into
 * *@lost (may be NULL) how many events this follower missed before it.
 */
#define TERN_SIM_EVENT_MAX_BYTES	512
tern_status_t tern_sim_event_read_netlink(int fd, void *msg, size_t capacity,
					  size_t *len, uint64_t *lost,
					  int timeout_ms);

/*
 * The simulated machine itself, for tools such as tern-inspect sim: the
 * process (tern-simd) holding the user's simulated devices, named by
 * TERN_SIM_MACHINE in the directory TERN_SIM_DIR (Documentation/
 * simulator.rst). These work whichever backend the process uses.
 */
typedef struct {
	char name[65];
	int32_t pid;
	uint32_t device_count;
	uint32_t memory_mb;		/* per device */
	uint32_t job_timeout_ms;
	char topology[128];
	int persistent;			/* stays with no process attached */
	uint32_t idle_ms;		/* otherwise goes this long after */
	uint32_t processes;		/* attached, not counting the caller */
	uint64_t started_ns;		/* CLOCK_REALTIME */
} tern_sim_machine_t;

/*
 * Starts the machine the TERN_SIM_* settings name, shaped by them, unless
 * it runs already (then *@started is 0); @persistent keeps it with no
 * process attached. Fills @info (may be NULL) either way.
 */
tern_status_t tern_sim_machine_start(int persistent, tern_sim_machine_t *info,
				     int *started);
/*
 * Stops machine @name (NULL: the one TERN_SIM_MACHINE names) and waits for
 * it to go. TERN_ERROR_NOT_READY when other processes use it, unless
 * @force: they then lose their devices. TERN_ERROR_NO_DEVICE if it does
 * not run. Fills @info (may be NULL) with what it was.
 */
tern_status_t tern_sim_machine_stop(const char *name, int force,
				    tern_sim_machine_t *info);
/*
 * The machines running in TERN_SIM_DIR, by name: up to @capacity into
 * @machines, their number into *@count.
 */
tern_status_t tern_sim_machine_list(tern_sim_machine_t *machines,
				    uint32_t capacity, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* TERN_SIM_H */
