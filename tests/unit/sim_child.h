/* SPDX-License-Identifier: MIT */
/*
 * The simulated machine is fixed per process, so a test program that needs
 * several runs itself again as a child (--child NAME) for each, on the
 * machine set by the environment. Shared by test_collectives and
 * test_comm.
 */
#ifndef TERN_TEST_SIM_CHILD_H
#define TERN_TEST_SIM_CHILD_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct sim_machine {
	int devices;
	const char *topology;		/* TERN_SIM_TOPOLOGY */
	const char *mem_mb;		/* TERN_SIM_MEM_MB */
	const char *timeout_ms;		/* TERN_SIM_JOB_TIMEOUT_MS */
	const char *const *env;		/* more NAME=VALUE, NULL-ended; or NULL */
};

/*
 * Runs this program with --child @name on machine @m; returns the child's
 * exit status (its failed tests), 1 if it could not run or died.
 */
static inline int sim_child_run(const char *group, const char *name,
				const struct sim_machine *m)
{
	char devices[16];
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		snprintf(devices, sizeof(devices), "%d", m->devices);
		setenv("TERN_BACKEND", "sim", 1);
		setenv("TERN_SIM_DEVICES", devices, 1);
		setenv("TERN_SIM_TOPOLOGY", m->topology, 1);
		setenv("TERN_SIM_MEM_MB", m->mem_mb, 1);
		setenv("TERN_SIM_JOB_TIMEOUT_MS", m->timeout_ms, 1);
		for (const char *const *e = m->env; e && *e; e++)
			putenv((char *)*e);
		execl("/proc/self/exe", group, "--child", name, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	if (!WIFEXITED(status)) {
		printf("%s/%s: died (status 0x%x)\n", group, name, status);
		return 1;
	}
	return WEXITSTATUS(status);
}

#endif /* TERN_TEST_SIM_CHILD_H */
