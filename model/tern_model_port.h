/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The few definitions the device model needs, from the kernel when it is
 * built into tern.ko and from libc when it is built into libtern.
 */
#ifndef TERN_MODEL_PORT_H
#define TERN_MODEL_PORT_H

/*
 * Packets and device memory are little endian, the chip's byte order, and
 * the model reads them as host integers: it builds only where that is the
 * host's order too (x86-64, little-endian arm64 and riscv64). A big-endian
 * port would read every field through le*_to_cpu() first.
 */
#ifdef __KERNEL__
#include <asm/byteorder.h>
#ifndef __LITTLE_ENDIAN
#error "the Tern device model needs a little-endian host"
#endif
#else
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the Tern device model needs a little-endian host"
#endif
#endif

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/prefetch.h>
#include <linux/spinlock.h>

#define tern_load_u64(p)	READ_ONCE(*(p))
#define tern_store_u64(p, v)	WRITE_ONCE(*(p), (v))
#define tern_load_u32(p)	READ_ONCE(*(p))
#define tern_store_u32(p, v)	WRITE_ONCE(*(p), (v))

/*
 * Adds @v to the u64 at @p as one atomic read-modify-write with release
 * ordering: a waiter that sees the sum also sees what the job wrote before.
 * @p is 8-byte aligned (the model checks), and atomic64_t is exactly one
 * s64, so the cast gives the arch's single locked add; a cmpxchg loop would
 * do the same work in more lines and retry under contention.
 */
#define tern_atomic_add_u64(p, v) \
	atomic64_fetch_add_release((s64)(v), (atomic64_t *)(p))

/*
 * A traffic counter that engines of several devices add to at once; a
 * macro rather than a typedef, as kernel style asks.
 */
#define tern_counter_t		atomic64_t
#define tern_counter_add(c, v)	atomic64_add((v), (c))
#define tern_counter_read(c)	((u64)atomic64_read(c))

/* @a / @b, and *@rem = @a % @b: a 32-bit kernel has no u64 division. */
#define tern_div_u64_rem(a, b, rem)	div_u64_rem((a), (b), (rem))

/* Asks for the cache line at @p, which is soon read. */
#define tern_prefetch(p)	prefetch(p)

/* A short lock that engines of several devices take around shared state. */
#define tern_lock_t		spinlock_t
#define tern_lock_init(l)	spin_lock_init(l)
#define tern_lock(l)		spin_lock(l)
#define tern_unlock(l)		spin_unlock(l)
#else
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define tern_load_u64(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define tern_store_u64(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define tern_load_u32(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define tern_store_u32(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define tern_atomic_add_u64(p, v) \
	__atomic_fetch_add((p), (v), __ATOMIC_RELEASE)

typedef uint64_t tern_counter_t;
#define tern_counter_add(c, v)	__atomic_fetch_add((c), (v), __ATOMIC_RELAXED)
#define tern_counter_read(c)	__atomic_load_n((c), __ATOMIC_RELAXED)

static inline u64 tern_div_u64_rem(u64 a, u32 b, u32 *rem)
{
	*rem = (u32)(a % b);
	return a / b;
}

#define tern_prefetch(p)	__builtin_prefetch(p)

#define tern_lock_t		pthread_mutex_t
#define tern_lock_init(l)	pthread_mutex_init((l), NULL)
#define tern_lock(l)		pthread_mutex_lock(l)
#define tern_unlock(l)		pthread_mutex_unlock(l)

/* A pause in a loop that watches memory another CPU will write. */
static inline void tern_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}
#endif

#endif /* TERN_MODEL_PORT_H */
