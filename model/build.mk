# SPDX-License-Identifier: MIT
#
# The device model's objects for userspace: libtern, tern-simd, the tests
# and the fuzzers link them. tern.ko builds the same sources (driver/Kbuild).

MODEL_OBJS := $(addprefix $(BUILD)/model/, \
	tern_model.o tern_fabric.o tern_reduce.o tern_softfloat.o tern_timing.o \
	tern_state.o)
