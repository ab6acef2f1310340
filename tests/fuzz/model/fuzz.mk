# SPDX-License-Identifier: MIT
#
# The device model fuzzer (Documentation/fuzzing.rst). Included by
# tests/build.mk; not part of `make userspace`, as it needs clang:
#   fuzz-model       $(FUZZ_MODEL): the libFuzzer harness with the model
#                    compiled again by $(FUZZ_CC), under ASan and UBSan
#   fuzz-model-run   fuzzes a copy of the corpus in $(BUILD)/fuzz/run/ for
#                    FUZZ_TIME seconds; FUZZ_ARGS go to libFuzzer
# Without clang-14 and libFuzzer both say so and do nothing else.

FUZZ_CC ?= clang-14
FUZZ_TIME ?= 60
FUZZ_ARGS ?=
FUZZ_MODEL := $(BUILD)/fuzz/fuzz_model
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g \
	-fno-omit-frame-pointer -ffp-contract=off -DTERN_FLOAT_COST=32 \
	$(FUZZ_SAN) \
	-fsanitize=fuzzer-no-link \
	-Iuapi/drm -Imodel $(shell pkg-config --cflags libdrm)
# The model's sources, as test_model links them, and the harness.
FUZZ_MODEL_OBJS := $(patsubst $(BUILD)/%,$(BUILD)/fuzz/obj/%,$(TEST_MODEL_LIB)) \
	$(BUILD)/fuzz/obj/tests/fuzz/model/fuzz_model.o \
	$(BUILD)/fuzz/obj/tests/fuzz/model/fuzz_compute.o

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_MODEL): $(FUZZ_MODEL_OBJS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(MODEL_LIBS)

.PHONY: fuzz-model fuzz-model-run
fuzz-model:
	@if FUZZ_CC="$(FUZZ_CC)" tests/fuzz/model/run.sh --probe; then \
		$(MAKE) --no-print-directory $(FUZZ_MODEL); fi

fuzz-model-run:
	@MAKE="$(MAKE)" BUILD="$(BUILD)" FUZZ_CC="$(FUZZ_CC)" \
		tests/fuzz/model/run.sh --time "$(FUZZ_TIME)" -- $(FUZZ_ARGS)
