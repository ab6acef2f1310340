#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark, not a test: tern-bench all-reduce on the simulator against
# Open MPI's MPI_Allreduce (Debian's openmpi-bin) with the same rank counts
# and sizes, measured side by side in one run on this machine. Prints, per
# rank count and size, both times and bus bandwidths (float sum, out of
# place) and the ratio Open MPI time / Tern time (above 1: Tern is faster).
#
#   tools/compare/allreduce-vs-mpi.sh [RANKS...]     default: 2 4 8 16
#   tools/compare/allreduce-vs-mpi.sh -H HOSTS [RANKS...]
#
# With -H, across HOSTS simulated hosts (tern-bench -H under mpirun, over
# libfabric's tcp provider on the loopback) against MPI_Allreduce over
# Open MPI's tcp transport (btl tcp,self on lo: no shared memory), the same
# processes; then libfabric's own fi_pingpong over tcp, the transport's
# floor (latency and bandwidth of one message each way).
#
# Needs: openmpi-bin libopenmpi-dev (apt-get install), `make userspace`.
# Sizes: TERN_COMPARE_MIN / TERN_COMPARE_MAX bytes (default 8 / 32M), by
# factors of TERN_COMPARE_FACTOR (default 4); TERN_COMPARE_ITERS (20).
# Tern's time is the host's clock around the iterations (tern-bench's wall
# column), as MPI_Wtime() is; TERN_COMPARE_CLOCK=engine takes the engines'
# clock between events instead (TERN_SIM_CLOCK=wall), as this script did
# before tern-bench had a wall column.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
min=${TERN_COMPARE_MIN:-8}
max=${TERN_COMPARE_MAX:-33554432}
factor=${TERN_COMPARE_FACTOR:-4}
iters=${TERN_COMPARE_ITERS:-20}
case ${TERN_COMPARE_CLOCK:-wall} in
wall) tcol=16 bcol=17 clock=model ;;
engine) tcol=6 bcol=8 clock=wall ;;
*) echo "allreduce-vs-mpi: TERN_COMPARE_CLOCK takes wall or engine" >&2; exit 2 ;;
esac
hosts=0
if [ "${1:-}" = -H ]; then
	hosts=${2:?-H wants a number of hosts}
	shift 2
fi
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 4 8 16)

if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
	echo "allreduce-vs-mpi: needs Open MPI: apt-get install openmpi-bin libopenmpi-dev" >&2
	exit 2
fi
[ -x "$BUILD/tern-bench" ] || { echo "allreduce-vs-mpi: run make userspace first" >&2; exit 2; }
mkdir -p "$BUILD/compare"
mpicc -O2 -std=c11 -o "$BUILD/compare/mpi_allreduce" tools/compare/mpi_allreduce.c

echo "# all-reduce, float sum, out of place, busbw in GB/s (nccl-tests definition)"
echo "# machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
if [ "$hosts" -gt 0 ]; then
	echo "# tern: $hosts simulated hosts (tern-bench -H), libfabric tcp on lo; Open MPI: btl tcp,self on lo"
else
	echo "# tern: simulator (TERN_SIM_TOPOLOGY auto: torus KxK when ranks = K*K, else ring)"
fi
printf '%6s %13s %12s %12s %12s %12s %8s\n' ranks size tern-us mpi-us \
	tern-busbw mpi-busbw ratio
# tern_run N: "size time busbw" rows of tern-bench all-reduce on N ranks.
tern_run() {
	local n=$1 mem=$(( (max * 6) / 1048576 + 64 ))
	local args=(all-reduce -b "$min" -e "$max" -f "$factor" -n "$iters" -w 2 -d float -o sum)

	if [ "$hosts" -gt 0 ]; then
		TERN_BACKEND=sim TERN_SIM_MACHINE=compare-$n TERN_SIM_CLOCK=$clock \
			TERN_SIM_DEVICES=$((n / hosts)) TERN_SIM_MEM_MB=$mem \
			FI_PROVIDER=tcp FI_TCP_IFACE=lo TERN_SOCKET_IFNAME='=lo' \
			mpirun --allow-run-as-root --oversubscribe -np "$n" \
			-x TERN_BACKEND -x TERN_SIM_MACHINE -x TERN_SIM_CLOCK \
			-x TERN_SIM_DEVICES -x TERN_SIM_MEM_MB -x FI_PROVIDER \
			-x FI_TCP_IFACE -x TERN_SOCKET_IFNAME \
			"$BUILD/tern-bench" "${args[@]}" -H "$hosts"
	else
		TERN_BACKEND=sim TERN_SIM_MACHINE=auto TERN_SIM_CLOCK=$clock \
			TERN_SIM_DEVICES=$n TERN_SIM_MEM_MB=$mem \
			"$BUILD/tern-bench" "${args[@]}"
	fi | awk -v t="$tcol" -v b="$bcol" '!/^#/ && NF >= 17 { print $1, $t, $b }'
}
# mpi_run N: the same rows of MPI_Allreduce on N processes.
mpi_run() {
	local mca=()

	[ "$hosts" -gt 0 ] && mca=(--mca btl 'tcp,self' --mca btl_tcp_if_include lo)
	mpirun --allow-run-as-root --oversubscribe -np "$1" "${mca[@]}" \
		"$BUILD/compare/mpi_allreduce" -b "$min" -e "$max" -n "$iters" -w 2 |
		awk '!/^#/ { print $1, $2, $4 }'
}
for n in "${ranks[@]}"; do
	if [ "$hosts" -gt 0 ] && [ $((n % hosts)) -ne 0 ]; then
		echo "allreduce-vs-mpi: $n ranks do not split over $hosts hosts" >&2
		exit 2
	fi
	tern=$(tern_run "$n")
	mpi=$(mpi_run "$n")
	join <(sort -k1,1 <<<"$tern") <(sort -k1,1 <<<"$mpi") | sort -n |
		awk -v n="$n" '{ printf "%6d %13d %12.2f %12.2f %12.2f %12.2f %8.2f\n", n, $1, $2, $4, $3, $5, ($2 > 0 ? $4 / $2 : 0) }'
done
[ "$hosts" -gt 0 ] || exit 0

# The transport's floor: fi_pingpong over tcp on the loopback.
if ! command -v fi_pingpong >/dev/null; then
	echo "# fi_pingpong: not found (Debian's libfabric-bin)"
	exit 0
fi
echo "# fi_pingpong -p tcp -e rdm on lo: one message each way"
printf '%13s %12s %12s\n' size usec/xfer MB/s
FI_TCP_IFACE=lo fi_pingpong -p tcp -e rdm -I "$iters" -S all >/dev/null 2>&1 &
server=$!
sleep 1
FI_TCP_IFACE=lo fi_pingpong -p tcp -e rdm -I "$iters" -S all 127.0.0.1 2>/dev/null |
	awk 'NR > 1 { printf "%13s %12s %12s\n", $1, $7, $6 }'
wait "$server" || true
