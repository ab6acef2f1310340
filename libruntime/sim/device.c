// SPDX-License-Identifier: MIT
/*
 * Simulator devices: the process's connection to the simulated machine,
 * contexts, and the backend ops table.
 *
 * The connection is made when the backend is chosen (connect.c), and made
 * again by a fork child at its first call, since a connection, like an
 * open file of tern.ko, is its process's own. A fence of the parent does
 * not carry over to the child, nor does any other object.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

static struct sim_settings sim_settings;
static struct sim_conn sim_conn;
static pthread_mutex_t sim_conn_lock = PTHREAD_MUTEX_INITIALIZER;

/* getpid() without a system call on every submission: kept across fork. */
static pid_t sim_pid;
static pthread_once_t sim_pid_once = PTHREAD_ONCE_INIT;

static void sim_forked(void)
{
	__atomic_store_n(&sim_pid, getpid(), __ATOMIC_RELEASE);
}

static void sim_pid_init(void)
{
	sim_forked();
	pthread_atfork(NULL, NULL, sim_forked);
}

pid_t sim_self_pid(void)
{
	pthread_once(&sim_pid_once, sim_pid_init);
	return __atomic_load_n(&sim_pid, __ATOMIC_ACQUIRE);
}

struct sim_conn *sim_conn_get(void)
{
	struct sim_conn *conn = &sim_conn;

	if (__atomic_load_n(&conn->pid, __ATOMIC_ACQUIRE) == sim_self_pid())
		return conn;
	pthread_mutex_lock(&sim_conn_lock);
	if (conn->pid != sim_self_pid()) {
		/* A fork child: the parent's connection stays the parent's. */
		if (conn->sock >= 0)
			close(conn->sock);
		conn->sock = -1;
		conn->fences = NULL;
		conn->ring = NULL;
		if (sim_connect(&sim_settings, true, false, conn))
			conn = NULL;
	}
	pthread_mutex_unlock(&sim_conn_lock);
	return conn;
}

/* How often a pending fence's status asks whether the machine is there. */
#define SIM_ALIVE_LOOK_NS	10000000ull

bool sim_conn_alive(struct sim_conn *conn)
{
	struct pollfd pfd = { .fd = conn->sock, .events = POLLRDHUP };
	struct timespec ts;
	uint64_t now;

	if (__atomic_load_n(&conn->dead, __ATOMIC_RELAXED))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - __atomic_load_n(&conn->alive_at, __ATOMIC_RELAXED) <
	    SIM_ALIVE_LOOK_NS)
		return true;
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLRDHUP | POLLHUP |
						     POLLERR | POLLNVAL))) {
		__atomic_store_n(&conn->dead, true, __ATOMIC_RELAXED);
		tern_set_last_error("the simulated machine went away");
		return false;
	}
	__atomic_store_n(&conn->alive_at, now, __ATOMIC_RELAXED);
	return true;
}

tern_status_t sim_send(struct sim_conn *conn, uint32_t type, const void *req,
		       uint32_t len, const void *extra, uint32_t extra_len)
{
	int ret = 0;

	pthread_mutex_lock(&conn->send_lock);
	if (!sim_ring_push(conn, type, req, len, extra, extra_len)) {
		ret = sim_wire_send(conn->sock, type, req, len, extra,
				    extra_len, NULL, 0);
		conn->sent++;
	}
	pthread_mutex_unlock(&conn->send_lock);
	if (ret)
		__atomic_store_n(&conn->dead, true, __ATOMIC_RELAXED);
	return ret ? TERN_ERROR_BACKEND : TERN_SUCCESS;
}

/*
 * sim_call(), with a reply of at least a struct sim_reply and at most
 * @reply_len bytes when !@exact; its size into *@got.
 */
static tern_status_t sim_call_reply(uint32_t type, const void *req,
				    uint32_t len, int fd_out, void *reply,
				    uint32_t reply_len, bool exact,
				    uint32_t *got, int *fd_in)
{
	struct sim_conn *conn = sim_conn_get();
	int fds[SIM_WIRE_MAX_FDS], ret, i;
	uint32_t got_type, got_len;

	if (!conn)
		return TERN_ERROR_BACKEND;
	pthread_mutex_lock(&conn->call_lock);
	pthread_mutex_lock(&conn->send_lock);
	ret = sim_wire_send(conn->sock, type, req, len, NULL, 0, &fd_out,
			    fd_out >= 0 ? 1 : 0);
	conn->sent++;
	pthread_mutex_unlock(&conn->send_lock);
	if (!ret)
		ret = sim_wire_recv(conn->sock, &got_type, reply, reply_len,
				    &got_len, fds);
	pthread_mutex_unlock(&conn->call_lock);
	/* A refusal may be a bare status. */
	if (!ret && exact && got_len == sizeof(struct sim_reply) &&
	    got_len < reply_len &&
	    ((struct sim_reply *)reply)->status != TERN_SUCCESS)
		got_len = reply_len;
	if (ret || got_type != SIM_MSG_REPLY ||
	    (exact ? got_len != reply_len :
		     got_len < sizeof(struct sim_reply))) {
		if (!ret)
			for (i = 0; i < SIM_WIRE_MAX_FDS; i++)
				if (fds[i] >= 0)
					close(fds[i]);
		__atomic_store_n(&conn->dead, true, __ATOMIC_RELAXED);
		tern_set_last_error("the simulated machine went away (request %u: "
				    "%d, reply %u of %u bytes)", type, ret,
				    got_len, reply_len);
		return TERN_ERROR_BACKEND;
	}
	if (got)
		*got = got_len;
	if (fd_in)
		*fd_in = fds[0];
	else if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return (tern_status_t)((struct sim_reply *)reply)->status;
}

tern_status_t sim_call(uint32_t type, const void *req, uint32_t len,
		       int fd_out, void *reply, uint32_t reply_len,
		       int *fd_in)
{
	return sim_call_reply(type, req, len, fd_out, reply, reply_len, true,
			      NULL, fd_in);
}

tern_status_t sim_call_var(uint32_t type, const void *req, uint32_t len,
			   void *reply, uint32_t cap, uint32_t *got)
{
	return sim_call_reply(type, req, len, -1, reply, cap, false, got,
			      NULL);
}

static tern_status_t sim_init(void)
{
	tern_status_t status = sim_settings_read(&sim_settings);

	if (status == TERN_SUCCESS)
		status = sim_connect(&sim_settings, true, false, &sim_conn);
	return status;
}

static tern_status_t sim_count(int *count)
{
	*count = (int)sim_conn.machine.shape.devices;
	return *count ? TERN_SUCCESS : TERN_ERROR_NO_DEVICE;
}

static struct sim_context *sim_context(struct tern_be_device *bdev)
{
	return tern_container_of(bdev, struct sim_context, base);
}

static tern_status_t sim_open(int index, struct tern_be_device **out)
{
	struct sim_ctx_open req = {
		.device = (uint32_t)index,
		.flags = (sim_settings.model_clock ? SIM_CTX_MODEL_CLOCK : 0) |
			 (sim_settings.skip_data ? SIM_CTX_SKIP_DATA : 0),
	};
	struct sim_ctx_open_reply reply;
	struct sim_context *ctx;
	tern_status_t status;

	if (index < 0 || index >= (int)sim_conn.machine.shape.devices)
		return TERN_ERROR_INVALID_DEVICE;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return TERN_ERROR_OUT_OF_MEMORY;
	status = sim_call(SIM_MSG_CTX_OPEN, &req, sizeof(req), -1, &reply,
			  sizeof(reply), NULL);
	if (status) {
		free(ctx);
		return status;
	}
	ctx->base.index = index;
	ctx->id = reply.ctx;
	*out = &ctx->base;
	return TERN_SUCCESS;
}

static void sim_close(struct tern_be_device *bdev)
{
	struct sim_context *ctx = sim_context(bdev);
	struct sim_ctx_ref req = { ctx->id };
	struct sim_reply reply;

	/* Like a file closing: whatever is left goes with it. */
	sim_call(SIM_MSG_CTX_CLOSE, &req, sizeof(req), -1, &reply,
		 sizeof(reply), NULL);
	free(ctx);
}

static tern_status_t sim_query(struct tern_be_device *bdev,
			       struct tern_be_info *info)
{
	struct sim_ctx_ref req = { sim_context(bdev)->id };
	struct sim_query_reply reply;
	tern_status_t status;

	status = sim_call(SIM_MSG_QUERY, &req, sizeof(req), -1, &reply,
			  sizeof(reply), NULL);
	if (status)
		return status;
	reply.node[sizeof(reply.node) - 1] = '\0';
	snprintf(info->node, sizeof(info->node), "%s", reply.node);
	info->memory_bytes = reply.memory_bytes;
	info->capabilities = reply.capabilities;
	info->clock_hz = reply.clock_hz;
	/* the machine's word, checked: the model trusts the shape */
	if (reply.dma_engine_count < 1 || reply.cores > 64 ||
	    reply.engine_count != reply.dma_engine_count + 3 * reply.cores ||
	    (reply.cores && (reply.sbuf_partition_bytes < 1024 ||
			     reply.sbuf_partition_bytes > (1u << 20) ||
			     reply.psum_partition_bytes < 2048 ||
			     reply.psum_partition_bytes > (64u << 10) ||
			     reply.psum_partition_bytes % 2048)))
		return TERN_ERROR_BACKEND;
	info->engine_count = reply.engine_count;
	info->dma_engine_count = reply.dma_engine_count;
	info->cores.cores = reply.cores;
	info->cores.sbuf_partition_bytes = reply.sbuf_partition_bytes;
	info->cores.psum_partition_bytes = reply.psum_partition_bytes;
	info->fabric_port_count = reply.fabric_port_count;
	info->max_submit_bytes = reply.max_submit_bytes;
	info->max_waits = reply.max_waits;
	info->fabric_id = reply.fabric_id;
	return TERN_SUCCESS;
}

static tern_status_t sim_memory_usage(struct tern_be_device *bdev,
				      uint64_t *used, uint64_t *total)
{
	struct sim_ctx_ref req = { sim_context(bdev)->id };
	struct sim_mem_usage_reply reply;
	tern_status_t status;

	status = sim_call(SIM_MSG_MEM_USAGE, &req, sizeof(req), -1, &reply,
			  sizeof(reply), NULL);
	if (status)
		return status;
	*used = reply.used;
	*total = reply.total;
	return TERN_SUCCESS;
}

static tern_status_t sim_ports(struct tern_be_device *bdev,
			       tern_port_info_t *ports, uint32_t capacity,
			       uint32_t *count)
{
	struct sim_ports req = { .device = (uint32_t)bdev->index };
	struct sim_ports_reply *reply = malloc(sizeof(*reply));
	tern_status_t status;

	if (!reply)
		return TERN_ERROR_OUT_OF_MEMORY;
	status = sim_call(SIM_MSG_PORTS, &req, sizeof(req), -1, reply,
			  sizeof(*reply), NULL);
	if (status == TERN_SUCCESS) {
		uint32_t n = reply->count < capacity ? reply->count : capacity;

		if (n > SIM_MAX_PORTS)
			n = SIM_MAX_PORTS;
		if (n)
			memcpy(ports, reply->ports, n * sizeof(*ports));
		*count = reply->count;
	}
	free(reply);
	return status;
}

tern_status_t sim_backend_chosen(const char *instead)
{
	const struct tern_backend_ops *ops;
	tern_status_t status = tern_backend_ops_get(&ops);

	if (status)
		return status;
	if (ops != &tern_sim_backend) {
		tern_set_last_error("this needs the simulator: on tern.ko, %s",
				    instead);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	return TERN_SUCCESS;
}

int sim_device_count(void)
{
	return (int)sim_conn.machine.shape.devices;
}

static void sim_machine_name(char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", sim_settings.dir, sim_settings.name);
}

const struct tern_backend_ops tern_sim_backend = {
	.kind = TERN_BACKEND_SIM,
	.init = sim_init,
	.device_count = sim_count,
	.device_open = sim_open,
	.device_close = sim_close,
	.device_query = sim_query,
	.machine_name = sim_machine_name,
	.host_wrote = sim_host_wrote,
	.memory_usage = sim_memory_usage,
	.buffer_create = sim_buffer_create,
	.buffer_map = sim_buffer_map,
	.buffer_free = sim_buffer_free,
	.buffer_export = sim_buffer_export,
	.buffer_import = sim_buffer_import,
	.ports = sim_ports,
	.queue_create = sim_queue_create,
	.queue_destroy = sim_queue_destroy,
	.submit = sim_submit,
	.fence_wait = sim_fence_wait,
	.fence_status = sim_fence_status,
	.fence_seen = sim_fence_seen,
	.fence_import = sim_fence_import,
};
