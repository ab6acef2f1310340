# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# How tern-fuzz runs in a VM, for the scripts that boot one for it and for
# tests/fuzz/vm-fuzz.sh inside it:
#
#   fuzz_vm KERNEL SECONDS LOG [tern-fuzz options]
#                      boots KERNEL with FUZZ_VM_PARAMS and FUZZ_VM_APPEND
#                      and runs tests/fuzz/vm-fuzz.sh SECONDS in it, output
#                      in LOG; returns run-vm.sh's status
#   fuzz_kernel_report LOG
#                      the first line of a kernel report in LOG (for a VM
#                      that panicked before it could print a result)
#   FUZZ_KERNEL_BAD    what a kernel log must never say (extended regex)

# Four devices in a ring: peer memory and fabric faults; little memory, so
# that buffers fill it; two cores each, with small on-chip memories, so
# that tiles reach their ends and files hold little of it; a short job
# timeout, so stalled jobs end quickly.
FUZZ_VM_PARAMS=${TERN_FUZZ_PARAMS:-mock_devices=4 mock_topology=ring mock_mem_mb=32 mock_cores=2 mock_sbuf_kb=16 mock_psum_kb=4 job_timeout_ms=500}
# slub_debug poisons freed objects, so that a use after free oopses instead
# of passing unseen. oops=panic ends the VM at the first oops: the thread
# that oopsed may hold locks, and the guest would wedge rather than report.
# softlockup_panic does the same for a stuck CPU; a task blocked for 30 s
# is reported (and caught in the kernel log).
FUZZ_VM_APPEND="slub_debug=FZPU oops=panic softlockup_panic=1 sysctl.kernel.hung_task_timeout_secs=30"

FUZZ_KERNEL_BAD='WARNING:|BUG[: ]|Oops|general protection fault|refcount_t|list_(add|del) corruption|blocked for more than|detected stall|UBSAN|KASAN|Kernel panic'

fuzz_vm() {
	local kernel=$1 seconds=$2 log=$3
	shift 3
	# tern-fuzz's run, its bounded stop, the drain and the checks
	tests/vm/run-vm.sh --kernel "$kernel" --params "$FUZZ_VM_PARAMS" \
		--append "$FUZZ_VM_APPEND" --timeout $((seconds + 300)) \
		--env "TERN_TEST_BUILD=${BUILD:-build}" \
		-- tests/fuzz/vm-fuzz.sh "$seconds" "$@" >"$log" 2>&1
}

fuzz_kernel_report() {
	grep -m 1 -E "$FUZZ_KERNEL_BAD" "$1" | sed 's/^\[ *[0-9.]*\] //'
}
