// SPDX-License-Identifier: MIT
/*
 * One process's connection to the machine, served by a thread of its own:
 * HELLO first (the same build, a shape the machine has, the user's own
 * process), then requests in the order they were sent, until the socket
 * closes. Whatever the process still holds then (contexts, their buffers,
 * queues and jobs, its fences) goes, as when a process holding tern.ko's
 * files dies.
 *
 * Nothing a process sends can hurt the machine or another process: every
 * name it gives (context, queue, buffer address, fence slot) is looked up
 * among its own, packets are validated again, and a job whose submission
 * was wrong fails with TERN_ERROR_INVALID_ARGUMENT in its own fence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machine.h"
#include "netlink.h"
#include "tern_model.h"

/* Payload buffer: the largest request, aligned for its packets. */
union machine_request {
	struct sim_hello hello;
	struct sim_submit submit;
	uint64_t raw[SIM_WIRE_MAX_PAYLOAD / 8];
};

/* The message being served is done with: count it before its reply. */
static void machine_served(struct machine_client *client)
{
	if (client->serving) {
		client->serving = false;
		machine_ring_served(&client->ring);
	}
}

static int machine_reply(struct machine_client *client, const void *reply,
			 uint32_t len, int fd)
{
	machine_served(client);
	return sim_wire_send(client->sock, SIM_MSG_REPLY, reply, len, NULL, 0,
			     &fd, fd >= 0 ? 1 : 0);
}

static void machine_reply_status(struct machine_client *client,
				 tern_status_t status)
{
	struct sim_reply r = { .status = status };

	machine_reply(client, &r, sizeof(r), -1);
}

static void machine_client_identify(struct machine_client *client)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char path[64];
	ssize_t n;
	int fd;

	client->uid = (uint32_t)-1;
	if (getsockopt(client->sock, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return;
	client->pid = cred.pid;
	client->uid = cred.uid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)cred.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, client->comm, sizeof(client->comm) - 1);
	close(fd);
	if (n > 0 && client->comm[n - 1] == '\n')
		n--;
	client->comm[n > 0 ? n : 0] = '\0';
}

/* Whether @topology on the machine's devices is the fabric it has. */
static bool machine_same_topology(struct machine *m, const char *topology)
{
	struct tern_fabric *asked = malloc(sizeof(*asked));
	char spec[sizeof(((struct sim_shape *)0)->topology) + 1];
	bool same;

	if (!asked)
		return false;
	memcpy(spec, topology, sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	same = tern_fabric_init(asked, (u32)m->device_count, spec) == 0 &&
	       strcmp(asked->spec, m->fabric.spec) == 0;
	free(asked);
	return same;
}

/*
 * Why the machine cannot serve @hello, or "" when it can; *@other_shape
 * when that is its shape.
 */
static void machine_hello_check(struct machine *m, const struct sim_hello *h,
				char *reason, size_t len, bool *other_shape)
{
	const struct sim_shape *want = &h->shape, *have = &m->shape;
	char version[16];

	snprintf(version, sizeof(version), "%d.%d.%d", TERN_VERSION_MAJOR,
		 TERN_VERSION_MINOR, TERN_VERSION_PATCH);
	reason[0] = '\0';
	*other_shape = false;
	if (memcmp(h->magic, SIM_WIRE_MAGIC, sizeof(h->magic)) ||
	    h->wire_version != SIM_WIRE_VERSION ||
	    strncmp(h->lib_version, version, sizeof(h->lib_version))) {
		snprintf(reason, len,
			 "the machine runs Tern %s (protocol %d), this process "
			 "libtern %.15s (protocol %u)", version,
			 SIM_WIRE_VERSION, h->lib_version, h->wire_version);
		return;
	}
	*other_shape = true;
	if ((h->want & SIM_WANT_DEVICES) && want->devices != have->devices)
		snprintf(reason, len,
			 "it has %u devices, TERN_SIM_DEVICES asks for %u",
			 have->devices, want->devices);
	else if ((h->want & SIM_WANT_MEM_MB) && want->mem_mb != have->mem_mb)
		snprintf(reason, len,
			 "its devices have %u MiB, TERN_SIM_MEM_MB asks for %u",
			 have->mem_mb, want->mem_mb);
	else if ((h->want & SIM_WANT_TIMEOUT) &&
		 want->job_timeout_ms != have->job_timeout_ms)
		snprintf(reason, len,
			 "its job timeout is %u ms, TERN_SIM_JOB_TIMEOUT_MS "
			 "asks for %u", have->job_timeout_ms,
			 want->job_timeout_ms);
	else if ((h->want & SIM_WANT_CORES) &&
		 (want->cores != have->cores || want->sbuf_kb != have->sbuf_kb ||
		  want->psum_kb != have->psum_kb))
		snprintf(reason, len,
			 "its chips have %u cores of %u KiB SBUF and %u KiB "
			 "PSUM a partition, TERN_SIM_CORES, TERN_SIM_SBUF_KB "
			 "and TERN_SIM_PSUM_KB ask for %u, %u and %u",
			 have->cores, have->sbuf_kb, have->psum_kb,
			 want->cores, want->sbuf_kb, want->psum_kb);
	else if ((h->want & SIM_WANT_TOPOLOGY) &&
		 !machine_same_topology(m, want->topology))
		snprintf(reason, len,
			 "its topology is '%.100s', TERN_SIM_TOPOLOGY asks for "
			 "'%.100s'", m->fabric.spec, want->topology);
	else
		*other_shape = false;
}

/*
 * Whether the machine ends for a process of another shape that lets it
 * (SIM_HELLO_GIVE_WAY, wire.h): no other process uses it, it has served
 * one (one nobody used yet was started for a process on its way), and it
 * was not started to stay. Then no process is greeted any more.
 */
static bool machine_give_way(struct machine *m)
{
	bool going;

	pthread_mutex_lock(&m->lock);
	going = !m->persistent && m->served && m->client_count == 1 &&
		!m->stopping;
	if (going)
		m->stopping = true;
	pthread_mutex_unlock(&m->lock);
	return going;
}

/* Once the reply is sent: machine_wait_until_done() returns. */
static void machine_stop_now(struct machine *m)
{
	pthread_mutex_lock(&m->lock);
	m->stopping = true;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static int machine_hello(struct machine_client *client,
			 const struct sim_hello *hello, uint32_t len,
			 const int *fds)
{
	struct machine *m = client->machine;
	struct sim_hello_reply reply = { .status = TERN_SUCCESS };
	bool other_shape, stopping, gave_way = false;

	reply.wire_version = SIM_WIRE_VERSION;
	snprintf(reply.lib_version, sizeof(reply.lib_version), "%d.%d.%d",
		 TERN_VERSION_MAJOR, TERN_VERSION_MINOR, TERN_VERSION_PATCH);
	reply.pid = (int32_t)getpid();
	reply.persistent = m->persistent;
	reply.shape = m->shape;
	sim_wire_strcpy(reply.shape.topology, m->fabric.spec,
			sizeof(reply.shape.topology));
	reply.started_ns = m->started_ns;
	pthread_mutex_lock(&m->lock);
	reply.processes = m->client_count - 1;
	stopping = m->stopping;
	pthread_mutex_unlock(&m->lock);
	reply.idle_ms = (uint32_t)(m->idle_ns / 1000000);
	if (client->uid != (uint32_t)geteuid()) {
		reply.status = TERN_ERROR_PERMISSION;
		snprintf(reply.reason, sizeof(reply.reason),
			 "the machine belongs to uid %u", (unsigned)geteuid());
	} else if (stopping) {
		reply.status = TERN_ERROR_NOT_READY;
		snprintf(reply.reason, sizeof(reply.reason),
			 "the machine is stopping");
	} else if (m->client_count > m->limits.clients) {
		reply.status = TERN_ERROR_LIMIT;
		snprintf(reply.reason, sizeof(reply.reason),
			 "the machine serves %u processes at once, its most",
			 m->limits.clients);
	} else if (len != sizeof(*hello)) {
		reply.status = TERN_ERROR_NOT_SUPPORTED;
		snprintf(reply.reason, sizeof(reply.reason),
			 "the machine runs another version of Tern");
	} else if ((hello->flags & ~SIM_HELLO_GIVE_WAY) || hello->pad) {
		reply.status = TERN_ERROR_INVALID_ARGUMENT;
		snprintf(reply.reason, sizeof(reply.reason),
			 "HELLO with unknown flags 0x%x or pad 0x%x",
			 hello->flags & ~SIM_HELLO_GIVE_WAY, hello->pad);
	} else {
		machine_hello_check(m, hello, reply.reason,
				    sizeof(reply.reason), &other_shape);
		if (other_shape && (hello->flags & SIM_HELLO_GIVE_WAY) &&
		    machine_give_way(m)) {
			gave_way = true;
			reply.status = TERN_ERROR_NOT_READY;
			snprintf(reply.reason, sizeof(reply.reason),
				 "it was idle and gives way to this process");
		} else if (reply.reason[0]) {
			reply.status = TERN_ERROR_INVALID_ARGUMENT;
		} else if (fds[0] < 0 || fds[1] < 0 ||
			 !(client->fences = machine_fence_table_map(fds[0])) ||
			 machine_ring_map(&client->ring, fds[1]))
			reply.status = TERN_ERROR_INVALID_ARGUMENT;
		else if (!machine_sched_ring_add(&m->sched, client))
			/* No worker watches it: every record rings here. */
			__atomic_store_n(&client->ring.ctl->doorbell,
					 SIM_RING_BELL_SOCKET,
					 __ATOMIC_SEQ_CST);
	}
	if (reply.status == TERN_SUCCESS) {
		/* Again under the lock STOP and giving way take: none came. */
		pthread_mutex_lock(&m->lock);
		if (m->stopping) {
			reply.status = TERN_ERROR_NOT_READY;
			snprintf(reply.reason, sizeof(reply.reason),
				 "the machine is stopping");
		} else {
			m->served = true;
		}
		pthread_mutex_unlock(&m->lock);
	}
	machine_reply(client, &reply, sizeof(reply),
		      reply.status == TERN_SUCCESS ? m->sched.bell_fd : -1);
	if (gave_way)
		machine_stop_now(m);
	return reply.status == TERN_SUCCESS ? 0 : -1;
}

/* The fence the process holds in @ref, with a reference, or NULL. */
static struct machine_fence *machine_held(struct machine_client *client,
					  const struct sim_fence_ref *ref)
{
	struct machine_fence_entry *e;

	if (ref->slot >= client->held_cap)
		return NULL;
	e = &client->held[ref->slot];
	return e->fence && e->gen == ref->gen ? machine_fence_get(e->fence) :
						NULL;
}

static void machine_drop(struct machine_client *client,
			 const struct sim_fence_ref *ref)
{
	struct machine_fence_entry *e;

	if (ref->slot >= client->held_cap)
		return;
	e = &client->held[ref->slot];
	if (e->fence && e->gen == ref->gen) {
		machine_fence_put(e->fence);
		e->fence = NULL;
	}
}

/* Records that the process holds @fence in slot @ref. */
static int machine_hold(struct machine_client *client,
			const struct sim_fence_ref *ref,
			struct machine_fence *fence)
{
	struct machine_fence_entry *e;

	if (ref->slot >= client->held_cap) {
		uint32_t cap = client->held_cap ? client->held_cap : 1024;
		struct machine_fence_entry *bigger;

		while (cap <= ref->slot)
			cap *= 2;
		bigger = realloc(client->held, cap * sizeof(*bigger));
		if (!bigger)
			return -1;
		memset(bigger + client->held_cap, 0,
		       (cap - client->held_cap) * sizeof(*bigger));
		client->held = bigger;
		client->held_cap = cap;
	}
	e = &client->held[ref->slot];
	machine_fence_put(e->fence);	/* a slot reused without FENCE_PUT */
	e->gen = ref->gen;
	e->fence = machine_fence_get(fence);
	return 0;
}

/*
 * SUBMIT: a job on the queue, always with a fence in the slot the process
 * named, so that it learns of a submission the machine refused too.
 */
static int machine_submit(struct machine_client *client,
			  const struct sim_submit *req, uint32_t len)
{
	const struct sim_fence_ref *waits = (const void *)(req + 1);
	struct machine_context *ctx;
	struct machine_queue *q = NULL;
	struct machine_job *job;
	uint64_t fixed;
	uint32_t i;

	if (len < sizeof(*req) || req->fence.slot >= SIM_FENCE_SLOTS)
		return -1;	/* cannot even tell the process */
	fixed = sizeof(*req) + (uint64_t)req->wait_count * sizeof(*waits);
	if (req->wait_count > TERN_MODEL_MAX_IN_SYNCOBJS ||
	    fixed + req->size != len)
		return -1;
	if (!machine_client_job_fits(client, req->size)) {
		client->ring.full_size = req->size;
		return MACHINE_POST_FULL;
	}
	job = calloc(1, sizeof(*job) + req->size);
	if (!job)
		return -1;
	job->size = req->size;
	job->host_ns = req->host_ns;
	job->fence = machine_fence_create(client->fences, req->fence.slot,
					  req->fence.gen);
	if (!job->fence) {
		free(job);
		return -1;
	}
	memcpy(job->packets, (const char *)req + fixed, req->size);

	ctx = machine_context_find(client, req->ctx);
	if (ctx)
		q = machine_queue_find(ctx, req->queue);
	if (q && tern_model_validate_on(job->packets, job->size,
					&q->engine->target, NULL))
		job->early = TERN_ERROR_INVALID_ARGUMENT;
	if (q && req->wait_count) {
		job->deps = calloc(req->wait_count, sizeof(*job->deps));
		if (!job->deps)
			job->early = TERN_ERROR_OUT_OF_MEMORY;
	}
	/*
	 * What the process waits on is looked up before its own fence takes
	 * its slot: a wait that names that slot is the fence there before,
	 * as a syncobj's, never the job's own, which it would wait on
	 * forever.
	 */
	for (i = 0; i < req->wait_count && job->deps; i++) {
		job->deps[i] = machine_held(client, &waits[i]);
		if (!job->deps[i]) {
			job->early = TERN_ERROR_INVALID_ARGUMENT;
			break;
		}
		job->dep_count++;
	}
	if (machine_hold(client, &req->fence, job->fence)) {
		/* Out of memory: the process cannot be told of this job. */
		for (i = 0; i < job->dep_count; i++)
			machine_fence_put(job->deps[i]);
		free(job->deps);
		machine_fence_put(job->fence);
		free(job);
		return -1;
	}
	if (!q) {
		/* No queue to keep order on: the fence fails at once. */
		machine_fence_signal(job->fence, TERN_ERROR_INVALID_ARGUMENT,
				     req->host_ns);
		machine_fence_put(job->fence);
		free(job);
		return 0;
	}
	machine_client_job_add(client, job->size);
	machine_job_queue(q, job);
	return 0;
}

int machine_client_post(struct machine_client *client, uint32_t type,
			const void *payload, uint32_t len)
{
	switch (type) {
	case SIM_MSG_SUBMIT:
		return machine_submit(client, payload, len);
	case SIM_MSG_FENCE_PUT:
		if (len != sizeof(struct sim_fence_ref))
			return -1;
		machine_drop(client, payload);
		return 0;
	default:
		return -1;
	}
}

static void machine_bo_request(struct machine_client *client, uint32_t type,
			       const void *payload, uint32_t len, int fd)
{
	struct sim_bo_reply reply = { .r.status = TERN_ERROR_INVALID_ARGUMENT };
	const struct sim_bo_create *create = payload;
	const struct sim_bo_import *import = payload;
	struct machine_context *ctx = NULL;
	struct machine_memory *memory;
	struct machine_bo *bo = NULL;

	if (len >= sizeof(uint64_t))
		ctx = machine_context_find(client, import->ctx);
	if (!ctx)
		goto out;
	if (type == SIM_MSG_BO_CREATE && len == sizeof(*create)) {
		reply.r.status = machine_bo_create(ctx, create->kind,
						   create->bytes, &bo);
	} else if (type == SIM_MSG_BO_IMPORT && len == sizeof(*import)) {
		memory = machine_memory_lookup(fd);
		if (!memory)
			goto out;
		reply.r.status = machine_bo_map(ctx, memory, &bo);
		if (reply.r.status)
			machine_memory_put(memory);
	}
	if (bo) {
		reply.va = bo->va;
		reply.size = bo->size;
		reply.kind = bo->memory->kind;
	}
out:
	machine_reply(client, &reply, sizeof(reply),
		      bo && type == SIM_MSG_BO_CREATE ? bo->memory->fd : -1);
}

static void machine_ctx_request(struct machine_client *client, uint32_t type,
				const void *payload, uint32_t len)
{
	const struct sim_ctx_ref *ref = payload;
	struct machine_context *ctx = NULL;
	union {
		struct sim_reply r;
		struct sim_query_reply query;
		struct sim_mem_usage_reply usage;
	} reply;

	memset(&reply, 0, sizeof(reply));
	if (len == sizeof(*ref))
		ctx = machine_context_find(client, ref->ctx);
	if (!ctx) {
		machine_reply_status(client, TERN_ERROR_INVALID_ARGUMENT);
		return;
	}
	switch (type) {
	case SIM_MSG_CTX_CLOSE:
		machine_context_close(ctx);
		machine_reply_status(client, TERN_SUCCESS);
		return;
	case SIM_MSG_QUERY:
		machine_context_query(ctx, &reply.query);
		machine_reply(client, &reply.query, sizeof(reply.query), -1);
		return;
	default:
		pthread_mutex_lock(&ctx->dev->lock);
		reply.usage.used = ctx->dev->mem_used;
		reply.usage.total = ctx->dev->mem_total;
		pthread_mutex_unlock(&ctx->dev->lock);
		machine_reply(client, &reply.usage, sizeof(reply.usage), -1);
	}
}

static void machine_queue_request(struct machine_client *client,
				  uint32_t type, const void *payload,
				  uint32_t len)
{
	const struct sim_queue_create *create = payload;
	const struct sim_queue_destroy *destroy = payload;
	struct sim_queue_reply reply = { .r.status = TERN_ERROR_INVALID_ARGUMENT };
	struct machine_context *ctx = NULL;
	struct machine_queue *q;

	if (len >= sizeof(uint64_t))
		ctx = machine_context_find(client, create->ctx);
	if (ctx && type == SIM_MSG_QUEUE_CREATE && len == sizeof(*create)) {
		reply.r.status = machine_queue_create(ctx, create->engine, &q);
		if (reply.r.status == TERN_SUCCESS)
			reply.queue = q->id;
	} else if (ctx && len == sizeof(*destroy)) {
		q = machine_queue_find(ctx, destroy->queue);
		if (q) {
			machine_queue_destroy(q);
			reply.r.status = TERN_SUCCESS;
		}
	}
	machine_reply(client, &reply, sizeof(reply), -1);
}

/* DUMP's reply: the status, then the messages. */
static void machine_dump_reply(struct machine_client *client,
			       const void *payload, uint32_t len)
{
	struct sim_reply *reply = malloc(SIM_WIRE_MAX_PAYLOAD);
	struct sim_nl nl;

	if (!reply) {
		machine_reply_status(client, TERN_ERROR_OUT_OF_MEMORY);
		return;
	}
	memset(reply, 0, sizeof(*reply));
	sim_nl_init(&nl, reply + 1, SIM_WIRE_MAX_PAYLOAD - sizeof(*reply));
	if (len == sizeof(struct sim_dump))
		reply->status = machine_dump(client->machine, payload, &nl);
	else
		reply->status = TERN_ERROR_INVALID_ARGUMENT;
	if (reply->status != TERN_SUCCESS)
		nl.len = 0;
	machine_reply(client, reply, (uint32_t)sizeof(*reply) + nl.len, -1);
	free(reply);
}

static void machine_machine_request(struct machine_client *client,
				    uint32_t type, const void *payload,
				    uint32_t len)
{
	struct machine *m = client->machine;
	struct sim_reason_reply reason = { .r.status = TERN_SUCCESS };
	struct sim_ports_reply ports;
	bool stop = false;

	if (type == SIM_MSG_DUMP) {
		machine_dump_reply(client, payload, len);
		return;
	}
	if (type == SIM_MSG_PORTS) {
		memset(&ports, 0, sizeof(ports));
		if (len == sizeof(struct sim_ports))
			machine_ports(m, ((const struct sim_ports *)payload)->device,
				      &ports);
		else
			ports.r.status = TERN_ERROR_INVALID_ARGUMENT;
		machine_reply(client, &ports, sizeof(ports), -1);
		return;
	}
	if (type == SIM_MSG_FAULT && len == sizeof(struct sim_fault)) {
		reason.r.status = machine_fault(m, payload, reason.reason,
						sizeof(reason.reason));
	} else if (type == SIM_MSG_STOP && len == sizeof(struct sim_stop)) {
		const struct sim_stop *req = payload;

		pthread_mutex_lock(&m->lock);
		if (!req->force && m->client_count > 1) {
			reason.r.status = TERN_ERROR_NOT_READY;
			snprintf(reason.reason, sizeof(reason.reason),
				 "%u other %s it", m->client_count - 1,
				 m->client_count == 2 ? "process uses" :
							"processes use");
		} else {
			stop = true;
		}
		pthread_mutex_unlock(&m->lock);
	} else {
		reason.r.status = TERN_ERROR_INVALID_ARGUMENT;
	}
	machine_reply(client, &reason, sizeof(reason), -1);
	/* Only once answered: stopping closes every connection, this one too. */
	if (stop)
		machine_stop_now(m);
}

/*
 * From its reply on, the connection gets the events and nothing else: no
 * reply can then cross an event on the socket.
 */
static int machine_follow(struct machine_client *client, uint32_t len)
{
	struct machine *m = client->machine;

	if (len != 0 || client->contexts)
		return -1;
	machine_reply_status(client, TERN_SUCCESS);
	pthread_mutex_lock(&m->lock);
	client->following = true;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* Serves one request; -1 ends the connection (a protocol error). */
static int machine_dispatch(struct machine_client *client, uint32_t type,
			    union machine_request *req, uint32_t len, int *fds)
{
	const struct sim_ctx_open *open_req = (const void *)req;
	struct sim_ctx_open_reply opened = { .r.status = TERN_SUCCESS };
	struct machine_context *ctx;

	switch (type) {
	case SIM_MSG_SUBMIT:
	case SIM_MSG_FENCE_PUT: {
		int ret = machine_client_post(client, type, req, len);

		/* No room: nothing more of the process is read until there is. */
		while (ret == MACHINE_POST_FULL) {
			if (machine_client_wait_room(client,
						     client->ring.full_size))
				return -1;
			ret = machine_client_post(client, type, req, len);
		}
		return ret;
	}
	case SIM_MSG_DOORBELL:
		return len ? -1 : 0;	/* the ring was emptied before this */
	case SIM_MSG_CTX_OPEN:
		if (len != sizeof(*open_req) ||
		    (open_req->flags & ~SIM_CTX_FLAGS)) {
			opened.r.status = TERN_ERROR_INVALID_ARGUMENT;
		} else {
			opened.r.status = machine_context_open(client,
							       open_req->device,
							       open_req->flags,
							       &ctx);
			if (opened.r.status == TERN_SUCCESS)
				opened.ctx = ctx->id;
		}
		return machine_reply(client, &opened, sizeof(opened), -1);
	case SIM_MSG_CTX_CLOSE:
	case SIM_MSG_QUERY:
	case SIM_MSG_MEM_USAGE:
		machine_ctx_request(client, type, req, len);
		return 0;
	case SIM_MSG_BO_CREATE:
	case SIM_MSG_BO_IMPORT:
		machine_bo_request(client, type, req, len, fds[0]);
		return 0;
	case SIM_MSG_BO_FREE: {
		const struct sim_bo_free *f = (const void *)req;
		tern_status_t status = TERN_ERROR_INVALID_ARGUMENT;

		ctx = len == sizeof(*f) ? machine_context_find(client, f->ctx) :
					  NULL;
		if (ctx)
			status = machine_bo_free(ctx, f->va);
		machine_reply_status(client, status);
		return 0;
	}
	case SIM_MSG_BO_FD: {
		const struct sim_bo_free *f = (const void *)req;
		struct sim_reply r = { .status = TERN_ERROR_INVALID_ARGUMENT };
		int fd = -1;

		ctx = len == sizeof(*f) ? machine_context_find(client, f->ctx) :
					  NULL;
		if (ctx)
			fd = machine_bo_fd(ctx, f->va);
		if (fd >= 0)
			r.status = TERN_SUCCESS;
		machine_reply(client, &r, sizeof(r), fd);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	case SIM_MSG_QUEUE_CREATE:
	case SIM_MSG_QUEUE_DESTROY:
		machine_queue_request(client, type, req, len);
		return 0;
	case SIM_MSG_PORTS:
	case SIM_MSG_FAULT:
	case SIM_MSG_STOP:
	case SIM_MSG_DUMP:
		machine_machine_request(client, type, req, len);
		return 0;
	case SIM_MSG_EVENTS:
		return machine_follow(client, len);
	default:
		return -1;
	}
}

/*
 * Everything the process held goes; then the connection itself. Called
 * with the client lock held, which goes too.
 */
static void machine_client_end(struct machine_client *client)
{
	struct machine *m = client->machine;
	struct machine_client **link;
	uint32_t i;

	/* Workers only try the lock: they let go of the ring at once. */
	machine_sched_ring_remove(&m->sched, client);
	/*
	 * Every context's jobs end before any context is closed: a
	 * collective's job on one would otherwise wait, holding its
	 * engine's time, for a partner on another already gone.
	 */
	for (struct machine_context *ctx = client->contexts; ctx;
	     ctx = ctx->next)
		machine_context_kill(ctx);
	while (client->contexts)
		machine_context_close(client->contexts);
	for (i = 0; i < client->held_cap; i++)
		machine_fence_put(client->held[i].fence);
	free(client->held);
	machine_fence_table_put(client->fences);
	machine_ring_unmap(&client->ring);
	machine_usage_fini(&client->usage);
	close(client->sock);
	pthread_mutex_unlock(&client->lock);
	pthread_mutex_destroy(&client->lock);

	pthread_mutex_lock(&m->lock);
	for (link = &m->clients; *link; link = &(*link)->next) {
		if (*link == client) {
			*link = client->next;
			break;
		}
	}
	if (--m->client_count == 0)
		m->idle_since_ns = machine_clock_ns();
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	free(client);
}

/*
 * Takes the ring's records, waiting for room when the process's jobs are
 * at its caps. Client lock held. 0, or -1: broken, or the process went.
 */
static int machine_client_drain(struct machine_client *client)
{
	int ret;

	while ((ret = machine_ring_drain(client)) == 1) {
		if (machine_client_wait_room(client, client->ring.full_size))
			return -1;
		atomic_store(&client->ring.full, false);
	}
	return ret;
}

/*
 * Serves the connection: the ring's records before each message, so that
 * the process's order holds, and once more before waiting for the next.
 */
void *machine_client_main(void *arg)
{
	struct machine_client *client = arg;
	union machine_request *req = malloc(sizeof(*req));
	int fds[SIM_WIRE_MAX_FDS];
	uint32_t type, len;
	bool greeted = false;
	int ret = 0, i;

	machine_client_identify(client);
	pthread_mutex_lock(&client->lock);
	while (req && machine_client_drain(client) == 0) {
		pthread_mutex_unlock(&client->lock);
		/* Written while the lock was held, when no worker could take it. */
		if (machine_ring_pending(&client->ring)) {
			pthread_mutex_lock(&client->lock);
			continue;
		}
		ret = sim_wire_recv(client->sock, &type, req, sizeof(*req),
				    &len, fds);
		pthread_mutex_lock(&client->lock);
		if (ret)
			break;
		if (!greeted) {
			ret = type == SIM_MSG_HELLO ?
			      machine_hello(client, &req->hello, len, fds) :
			      -1;
			greeted = ret == 0;
		} else if (client->following) {
			ret = -1;	/* a follower asks nothing more */
		} else {
			ret = machine_client_drain(client);
			client->serving = type != SIM_MSG_DOORBELL;
			if (ret == 0)
				ret = machine_dispatch(client, type, req, len,
						       fds);
			machine_served(client);
		}
		for (i = 0; i < SIM_WIRE_MAX_FDS; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		if (ret) {
			/* Seen only with --foreground: stderr is /dev/null. */
			fprintf(stderr, "tern-simd: pid %d: bad message %u "
				"(%u bytes): connection closed\n",
				(int)client->pid, type, len);
			break;
		}
	}
	free(req);
	machine_client_end(client);
	return NULL;
}
