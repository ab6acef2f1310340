# SPDX-License-Identifier: MIT
#
# tern-simd: the simulated machine's process, built from simd/ (its wire
# protocol, wire.c, and its netlink encoding, netlink.c, are also linked
# into libtern) and the device model.

TERN_SIMD := $(BUILD)/tern-simd
TERN_SIMD_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard simd/*.c))) \
	$(MODEL_OBJS)

$(TERN_SIMD): $(TERN_SIMD_OBJS)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ -lpthread $(MODEL_LIBS)

USERSPACE_TARGETS += $(TERN_SIMD)
