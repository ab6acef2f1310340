// SPDX-License-Identifier: MIT
/*
 * Simulator peer memory: exporting a buffer as a file descriptor and
 * importing it on any simulated device of this process, the counterpart of
 * PRIME on tern.ko.
 *
 * A buffer's pages (struct sim_memory) are reference counted: the buffer
 * that made them and every import hold one, so the memory stays until the
 * last of them is freed. Export names the memory with a memfd (a "token",
 * made on the first export and kept while the memory lives, so its inode
 * cannot be reused) and hands out a duplicate; import finds the memory by
 * the inode of the descriptor it is given. A descriptor that names no live
 * simulated buffer of this process is an invalid argument.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

/* Reference counts, tokens and the table of exported memory. */
static pthread_mutex_t sim_share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_memory **sim_exported;
static size_t sim_exported_count, sim_exported_cap;

tern_status_t sim_memory_create(struct sim_device *dev, tern_memory_kind_t kind,
				uint64_t size, struct sim_memory **out)
{
	struct sim_memory *memory = calloc(1, sizeof(*memory));
	tern_status_t status;

	if (!memory)
		return TERN_ERROR_OUT_OF_MEMORY;
	status = sim_pages_alloc(dev, kind, size, &memory->cpu);
	if (status) {
		free(memory);
		return status;
	}
	memory->dev = dev;
	memory->kind = kind;
	memory->size = size;
	memory->refs = 1;
	memory->token = -1;
	*out = memory;
	return TERN_SUCCESS;
}

static void sim_memory_get_locked(struct sim_memory *memory)
{
	memory->refs++;
}

void sim_memory_put(struct sim_memory *memory)
{
	size_t i;

	pthread_mutex_lock(&sim_share_lock);
	if (--memory->refs) {
		pthread_mutex_unlock(&sim_share_lock);
		return;
	}
	if (memory->token >= 0) {
		for (i = 0; i < sim_exported_count; i++) {
			if (sim_exported[i] == memory) {
				sim_exported[i] =
					sim_exported[--sim_exported_count];
				break;
			}
		}
		if (!sim_exported_count) {
			free(sim_exported);
			sim_exported = NULL;
			sim_exported_cap = 0;
		}
	}
	pthread_mutex_unlock(&sim_share_lock);
	if (memory->token >= 0)
		close(memory->token);
	sim_pages_free(memory->dev, memory->kind, memory->size, memory->cpu);
	free(memory);
}

/* Gives @memory its token and an entry in the table. Lock held. */
static tern_status_t sim_memory_name(struct sim_memory *memory)
{
	struct stat st;
	int token;

	if (sim_exported_count == sim_exported_cap) {
		size_t cap = sim_exported_cap ? sim_exported_cap * 2 : 16;
		struct sim_memory **bigger =
			realloc(sim_exported, cap * sizeof(*bigger));

		if (!bigger)
			return TERN_ERROR_OUT_OF_MEMORY;
		sim_exported = bigger;
		sim_exported_cap = cap;
	}
	token = memfd_create("tern-sim-buffer", MFD_CLOEXEC);
	if (token < 0)
		return TERN_ERROR_BACKEND;
	if (fstat(token, &st)) {
		close(token);
		return TERN_ERROR_BACKEND;
	}
	memory->token = token;
	memory->token_dev = (uint64_t)st.st_dev;
	memory->token_ino = (uint64_t)st.st_ino;
	sim_exported[sim_exported_count++] = memory;
	return TERN_SUCCESS;
}

tern_status_t sim_buffer_export(struct tern_be_device *bdev,
				struct tern_be_buffer *bbuf, int *fd)
{
	struct sim_memory *memory =
		tern_container_of(bbuf, struct sim_bo, base)->memory;
	tern_status_t status = TERN_SUCCESS;
	int dup;

	(void)bdev;
	pthread_mutex_lock(&sim_share_lock);
	if (memory->token < 0)
		status = sim_memory_name(memory);
	dup = status ? -1 : fcntl(memory->token, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_unlock(&sim_share_lock);
	if (status)
		return status;
	if (dup < 0)
		return TERN_ERROR_BACKEND;
	*fd = dup;
	return TERN_SUCCESS;
}

/* The live exported memory @fd names, with a reference, or NULL. */
static struct sim_memory *sim_memory_lookup(int fd)
{
	struct sim_memory *found = NULL;
	struct stat st;
	size_t i;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	pthread_mutex_lock(&sim_share_lock);
	for (i = 0; i < sim_exported_count; i++) {
		struct sim_memory *memory = sim_exported[i];

		if (memory->token_dev == (uint64_t)st.st_dev &&
		    memory->token_ino == (uint64_t)st.st_ino) {
			sim_memory_get_locked(memory);
			found = memory;
			break;
		}
	}
	pthread_mutex_unlock(&sim_share_lock);
	return found;
}

tern_status_t sim_buffer_import(struct tern_be_device *bdev, int fd,
				struct tern_be_buffer **out,
				tern_memory_kind_t *kind)
{
	struct sim_context *ctx = tern_container_of(bdev, struct sim_context,
						    base);
	struct sim_memory *memory = sim_memory_lookup(fd);
	tern_status_t status;
	struct sim_bo *bo;

	if (!memory)
		return TERN_ERROR_INVALID_ARGUMENT;
	status = sim_bo_create(ctx, memory, &bo);
	if (status) {
		sim_memory_put(memory);
		return status;
	}
	*kind = memory->kind;
	*out = &bo->base;
	return TERN_SUCCESS;
}
