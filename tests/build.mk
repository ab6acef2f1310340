# SPDX-License-Identifier: MIT
#
# Test programs, built into $(BUILD)/tests/:
#   test_model        device model unit tests (no libtern)
#   test_api          libtern argument checking on the simulator
#   test_conformance  the tern.h conformance suite, any backend
#   test_uapi         raw ioctl tests against the first Tern node
#   test_tools        tern-bench and tern-inspect internals (tests/tools/)
# `make check` runs every suite through tests/check.sh.

TEST_BIN := $(BUILD)/tests
TEST_CFLAGS := $(shell pkg-config --cflags cmocka)
TEST_LDLIBS := $(shell pkg-config --libs cmocka)
# libtern statically, with what it needs after it (libruntime/build.mk)
TEST_LIBTERN := $(LIBTERN_A)
TEST_LIBTERN_LDLIBS := $(LIBTERN_LIBS)

TEST_MODEL_OBJS := $(BUILD)/tests/unit/test_model.o \
	$(BUILD)/driver/model/tern_model.o
TEST_API_OBJS := $(BUILD)/tests/unit/test_api.o
TEST_CONFORMANCE_OBJS := $(patsubst %.c,$(BUILD)/%.o, \
	$(sort $(wildcard tests/conformance/*.c)))
TEST_UAPI_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/uapi/*.c)))

TEST_PROGRAMS := $(TEST_BIN)/test_model $(TEST_BIN)/test_api \
	$(TEST_BIN)/test_conformance $(TEST_BIN)/test_uapi
USERSPACE_TARGETS += $(TEST_PROGRAMS)

$(BUILD)/tests/%.o: CFLAGS_COMMON += $(TEST_CFLAGS)

$(TEST_BIN)/test_model: $(TEST_MODEL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS)

$(TEST_BIN)/test_api: $(TEST_API_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_conformance: $(TEST_CONFORMANCE_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_uapi: $(TEST_UAPI_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(LDLIBS_DRM)

include tests/tools/tools.mk

check:
	MAKE="$(MAKE)" BUILD="$(BUILD)" tests/check.sh
