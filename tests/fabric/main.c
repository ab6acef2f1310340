// SPDX-License-Identifier: MIT
/*
 * Entry point of the fabric tests of tern.ko: checks that the machine is
 * what they need (root, debugfs, a ring of three or more mock devices),
 * brings every link up and runs the groups. Exits 77 (skipped) otherwise.
 */
#include <stdio.h>

#include "fabric.h"

#define EXIT_SKIPPED 77

int main(void)
{
	const char *skip_reason = fabric_open();
	int failed = 0;

	if (skip_reason) {
		printf("fabric: SKIP: %s\n", skip_reason);
		return EXIT_SKIPPED;
	}
	printf("fabric: ring of %u devices, first %s, links in %s\n",
	       fabric.devices, fabric.node[0], fabric.link_file[0]);
	/* a run stopped half-way may have left a link down */
	for (uint32_t d = 0; d < fabric.devices; d++) {
		if (link_write(d, "0 up") || link_write(d, "1 up")) {
			printf("fabric: cannot bring the links of device %u up\n", d);
			return 1;
		}
	}

	failed += link_tests();
	failed += netlink_tests();
	failed += client_tests();
	failed += sysfs_tests();
	failed += event_tests();
	/* after every test that wants the last two devices healthy */
	failed += fault_tests();
	/* after the fault tests: clears what they left */
	failed += health_tests();
	failed += collective_tests();
	return failed ? 1 : 0;
}
