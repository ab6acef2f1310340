#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: MIT
#
# /init of the test VM (Documentation/vm-testing.rst). Mounts the host's root
# read-only over virtio-9p at /mnt with fresh proc, sys, dev, debugfs, /tmp
# and /run, runs tests/vm/guest.sh chrooted there under a watchdog, and
# reboots, which ends QEMU (-no-reboot).
#
# The host reads two markers from the console: TERN-VM-EXIT=<status> and
# TERN-VM-ERROR (the harness itself failed).

/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin

# Console output sits in the serial driver's buffer until sent; setting
# the terminal waits for it to drain, so nothing is lost at reboot.
drain_console_and_reboot() {
	stty -F /dev/console onlcr
	reboot -f
	sleep 60
}

die() {
	echo "tern-vm: $*"
	dmesg | tail -n 20
	echo TERN-VM-ERROR
	drain_console_and_reboot
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# Loopback, as every init brings it up: ranks meet over TCP.
ip link set lo up || die "cannot bring up lo"
[ -f /tern-vm/config ] || die "no /tern-vm/config: not started by run-vm.sh"
# shellcheck source=/dev/null # written per run by run-vm.sh
. /tern-vm/config

while read -r module; do
	insmod "/lib/modules/$module" || die "cannot load $module"
done </lib/modules/load-order

host=/mnt
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
	hostroot "$host" || die "cannot mount the host's root over virtio-9p"
# A repository under /tmp or /run must stay visible through the tmpfs.
case $TERN_VM_REPO in
/tmp/* | /run/*)
	mkdir -p /repo
	mount -o bind "$host$TERN_VM_REPO" /repo ||
		die "cannot bind $TERN_VM_REPO"
	;;
esac
if ! { mount -t proc proc "$host/proc" &&
	mount -t sysfs sysfs "$host/sys" &&
	mount -t debugfs debugfs "$host/sys/kernel/debug" &&
	mount -t devtmpfs devtmpfs "$host/dev" &&
	mkdir -p "$host/dev/pts" "$host/dev/shm" &&
	mount -t devpts devpts "$host/dev/pts" &&
	mount -t tmpfs -o mode=1777 tmpfs "$host/dev/shm" &&
	mount -t tmpfs -o mode=1777 tmpfs "$host/tmp" &&
	mount -t tmpfs -o mode=755 tmpfs "$host/run"; }; then
	die "cannot mount the virtual filesystems"
fi
if [ -d /repo ]; then
	mkdir -p "$host$TERN_VM_REPO"
	mount -o bind /repo "$host$TERN_VM_REPO" ||
		die "cannot bind $TERN_VM_REPO"
fi
# A kernel other than the host's own brings its modules (trixie chroot).
if [ -n "$TERN_VM_MODROOT" ]; then
	mount -o bind "$host$TERN_VM_MODROOT/lib/modules" "$host/lib/modules" ||
		die "cannot bind $TERN_VM_MODROOT/lib/modules"
fi
cp -r /tern-vm "$host/tmp/tern-vm"

guest="$TERN_VM_REPO/tests/vm/guest.sh"
if [ "$TERN_VM_SHELL" = 1 ]; then
	chroot "$host" /bin/sh "$guest"
	status=$?
else
	chroot "$host" /bin/sh "$guest" </dev/null &
	guest_pid=$!
	if [ "$TERN_VM_TIMEOUT" -gt 0 ]; then
		(
			sleep "$TERN_VM_TIMEOUT"
			echo "tern-vm: timed out after $TERN_VM_TIMEOUT s;" \
				"kernel log since the command started:"
			echo w >/proc/sysrq-trigger
			sleep 1
			chroot "$host" /bin/sh "$guest" --kernel-log
			echo TERN-VM-EXIT=124
			drain_console_and_reboot
		) &
		watchdog_pid=$!
	fi
	wait "$guest_pid"
	status=$?
	[ -n "$watchdog_pid" ] && kill "$watchdog_pid"
fi
echo "TERN-VM-EXIT=$status"
drain_console_and_reboot
