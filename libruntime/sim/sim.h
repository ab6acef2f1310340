/* SPDX-License-Identifier: MIT */
/*
 * The simulator backend: Tern devices of the simulated machine (tern-simd,
 * simd/), shared by every process of the user, reached over its Unix
 * socket (wire.h). This process has one connection to it, made when the
 * backend is chosen; a sim_context is one tern_device_open() of a device,
 * the counterpart of an open file of tern.ko.
 */
#ifndef TERN_SIM_BACKEND_H
#define TERN_SIM_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"
#include "tern_sim.h"
#include "wire.h"


/* This process's connection to the machine. */
struct sim_conn {
	int sock;
	pid_t pid;			/* who made it (a fork child makes anew) */
	bool dead;			/* the machine went away */
	pthread_mutex_t call_lock;	/* one request awaiting its reply */
	pthread_mutex_t send_lock;	/* one message at a time */
	uint64_t *fences;		/* the fence table, mapped */
	pthread_mutex_t fence_lock;	/* the slot allocator */
	uint32_t *free_slots, free_count, free_cap;
	uint32_t *gens;			/* by slot */
	uint32_t next_slot;
	struct sim_hello_reply machine;	/* what HELLO said */
	uint64_t host_ns;		/* modelled time seen: fence ends */
	uint64_t alive_at;		/* when the socket last looked alive */
	/* The submission ring (ring.c), under send_lock. */
	struct sim_ring_ctl *ring;
	uint8_t *ring_data;
	uint64_t ring_tail;
	uint64_t sent;			/* messages on the socket, as served */
	struct sim_doorbell *bell;	/* the machine's doorbell page */
	uint32_t rang;			/* the last bell it rang */
};

struct sim_context {
	struct tern_be_device base;
	uint64_t id;
};

struct sim_bo {
	struct tern_be_buffer base;
	pthread_mutex_t lock;		/* the mapping */
	void *cpu;
};

struct sim_fence {
	struct tern_fence base;
	struct sim_conn *conn;
	uint32_t slot, gen;
};
void sim_fence_seen(struct tern_fence *fence);
/* A new descriptor of @bo's memory: the machine's, sent again (share.c). */
tern_status_t sim_bo_fd(struct tern_be_device *bdev, struct sim_bo *bo,
			int *fd);

struct sim_queue {
	struct tern_be_queue base;
	uint64_t id;
	pthread_mutex_t lock;
	struct sim_fence *last;		/* newest job's fence, or NULL */
};

/* connect.c: finding, starting and greeting the machine */
/* The settings in the environment: shape, which machine, where. */
struct sim_settings {
	struct sim_shape shape;
	uint32_t want;			/* SIM_WANT_*: the ones set */
	char name[65];			/* TERN_SIM_MACHINE */
	char dir[108];			/* the machine's directory */
	uint64_t idle_ms;		/* TERN_SIM_IDLE_MS */
	/*
	 * What one process may hold of a machine it starts (0: tern-simd's
	 * default): TERN_SIM_HOST_MEM_MB, TERN_SIM_CLIENT_HOST_MB,
	 * TERN_SIM_CLIENT_JOBS, TERN_SIM_CLIENT_JOB_MB,
	 * TERN_SIM_CLIENT_BUFFERS, in that order.
	 */
	uint64_t limits[5];
	/*
	 * TERN_SIM_MACHINE unset: an idle machine of another shape gives
	 * way to this process, and a busy one leaves it to a machine of its
	 * own shape (named as TERN_SIM_MACHINE=auto names it). Cleared once
	 * connected, so that a fork child joins the same machine.
	 */
	bool anywhere;
	bool model_clock;		/* TERN_SIM_CLOCK=model */
	bool skip_data;			/* TERN_SIM_DATA=off */
};
tern_status_t sim_settings_read(struct sim_settings *s);
/* A machine name: 1-64 of [A-Za-z0-9._-], not starting with '.'. */
bool sim_name_ok(const char *name);
/*
 * Connects @conn to the machine @s names, starting it when none runs and
 * @start (then it stays when @persistent). NO_DEVICE when none runs and
 * !@start. With @s->anywhere, the machine may be another than named
 * (above): @s then names the one it is.
 */
tern_status_t sim_connect(struct sim_settings *s, bool start,
			  bool persistent, struct sim_conn *conn);
void sim_disconnect(struct sim_conn *conn);

/* daemon.c: which tern-simd to start */
/* Its path in @out; false when there is none to start. */
bool sim_daemon_find(char *out, size_t len);
/* Where sim_daemon_find() looked, as the end of a sentence. */
void sim_daemon_searched(char *out, size_t len);

/* device.c */
/* This process's pid, without a system call. */
pid_t sim_self_pid(void);
/* The process's connection, made again in a fork child; NULL if none. */
struct sim_conn *sim_conn_get(void);
/*
 * A request and its reply (@reply_len bytes; the first field its status),
 * with @fd_out sent when >= 0 and a descriptor received into @fd_in when
 * not NULL. The reply's status, or TERN_ERROR_BACKEND when the machine is
 * gone.
 */
tern_status_t sim_call(uint32_t type, const void *req, uint32_t len,
		       int fd_out, void *reply, uint32_t reply_len,
		       int *fd_in);
/*
 * The same without descriptors, for a reply of any size from a struct
 * sim_reply to @cap bytes: its size into *@got.
 */
tern_status_t sim_call_var(uint32_t type, const void *req, uint32_t len,
			   void *reply, uint32_t cap, uint32_t *got);
/* A message without reply (SUBMIT, FENCE_PUT): into the ring if it fits. */
tern_status_t sim_send(struct sim_conn *conn, uint32_t type, const void *req,
		       uint32_t len, const void *extra, uint32_t extra_len);
bool sim_conn_alive(struct sim_conn *conn);
/*
 * TERN_SUCCESS when this process uses the simulator; else why not: the
 * backend's error, or TERN_ERROR_NOT_SUPPORTED, saying that on tern.ko
 * @instead.
 */
tern_status_t sim_backend_chosen(const char *instead);
/* The machine's device count, once the simulator is chosen. */
int sim_device_count(void);

/* memory.c */
tern_status_t sim_buffer_create(struct tern_be_device *bdev,
				tern_memory_kind_t kind, uint64_t bytes,
				struct tern_be_buffer **out);
tern_status_t sim_buffer_map(struct tern_be_device *bdev,
			     struct tern_be_buffer *bbuf, void **ptr);
void sim_buffer_free(struct tern_be_device *bdev, struct tern_be_buffer *bbuf);
struct sim_bo *sim_bo_new(uint64_t va, uint64_t size);

/* share.c */
tern_status_t sim_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd);
tern_status_t sim_buffer_import(struct tern_be_device *bdev, int fd,
				struct tern_be_buffer **out,
				tern_memory_kind_t *kind);

/* fence.c */
/* A new fence in a free slot of @conn's table, pending. */
struct sim_fence *sim_fence_create(struct sim_conn *conn);
tern_status_t sim_fence_wait(struct tern_fence *bfence, int64_t timeout_ns);
tern_status_t sim_fence_status(struct tern_fence *bfence);
tern_status_t sim_fence_import(struct tern_be_device *bdev,
			       struct tern_fence *bfence,
			       struct tern_fence **out);
/* Sets up and tears down @conn's fence table; its memfd in *@fd. */
tern_status_t sim_fences_init(struct sim_conn *conn, int *fd);
void sim_fences_fini(struct sim_conn *conn);

/* ring.c: the submission ring (wire.h) */
/* Sets up @conn's ring; its memfd in *@fd. */
tern_status_t sim_ring_init(struct sim_conn *conn, int *fd);
void sim_ring_fini(struct sim_conn *conn);
/* Maps the machine's doorbell page, @fd (HELLO's reply), if it is one. */
void sim_doorbell_map(struct sim_conn *conn, int fd);
/* backend op host_wrote: the machine's parked engines look now. */
void sim_host_wrote(struct tern_be_device *dev);
/*
 * Writes one record into the ring, ringing the doorbell if the machine
 * asks for it; false if it does not fit (then it goes on the socket).
 * send_lock held.
 */
bool sim_ring_push(struct sim_conn *conn, uint32_t type, const void *payload,
		   uint32_t len, const void *extra, uint32_t extra_len);

/* submit.c */
tern_status_t sim_queue_create(struct tern_be_device *bdev, uint32_t engine,
			       struct tern_be_queue **out);
void sim_queue_destroy(struct tern_be_device *bdev,
		       struct tern_be_queue *bqueue);
tern_status_t sim_submit(struct tern_be_device *bdev,
			 struct tern_be_queue *bqueue, const void *packets,
			 uint32_t size, struct tern_fence *const *waits,
			 uint32_t wait_count, struct tern_fence **out);

#endif /* TERN_SIM_BACKEND_H */
