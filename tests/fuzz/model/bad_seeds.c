// SPDX-License-Identifier: MIT
/*
 * The malformed streams of the shared table (tests/common/bad_packets.c)
 * as gen_corpus.py makes seeds of them: compiled and run by it, against
 * the uapi header it reads. Prints a line per kind of the table, its
 * first variant, naming the buffer at the address given:
 *
 *	<name> <offset of the broken packet> <stream in hex>
 *
 * then the opcodes the table counts as no packet's:
 *
 *	bad-opcodes <opcode>...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bad_packets.h"

int main(int argc, char **argv)
{
	uint64_t words[BAD_PACKETS_MAX_BYTES / 8];
	uint64_t va;

	if (argc != 2) {
		fprintf(stderr, "usage: bad_seeds BUFFER_VA\n");
		return 2;
	}
	va = strtoull(argv[1], NULL, 0);
	for (size_t i = 0; i < bad_packet_count; i++) {
		uint32_t size, offset;

		offset = bad_packet_build(&bad_packets[i], 0, va, words, &size);
		printf("%s %" PRIu32 " ", bad_packets[i].name, offset);
		for (uint32_t b = 0; b < size; b++)
			printf("%02x", ((const uint8_t *)words)[b]);
		printf("\n");
	}
	printf("bad-opcodes");
	for (size_t i = 0; i < bad_opcode_count; i++)
		printf(" %u", bad_opcodes[i]);
	printf("\n");
	return 0;
}
