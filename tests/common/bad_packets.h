/* SPDX-License-Identifier: MIT */
/*
 * Malformed packet streams: each way a packet can break the format of
 * uapi/drm/tern_accel.h, in one table read by the device model's unit
 * test (tests/unit/test_model.c, tern_model_validate()), the uapi test
 * (tests/uapi/packets.c, SUBMIT), the model fuzzer's seed corpus
 * (tests/fuzz/model/gen_corpus.py, through bad_seeds.c) and tern-fuzz's
 * damaged opcodes.
 *
 * Every stream starts with a valid FILL of the 4 KiB buffer at the
 * address the caller gives, so that a stream that ran even in part shows
 * in the buffer, and goes on to the packet under test. Every stream is
 * refused before anything runs: tern_model_validate() returns -EINVAL
 * and names the packet under test, SUBMIT fails with EINVAL.
 */
#ifndef TERN_TEST_BAD_PACKETS_H
#define TERN_TEST_BAD_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#include "packets.h"

/* What every stream of the table starts with: a FILL of the buffer. */
#define BAD_PACKETS_FILL_BYTES		4096u
#define BAD_PACKETS_FILL_PATTERN	0x5a5a5a5au
/* Room enough for any stream of the table. */
#define BAD_PACKETS_MAX_BYTES		512u

/**
 * struct bad_packet - one way to break a packet, in @variants streams
 * @name: lower case and dashes, fit for a file name (a corpus seed's)
 * @opcode: the packet broken (0 where the variants go through several)
 * @field: the 8-byte field broken, 0 the first after the header, for the
 *	kinds that break one
 * @values: what the field is set to, one per variant, for those that
 *	set it
 * @variants: streams of this kind: values, bits or opcodes in turn
 * @emit: appends the packet under test, broken as @variant says, and
 *	whatever must follow it, to @b; returns the packet's offset
 */
struct bad_packet {
	const char *name;
	uint16_t opcode;
	uint8_t field;
	const uint64_t *values;
	unsigned int variants;
	uint32_t (*emit)(struct tern_packet_builder *b,
			 const struct bad_packet *bad, uint64_t va,
			 unsigned int variant);
};

extern const struct bad_packet bad_packets[];
extern const size_t bad_packet_count;

/* Opcodes no packet has: zero, unknown ones and the reserved ranges. */
extern const uint16_t bad_opcodes[];
extern const size_t bad_opcode_count;

/*
 * Builds stream @variant of @bad, naming the 4 KiB buffer at @va, into
 * @buf (8-byte aligned, BAD_PACKETS_MAX_BYTES); its size into *@size.
 * Returns the offset of the packet under test.
 */
uint32_t bad_packet_build(const struct bad_packet *bad, unsigned int variant,
			  uint64_t va, void *buf, uint32_t *size);

#endif /* TERN_TEST_BAD_PACKETS_H */
