// SPDX-License-Identifier: MIT
/*
 * Files and memory: opening and closing device nodes (closing one with
 * jobs in flight), mmap of buffers and dma-bufs with right and wrong
 * offsets, lengths and protections, munmap, touching mapped pages, and
 * closing dma-buf, sync_file and syncobj descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#define PAGE_BYTES	4096u
#define TOUCH_PAGES	8

bool file_open(struct fuzz_thread *t, unsigned int device, struct pool_file *out)
{
	struct pool_file file, evicted;
	int fd = open(t->worker->devices->dev[device].node, O_RDWR | O_CLOEXEC);

	fuzz_done(t, CALL_OPEN, fd < 0 ? errno : 0);
	if (fd < 0)
		return false;
	file = (struct pool_file){
		.file = pool_new_serial(&t->worker->pool), .fd = fd,
		.device = device,
	};
	if (pool_add(&t->worker->pool, POOL_FILE, &file, &evicted, &t->rng))
		release_file(t, &evicted);
	if (out)
		*out = file;
	return true;
}

void release_file(struct fuzz_thread *t, const struct pool_file *file)
{
	pool_forget_file(&t->worker->pool, file->file);
	fuzz_done(t, CALL_CLOSE, close(file->fd) ? errno : 0);
}

void release_fd(struct fuzz_thread *t, const struct pool_fd *fd)
{
	fuzz_done(t, CALL_CLOSE_FD, close(fd->fd) ? errno : 0);
}

void op_open(struct fuzz_thread *t)
{
	file_open(t, (unsigned int)rng_below(&t->rng, t->worker->devices->count), NULL);
}

void op_close(struct fuzz_thread *t)
{
	struct pool_file file;

	/* the last file stays: a worker with none would only reopen */
	if (pool_count(&t->worker->pool, POOL_FILE) > 1 &&
	    pool_take(&t->worker->pool, POOL_FILE, &t->rng, 0, &file))
		release_file(t, &file);
}

void op_close_fd(struct fuzz_thread *t)
{
	struct pool_fd fd;

	if (pool_take(&t->worker->pool, POOL_FD, &t->rng, 0, &fd))
		release_fd(t, &fd);
}

/* Where a mapping comes from: a buffer through its file, or a dma-buf. */
static bool map_source(struct fuzz_thread *t, int *fd, uint64_t *offset,
		       uint64_t *size)
{
	struct pool_bo bo;
	struct pool_fd dma_buf;
	struct pool_file file;

	if (rng_chance(&t->rng, 15) &&
	    pool_pick(&t->worker->pool, POOL_FD, &t->rng, 0, &dma_buf) &&
	    dma_buf.kind == FD_DMA_BUF) {
		*fd = dma_buf.fd;
		*offset = 0;
		*size = PAGE_BYTES * (1 + rng_below(&t->rng, 4));
		return true;
	}
	if (!pool_pick(&t->worker->pool, POOL_BO, &t->rng, 0, &bo) ||
	    !pool_pick(&t->worker->pool, POOL_FILE, &t->rng, bo.file, &file))
		return false;
	*fd = file.fd;
	*offset = bo.mmap_offset;
	*size = bo.size;
	return true;
}

void op_mmap(struct fuzz_thread *t)
{
	uint64_t offset, size, len, roll = rng_below(&t->rng, 100);
	struct pool_map map, evicted;
	int fd, prot, flags;
	void *addr;

	if (!map_source(t, &fd, &offset, &size))
		return;
	if (roll < 75)
		len = size;
	else if (roll < 85)
		len = PAGE_BYTES;
	else if (roll < 90)
		len = size + PAGE_BYTES;	/* past the buffer: refused */
	else if (roll < 95)
		len = 0;
	else
		len = value_boundary(&t->rng);
	if (rng_chance(&t->rng, 10)) {
		static const int64_t nudges[] = { PAGE_BYTES, -(int64_t)PAGE_BYTES, 1 };

		offset += (uint64_t)nudges[rng_below(&t->rng, 3)];
	}
	prot = rng_chance(&t->rng, 85) ? PROT_READ | PROT_WRITE :
	       rng_chance(&t->rng, 80) ? PROT_READ : PROT_NONE;
	/*
	 * Private only when small: a huge private writable mapping fails in
	 * the kernel's overcommit check, which says so in the kernel log.
	 */
	flags = rng_chance(&t->rng, 92) || len > (1ull << 30) ? MAP_SHARED : MAP_PRIVATE;
	addr = mmap(NULL, (size_t)len, prot, flags, fd, (off_t)offset);
	fuzz_done(t, CALL_MMAP, addr == MAP_FAILED ? errno : 0);
	if (addr == MAP_FAILED)
		return;
	map = (struct pool_map){ .addr = addr, .len = (size_t)len, .prot = prot };
	if (pool_add(&t->worker->pool, POOL_MAP, &map, &evicted, &t->rng))
		munmap(evicted.addr, evicted.len);
}

void op_munmap(struct fuzz_thread *t)
{
	struct pool_map map, evicted;

	if (!pool_take(&t->worker->pool, POOL_MAP, &t->rng, 0, &map))
		return;
	/* sometimes only the first page, keeping the rest */
	if (map.len > PAGE_BYTES && rng_chance(&t->rng, 20)) {
		fuzz_done(t, CALL_MUNMAP, munmap(map.addr, PAGE_BYTES) ? errno : 0);
		map.addr += PAGE_BYTES;
		map.len -= PAGE_BYTES;
		if (pool_add(&t->worker->pool, POOL_MAP, &map, &evicted, &t->rng))
			munmap(evicted.addr, evicted.len);
		return;
	}
	fuzz_done(t, CALL_MUNMAP, munmap(map.addr, map.len) ? errno : 0);
}

/*
 * A fault on a mapping the kernel gave us (SIGBUS, SIGSEGV) is the
 * kernel's bug to report, not a reason for the worker to die: touching
 * jumps back and counts EFAULT. Anywhere else the default action runs.
 */
static _Thread_local sigjmp_buf *touch_jump;

static void on_fault(int sig)
{
	if (touch_jump)
		siglongjmp(*touch_jump, 1);
	signal(sig, SIG_DFL);
}

void touch_install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

int fault_guard(void (*fn)(void *ctx), void *ctx)
{
	sigjmp_buf jump;

	if (sigsetjmp(jump, 1)) {
		touch_jump = NULL;
		return EFAULT;
	}
	touch_jump = &jump;
	fn(ctx);
	touch_jump = NULL;
	return 0;
}

struct touch {
	struct fuzz_thread *t;
	const struct pool_map *map;
	int err;
};

static void touch_pages(void *ctx)
{
	struct touch *touch = ctx;
	const struct pool_map *map = touch->map;
	struct rng *rng = &touch->t->rng;
	volatile uint8_t *bytes = map->addr;

	for (unsigned int i = 0; i < TOUCH_PAGES; i++) {
		size_t at = i == 0 ? 0 : i == 1 ? map->len - 1 :
			    (size_t)rng_below(rng, map->len);

		if ((map->prot & PROT_WRITE) && rng_chance(rng, 50))
			bytes[at] = (uint8_t)rng_next(rng);
		else
			(void)bytes[at];
	}
}

static void touch_map(const struct pool_map *map, void *ctx)
{
	struct touch *touch = ctx;

	touch->err = 0;
	if (!(map->prot & PROT_READ))
		return;
	touch->map = map;
	touch->err = fault_guard(touch_pages, touch);
}

void op_touch(struct fuzz_thread *t)
{
	struct touch touch = { .t = t };

	if (pool_with_map(&t->worker->pool, &t->rng, touch_map, &touch))
		fuzz_done(t, CALL_TOUCH, touch.err);
}
