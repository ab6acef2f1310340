# SPDX-License-Identifier: MIT
#
# tern-inspect's end-to-end tests. Included by tests/build.mk:
#   $(BUILD)/tests/inspect/hold_memory   a client holding device memory,
#                                        running one job or MATMULs on a
#                                        core's tensor engine, for
#                                        tests/inspect/vm-inspect.sh and
#                                        tests/tools/run.sh
#   check-inspect-args                   tests/inspect/args.sh: bad command
#                                        lines, on this machine (TAP)

USERSPACE_TARGETS += $(BUILD)/tests/inspect/hold_memory

$(BUILD)/tests/inspect/hold_memory: $(BUILD)/tests/inspect/hold_memory.o $(LIBTERN_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(LIBTERN_LIBS)

.PHONY: check-inspect-args
check-inspect-args: $(BUILD)/tern-inspect
	tests/inspect/args.sh $(BUILD)
