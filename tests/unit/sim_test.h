/* SPDX-License-Identifier: MIT */
/*
 * What test_machine and test_ring share: a simulated machine of the test
 * program's own, in TERN_SIM_DIR (a new directory when it is not set)
 * and named PREFIX-PID, so that nothing the program does to it (faults,
 * kills, stops) reaches another's; and the asserts on a call's status
 * (status.h).
 */
#ifndef TERN_TEST_SIM_TEST_H
#define TERN_TEST_SIM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "status.h"

/*
 * Sets the environment for machine @prefix-PID of @devices devices and
 * @mem_mb MiB each, its name into @name; -1 if no directory could be made.
 */
static inline int sim_own_machine(const char *prefix, char *name, size_t len,
				  const char *devices, const char *mem_mb)
{
	static char dir[] = "/tmp/tern-test.XXXXXX";

	if (!getenv("TERN_SIM_DIR")) {
		if (!mkdtemp(dir))
			return -1;
		setenv("TERN_SIM_DIR", dir, 1);
	}
	snprintf(name, len, "%s-%d", prefix, (int)getpid());
	setenv("TERN_SIM_MACHINE", name, 1);
	setenv("TERN_BACKEND", "sim", 1);
	setenv("TERN_SIM_DEVICES", devices, 1);
	setenv("TERN_SIM_MEM_MB", mem_mb, 1);
	return 0;
}

#endif /* TERN_TEST_SIM_TEST_H */
