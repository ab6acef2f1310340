# SPDX-License-Identifier: MIT
#
# The fuzzers. Included by tests/build.mk:
#   $(BUILD)/tests/tern-fuzz   tern.ko's ioctl surface (tests/fuzz/ioctl/)

TERN_FUZZ_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/fuzz/ioctl/*.c))) \
	$(BUILD)/tests/uapi/nodes.o
USERSPACE_TARGETS += $(TEST_BIN)/tern-fuzz

$(BUILD)/tests/fuzz/ioctl/%.o: CFLAGS_COMMON += $(TEST_NL_CFLAGS)

$(TEST_BIN)/tern-fuzz: $(TERN_FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -pthread -o $@ $^ $(LDLIBS_DRM) $(TEST_NL_LDLIBS)
