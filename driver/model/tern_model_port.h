/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The few definitions the device model needs, from the kernel when it is
 * built into tern.ko and from libc when it is built into libtern.
 */
#ifndef TERN_MODEL_PORT_H
#define TERN_MODEL_PORT_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

#define tern_load_u64(p)	READ_ONCE(*(p))
#define tern_store_u64(p, v)	WRITE_ONCE(*(p), (v))
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define tern_load_u64(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define tern_store_u64(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#endif

#endif /* TERN_MODEL_PORT_H */
