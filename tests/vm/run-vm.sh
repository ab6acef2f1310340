#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Runs a command in a QEMU VM (TCG) booting a Debian kernel whose root is the
# host's own root (read-only, virtio-9p), with tern.ko loaded. See
# Documentation/vm-testing.rst.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: tests/vm/run-vm.sh [options] -- COMMAND [ARGS...]
       tests/vm/run-vm.sh [options] --shell

Boots Debian's kernel under QEMU, loads tern.ko, runs COMMAND as root from
the repository root (the host's root, read-only; /tmp and /run are tmpfs),
unloads tern.ko and exits with COMMAND's status.

  --kernel 6.1|6.12  6.1: the installed linux-image-amd64 (default);
                     6.12: Debian 13's, prepared by tests/vm/trixie.sh
  --params "P=V ..." tern.ko module parameters, e.g. "mock_devices=4"
  --module FILE      tern.ko to load (default: driver/tern.ko for 6.1,
                     build/trixie-module/tern.ko for 6.12; env TERN_VM_MODULE)
  --no-module        do not load tern.ko
  --keep-module      do not unload tern.ko after COMMAND
  --allow-warn       exit with COMMAND's status even if the kernel warned,
                     oopsed or tern.ko would not unload (default: status 1)
  --env NAME=VALUE   set NAME for COMMAND (repeatable); TERN_* variables
                     of the caller are passed on already
  --append "ARGS"    more kernel command line, e.g. "slub_debug=FZPU"
                     (env TERN_VM_APPEND)
  --mem MB           guest memory (default 2048)
  --smp N            guest CPUs (default 2)
  --timeout SEC      stop COMMAND after SEC seconds, exit 124 (default 600,
                     0 = none)
  --shell            interactive shell instead of COMMAND (Ctrl-A X quits)

Environment: TERN_VM_KERNEL (default --kernel), TERN_VM_MODULE (default
--module), TERN_VM_APPEND (default --append), TERN_VM_QEMU_ARGS (extra
QEMU arguments, e.g. "-s").

Exit status: COMMAND's; 1 if COMMAND passed but the kernel warned; 124 on
timeout; 125 if the VM or tern.ko failed to come up; 2 on usage errors.
EOF
}

repo=$(cd -P "$(dirname "$0")/../.." && pwd)
here="$repo/tests/vm"

kernel=${TERN_VM_KERNEL:-6.1}
params=""
module=${TERN_VM_MODULE:-}
load_module=1
unload=1
strict=1
mem=2048
smp=2
timeout=600
shell=0
envs=()
extra_append=${TERN_VM_APPEND:-}

die_usage() {
	echo "run-vm: $*" >&2
	echo "run-vm: see --help" >&2
	exit 2
}

fail() {
	echo "run-vm: $*" >&2
	exit 125
}

need_arg() {
	[ "$#" -ge 2 ] || die_usage "$1 needs a value"
}

is_uint() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
}

while [ "$#" -gt 0 ]; do
	case $1 in
	--kernel) need_arg "$@"; kernel=$2; shift ;;
	--params) need_arg "$@"; params=$2; shift ;;
	--module) need_arg "$@"; module=$2; shift ;;
	--no-module) load_module=0 ;;
	--keep-module) unload=0 ;;
	--allow-warn) strict=0 ;;
	--env) need_arg "$@"; envs+=("$2"); shift ;;
	--append) need_arg "$@"; extra_append=$2; shift ;;
	--mem) need_arg "$@"; mem=$2; shift ;;
	--smp) need_arg "$@"; smp=$2; shift ;;
	--timeout) need_arg "$@"; timeout=$2; shift ;;
	--shell) shell=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) die_usage "unknown option $1" ;;
	esac
	shift
done
[ "$#" -gt 0 ] || [ "$shell" = 1 ] || die_usage "no COMMAND"
[ "$#" -eq 0 ] || [ "$shell" = 0 ] || die_usage "--shell takes no COMMAND"
is_uint "$mem" || die_usage "--mem: not a number: $mem"
is_uint "$smp" || die_usage "--smp: not a number: $smp"
[ "$smp" -gt 0 ] || die_usage "--smp: at least 1"
is_uint "$timeout" || die_usage "--timeout: not a number: $timeout"

# Forwarded environment: the caller's TERN_* (not the harness's own
# TERN_VM_*), then --env, which wins.
while IFS= read -r name; do
	case $name in TERN_VM_*) continue ;; esac
	envs=("$name=${!name}" "${envs[@]}")
done < <(compgen -e | grep '^TERN_' || true)
for assignment in "${envs[@]}"; do
	[[ $assignment =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
		die_usage "--env: not NAME=VALUE: $assignment"
done

# The kernel to boot: image, release, module tree, and where the guest
# finds that tree (empty: the host's /lib/modules).
case $kernel in
6.1)
	modroot=""
	default_module="$repo/driver/tern.ko"
	;;
6.12)
	modroot="$repo/build/trixie"
	default_module="$repo/build/trixie-module/tern.ko"
	[ -f "$modroot/.tern-prepared" ] ||
		fail "no 6.12 kernel: run tests/vm/trixie.sh first"
	;;
*) die_usage "--kernel: 6.1 or 6.12, not $kernel" ;;
esac
module=${module:-$default_module}

if [ "$load_module" = 1 ]; then
	[ -f "$module" ] || fail "no $module (build it: make module" \
		"for 6.1, tests/vm/trixie.sh for 6.12; or use --no-module)"
	module=$(realpath "$module")
	if [ "$module" = "$default_module" ] &&
		[ -n "$(find "$repo/driver" "$repo/model" "$repo/uapi" -name '*.[ch]' \
			! -name '*.mod.c' -newer "$module" -print -quit)" ]; then
		echo "run-vm: warning: $module is older than the driver's" \
			"sources; rebuild it (make module, tests/vm/trixie.sh)" >&2
	fi
	release=$(modinfo -F vermagic "$module" | cut -d' ' -f1)
	case $release in
	"$kernel".*) ;;
	*) fail "$module is built for $release, not a $kernel kernel" ;;
	esac
else
	module=""
	release=""
fi
if [ -z "$release" ]; then
	# The newest installed release of the requested series.
	release=$(find "${modroot:-/}/boot" -maxdepth 1 -name "vmlinuz-$kernel.*" \
		-printf '%f\n' | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
	[ -n "$release" ] || fail "no ${modroot:-}/boot/vmlinuz-$kernel.* installed"
fi
vmlinuz="$modroot/boot/vmlinuz-$release"
moddir="$modroot/lib/modules/$release"
[ -f "$vmlinuz" ] || fail "no $vmlinuz (install linux-image-amd64)"
[ -r "$vmlinuz" ] || fail "cannot read $vmlinuz (run as root)"
[ -f "$moddir/modules.dep" ] || fail "no $moddir/modules.dep"

# Base initramfs, cached per kernel release and rebuilt when its inputs
# change.
cache="$repo/build/vm/$release"
mkdir -p "$cache"
key=$(cat "$here/mkinitramfs.sh" "$here/init.sh" /bin/busybox \
	"$moddir/modules.dep" | sha256sum | cut -d' ' -f1)
if [ ! -f "$cache/initramfs.cpio.gz" ] ||
	[ "$(cat "$cache/initramfs.key" 2>/dev/null)" != "$key" ]; then
	"$here/mkinitramfs.sh" "$moddir" "$cache/initramfs.cpio.gz" ||
		fail "cannot build the initramfs"
	echo "$key" >"$cache/initramfs.key"
fi

# Boot the kernel uncompressed through its PVH entry point: its own
# decompressor takes seconds under emulation. The image is the bzImage's
# payload, found by its compression magic; the bzImage itself is the
# fallback.
uncompressed_kernel() {
	local out="$cache/vmlinux" method magic tool off
	if [ -f "$out" ] && [ "$out" -nt "$vmlinuz" ]; then
		echo "$out"
		return
	fi
	if grep -qx 'CONFIG_PVH=y' "$modroot/boot/config-$release" 2>/dev/null; then
		for method in '\xfd7zXZ\x00 xz' '\x28\xb5\x2f\xfd zstd' \
			'\x1f\x8b\x08 gzip'; do
			magic=${method% *}
			tool=${method#* }
			command -v "$tool" >/dev/null || continue
			while read -r off; do
				# Data after the payload makes the tool complain.
				tail -c +$((off + 1)) "$vmlinuz" | "$tool" -dc \
					>"$out.$$" 2>/dev/null || true
				if [ "$(head -c 4 "$out.$$")" = $'\x7fELF' ]; then
					mv "$out.$$" "$out"
					echo "$out"
					return
				fi
			done < <(LC_ALL=C grep -obUaP "$magic" "$vmlinuz" | cut -d: -f1)
		done
		rm -f "$out.$$"
	fi
	echo "$vmlinuz"
}
boot_kernel=$(uncompressed_kernel)

# Per-run part, appended to the base as a second cpio archive: the
# harness settings and the command.
run=$(mktemp -d "${TMPDIR:-/tmp}/tern-vm.XXXXXX")
trap 'rm -rf "$run"' EXIT
trap 'exit 130' INT TERM

quote() {
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}

# The module travels in the initramfs too: any path works, and rebuilding
# it while the VM runs changes nothing.
mkdir -p "$run/root/tern-vm"
guest_module=""
if [ -n "$module" ]; then
	guest_module="/tmp/tern-vm/$(basename "$module")"
	cp "$module" "$run/root/tern-vm/"
fi
{
	echo "TERN_VM_REPO=$(quote "$repo")"
	echo "TERN_VM_MODROOT=$(quote "$modroot")"
	echo "TERN_VM_MODULE=$(quote "$guest_module")"
	echo "TERN_VM_PARAMS=$(quote "$params")"
	echo "TERN_VM_UNLOAD=$unload"
	echo "TERN_VM_STRICT=$strict"
	echo "TERN_VM_TIMEOUT=$timeout"
	echo "TERN_VM_SHELL=$shell"
} >"$run/root/tern-vm/config"
{
	# An interactive shell gets the caller's terminal type.
	if [ "$shell" = 1 ]; then
		echo "export TERM=$(quote "${TERM:-vt100}")"
	fi
	for assignment in "${envs[@]}"; do
		echo "export ${assignment%%=*}=$(quote "${assignment#*=}")"
	done
	printf 'set --'
	for arg in "$@"; do
		printf ' %s' "$(quote "$arg")"
	done
	echo
} >"$run/root/tern-vm/command"
(cd "$run/root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$run/run.cpio.gz"
cat "$cache/initramfs.cpio.gz" "$run/run.cpio.gz" >"$run/initrd"

# quiet + loglevel=1: only panics and oopses reach the console while the
# command runs; guest.sh prints warnings afterwards.
append="console=ttyS0,115200 quiet loglevel=1 panic=-1 log_buf_len=8M"
append+=" mitigations=off nmi_watchdog=0 tsc=unstable"
[ -z "$extra_append" ] || append+=" $extra_append"
qemu=(qemu-system-x86_64 -nodefaults -no-user-config -accel tcg -cpu max
	-machine pc -smp "$smp" -m "$mem" -display none -no-reboot
	-kernel "$boot_kernel" -initrd "$run/initrd" -append "$append"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap")
# Extra QEMU arguments for debugging, e.g. "-s" for a gdb stub on :1234.
read -r -a extra <<<"${TERN_VM_QEMU_ARGS:-}"
qemu+=("${extra[@]}")

if [ "$shell" = 1 ]; then
	"${qemu[@]}" -serial mon:stdio
	exit
fi

# Console to stdout without carriage returns, the kernel's own reboot line
# and the markers (which follow the command's last line when that lacks a
# newline); the raw console goes to a log to read the markers from.
markers='TERN-VM-\(EXIT=[0-9]*\|ERROR\)$'
console_filter() {
	sed -u -e 's/\r$//' -e "/^$markers/d" -e "s/$markers//" \
		-e '/^\[ *[0-9.]*\] reboot: Restarting system$/d'
}

# Host-side limit: the guest's own watchdog plus time to boot and report.
host_timeout=0
[ "$timeout" = 0 ] || host_timeout=$((timeout + 300))
set +e
timeout --foreground -k 10 "$host_timeout" "${qemu[@]}" \
	-chardev stdio,id=console -serial chardev:console </dev/null |
	tee "$run/console.log" | console_filter
qemu_status=${PIPESTATUS[0]}
set -e

log=$(tr -d '\r' <"$run/console.log")
if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
	echo "run-vm: VM did not finish within $host_timeout s; killed" >&2
	exit 124
fi
if grep -q 'TERN-VM-ERROR$' <<<"$log"; then
	echo "run-vm: the VM could not run the command (see above)" >&2
	exit 125
fi
status=$(sed -n 's/.*TERN-VM-EXIT=\([0-9]*\)$/\1/p' <<<"$log" | tail -n 1)
if [ -z "$status" ]; then
	echo "run-vm: VM stopped without a result (qemu status $qemu_status;" \
		"kernel panic?)" >&2
	exit 125
fi
exit "$status"
