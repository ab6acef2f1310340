// SPDX-License-Identifier: MIT
/*
 * Built by tests/install/run.sh against an installed libtern, with only
 * what `pkg-config tern` gives: opens device 0, copies a pattern to device
 * memory and back, and prints "ok" when it came back unchanged. With
 * TERN_INSTALL_UAPI defined it also needs <drm/tern_accel.h> to compile.
 */
#include <stdio.h>
#include <string.h>

#include <tern.h>
#ifdef TERN_INSTALL_UAPI
#include <drm/tern_accel.h>
#endif

#define BYTES (256 * 1024)

static int fail(const char *what, tern_status_t status)
{
	fprintf(stderr, "prog: %s: %s\n", what, tern_status_string(status));
	return 1;
}

int main(void)
{
	tern_device_t dev;
	tern_buffer_t host, device;
	tern_stream_t stream;
	unsigned char *p;
	tern_status_t s;

	s = tern_device_open(0, &dev);
	if (s)
		return fail("tern_device_open", s);
	s = tern_buffer_alloc(dev, TERN_MEMORY_HOST, BYTES, &host);
	if (!s)
		s = tern_buffer_alloc(dev, TERN_MEMORY_DEVICE, BYTES, &device);
	if (s)
		return fail("tern_buffer_alloc", s);
	s = tern_stream_create(dev, &stream);
	if (!s)
		s = tern_buffer_map(host, (void **)&p);
	if (s)
		return fail("setup", s);
	for (size_t i = 0; i < BYTES; i++)
		p[i] = (unsigned char)(i * 7 + 3);
	s = tern_memcpy_async(device, 0, host, 0, BYTES, stream);
	if (!s)
		s = tern_memset_async(host, 0, 0, BYTES, stream);
	if (!s)
		s = tern_memcpy_async(host, 0, device, 0, BYTES, stream);
	if (!s)
		s = tern_stream_synchronize(stream);
	if (s)
		return fail("copy", s);
	for (size_t i = 0; i < BYTES; i++) {
		if (p[i] != (unsigned char)(i * 7 + 3)) {
			fprintf(stderr, "prog: byte %zu is %u after the round trip\n",
				i, p[i]);
			return 1;
		}
	}
	tern_stream_destroy(stream);
	tern_buffer_free(device);
	tern_buffer_free(host);
	tern_device_close(dev);
#ifdef TERN_INSTALL_UAPI
	printf("ok %lx\n", (unsigned long)DRM_IOCTL_TERN_GET_INFO);
#else
	printf("ok\n");
#endif
	return 0;
}
