#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tern-bench with one rank per process, on the simulated machine, under
# the variables torchrun and Slurm set and under Open MPI's mpirun: rank 0
# prints the table with no wrong value, the other ranks print nothing, and
# the busiest link carries the same bytes as when one process holds every
# rank; and the same across simulated hosts (-H) over libfabric's tcp. Missing or malformed launcher variables exit 2 naming them; a rank
# whose rank 0 never answers fails within its timeout. TAP output, then
# the cmocka-style summary tests/suite-lib.sh counts.
#
# Usage: tests/tools/launch.sh [BUILD_DIR]     (default: build)
set -u

build=${1:-build}
bench=$build/tern-bench
if [ ! -x "$bench" ]; then
	echo "launch.sh: $bench not found: run 'make userspace' first" >&2
	exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
trap 'rm -rf "$tmp"' EXIT
export TERN_BACKEND=sim TERN_SIM_DEVICES=4 TERN_SIM_MEM_MB=64
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID \
	SLURM_NTASKS SLURM_LOCALID SLURM_JOB_ID OMPI_COMM_WORLD_RANK \
	OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK
# A port of this run's own.
port=$((30000 + $$ % 20000))
sizes="-b 4K -e 64K -f 4 -n 2 -w 1"

# The data rows' busiest-link column.
busiest() { grep -v '^#' "$1" | awk '{ print $14 }' | tr '\n' ' '; }
# near A B: the same number of rows, each within 1% (plus a few control
# bytes): a rank reads its own ports, so its window may hold a slower
# peer's last read of the step before.
near() {
	if [ -n "$1" ] && python3 -c 'import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
sys.exit(len(a) != len(b) or any(abs(int(x) - int(y)) > int(x) // 100 + 64
                                 for x, y in zip(a, b)))' "$1" "$2"; then
		return 0
	fi
	echo "busiest link: '$1' from one process, '$2' from several"
	return 1
}

# ranks N VAR_RANK VAR_SIZE [VAR=VALUE...]: tern-bench all-reduce as N
# processes with the launcher's variables; outputs in $tmp/rank-R.
ranks() {
	n=$1 rank_var=$2 size_var=$3
	shift 3
	pids=
	r=0
	while [ "$r" -lt "$n" ]; do
		# shellcheck disable=SC2086 # $sizes is a list of options
		env "$rank_var=$r" "$size_var=$n" MASTER_PORT="$port" "$@" \
			"$bench" all-reduce $sizes >"$tmp/rank-$r" 2>"$tmp/rank-$r.err" &
		pids="$pids $!"
		r=$((r + 1))
	done
	failed=0
	for pid in $pids; do
		wait "$pid" || failed=1
	done
	port=$((port + 1))
	return $failed
}

# shellcheck disable=SC2086
"$bench" all-reduce $sizes >"$tmp/one" 2>&1
one=$(busiest "$tmp/one")

if ranks 4 RANK WORLD_SIZE; then pass "torchrun: 4 ranks exit 0"; else
	fail "torchrun: 4 ranks exit 0" "$(cat "$tmp"/rank-*.err)"; fi
check "torchrun: rank 0 prints the table, no wrong value" \
	sh -c "grep -q 'Ranks: 4, one per process (torchrun)' '$tmp/rank-0' && grep -q '^# Out of bounds values : 0 OK' '$tmp/rank-0'"
check "torchrun: the other ranks print nothing" \
	sh -c "[ ! -s '$tmp/rank-1' ] && [ ! -s '$tmp/rank-3' ] && [ ! -s '$tmp/rank-2.err' ]"
check "torchrun: the busiest link's bytes as with one process" \
	near "$one" "$(busiest "$tmp/rank-0")"

# Two simulated hosts of two ranks under torchrun's and Slurm's variables.
hosts_env="FI_PROVIDER=tcp FI_TCP_IFACE=lo TERN_SOCKET_IFNAME==lo"
sizes="-b 4K -e 64K -f 4 -n 2 -w 1 -H 2"
# shellcheck disable=SC2086 # $hosts_env is a list of assignments
if ranks 4 RANK WORLD_SIZE $hosts_env; then
	pass "torchrun -H 2: 4 ranks on 2 hosts exit 0"; else
	fail "torchrun -H 2: 4 ranks on 2 hosts exit 0" "$(cat "$tmp"/rank-*.err)"; fi
check "torchrun -H 2: rank 0's table, no wrong value" \
	sh -c "grep -q 'Ranks: 4, one per process (torchrun)' '$tmp/rank-0' && grep -q '^# Out of bounds values : 0 OK' '$tmp/rank-0'"
# shellcheck disable=SC2086
if ranks 4 SLURM_PROCID SLURM_NTASKS SLURM_JOB_ID=4243 $hosts_env; then
	pass "srun -H 2: 4 ranks on 2 hosts exit 0"; else
	fail "srun -H 2: 4 ranks on 2 hosts exit 0" "$(cat "$tmp"/rank-*.err)"; fi
sizes="-b 4K -e 64K -f 4 -n 2 -w 1"

if ranks 3 SLURM_PROCID SLURM_NTASKS SLURM_JOB_ID=4242; then
	pass "srun: 3 ranks exit 0"; else
	fail "srun: 3 ranks exit 0" "$(cat "$tmp"/rank-*.err)"; fi
check "srun: rank 0's table, no wrong value" \
	sh -c "grep -q 'one per process (srun)' '$tmp/rank-0' && grep -q '^# Out of bounds values : 0 OK' '$tmp/rank-0'"

if command -v mpirun >/dev/null; then
	root=
	[ "$(id -u)" = 0 ] && root=--allow-run-as-root
	# shellcheck disable=SC2086
	run mpirun $root --oversubscribe -np 4 -x TERN_BACKEND -x TERN_SIM_DEVICES \
		-x TERN_SIM_MEM_MB -x TERN_SIM_DIR -x TERN_SIM_DAEMON \
		-x TERN_SIM_MACHINE -x TERN_SIM_IDLE_MS -x MASTER_PORT="$port" \
		"$bench" all-reduce $sizes
	check "mpirun -np 4: one table, no wrong value" \
		sh -c "[ $rc -eq 0 ] && [ \$(grep -c 'one per process (mpirun)' '$out') -eq 1 ] && grep -q '^# Out of bounds values : 0 OK' '$out'"
	check "mpirun -np 4: the busiest link's bytes as with one process" \
		near "$one" "$(busiest "$out")"
	# Four simulated hosts of two ranks, over libfabric's tcp on loopback.
	# shellcheck disable=SC2086
	run mpirun $root --oversubscribe -np 8 -x TERN_BACKEND -x TERN_SIM_DEVICES \
		-x TERN_SIM_MEM_MB -x TERN_SIM_DIR -x TERN_SIM_DAEMON \
		-x TERN_SIM_MACHINE -x TERN_SIM_IDLE_MS -x MASTER_PORT="$((port + 1))" \
		-x FI_PROVIDER=tcp -x FI_TCP_IFACE=lo -x TERN_SOCKET_IFNAME==lo \
		"$bench" all-reduce -H 4 $sizes
	check "mpirun -np 8 -H 4: across 4 hosts, one table, no wrong value" \
		sh -c "[ $rc -eq 0 ] && [ \$(grep -c 'one per process (mpirun)' '$out') -eq 1 ] && grep -q '^# Out of bounds values : 0 OK' '$out'"
	port=$((port + 2))
else
	skip "mpirun -np 4" "no mpirun (Debian's openmpi-bin)"
	skip "mpirun -np 8 -H 4" "no mpirun (Debian's openmpi-bin)"
fi

# ---- bad launcher settings ----
usage_error() {
	name=$1 pattern=$2 vars=
	shift 2
	# VAR=VALUE... [-- OPTION...]
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars="$vars $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086 # $vars is a list of assignments
	run env $vars "$bench" all-reduce -b 4K -e 4K "$@"
	check "$name" sh -c "[ $rc -eq 2 ] && grep -q -e \"\$1\" '$err'" _ "$pattern"
}
usage_error "RANK without WORLD_SIZE" "WORLD_SIZE=(not set): expected a number from 1 to 64" RANK=1
usage_error "a rank past the world" "RANK='5': expected a number from 0 to 1" RANK=5 WORLD_SIZE=2
usage_error "SLURM_NTASKS not a number" "SLURM_NTASKS='many'" SLURM_PROCID=0 SLURM_NTASKS=many
usage_error "MASTER_PORT out of range" "MASTER_PORT='70000': expected a number from 1 to 65535" \
	RANK=0 WORLD_SIZE=2 MASTER_PORT=70000
run env RANK=0 WORLD_SIZE=2 "$bench" all-reduce -g 2
check "-g under a launcher" \
	sh -c "[ $rc -eq 2 ] && grep -q -- '-g 2: under torchrun each process is one rank on one device' '$err'"
usage_error "a local rank with no device" "local rank 7 has no device; 4 present" \
	RANK=1 WORLD_SIZE=8 LOCAL_RANK=7
usage_error "-H that does not divide the ranks" "-H 3: expected a number of hosts that divides the 4 ranks" \
	RANK=1 WORLD_SIZE=4 -- -H 3
run "$bench" all-reduce -H 2
check "-H without a launcher" \
	sh -c "[ $rc -eq 2 ] && grep -q -- '-H wants ranks from a launcher' '$err'"

run env RANK=1 WORLD_SIZE=2 MASTER_PORT="$port" TERN_COMM_INIT_TIMEOUT_MS=300 \
	"$bench" all-reduce -b 4K -e 4K
check "no rank 0 at the address: exit 1 within the timeout, saying where" \
	sh -c "[ $rc -eq 1 ] && grep -q 'rank 1: no rank 0 answered at 127.0.0.1 port $port within 300 ms' '$err'"
run env RANK=0 WORLD_SIZE=2 MASTER_PORT="$port" TERN_COMM_INIT_TIMEOUT_MS=300 \
	"$bench" all-reduce -b 4K -e 4K
check "rank 0 whose ranks never come: exit 1, how many came" \
	sh -c "[ $rc -eq 1 ] && grep -q 'rank 0: 1 of 2 ranks came to 127.0.0.1 port $port within 300 ms' '$err'"
run env RANK=1 WORLD_SIZE=2 MASTER_ADDR=no-such-host.invalid MASTER_PORT="$port" \
	TERN_COMM_INIT_TIMEOUT_MS=300 "$bench" all-reduce -b 4K -e 4K
check "MASTER_ADDR that does not resolve: exit 1, naming it" \
	sh -c "[ $rc -eq 1 ] && grep -q 'MASTER_ADDR no-such-host.invalid' '$err'"

tap_finish "tools launch"
