// SPDX-License-Identifier: MIT
/*
 * Buffer memory shared between contexts and processes, the counterpart of
 * PRIME on tern.ko.
 *
 * A buffer's memory (struct machine_memory) is reference counted: the
 * buffer that made it and every import hold one, so it stays until the
 * last of them is freed. The memfd the owning process was handed is the
 * export: it can pass the descriptor to any process (of this user: the
 * machine is theirs alone), and a BO_IMPORT with it maps the same memory
 * into the importer's context. The machine finds the memory by the
 * descriptor's inode; it keeps its own descriptor open while the memory
 * lives, so the inode cannot be reused. A descriptor that names no live
 * buffer of the machine (a pipe, a file, a memfd of the process's own) is
 * an invalid argument.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "machine.h"

/* Reference counts and the table of every live memory. */
static pthread_mutex_t machine_share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct machine_memory **machine_memories;
static size_t machine_memory_count, machine_memory_cap;

/* Room for one more in the table. Share lock held. */
static bool machine_memories_room(void)
{
	size_t cap = machine_memory_cap ? machine_memory_cap * 2 : 64;
	struct machine_memory **bigger;

	if (machine_memory_count < machine_memory_cap)
		return true;
	bigger = realloc(machine_memories, cap * sizeof(*bigger));
	if (!bigger)
		return false;
	machine_memories = bigger;
	machine_memory_cap = cap;
	return true;
}

tern_status_t machine_memory_create(struct machine_device *dev,
				    tern_memory_kind_t kind, uint64_t size,
				    struct machine_memory **out)
{
	struct machine_memory *memory = calloc(1, sizeof(*memory));
	tern_status_t status;

	if (!memory)
		return TERN_ERROR_OUT_OF_MEMORY;
	status = machine_pages_alloc(dev, kind, size, memory);
	if (status) {
		free(memory);
		return status;
	}
	memory->refs = 1;
	/*
	 * Room is made in the same hold of the lock as the entry: clients'
	 * threads create memories at once, and room made earlier may have
	 * gone to another's meanwhile.
	 */
	pthread_mutex_lock(&machine_share_lock);
	if (!machine_memories_room()) {
		pthread_mutex_unlock(&machine_share_lock);
		machine_pages_free(memory);
		free(memory);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	machine_memories[machine_memory_count++] = memory;
	pthread_mutex_unlock(&machine_share_lock);
	*out = memory;
	return TERN_SUCCESS;
}

void machine_memory_put(struct machine_memory *memory)
{
	size_t i;

	pthread_mutex_lock(&machine_share_lock);
	if (--memory->refs) {
		pthread_mutex_unlock(&machine_share_lock);
		return;
	}
	for (i = 0; i < machine_memory_count; i++) {
		if (machine_memories[i] == memory) {
			machine_memories[i] =
				machine_memories[--machine_memory_count];
			break;
		}
	}
	pthread_mutex_unlock(&machine_share_lock);
	machine_pages_free(memory);
	free(memory);
}

struct machine_memory *machine_memory_lookup(int fd)
{
	struct machine_memory *found = NULL;
	struct stat st;
	size_t i;

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	pthread_mutex_lock(&machine_share_lock);
	for (i = 0; i < machine_memory_count; i++) {
		struct machine_memory *memory = machine_memories[i];

		if (memory->st_dev == (uint64_t)st.st_dev &&
		    memory->st_ino == (uint64_t)st.st_ino) {
			memory->refs++;
			found = memory;
			break;
		}
	}
	pthread_mutex_unlock(&machine_share_lock);
	return found;
}
