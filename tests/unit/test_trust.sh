#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Two users of one host: the job's (A, who runs this) and another (B, a
# system user this script makes). B binds rank 0's port between A's
# tern_get_unique_id and init; B connects to A's hand-off sockets and
# hands them fds of its own while A's communicators form; B reads a torch
# job's store and tries to join with what it holds. A's ranks must come
# out exact every time, and B must get nothing. Then /proc/net/unix and a
# loopback capture (tcpdump) of A's inits must hold neither an id's
# secret nor its tag. See Documentation/security.rst. Needs root (to make
# B and to capture). TAP output, then the cmocka-style summary
# tests/suite-lib.sh counts.
#
# Usage: tests/unit/test_trust.sh [BUILD_DIR]     (default: build)
set -u

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
bpids=
cleanup() {
	for p in $bpids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	skip "two users" "needs root to make a second user and to capture"
	tap_finish trust
	exit
fi
other=tern-trust
id -u "$other" >/dev/null 2>&1 ||
	useradd --system --no-create-home --shell /usr/sbin/nologin "$other"
b_uid=$(id -u "$other")
b_gid=$(id -g "$other")

# What B runs, where B can read it whatever the tree's modes.
kit=$tmp/kit
mkdir -p "$kit" "$tmp/b-sim"
cp "$build/tests/trust_helper" "$build/tern-simd" "$kit/"
cp -P "$build"/libtern.so* "$kit/"
cp -r "$build/python" "$kit/python"
cp "$here/trust_store.py" "$kit/"
chmod -R a+rX "$tmp"
chmod 755 "$tmp"
chown "$b_uid:$b_gid" "$tmp/b-sim"
chmod 700 "$tmp/b-sim"	# a simulator's directory is its user's alone
helper=$kit/trust_helper

# as_b CMD...: CMD as B, on a simulated machine of B's own.
as_b() {
	env TERN_SIM_DIR="$tmp/b-sim" TERN_SIM_DAEMON="$kit/tern-simd" \
		TERN_RUN_DIR="$tmp/b-sim/run" HOME="$tmp/b-sim" \
		setpriv --reuid="$b_uid" --regid="$b_gid" --clear-groups -- "$@"
}

# wait_for FILE: up to 30 s for FILE to appear.
wait_for() {
	i=0
	while [ ! -s "$1" ] && [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}

# ---- B binds rank 0's port before A's init listens ----
mkfifo "$tmp/go"
"$helper" hold-id "$tmp/port" <"$tmp/go" >"$tmp/hold" 2>&1 &
hold=$!
exec 3>"$tmp/go"
if wait_for "$tmp/port"; then
	chmod a+r "$tmp/port"
	run as_b "$helper" bind-port "$tmp/port"
	check "another user cannot bind rank 0's port, by any option" rc_is 0
else
	fail "another user cannot bind rank 0's port, by any option" \
		"the id was never made: $(cat "$tmp/hold")"
fi
echo go >&3
exec 3>&-
wait "$hold"
rc=$?
cp "$tmp/hold" "$out"
check "rank 0 then listens at its id's port, and its ranks meet" rc_is 0

# ---- B pokes A's hand-off sockets while A's communicators form ----
as_b "$helper" poke-handoff 6 >"$tmp/poke" 2>&1 &
poker=$!
bpids="$poker"
sleep 0.3
run "$helper" ranks 4 20
check "A's communicators form exact while B hands fds to their sockets" \
	rc_is 0
wait "$poker"
bpids=
cp "$tmp/poke" "$out"
check "B reached A's hand-off sockets (the test touched them)" \
	grep -Eq 'reached [1-9]' "$tmp/poke"
sed 's/^/# /' "$tmp/poke"

# ---- B reads a torch job's store and tries to join ----
port=$((30000 + $$ % 20000))
py() { env PYTHONPATH="$kit/python" /usr/bin/python3 "$kit/trust_store.py" "$@"; }
mkdir "$tmp/store"
chmod 777 "$tmp/store"
py rank 0 "$port" "$tmp/store" >"$tmp/r0" 2>&1 &
r0=$!
py rank 1 "$port" "$tmp/store" >"$tmp/r1" 2>&1 &
r1=$!
sleep 1
run as_b env PYTHONPATH="$kit/python" /usr/bin/python3 \
	"$kit/trust_store.py" steal "$port" "$tmp/store"
check "another user reads the store: no secret there, refused both ways" \
	rc_is 0
touch "$tmp/store/go"
wait "$r0"
s0=$?
wait "$r1"
s1=$?
cat "$tmp/r0" "$tmp/r1" >"$out"
rc=$((s0 + s1))
check "the job's all-reduce is exact after the stranger's tries" rc_is 0

# ---- no secret in /proc/net/unix, nor on the wire ----
if command -v tcpdump >/dev/null 2>&1; then
	# --immediate-mode: without it this kernel's packets reach the file
	# only in batches that a kill may lose.
	tcpdump -i any -Z root --immediate-mode -U -w "$tmp/lo.pcap" tcp \
		>"$tmp/tcpdump" 2>&1 &
	dump=$!
	bpids="$dump"
	wait_for "$tmp/tcpdump"
	(
		while :; do
			cat /proc/net/unix
			sleep 0.01
		done
	) >"$tmp/unix" 2>/dev/null &
	snap=$!
	bpids="$dump $snap"
	mkdir "$tmp/ids"
	run "$helper" ranks 4 3 "$tmp/ids"
	check "A's communicators form exact under capture" rc_is 0
	sleep 0.5
	kill "$snap" "$dump"
	wait "$dump" 2>/dev/null
	bpids=
	run python3 - "$tmp/ids/ids" "$tmp/lo.pcap" "$tmp/unix" <<'EOF'
import sys
ids = [bytes.fromhex(l) for l in open(sys.argv[1]).read().split()]
wire = open(sys.argv[2], "rb").read()
unix = open(sys.argv[3], "rb").read()
found = 0
for value in ids:
    # any 8 bytes of it on the wire, any 8 of its hex digits in /proc
    for at in range(0, len(value) - 7):
        window = value[at:at + 8]
        if window in wire:
            print(f"on the wire: {window.hex()}")
            found += 1
        if window.hex()[:8].encode() in unix:
            print(f"in /proc/net/unix: {window.hex()[:8]}")
            found += 1
print(f"{len(ids) // 2} ids, {len(wire)} bytes captured, "
      f"{unix.count(b'tern-handoff-')} hand-off names seen, {found} found")
sys.exit(found != 0 or len(wire) < 4096 or b"tern-handoff-" not in unix)
EOF
	check "neither an id's secret nor its tag in /proc/net/unix or on the wire" \
		rc_is 0
	sed 's/^/# /' "$out"
else
	fail "neither an id's secret nor its tag in /proc/net/unix or on the wire" \
		"tcpdump is missing: .ci/install-deps installs it"
fi

tap_finish trust
