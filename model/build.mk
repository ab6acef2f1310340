# SPDX-License-Identifier: MIT
#
# The device model's objects for userspace: libtern, tern-simd, the tests
# and the fuzzers link them. tern.ko builds the same sources (driver/Kbuild).

MODEL_OBJS := $(addprefix $(BUILD)/model/, \
	tern_model.o tern_access.o tern_compute.o tern_tile.o tern_activate.o \
	tern_matmul_fpu.o \
	tern_fabric.o tern_reduce.o tern_softfloat.o tern_timing.o tern_state.o)

# What the model needs from libc beyond itself: the FPU's float32 math.
MODEL_LIBS := -lm

# The float32 arithmetic of the compute packets is one rounding per
# operation (tern_f32.h): the compiler may not fuse a multiply and an add.
$(MODEL_OBJS): CFLAGS_COMMON += -ffp-contract=off
