// SPDX-License-Identifier: MIT
/*
 * A Tern client for tern-inspect's tests, on any backend:
 *
 *   hold_memory DEVICE MIB      allocates MIB MiB of DEVICE's memory,
 *                               prints "holding BYTES bytes on device
 *                               DEVICE, pid PID" and sleeps until killed
 *   hold_memory --job DEVICE [--keep]
 *                               runs one small job (a memset) on DEVICE's
 *                               first engine, waits for it and prints
 *                               "job: <status name>"; exit 0 only if it
 *                               succeeded; with --keep, then keeps the
 *                               device open until killed
 *
 * Exit status 2 for a bad command line, 1 when libtern fails.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tern.h"

#define JOB_BYTES 4096

static int usage(void)
{
	fprintf(stderr,
		"usage: hold_memory DEVICE MIB | hold_memory --job DEVICE [--keep]\n");
	return 2;
}

static int parse_count(const char *text, long max, long *value)
{
	char *end;

	*value = strtol(text, &end, 10);
	return *text && !*end && *value >= 0 && *value <= max;
}

static int failed(const char *what, tern_status_t status)
{
	fprintf(stderr, "hold_memory: %s: %s\n", what,
		tern_status_string(status));
	return 1;
}

static int run_job(tern_device_t device)
{
	tern_buffer_t buffer;
	tern_stream_t stream;
	tern_status_t status;

	status = tern_buffer_alloc(device, TERN_MEMORY_DEVICE, JOB_BYTES,
				   &buffer);
	if (status != TERN_SUCCESS)
		return failed("allocating", status);
	/* A process's first stream is on engine 0 (streams take turns). */
	status = tern_stream_create(device, &stream);
	if (status != TERN_SUCCESS)
		return failed("creating a stream", status);
	status = tern_memset_async(buffer, 0, 0x5a, JOB_BYTES, stream);
	if (status == TERN_SUCCESS)
		status = tern_stream_synchronize(stream);
	printf("job: %s\n", tern_status_name(status));
	tern_stream_destroy(stream);
	tern_buffer_free(buffer);
	return status == TERN_SUCCESS ? 0 : 1;
}

/* Until a signal ends the process. */
static void __attribute__((noreturn)) sleep_forever(void)
{
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	bool job = (argc == 3 || argc == 4) && strcmp(argv[1], "--job") == 0;
	bool keep = job && argc == 4;
	tern_device_t device;
	tern_buffer_t buffer;
	tern_status_t status;
	long index, mib = 0;
	int ret;

	if ((argc != 3 && !keep) || (keep && strcmp(argv[3], "--keep")) ||
	    !parse_count(argv[job ? 2 : 1], 64, &index) ||
	    (!job && (!parse_count(argv[2], 65536, &mib) || mib == 0)))
		return usage();
	status = tern_device_open((int)index, &device);
	if (status != TERN_SUCCESS)
		return failed("opening the device", status);
	if (job) {
		ret = run_job(device);
		if (keep)
			sleep_forever();
		return ret;
	}

	status = tern_buffer_alloc(device, TERN_MEMORY_DEVICE,
				   (size_t)mib << 20, &buffer);
	if (status != TERN_SUCCESS)
		return failed("allocating", status);
	printf("holding %lu bytes on device %ld, pid %d\n",
	       (unsigned long)mib << 20, index, (int)getpid());
	sleep_forever();
}
