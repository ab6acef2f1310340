#!/bin/bash
# SPDX-License-Identifier: MIT
#
# `make check`: builds everything, runs every test suite, prints a summary
# table and, last, "check: N passed, M failed" (test cases; a failed build
# or harness step counts as one failure). Exits non-zero on any failure.
#
#   build/build-asan  make userspace, make module, make SAN=1 BUILD=build-asan userspace
#   checkpatch        the driver against the kernel's checkpatch.pl --strict
#   abi               libtern.so exports every function tern.h and
#                     tern_sim.h declare, and nothing else
#                     (tests/abi/check_exports.py)
#   compute-bits      the compute packets give the same bits computed with
#                     the FPU (with AVX2 and without) and with tern.ko's
#                     integers (test_compute, test_compute_portable and
#                     test_compute_soft --digest)
#   netlink/yaml      Documentation/netlink/tern.yaml against the device-state
#                     lists of model/tern_state.h (tests/netlink/check_yaml.py)
#   fuzz-corpus       tests/fuzz/model/gen_corpus.py --check: the model
#                     fuzzer's seeds are what it writes, and run every
#                     opcode of the uapi header; the malformed ones are
#                     those of tests/common/bad_packets.c
#   shell scripts     checked by shellcheck (step "shellcheck")
#   docs              every Documentation/*.rst parses without a warning
#                     (tests/docs/check_rst.py, docutils)
#   unit/*            test_model, test_fabric, test_timing, test_softfloat,
#                     test_reduce, test_compute,
#                     test_state, test_api, test_settings,
#                     test_collectives, test_comm, test_modelled,
#                     test_machine, test_ring, test_sharing (processes
#                     sharing the simulated machine), test_ranks,
#                     test_hostile (hostile peers of the bootstrap), test_net
#                     (libfabric's tcp and shm) and test_hosts (tcp,
#                     shm), native; unit/trust (tests/unit/test_trust.sh:
#                     a second user against the job's sockets, a loopback
#                     capture)
#   asan/*            test_model, test_fabric, test_timing, test_softfloat,
#                     test_reduce, test_compute,
#                     test_state, test_api, test_settings,
#                     test_conformance, test_collectives (short: a shape
#                     of each kind), test_comm, test_modelled,
#                     test_machine, test_ring, test_sharing (two jobs
#                     for 5 s), test_ranks, test_hostile, test_net and
#                     test_hosts (tcp-short) (simulator), under
#                     AddressSanitizer and UBSan
#   tsan/*            test_api and test_comm under ThreadSanitizer (make
#                     SAN=thread BUILD=build-tsan)
#   fuzz/bootstrap    tests/fuzz/bootstrap/: communicators of ranks one
#                     per process under an attacker outside (no secret) and
#                     one among them, for 8 s from seed 1 (a campaign picks
#                     its own; Documentation/fuzzing.rst), native
#   sim/conformance   test_conformance on the simulator, native
#   python/module     tests/python (pytest): the module tern, with numpy
#                     and torch
#   docs/settings     tests/settings/check.sh: the README's settings table
#                     is libtern's, and every TERN_* variable read is in it
#   tools/launch      tests/tools/launch.sh: tern-bench one rank per
#                     process under torchrun's, Slurm's and mpirun's settings
#   inspect/sim       tests/inspect/sim.sh: tern-inspect sim start, status
#                     and stop of simulated machines
#   fuzz-model        tests/fuzz/model/run.sh --check: the device model
#                     fuzzer, built by clang-14, for TERN_CHECK_FUZZ_TIME
#                     seconds (45) from the seed corpus with a fixed seed;
#                     SKIP without clang-14's libFuzzer
#   install           make install into a staging tree, a program built
#                     against it with pkg-config, man pages, udev rule, dkms
#   vm-6.1/*          tests/vm-suite.sh in a VM running Debian's 6.1 kernel
#   vm-6.12/*         the same on Debian 13's 6.12, when tests/vm/trixie.sh
#                     can prepare it (SKIP with the reason when it cannot)
#   vm-*/inspect      tests/inspect/vm-inspect.sh: every tern-inspect command
#                     on 16 mock devices in a 4x4 torus, module loaded by it
#   vm-*/unload       a job's sync_file kept open across rmmod tern; loads with
#                     parameters out of range fail; a device of the most
#                     engines in netlink (tests/unload/)
#   vm-*/fuzz         tests/fuzz/vm-fuzz.sh: tern-fuzz for
#                     TERN_CHECK_FUZZ_TIME seconds (45) from seed
#                     TERN_CHECK_FUZZ_SEED (1); fails on a kernel report,
#                     devices not back to where they were, or tern.ko stuck
#
# TERN_CHECK_VM=0 leaves out the VM suites (reported as SKIP). Logs go to
# $BUILD/test-logs/.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
ASAN_BUILD=${TERN_CHECK_ASAN_BUILD:-build-asan}
TSAN_BUILD=${TERN_CHECK_TSAN_BUILD:-build-tsan}
JOBS=${TERN_CHECK_JOBS:-2}
# Chips of two cores, so that the compute cases run: libtern's suites
# keep their streams to the DMA engines, as before cores.
VM_PARAMS=${TERN_CHECK_VM_PARAMS:-mock_devices=8 mock_mem_mb=64 job_timeout_ms=2000 mock_topology=ring host_mem_mb=256 mock_cores=2}
# Freed objects poisoned and redzones checked: a use after free in tern.ko
# oopses instead of passing unseen (Debian's kernel has no KASAN). Without
# U (who allocated and freed), which costs minutes; the fuzz VMs keep it.
VM_APPEND=${TERN_CHECK_VM_APPEND:-slub_debug=FZP}
VM_TIMEOUT=900
# tern-fuzz in each VM: long enough to find the races it knows, short
# enough for the suite; a fixed seed, so that a failure can be repeated.
FUZZ_TIME=${TERN_CHECK_FUZZ_TIME:-45}
FUZZ_SEED=${TERN_CHECK_FUZZ_SEED:-1}

TERN_TEST_LOGS=$BUILD/test-logs
rm -rf "$TERN_TEST_LOGS"
mkdir -p "$TERN_TEST_LOGS"
TERN_TEST_LOGS=$(cd "$TERN_TEST_LOGS" && pwd)
export TERN_TEST_LOGS
# shellcheck source=tests/suite-lib.sh
. tests/suite-lib.sh
# shellcheck source=tests/fuzz/fuzz-lib.sh
. tests/fuzz/fuzz-lib.sh

# One row per suite or step: name|status|passed|failed|skipped|note
rows=()
# Seconds per step, suite or VM boot: "seconds name", for the summary.
times=()

# timed NAME COMMAND...: runs COMMAND, recording its wall time under NAME.
timed() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" || rc=$?
	times+=("$((SECONDS - t0)) $name")
	return "$rc"
}

add_row() {
	rows+=("$1|$2|$3|$4|$5|${6:-}")
}

# Adds the row of a RESULT line, its name prefixed with $2.
add_result() {
	local name status p f s note
	read -r _ name status p f s note <<<"$1"
	add_row "$2$name" "$status" "${p#passed=}" "${f#failed=}" "${s#skipped=}" "$note"
}

# step NAME COMMAND...: a build or preparation step. Exit status 77 is a
# skip, its reason on the command's first line with "SKIP:".
step() {
	timed "$1" step_run "$@"
}

step_run() {
	local name=$1 log="$TERN_TEST_LOGS/${1//\//-}.log" rc=0
	shift
	echo "check: $name: $*"
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		add_row "$name" PASS - - -
		return 0
	fi
	if [ "$rc" = 77 ]; then
		add_row "$name" SKIP - - - "$(sed -n 's/.*SKIP: *//p' "$log" | head -n 1)"
		return 0
	fi
	add_row "$name" FAIL - 1 - "see $log"
	tail -n 25 "$log" | sed 's/^/    | /'
	return 1
}

suite() {
	timed "$1" suite_run "$@"
}

suite_run() {
	local output
	output=$(run_suite "$@")
	printf '%s\n' "$output"
	add_result "$(head -n 1 <<<"$output")" ""
}

# vm_suites KERNEL [NAME PARAMS SUITES]: tests/vm-suite.sh in a VM, one row
# per suite in it, named NAME/SUITE (default vm-KERNEL); tern.ko loaded with
# PARAMS (default VM_PARAMS); only SUITES if given (TERN_TEST_SUITES).
vm_suites() {
	local kernel=$1 name=${2:-vm-$1} params=${3:-$VM_PARAMS} only=${4:-}
	local log="$TERN_TEST_LOGS/$name.log" rc=0 line found=0 note
	echo "check: $name: tests/vm/run-vm.sh --kernel $kernel --params \"$params\" --append \"$VM_APPEND\"${only:+ (suites $only)}"
	tests/vm/run-vm.sh --kernel "$kernel" --params "$params" --append "$VM_APPEND" \
		--timeout "$VM_TIMEOUT" --env "TERN_TEST_BUILD=$BUILD" \
		--env "TERN_TEST_SUITES=$only" \
		-- tests/vm-suite.sh >"$log" 2>&1 || rc=$?
	while IFS= read -r line; do
		echo "RESULT $name/${line#RESULT }"
		add_result "$line" "$name/"
		found=1
	done < <(grep '^RESULT ' "$log")
	if [ "$found" = 0 ]; then
		note=$(grep -E '^(run-vm|tern-vm):' "$log" | tail -n 1)
		add_row "$name" FAIL - 1 - "no results, run-vm exit $rc: ${note:-see $log}"
		tail -n 25 "$log" | sed 's/^/    | /'
		return
	fi
	# The suites passed but the kernel warned, oopsed or kept tern.ko.
	note=$(grep -E '^tern-vm: .*(could not be unloaded|WARN or oops)' "$log" | tail -n 1)
	if [ -n "$note" ] || { [ "$rc" != 0 ] && ! grep -q '^vm-suite: .* [1-9][0-9]* failed$' "$log"; }; then
		add_row "$name/kernel" FAIL - 1 - "${note:-run-vm exit $rc}"
		grep -A 20 '^tern-vm: kernel messages' "$log" | sed 's/^/    | /'
	fi
}

# vm_result KERNEL NAME LOG STATUS: the row of a VM run (run-vm.sh exit
# STATUS, output in LOG) whose command prints one RESULT line, as the TAP
# scripts do: that result, plus a vm-KERNEL/NAME-kernel row when it passed
# but run-vm failed (the kernel warned or oopsed, or tern.ko stayed). A VM
# that died before the result (a panic) fails with the kernel's report.
vm_result() {
	local kernel=$1 name=$2 log=$3 rc=$4 line report
	line=$(grep '^RESULT ' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		report=$(fuzz_kernel_report "$log")
		add_row "vm-$kernel/$name" FAIL - 1 - "no result, run-vm exit $rc${report:+: $report}: see $log"
		grep -m 1 -B 2 -A 25 -E "$FUZZ_KERNEL_BAD" "$log" | sed 's/^/    | /' ||
			tail -n 25 "$log" | sed 's/^/    | /'
		return
	fi
	echo "RESULT vm-$kernel/${line#RESULT }"
	add_result "$line" "vm-$kernel/"
	if grep -q "^RESULT $name FAIL" <<<"$line"; then
		grep -A 12 '^not ok' "$log" | head -n 40 | sed 's/^/    | /'
	elif [ "$rc" != 0 ]; then
		add_row "vm-$kernel/$name-kernel" FAIL - 1 - "run-vm exit $rc (kernel warned or oopsed): see $log"
	fi
}

# vm_inspect KERNEL: tests/inspect/vm-inspect.sh in a VM that starts
# without tern.ko; the test loads it (16 devices, torus:4x4) with
# tern-inspect module load and unloads it at the end.
vm_inspect() {
	local kernel=$1 log="$TERN_TEST_LOGS/vm-$1-inspect.log" rc=0
	echo "check: vm-$kernel/inspect: tests/vm/run-vm.sh --kernel $kernel --no-module -- tests/inspect/vm-inspect.sh"
	tests/vm/run-vm.sh --kernel "$kernel" --no-module --timeout "$VM_TIMEOUT" \
		--env "TERN_TEST_BUILD=$BUILD" -- tests/inspect/vm-inspect.sh \
		>"$log" 2>&1 || rc=$?
	vm_result "$kernel" inspect "$log" "$rc"
}

# vm_fuzz KERNEL: tern-fuzz for FUZZ_TIME seconds from a fixed seed in a
# VM of its own (tests/fuzz/vm-fuzz.sh, settings in tests/fuzz/fuzz-lib.sh).
vm_fuzz() {
	local kernel=$1 log="$TERN_TEST_LOGS/vm-$1-fuzz.log" rc=0
	echo "check: vm-$kernel/fuzz: tests/fuzz/vm-fuzz.sh $FUZZ_TIME --seed $FUZZ_SEED" \
		"(tern.ko $FUZZ_VM_PARAMS)"
	fuzz_vm "$kernel" "$FUZZ_TIME" "$log" --seed "$FUZZ_SEED" || rc=$?
	vm_result "$kernel" fuzz "$log" "$rc"
}

# vm_unload KERNEL: tests/unload/ in a VM boot of its own
# that keeps tern.ko loaded for it: the test unloads it.
vm_unload() {
	local kernel=$1 log="$TERN_TEST_LOGS/vm-$1-unload.log" rc=0 p f s status note=""
	echo "check: vm-$kernel/unload: tests/vm/run-vm.sh --kernel $kernel --keep-module -- $BUILD/tests/test_unload"
	tests/vm/run-vm.sh --kernel "$kernel" --keep-module --params "$VM_PARAMS" \
		--append "$VM_APPEND" --timeout 300 -- "$BUILD/tests/test_unload" \
		>"$log" 2>&1 || rc=$?
	read -r p f s <<<"$(cmocka_counts "$log")"
	status=PASS
	if [ "$rc" != 0 ] || [ "$f" != 0 ] || [ "$p" = 0 ]; then
		status=FAIL
		[ "$f" != 0 ] || f=1
		note="run-vm exit $rc: see $log"
		tail -n 25 "$log" | sed 's/^/    | /'
	fi
	echo "RESULT vm-$kernel/unload $status passed=$p failed=$f skipped=$s"
	add_row "vm-$kernel/unload" "$status" "$p" "$f" "$s" "$note"
}

vm_skip() {
	add_row "$1" SKIP - - - "$2"
}

start=$(date +%s)

# ---- builds ----
built=1
# -k: one broken program does not keep the other suites from running.
step build "$MAKE" -k -j"$JOBS" BUILD="$BUILD" userspace || built=0
step build-module "$MAKE" module || true
step build-asan "$MAKE" -k -j"$JOBS" SAN=1 BUILD="$ASAN_BUILD" userspace || true
# The threads of the API and of the communicators (watchdog, teams,
# groups) under ThreadSanitizer; the collective matrix is too slow there.
step build-tsan "$MAKE" -k -j"$JOBS" SAN=thread BUILD="$TSAN_BUILD" \
	"$TSAN_BUILD/tests/test_api" "$TSAN_BUILD/tests/test_comm" || true
step checkpatch env BUILD="$BUILD" tests/checkpatch.sh || true
step abi python3 tests/abi/check_exports.py "$BUILD" || true
step netlink/yaml tests/netlink/check_yaml.py "$BUILD/tests/schema_dump" || true
step fuzz-corpus python3 tests/fuzz/model/gen_corpus.py --check || true
# shellcheck disable=SC2046 # one file name per word
step shellcheck shellcheck -x $(git ls-files '*.sh' 2>/dev/null || find tests tools -name '*.sh') \
	.ci/run .ci/install-deps || true
step docs python3 tests/docs/check_rst.py Documentation/*.rst || true
[ "$built" = 1 ] || echo "check: the userspace build failed; its suites will fail too"

# ---- native and sanitizer suites ----
# The suites set their machines' shapes and algorithms themselves; what a
# user's shell carries (TERN_SIM_DATA=off, say) would change the answers.
unset TERN_ALGO TERN_SIM_CLOCK TERN_SIM_DATA TERN_SIM_DEVICES \
	TERN_SIM_TOPOLOGY TERN_SIM_JOB_TIMEOUT_MS
export TERN_BACKEND=sim TERN_SIM_MEM_MB=64
# The suites' simulated machines: their own directory, one machine per
# shape (TERN_SIM_MACHINE=auto), gone a few seconds after their last use.
TERN_SIM_DIR=$(mktemp -d /tmp/tern-check.XXXXXX)
NATIVE_SIM_DIR=$TERN_SIM_DIR
export TERN_SIM_DIR TERN_SIM_MACHINE=auto TERN_SIM_IDLE_MS=3000
export TERN_SIM_DAEMON=$PWD/$BUILD/tern-simd
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
suite unit/model "$BUILD/tests/test_model"
suite unit/fabric "$BUILD/tests/test_fabric"
suite unit/timing "$BUILD/tests/test_timing"
suite unit/softfloat "$BUILD/tests/test_softfloat"
suite unit/reduce "$BUILD/tests/test_reduce"
suite unit/compute "$BUILD/tests/test_compute"
# shellcheck disable=SC2016 # the inner shell expands them
step compute-bits sh -c 'a=$("$1" --digest) && b=$("$2" --digest) &&
	c=$("$3" --digest) && echo "FPU:      $a" && echo "portable: $c" &&
	echo "integers: $b" && [ "$a" = "$b" ] && [ "$c" = "$b" ]' - \
	"$BUILD/tests/test_compute" "$BUILD/tests/test_compute_soft" \
	"$BUILD/tests/test_compute_portable" || true
suite unit/state "$BUILD/tests/test_state"
suite unit/api "$BUILD/tests/test_api"
suite unit/settings "$BUILD/tests/test_settings"
suite unit/collectives "$BUILD/tests/test_collectives"
suite unit/comm "$BUILD/tests/test_comm"
suite unit/modelled "$BUILD/tests/test_modelled"
suite unit/machine "$BUILD/tests/test_machine"
suite unit/sim-compute "$BUILD/tests/test_sim_compute"
suite unit/ring "$BUILD/tests/test_ring"
suite unit/sharing "$BUILD/tests/test_sharing"
suite unit/ranks "$BUILD/tests/test_ranks"
suite unit/trust tests/unit/test_trust.sh "$BUILD"
suite unit/hostile "$BUILD/tests/test_hostile"
suite unit/net "$BUILD/tests/test_net"
suite unit/hosts-tcp "$BUILD/tests/test_hosts" tcp
suite unit/hosts-shm "$BUILD/tests/test_hosts" shm
# The bootstrap's protocol fuzzer: a fixed seed, so that CI tries the same
# plans each time (random seeds are for campaigns).
suite fuzz/bootstrap "$BUILD/tests/fuzz_bootstrap" --seed 1 --seconds 8
# The Python module, under Debian's python3 (the one python3-torch is for).
suite python/module env PYTHONPATH="$BUILD/python" /usr/bin/python3 -m pytest \
	-q -p no:cacheprovider tests/python
# The sanitizer suites' machine is a sanitizer build too, in a directory
# of its own so that no native machine is shared with them.
TERN_SIM_DIR=$(mktemp -d /tmp/tern-check.XXXXXX)
ASAN_SIM_DIR=$TERN_SIM_DIR
TERN_SIM_DAEMON=$PWD/$ASAN_BUILD/tern-simd
suite asan/model "$ASAN_BUILD/tests/test_model"
suite asan/fabric "$ASAN_BUILD/tests/test_fabric"
suite asan/timing "$ASAN_BUILD/tests/test_timing"
suite asan/softfloat "$ASAN_BUILD/tests/test_softfloat"
suite asan/reduce "$ASAN_BUILD/tests/test_reduce"
suite asan/compute "$ASAN_BUILD/tests/test_compute"
suite asan/state "$ASAN_BUILD/tests/test_state"
suite asan/api "$ASAN_BUILD/tests/test_api"
suite asan/settings "$ASAN_BUILD/tests/test_settings"
suite asan/conformance env TERN_SIM_CORES=2 "$ASAN_BUILD/tests/test_conformance"
suite asan/collectives "$ASAN_BUILD/tests/test_collectives" short
suite asan/comm "$ASAN_BUILD/tests/test_comm"
suite asan/modelled "$ASAN_BUILD/tests/test_modelled"
suite asan/machine "$ASAN_BUILD/tests/test_machine"
suite asan/sim-compute "$ASAN_BUILD/tests/test_sim_compute"
suite asan/ring "$ASAN_BUILD/tests/test_ring"
suite asan/sharing env TERN_TEST_SECONDS=5 "$ASAN_BUILD/tests/test_sharing"
suite asan/ranks "$ASAN_BUILD/tests/test_ranks"
suite asan/hostile "$ASAN_BUILD/tests/test_hostile"
suite asan/net "$ASAN_BUILD/tests/test_net"
suite asan/hosts-tcp "$ASAN_BUILD/tests/test_hosts" tcp-short
suite asan/tools tests/tools/run.sh "$ASAN_BUILD"
TERN_SIM_DIR=$NATIVE_SIM_DIR
TERN_SIM_DAEMON=$PWD/$BUILD/tern-simd
suite tsan/api "$TSAN_BUILD/tests/test_api"
suite tsan/comm "$TSAN_BUILD/tests/test_comm"
suite sim/conformance env TERN_SIM_CORES=2 "$BUILD/tests/test_conformance"
suite unit/tools "$BUILD/tests/test_tools"
suite docs/settings tests/settings/check.sh "$BUILD"
suite tools/cli tests/tools/run.sh "$BUILD"
suite tools/launch tests/tools/launch.sh "$BUILD"
suite inspect/args tests/inspect/args.sh "$BUILD"
suite inspect/sim tests/inspect/sim.sh "$BUILD"
unset TERN_BACKEND TERN_SIM_MEM_MB ASAN_OPTIONS UBSAN_OPTIONS
unset TERN_SIM_MACHINE TERN_SIM_IDLE_MS TERN_SIM_DAEMON TERN_SIM_DIR
rm -rf "$NATIVE_SIM_DIR" "$ASAN_SIM_DIR"
step fuzz-model env MAKE="$MAKE" BUILD="$BUILD" tests/fuzz/model/run.sh --check \
	--time "${TERN_CHECK_FUZZ_TIME:-45}" || true

# ---- tern.ko in VMs ----
if [ "${TERN_CHECK_VM:-1}" = 0 ]; then
	vm_skip vm-6.1 "TERN_CHECK_VM=0"
	vm_skip vm-6.12 "TERN_CHECK_VM=0"
else
	timed vm-6.1/suites vm_suites 6.1
	timed vm-6.1/inspect vm_inspect 6.1
	timed vm-6.1/unload vm_unload 6.1
	timed vm-6.1/fuzz vm_fuzz 6.1
	if [ ! -x tests/vm/trixie.sh ]; then
		vm_skip vm-6.12 "no tests/vm/trixie.sh"
	elif ! tests/vm/trixie.sh prepare >"$TERN_TEST_LOGS/trixie-prepare.log" 2>&1; then
		vm_skip vm-6.12 "tests/vm/trixie.sh prepare failed: $(grep -m 1 'FAILED' "$TERN_TEST_LOGS/trixie-prepare.log" || tail -n 1 "$TERN_TEST_LOGS/trixie-prepare.log")"
	elif step build-module-6.12 tests/vm/trixie.sh module; then
		timed vm-6.12/suites vm_suites 6.12
		timed vm-6.12/inspect vm_inspect 6.12
		timed vm-6.12/unload vm_unload 6.12
		timed vm-6.12/fuzz vm_fuzz 6.12
	fi
fi

# ---- installing ----
# After the VMs: with build/trixie prepared, its udevadm verifies the udev
# rule (Debian 12's has no verify).
suite install tests/install/run.sh "$BUILD"

# ---- summary ----
total_passed=0
total_failed=0
echo
echo "check: summary ($(($(date +%s) - start)) s, logs in $TERN_TEST_LOGS)"
printf '  %-28s %-6s %7s %7s %8s  %s\n' suite result passed failed skipped note
for row in "${rows[@]}"; do
	IFS='|' read -r name status p f s note <<<"$row"
	printf '  %-28s %-6s %7s %7s %8s  %s\n' "$name" "$status" "$p" "$f" "$s" "$note"
	[ "$p" = - ] || total_passed=$((total_passed + p))
	[ "$f" = - ] || total_failed=$((total_failed + f))
done
echo "check: the slowest, in seconds:"
printf '%s\n' "${times[@]}" | sort -rn | head -n 12 | sed 's/^/  /'
echo "check: $total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
