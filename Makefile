# SPDX-License-Identifier: MIT
#
# make            tern.ko (against KDIR) and all userspace into build/
# make module     tern.ko only          make userspace   libtern, tools, tests
# make check      every test suite, with a pass/fail summary at the end
# make fuzz       a tern-fuzz campaign on tern.ko, a VM per kernel (FUZZ_TIME,
#                 FUZZ_SEED, FUZZ_KERNELS, FUZZ_ARGS; tests/fuzz/fuzz.mk)
# make install    libtern, headers, tern.pc, tools, man pages, udev rule
#                 (DESTDIR, PREFIX=/usr/local; install.mk); make uninstall
# make install-dkms  tern.ko's sources for dkms in /usr/src/tern-VERSION
# make clean      all but the cached trixie chroot; make distclean: all

# Kernel to build tern.ko against: the running kernel's headers if present,
# otherwise the newest installed Debian headers.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	  $(lastword $(sort $(wildcard /lib/modules/*/build))))

BUILD ?= build
SAN ?=

# The project's version: libtern's file name, tern.pc, dkms.conf, tern.ko.
TERN_VERSION := $(strip $(file < VERSION))

CC ?= cc
CFLAGS_COMMON := -fPIC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g \
	-fvisibility=hidden -Iuapi/drm -Ilibruntime -Imodel -Isimd \
	$(shell pkg-config --cflags libdrm)
ifeq ($(SAN),1)
CFLAGS_COMMON += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LDFLAGS_SAN := -fsanitize=address,undefined
endif
ifeq ($(SAN),thread)
CFLAGS_COMMON += -O1 -fsanitize=thread
LDFLAGS_SAN := -fsanitize=thread
endif
LDLIBS_DRM := $(shell pkg-config --libs libdrm)

.PHONY: all module userspace clean distclean check
all: module userspace

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: install linux-headers-amd64 or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

include model/build.mk
include libruntime/build.mk
include simd/build.mk
include tools/build.mk
include python/build.mk
include tests/build.mk
include install.mk

userspace: $(USERSPACE_TARGETS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

# build/trixie holds a whole chroot (tests/vm/trixie.sh): not ours to scan.
-include $(shell find $(BUILD) -path $(BUILD)/trixie -prune -o -name '*.d' -type f -print 2>/dev/null)

# clean keeps build/trixie, the cached Debian 13 chroot (a minute to make).
clean:
	find build -mindepth 1 -maxdepth 1 ! -name trixie -exec rm -rf {} + 2>/dev/null || true
	rm -rf build-*
	@if [ -n "$(KDIR)" ] && [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi

distclean: clean
	rm -rf build
