# SPDX-License-Identifier: MIT
#
# The fuzzers. Included by tests/build.mk:
#   $(BUILD)/tests/tern-fuzz   tern.ko's ioctl surface (tests/fuzz/ioctl/),
#                              run in a VM by tests/fuzz/vm-fuzz.sh
#   make fuzz                  a longer campaign on every kernel
#                              (tests/fuzz/campaign.sh; FUZZ_TIME, FUZZ_SEED,
#                              FUZZ_KERNELS)

TERN_FUZZ_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/fuzz/ioctl/*.c))) \
	$(BUILD)/tests/uapi/nodes.o $(BAD_PACKETS_OBJS) \
	$(addprefix $(BUILD)/model/, tern_reduce.o tern_softfloat.o)
USERSPACE_TARGETS += $(TEST_BIN)/tern-fuzz

$(BUILD)/tests/fuzz/ioctl/%.o: CFLAGS_COMMON += $(TEST_NL_CFLAGS)

$(TEST_BIN)/tern-fuzz: $(TERN_FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -pthread -o $@ $^ $(LDLIBS_DRM) $(TEST_NL_LDLIBS)

.PHONY: fuzz fuzz-ioctl
fuzz: fuzz-ioctl
fuzz-ioctl: userspace module
	BUILD="$(BUILD)" tests/fuzz/campaign.sh
