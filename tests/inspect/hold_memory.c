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
 *   hold_memory --matmul DEVICE CORE [--repeat]
 *                               runs one MATMUL on the tensor engine of
 *                               DEVICE's core CORE, waits for it and
 *                               prints "matmul on engine E: <status
 *                               name>"; with --repeat, then one after
 *                               another until killed
 *
 * Exit status 2 for a bad command line or a core the device has not, 1
 * when libtern fails.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "submit.h"
#include "tern.h"

#define JOB_BYTES 4096

/* The MATMUL: a K x M and a K x N tile of SBUF into M x N of PSUM. */
#define MATMUL_K 128
#define MATMUL_M 128
#define MATMUL_N 512

static int usage(void)
{
	fprintf(stderr,
		"usage: hold_memory DEVICE MIB | hold_memory --job DEVICE [--keep] |\n"
		"       hold_memory --matmul DEVICE CORE [--repeat]\n");
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

/*
 * A MATMUL on the tensor engine of @device's core @core (its SBUF and
 * PSUM are this process's own, zero: the product is zeros), waited for;
 * @repeat: again and again until killed.
 */
static int run_matmul(tern_device_t device, long core, bool repeat)
{
	struct tern_device *dev = device;
	struct drm_tern_tile a = {
		.partitions = MATMUL_K, .elements = MATMUL_M,
		.space = DRM_TERN_SPACE_SBUF, .dtype = DRM_TERN_DTYPE_BFLOAT16,
	};
	struct drm_tern_tile b = {
		.offset = MATMUL_M * 2, .partitions = MATMUL_K,
		.elements = MATMUL_N, .space = DRM_TERN_SPACE_SBUF,
		.dtype = DRM_TERN_DTYPE_FLOAT32,
	};
	struct drm_tern_tile c = {
		.partitions = MATMUL_M, .elements = MATMUL_N,
		.space = DRM_TERN_SPACE_PSUM, .dtype = DRM_TERN_DTYPE_FLOAT32,
	};
	struct tern_packet_builder packets;
	struct tern_stream *stream;
	tern_status_t status;
	uint64_t words[16];
	uint32_t engine;

	if (core >= (long)dev->info.cores.cores) {
		fprintf(stderr, "hold_memory: device %d has %u cores: no core %ld\n",
			dev->index, dev->info.cores.cores, core);
		return 2;
	}
	engine = dev->info.dma_engine_count + 3 * (uint32_t)core +
		 DRM_TERN_ENGINE_TENSOR - 1;
	tern_packets_init(&packets, words, sizeof(words));
	tern_packet_matmul(&packets, &a, &b, &c, false);
	status = tern_stream_create_on(dev, engine, &stream);
	if (status != TERN_SUCCESS)
		return failed("creating a stream on the tensor engine", status);
	/* Said once, when the first has ended, or when one fails. */
	for (bool first = true;; first = false) {
		status = tern_stream_submit(stream, packets.buf, packets.size,
					    NULL, 0, NULL);
		if (status == TERN_SUCCESS)
			status = tern_stream_synchronize(stream);
		if (first || status != TERN_SUCCESS) {
			printf("matmul on engine %u: %s\n", engine,
			       tern_status_name(status));
			fflush(stdout);
		}
		if (status != TERN_SUCCESS || !repeat)
			break;
	}
	tern_stream_destroy(stream);
	return status == TERN_SUCCESS ? 0 : 1;
}

/* Until a signal ends the process. */
static void __attribute__((noreturn)) sleep_forever(void)
{
	fflush(stdout);
	for (;;)
		pause();
}

/* hold_memory --matmul DEVICE CORE [--repeat] */
static int matmul_main(int argc, char **argv)
{
	bool repeat = argc == 5;
	tern_device_t device;
	tern_status_t status;
	long index, core;

	if ((argc != 4 && !repeat) || (repeat && strcmp(argv[4], "--repeat")) ||
	    !parse_count(argv[2], 64, &index) ||
	    !parse_count(argv[3], 1 << 16, &core))
		return usage();
	status = tern_device_open((int)index, &device);
	if (status != TERN_SUCCESS)
		return failed("opening the device", status);
	return run_matmul(device, core, repeat);
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

	if (argc >= 2 && strcmp(argv[1], "--matmul") == 0)
		return matmul_main(argc, argv);
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
