#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs inside the test VM, chrooted into the host's root by init.sh: loads
# tern.ko with its dependencies, runs the command from the repository root,
# unloads tern.ko, and reports kernel warnings. Exits with the command's
# status; 125 when the harness failed (after printing TERN-VM-ERROR), 1 when
# the command passed but the kernel warned, oopsed or could not unload.
#
#   guest.sh               the above
#   guest.sh --kernel-log  print the kernel log since the command started

state=/tmp/tern-vm
# shellcheck source=/dev/null # written per run by run-vm.sh
. "$state/config"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# TERM=dumb: the console is a tty, but its output ends up in a log.
export HOME=/tmp LC_ALL=C.UTF-8 TERM=dumb

# WARN (W), oops (D), bad page (B), soft lockup (L).
bad_taint=$((512 | 128 | 32 | 16384))

harness_error() {
	echo "tern-vm: $*"
	echo TERN-VM-ERROR
	exit 125
}

# Kernel log records since mark_kernel_log, raw ("<level>[time] text").
# log_buf_len on the kernel command line keeps the ring from wrapping.
kernel_log_since_mark() {
	dmesg -r | tail -n +"$(($(cat "$state/dmesg-mark") + 1))"
}

mark_kernel_log() {
	dmesg -r | wc -l >"$state/dmesg-mark"
}

# Records at warning level or worse, without the taint notices every
# out-of-tree unsigned module load prints and the slow-timer notice an
# emulated CPU on a busy host prints.
kernel_warnings() {
	kernel_log_since_mark | awk '
		/^<[0-9]+>/ {
			level = substr($0, 2, index($0, ">") - 2) % 8
			keep = level <= 4 && !/taints kernel/ &&
				!/module verification failed/ &&
				!/hrtimer: interrupt took/
		}
		keep { sub(/^<[0-9]+>/, ""); print }'
}

if [ "${1:-}" = --kernel-log ]; then
	kernel_log_since_mark | sed 's/^<[0-9]*>//' | tail -n 200
	exit 0
fi

cd "$TERN_VM_REPO" || harness_error "no repository at $TERN_VM_REPO"

# The kernel's once-only secrets (ephemeral port offsets, sequence
# numbers) turn static keys on at the first TCP connection, patching
# kernel text from a worker; under TCG a CPU running that text meanwhile
# has been seen to trap on the patch (an int3 oops in
# secure_ipv4_port_ephemeral, in a test's first connect). Connect once
# now, while nothing else runs, and let the patching finish.
python3 -c '
import socket
for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    try:
        with socket.socket(family) as s:
            s.bind((host, 0))
            s.listen()
            with socket.create_connection(s.getsockname()[:2]) as c:
                s.accept()[0].close()
    except OSError:
        pass
' 2>/dev/null
sleep 1
mark_kernel_log
taint_before=$(cat /proc/sys/kernel/tainted)

if [ -n "$TERN_VM_MODULE" ]; then
	deps=$(modinfo -F depends "$TERN_VM_MODULE" | tr ',' ' ')
	if [ -n "$deps" ]; then
		# shellcheck disable=SC2086 # one module name per word
		modprobe -a $deps ||
			harness_error "cannot load tern.ko's dependencies: $deps"
	fi
	# shellcheck disable=SC2086 # module parameters are separate words
	if ! insmod "$TERN_VM_MODULE" $TERN_VM_PARAMS; then
		echo "tern-vm: insmod $TERN_VM_MODULE $TERN_VM_PARAMS failed;" \
			"kernel log:"
		kernel_log_since_mark | sed 's/^<[0-9]*>//' | tail -n 40
		harness_error "insmod failed"
	fi
fi

# shellcheck source=/dev/null # written per run by run-vm.sh
. "$state/command"
if [ "$TERN_VM_SHELL" = 1 ]; then
	echo "tern-vm: shell in $(uname -r); exit (or Ctrl-D) powers off"
	setsid -c /bin/sh -c 'command -v bash >/dev/null && exec bash -i; exec sh -i' \
		</dev/ttyS0 >/dev/ttyS0 2>&1
	status=$?
else
	# The command may load the module again (tests/unload/params.c).
	export TERN_VM_MODULE
	"$@"
	status=$?
fi

# After the command, the kernel must be as clean as before: tern.ko
# unloads (no leaked references) and nothing warned or oopsed.
kernel_failed=0
if [ -n "$TERN_VM_MODULE" ] && [ "$TERN_VM_UNLOAD" = 1 ]; then
	name=$(modinfo -F name "$TERN_VM_MODULE")
	if ! rmmod "$name"; then
		echo "tern-vm: $name could not be unloaded after the command"
		kernel_failed=1
	fi
fi
warnings=$(kernel_warnings)
if [ -n "$warnings" ]; then
	echo "tern-vm: kernel messages at warning level or worse:"
	printf '%s\n' "$warnings"
fi
taint_new=$(($(cat /proc/sys/kernel/tainted) & ~taint_before & bad_taint))
if [ "$taint_new" != 0 ]; then
	echo "tern-vm: kernel WARN or oops (new taint flags $taint_new)"
	kernel_failed=1
fi
if [ "$kernel_failed" = 1 ] && [ "$status" = 0 ] && [ "$TERN_VM_STRICT" = 1 ]; then
	status=1
fi
exit "$status"
