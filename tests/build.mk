# SPDX-License-Identifier: MIT
#
# Test programs, built into $(BUILD)/tests/:
#   test_model        device model unit tests (no libtern)
#   test_fabric       fabric model unit tests
#   test_timing       timing model unit tests
#   test_modelled     modelled device time on the simulator: deterministic
#   test_softfloat    the model's integer-only float arithmetic and
#                     conversions, against the FPU
#   test_reduce       REDUCE arithmetic and packet unit tests
#   test_compute      the compute packets in the model, against references
#   test_compute_soft the same, its model computing with integers as
#                     tern.ko does (make check compares their --digest)
#   test_compute_portable  the same, MATMUL on the FPU without AVX2, as
#                     on other CPUs (its --digest is compared too)
#   test_sim_compute  the compute engines on a simulated machine
#   test_state        the device-state lists and the health rule (model)
#   schema_dump       the lists as tern.yaml names them, for
#                     tests/netlink/check_yaml.py
#   test_api          libtern argument checking on the simulator
#   test_settings     libtern's settings: nonsense refused, one wording;
#                     --readme prints the README's settings table
#   test_collectives  collectives on simulated machines, every case
#   test_ring         the simulated machine's submission ring: order across
#                     ring and socket, a ring of nonsense
#   test_sharing      processes sharing the simulated machine: two jobs on
#                     the same devices, a process killed beside a
#                     bystander, a job waiting on its own fence
#   test_net          the network seam over libfabric's tcp and shm
#   test_hosts        communicators across simulated hosts, over libfabric
#   test_comm         communicators: order across streams, sticky errors,
#                     abort, failure detection, groups
#   test_conformance  the tern.h conformance suite, any backend
#   test_compute_bits every compute instruction on millions of random
#                     elements, a digest each: the same on every backend
#   test_uapi         raw ioctl tests against the first Tern node
#   test_unload       rmmod with a job's sync_file held, bad parameters at
#                     load (own VM boot)
#   test_unplug       a mock device unbound and bound again, held open
#   test_fabric_ko    tern.ko's fabric: debugfs fault injection, netlink
#   test_tools        tern-bench and tern-inspect internals (tests/tools/)
#   tern-fuzz         the ioctl fuzzer (tests/fuzz/fuzz.mk)
#   fuzz_bootstrap    the bootstrap's protocol fuzzer: ranks one per process
#                     on the simulator under attack (tests/fuzz/bootstrap/)
# The device model fuzzer, which needs clang-14, is in tests/fuzz/model/fuzz.mk.
# `make check` runs every suite through tests/check.sh.

TEST_BIN := $(BUILD)/tests
TEST_CFLAGS := $(shell pkg-config --cflags cmocka)
TEST_LDLIBS := $(shell pkg-config --libs cmocka) $(MODEL_LIBS)
# libtern statically, with what it needs after it (libruntime/build.mk)
TEST_LIBTERN := $(LIBTERN_A)
TEST_LIBTERN_LDLIBS := $(LIBTERN_LIBS)

# The malformed packet streams (tests/common/bad_packets.h), built with
# libtern's packet builders.
BAD_PACKETS_OBJS := $(BUILD)/tests/common/bad_packets.o \
	$(BUILD)/libruntime/packets.o
TEST_MODEL_LIB := $(MODEL_OBJS)
TEST_MODEL_OBJS := $(BUILD)/tests/unit/test_model.o $(BAD_PACKETS_OBJS) \
	$(TEST_MODEL_LIB)
TEST_TIMING_OBJS := $(BUILD)/tests/unit/test_timing.o \
	$(BUILD)/libruntime/packets.o $(TEST_MODEL_LIB)
TEST_FABRIC_OBJS := $(BUILD)/tests/unit/test_fabric.o \
	$(BUILD)/model/tern_fabric.o
# References for float arithmetic (tests/common/float_ref.h).
FLOAT_REF_OBJS := $(BUILD)/tests/common/float_ref.o
TEST_SOFTFLOAT_OBJS := $(BUILD)/tests/unit/test_softfloat.o $(FLOAT_REF_OBJS) \
	$(BUILD)/model/tern_softfloat.o
TEST_REDUCE_OBJS := $(BUILD)/tests/unit/test_reduce.o $(FLOAT_REF_OBJS) \
	$(TEST_MODEL_LIB)
TEST_COMPUTE_OBJS := $(BUILD)/tests/unit/test_compute.o $(FLOAT_REF_OBJS) \
	$(TEST_MODEL_LIB)
# The model again, computing float32 with integers as tern.ko does.
SOFT_MODEL_OBJS := $(patsubst $(BUILD)/model/%,$(BUILD)/soft/model/%,$(MODEL_OBJS))
TEST_COMPUTE_SOFT_OBJS := $(BUILD)/tests/unit/test_compute.o \
	$(FLOAT_REF_OBJS) $(SOFT_MODEL_OBJS)
# And with MATMUL's blocks in plain C, as where the CPU has no AVX2.
PORTABLE_MATMUL_OBJ := $(BUILD)/portable/model/tern_matmul_fpu.o
TEST_COMPUTE_PORTABLE_OBJS := $(BUILD)/tests/unit/test_compute.o \
	$(FLOAT_REF_OBJS) $(PORTABLE_MATMUL_OBJ) \
	$(filter-out $(BUILD)/model/tern_matmul_fpu.o,$(MODEL_OBJS))
TEST_STATE_OBJS := $(BUILD)/tests/unit/test_state.o $(BUILD)/model/tern_state.o \
	$(BUILD)/model/tern_fabric.o
TEST_API_OBJS := $(BUILD)/tests/unit/test_api.o
TEST_SETTINGS_OBJS := $(BUILD)/tests/unit/test_settings.o
TEST_COLLECTIVES_OBJS := $(BUILD)/tests/unit/test_collectives.o
TEST_COMM_OBJS := $(BUILD)/tests/unit/test_comm.o
TEST_MODELLED_OBJS := $(BUILD)/tests/unit/test_modelled.o
TEST_MACHINE_OBJS := $(BUILD)/tests/unit/test_machine.o
TEST_SIM_COMPUTE_OBJS := $(BUILD)/tests/unit/test_sim_compute.o $(FLOAT_REF_OBJS)
TEST_RING_OBJS := $(BUILD)/tests/unit/test_ring.o
TEST_SHARING_OBJS := $(BUILD)/tests/unit/test_sharing.o
TEST_RANKS_OBJS := $(BUILD)/tests/unit/test_ranks.o
TEST_HOSTILE_OBJS := $(BUILD)/tests/unit/test_hostile.o
TRUST_HELPER_OBJS := $(BUILD)/tests/unit/trust_helper.o
TEST_NET_OBJS := $(BUILD)/tests/unit/test_net.o
TEST_HOSTS_OBJS := $(BUILD)/tests/unit/test_hosts.o
TEST_CONFORMANCE_OBJS := $(patsubst %.c,$(BUILD)/%.o, \
	$(sort $(wildcard tests/conformance/*.c)))
TEST_UAPI_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/uapi/*.c)))

TEST_PROGRAMS := $(TEST_BIN)/test_model $(TEST_BIN)/test_api \
	$(TEST_BIN)/test_settings \
	$(TEST_BIN)/test_collectives $(TEST_BIN)/test_comm $(TEST_BIN)/test_modelled \
	$(TEST_BIN)/test_machine $(TEST_BIN)/test_sim_compute $(TEST_BIN)/test_ring $(TEST_BIN)/test_sharing $(TEST_BIN)/test_ranks $(TEST_BIN)/test_hostile $(TEST_BIN)/trust_helper $(TEST_BIN)/test_net $(TEST_BIN)/test_hosts \
	$(TEST_BIN)/test_fabric $(TEST_BIN)/test_timing $(TEST_BIN)/test_softfloat $(TEST_BIN)/test_reduce $(TEST_BIN)/test_compute \
	$(TEST_BIN)/test_compute_soft $(TEST_BIN)/test_compute_portable \
	$(TEST_BIN)/test_state $(TEST_BIN)/schema_dump \
	$(TEST_BIN)/test_conformance $(TEST_BIN)/test_compute_bits \
	$(TEST_BIN)/test_uapi \
	$(TEST_BIN)/test_unload $(TEST_BIN)/test_unplug
USERSPACE_TARGETS += $(TEST_PROGRAMS)

$(BUILD)/tests/%.o: CFLAGS_COMMON += $(TEST_CFLAGS) -Itests/common

$(TEST_BIN)/test_model: $(TEST_MODEL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -pthread -o $@ $^ $(TEST_LDLIBS)

$(TEST_BIN)/test_timing: $(TEST_TIMING_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -pthread -o $@ $^ $(TEST_LDLIBS)

$(TEST_BIN)/test_fabric: $(TEST_FABRIC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS)

$(TEST_BIN)/test_softfloat: $(TEST_SOFTFLOAT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) -lm

$(TEST_BIN)/test_compute: $(TEST_COMPUTE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS)

$(BUILD)/soft/model/%.o: model/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -ffp-contract=off -DTERN_MODEL_SOFT_FLOAT -MMD -MP \
		-c $< -o $@

$(TEST_BIN)/test_compute_soft: $(TEST_COMPUTE_SOFT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS)

$(PORTABLE_MATMUL_OBJ): model/tern_matmul_fpu.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -ffp-contract=off -DTERN_MATMUL_PORTABLE -MMD -MP \
		-c $< -o $@

$(TEST_BIN)/test_compute_portable: $(TEST_COMPUTE_PORTABLE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS)

$(TEST_BIN)/test_reduce: $(TEST_REDUCE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) -lm

$(TEST_BIN)/test_state: $(TEST_STATE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS)

$(TEST_BIN)/schema_dump: $(BUILD)/tests/netlink/schema_dump.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^

$(TEST_BIN)/test_sim_compute: $(TEST_SIM_COMPUTE_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_api: $(TEST_API_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_settings: $(TEST_SETTINGS_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_collectives: $(TEST_COLLECTIVES_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_modelled: $(TEST_MODELLED_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_comm: $(TEST_COMM_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_machine: $(TEST_MACHINE_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_ring: $(TEST_RING_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_sharing: $(TEST_SHARING_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_ranks: $(TEST_RANKS_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_hostile: $(TEST_HOSTILE_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/trust_helper: $(TRUST_HELPER_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_net: $(TEST_NET_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_hosts: $(TEST_HOSTS_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_conformance: $(TEST_CONFORMANCE_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(TEST_LIBTERN_LDLIBS)

$(TEST_BIN)/test_compute_bits: $(BUILD)/tests/bits/compute_bits.o $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LIBTERN_LDLIBS)

# Unloads and loads tern.ko, so a VM boot of its own; reads netlink.
$(TEST_BIN)/test_unload: $(patsubst %.c,$(BUILD)/%.o, \
		$(sort $(wildcard tests/unload/*.c))) $(BUILD)/tests/uapi/util.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(LDLIBS_DRM) $(TEST_NL_LDLIBS)

# Unbinds a device; last in the VM suite.
$(TEST_BIN)/test_unplug: $(BUILD)/tests/unplug/unplug.o \
		$(addprefix $(BUILD)/tests/uapi/, util.o topology.o nodes.o)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(LDLIBS_DRM)

# The model's REDUCE kernels are the reference tern.ko's results must match,
# float_ref the compute packets'.
$(TEST_BIN)/test_uapi: $(TEST_UAPI_OBJS) $(BAD_PACKETS_OBJS) $(FLOAT_REF_OBJS) \
		$(addprefix $(BUILD)/model/, tern_reduce.o tern_softfloat.o)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -pthread -o $@ $^ $(TEST_LDLIBS) $(LDLIBS_DRM) -lm

# The bootstrap protocol fuzzer (tests/fuzz/bootstrap/): communicators of
# one rank per process on the simulator, an attacker outside and one among
# them; tests/check.sh runs it for a few seconds (fuzz/bootstrap).
TEST_FUZZ_BOOTSTRAP_OBJS := $(patsubst %.c,$(BUILD)/%.o, \
	$(sort $(wildcard tests/fuzz/bootstrap/*.c)))
USERSPACE_TARGETS += $(TEST_BIN)/fuzz_bootstrap

$(TEST_BIN)/fuzz_bootstrap: $(TEST_FUZZ_BOOTSTRAP_OBJS) $(TEST_LIBTERN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LIBTERN_LDLIBS)

include tests/tools/tools.mk
include tests/inspect/inspect.mk
include tests/fuzz/model/fuzz.mk

check:
	MAKE="$(MAKE)" BUILD="$(BUILD)" tests/check.sh

# tern.ko's fabric (tests/fabric/), with the uapi suite's ioctl helpers
# and libtern (collectives under link faults);
# root and a ring of mock devices, in the VM.
TEST_FABRIC_KO_OBJS := $(patsubst %.c,$(BUILD)/%.o, \
	$(sort $(wildcard tests/fabric/*.c))) \
	$(BUILD)/tests/uapi/util.o $(BUILD)/tests/uapi/topology.o \
	$(BUILD)/tests/uapi/nodes.o
TEST_NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0)
TEST_NL_LDLIBS := $(shell pkg-config --libs libnl-genl-3.0)
USERSPACE_TARGETS += $(TEST_BIN)/test_fabric_ko

$(BUILD)/tests/fabric/%.o: CFLAGS_COMMON += $(TEST_NL_CFLAGS)
$(BUILD)/tests/unload/netlink.o: CFLAGS_COMMON += $(TEST_NL_CFLAGS)

$(TEST_BIN)/test_fabric_ko: $(TEST_FABRIC_KO_OBJS) $(LIBTERN_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_SAN) -o $@ $^ $(TEST_LDLIBS) $(LIBTERN_LIBS) $(TEST_NL_LDLIBS)

include tests/fuzz/fuzz.mk
