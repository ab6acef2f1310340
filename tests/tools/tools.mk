# SPDX-License-Identifier: MIT
#
# Tests of tern-bench and tern-inspect. Included by tests/build.mk:
#   $(TEST_BIN)/test_tools   cmocka unit tests of the tools' parsing and
#                            verification code
#   check-tools              those, then tests/tools/run.sh: the tools'
#                            command lines on the simulator (TAP output)

# tern-inspect's snapshot, shapes and renderers, without its main().
TEST_TOOLS_INSPECT_OBJS := $(addprefix $(BUILD)/tools/inspect/, \
	common.o family.o json.o live.o print.o snapshot.o snapshot_kernel.o \
	snapshot_parse.o snapshot_sim.o text.o top_frame.o topo.o metrics.o net.o \
	values.o)
TEST_TOOLS_OBJS := $(BUILD)/tests/tools/test_tools_unit.o \
	$(BUILD)/tools/common/cli.o $(BUILD)/tools/bench/pattern.o \
	$(BUILD)/tools/bench/compute/data.o \
	$(BUILD)/tools/bench/compute/reference.o \
	$(TEST_TOOLS_INSPECT_OBJS)

USERSPACE_TARGETS += $(BUILD)/tests/test_tools

$(BUILD)/tests/tools/%.o: CFLAGS_COMMON += -Itools/common -Itools/bench \
	-Itools/bench/compute \
	-Itools/inspect $(shell pkg-config --cflags cmocka $(INSPECT_PKGS))

$(BUILD)/tests/test_tools: $(TEST_TOOLS_OBJS) $(LIBTERN_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(shell pkg-config --libs cmocka) \
		$(LIBTERN_LIBS) $(shell pkg-config --libs $(INSPECT_PKGS))

.PHONY: check-tools
check-tools: $(BUILD)/tests/test_tools $(BUILD)/tern-bench $(BUILD)/tern-inspect
	$(BUILD)/tests/test_tools
	tests/tools/run.sh $(BUILD)
