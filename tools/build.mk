# SPDX-License-Identifier: MIT
#
# tern-bench and tern-inspect, into $(BUILD)/. Both link libtern statically
# ($(LIBTERN_A) and what it needs, from libruntime/build.mk), so they run
# from the build tree or any install prefix without a library path.

TOOLS_COMMON_OBJS := $(BUILD)/tools/common/cli.o
TERN_BENCH_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tools/bench/*.c \
	tools/bench/compute/*.c)))
TERN_INSPECT_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tools/inspect/*.c)))

TOOLS_PROGRAMS := $(BUILD)/tern-bench $(BUILD)/tern-inspect
USERSPACE_TARGETS += $(TOOLS_PROGRAMS)

$(BUILD)/tools/%.o: CFLAGS_COMMON += -Itools/common

# tern-bench's compute tests (tools/bench/compute/) measure OpenBLAS's
# sgemm beside the device, as their peer.
BENCH_PKGS := openblas
$(BUILD)/tools/bench/compute/%.o: CFLAGS_COMMON += -Itools/bench \
	$(shell pkg-config --cflags $(BENCH_PKGS))

$(BUILD)/tern-bench: $(TERN_BENCH_OBJS) $(TOOLS_COMMON_OBJS) $(LIBTERN_A)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(LIBTERN_LIBS) \
		$(shell pkg-config --libs $(BENCH_PKGS))

# tern-inspect reads tern.ko through netlink (libnl-genl-3) and libkmod.
INSPECT_PKGS := libnl-genl-3.0 libkmod
$(BUILD)/tools/inspect/%.o: CFLAGS_COMMON += $(shell pkg-config --cflags $(INSPECT_PKGS))

$(BUILD)/tern-inspect: $(TERN_INSPECT_OBJS) $(TOOLS_COMMON_OBJS) $(LIBTERN_A)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(LIBTERN_LIBS) \
		$(shell pkg-config --libs $(INSPECT_PKGS))

.PHONY: tools
tools: $(TOOLS_PROGRAMS)
