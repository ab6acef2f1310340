/* SPDX-License-Identifier: MIT */
/*
 * The simulated machine is fixed per process, so a test program that needs
 * several runs itself again as a child (--child NAME) for each, on the
 * machine set by the environment: test_collectives and test_comm, one
 * machine after another (sim_child_run()); test_machine and test_sharing,
 * children beside the test on its own machine (child_start()).
 */
#ifndef TERN_TEST_SIM_CHILD_H
#define TERN_TEST_SIM_CHILD_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

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

/*
 * Starts this program as --child @name with @env (NAME=VALUE, NULL-ended)
 * added and, when @fd >= 0, @fd as its fd 3. The child dies with the
 * test: none outlives a failure. Returns its pid.
 */
static inline pid_t child_start(const char *name, const char *const *env,
				int fd)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (const char *const *e = env; e && *e; e++)
			putenv((char *)*e);
		if (fd >= 0 && fd != 3) {
			dup2(fd, 3);
			close(fd);
		}
		execl("/proc/self/exe", program_invocation_short_name,
		      "--child", name, (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	return pid;
}

/* The child's exit status; 128 if it did not exit (killed). */
static inline int child_wait(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#endif /* TERN_TEST_SIM_CHILD_H */
