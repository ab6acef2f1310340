#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make fuzz: a tern-fuzz campaign on each kernel, one VM boot each
# (tests/fuzz/vm-fuzz.sh, settings in tests/fuzz/fuzz-lib.sh). Prints, per
# kernel, tern-fuzz's table of calls and errnos, its totals, and the
# kernel's verdict (with the kernel's report when it failed); last a
# summary. Exits 1 if any kernel failed.
#
#   FUZZ_TIME=SECONDS   per kernel (default 600)
#   FUZZ_SEED=N         master seed (default: a random one, printed)
#   FUZZ_KERNELS=LIST   default "6.1 6.12"; 6.12 is prepared with
#                       tests/vm/trixie.sh (skipped if it cannot be)
#   FUZZ_ARGS="..."     more tern-fuzz options, e.g. "--procs 4" or
#                       "--skip TERN_QUEUE_DESTROY"
#   TERN_FUZZ_PARAMS    tern.ko's parameters instead of fuzz-lib.sh's
# Logs: $BUILD/fuzz-logs/fuzz-KERNEL.log (BUILD, default build).
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
seconds=${FUZZ_TIME:-600}
seed=${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
kernels=${FUZZ_KERNELS:-6.1 6.12}
read -r -a extra <<<"${FUZZ_ARGS:-}"
logs=$BUILD/fuzz-logs
mkdir -p "$logs"
# shellcheck source=tests/fuzz/fuzz-lib.sh
. tests/fuzz/fuzz-lib.sh

[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz: FUZZ_TIME: not a number: $seconds" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "fuzz: FUZZ_SEED: not a number: $seed" >&2; exit 2; }
echo "fuzz: seed $seed, $seconds s per kernel on $kernels; tern.ko $FUZZ_VM_PARAMS;" \
	"logs in $logs"

summary=()
failed=0
for kernel in $kernels; do
	log=$logs/fuzz-$kernel.log
	if [ "$kernel" = 6.12 ] && ! tests/vm/trixie.sh >"$logs/trixie.log" 2>&1; then
		summary+=("$kernel SKIP tests/vm/trixie.sh failed (see $logs/trixie.log)")
		continue
	fi
	echo
	echo "fuzz: $kernel: tests/fuzz/vm-fuzz.sh $seconds --seed $seed ${extra[*]}"
	rc=0
	fuzz_vm "$kernel" "$seconds" "$log" --seed "$seed" "${extra[@]}" || rc=$?
	sed -n '/^---- tern-fuzz statistics ----$/,/^tern-fuzz: [0-9]* calls in/p' "$log"
	grep -E '^tern-fuzz: .*(died|stuck|did not|FAILED)' "$log"
	result=$(grep '^RESULT fuzz ' "$log" | tail -n 1)
	totals=$(sed -n 's/^RESULT fuzz [A-Z]* .* seed=//p' <<<"$result")
	if [ "$rc" = 0 ] && grep -q '^RESULT fuzz PASS' <<<"$result"; then
		summary+=("$kernel PASS seed=$totals")
		continue
	fi
	failed=1
	if [ -z "$result" ]; then
		why="the VM died: $(fuzz_kernel_report "$log")"
	elif grep -q '^RESULT fuzz FAIL' <<<"$result"; then
		why=$(grep '^not ok' "$log" | sed 's/^not ok [0-9]* - //' | paste -sd ';' -)
	else
		why=$(grep -E '^tern-vm: .*(could not be unloaded|WARN or oops)' "$log" | tail -n 1)
	fi
	summary+=("$kernel FAIL ${why:-run-vm exit $rc} (seed $seed)")
	echo "fuzz: $kernel: the kernel's report:"
	grep -m 1 -B 2 -A 40 -E "$FUZZ_KERNEL_BAD" "$log" | sed 's/^/    | /'
done

echo
echo "fuzz: summary (seed $seed, $seconds s per kernel)"
printf '  %s\n' "${summary[@]}"
exit "$failed"
