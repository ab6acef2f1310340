// SPDX-License-Identifier: MIT
/*
 * The checks every collective makes before it builds anything, and the
 * submission at its end. A call that fails a check enqueues nothing and
 * leaves the communicator as it was.
 */
#include "coll.h"

tern_status_t coll_call_begin(struct coll_call *call, tern_comm_t comm,
			      tern_stream_t stream, tern_dtype_t dtype,
			      bool reduces, tern_redop_t op)
{
	struct tern_stream *s = stream;

	/* A comm whose device was closed under it is refused as well. */
	if (!coll_comm_valid(comm) ||
	    !tern_handle_valid(comm->dev, TERN_HANDLE_DEVICE) ||
	    !tern_handle_valid(s, TERN_HANDLE_STREAM) || s->device != comm->dev)
		return TERN_ERROR_INVALID_ARGUMENT;
	if ((unsigned int)dtype >= TERN_DTYPE_COUNT ||
	    (reduces && (unsigned int)op >= TERN_REDOP_COUNT))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (reduces && comm->nranks > 1 &&
	    !(comm->dev->info.capabilities & TERN_DEVICE_CAP_REDUCE))
		return TERN_ERROR_NOT_SUPPORTED;
	call->comm = comm;
	call->stream = s;
	call->dtype = dtype;
	call->op = op;
	call->esize = tern_dtype_bytes(dtype);
	call->chunk_elems = COLL_CHUNK_BYTES / call->esize;
	pthread_mutex_lock(&comm->lock);
	coll_prog_init(&call->prog, comm);
	coll_seq_save(comm, &call->snap);
	return TERN_SUCCESS;
}

tern_status_t coll_call_ptr(struct coll_call *call, tern_ptr_t ptr,
			    size_t count, size_t times, uint64_t *va)
{
	struct tern_buffer *buf = ptr.buffer;
	size_t bytes;

	if (times && count > SIZE_MAX / times / call->esize)
		return TERN_ERROR_OUT_OF_RANGE;
	bytes = count * times * call->esize;
	*va = 0;
	if (!buf && bytes == 0)
		return TERN_SUCCESS;
	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER) ||
	    buf->device != call->comm->dev || ptr.offset % call->esize)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (ptr.offset > buf->bytes || bytes > buf->bytes - ptr.offset)
		return TERN_ERROR_OUT_OF_RANGE;
	*va = buf->be->va + ptr.offset;
	return TERN_SUCCESS;
}

tern_status_t coll_call_end(struct coll_call *call, tern_status_t status)
{
	struct tern_comm *comm = call->comm;

	if (status == TERN_SUCCESS)
		status = coll_prog_submit(&call->prog, call->stream);
	if (status)
		coll_seq_restore(comm, &call->snap);
	coll_prog_free(&call->prog);
	pthread_mutex_unlock(&comm->lock);
	return status;
}

int coll_channels_for(const struct coll_call *call, uint64_t bytes)
{
	return bytes < COLL_MULTI_CHANNEL_MIN ? 1 : call->comm->nchannels;
}
