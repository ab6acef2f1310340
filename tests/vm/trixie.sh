#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Debian 13 (trixie) kernel 6.12 for the VM tests: CONFIG_DRM_ACCEL=y, so
# tern.ko registers as an accel device there.
#
#   tests/vm/trixie.sh [prepare|module|all]        (default: all)
#
# prepare  debootstrap a minimal trixie chroot into build/trixie with gcc-14,
#          make, pahole, kmod, and trixie's kernel image and headers
#          (vmlinuz in /boot, modules in /lib/modules).
#          Done once; later runs only check a stamp.
# module   build tern.ko inside the chroot against its headers into
#          build/trixie-module/tern.ko (driver/tern.ko stays the 6.1 build).
#
# Needs root (debootstrap, chroot). Progress goes to build/trixie.log; its
# tail is printed on failure. TERN_VM_MIRROR overrides the Debian mirror,
# which is otherwise the one apt uses on this machine.
set -euo pipefail

repo=$(cd -P "$(dirname "$0")/../.." && pwd)
root="$repo/build/trixie"
log="$repo/build/trixie.log"
out="$repo/build/trixie-module"
stamp="$root/.tern-prepared"
# Bump when the package set changes so existing chroots are rebuilt.
packages="gcc-14 make dwarves kmod xz-utils linux-image-amd64 linux-headers-amd64"
stamp_version="2 $packages"

say() { printf 'trixie: %s\n' "$*"; }

fail() {
	say "FAILED: $*" >&2
	if [ -s "$log" ]; then
		say "last lines of $log:" >&2
		tail -n 40 "$log" >&2
	fi
	exit 1
}

# The Debian mirror of this machine's apt sources (the entry for its own
# release), so the chroot uses the same archive access as apt does.
debian_mirror() {
	local codename url=""
	if [ -n "${TERN_VM_MIRROR:-}" ]; then
		echo "$TERN_VM_MIRROR"
		return
	fi
	# shellcheck disable=SC1091 # a system file, present on Debian
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	if [ -n "$codename" ]; then
		# One-line format: deb [options] URI SUITE COMPONENTS...
		url=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
			2>/dev/null | awk -v c="$codename" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) == c) { print $i; exit }
			}') || true
		# deb822 format: stanzas with Types, URIs, Suites fields.
		if [ -z "$url" ]; then
			url=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
				awk -v c="$codename" '
				function flush() {
					if (deb && suite && uri != "") { print uri; done = 1 }
					deb = 0; suite = 0; uri = ""
				}
				/^[[:space:]]*$/ { if (!done) flush(); next }
				/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				/^URIs:/ { uri = $2 }
				/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) suite = 1 }
				END { if (!done) flush() }' | head -n 1) || true
		fi
	fi
	echo "${url:-http://deb.debian.org/debian}"
}

# in_chroot SECONDS COMMAND...: run COMMAND in the chroot, clean
# environment, killed after SECONDS. (--foreground keeps it in our process
# group, so whoever stops this script stops it too.)
in_chroot() {
	local seconds=$1
	shift
	timeout --foreground -k 10 "$seconds" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		chroot "$root" "$@"
}

mounted_below() {
	awk -v d="$1" '$2 == d || index($2, d "/") == 1 { found = 1 }
		END { exit !found }' /proc/mounts
}

# Unmounts what package scripts, debootstrap or we left mounted in the
# chroot (/proc while apt runs), deepest first.
unmount_below() {
	awk -v d="$1" 'index($2, d "/") == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r mountpoint; do
		umount "$mountpoint" 2>/dev/null || umount -l "$mountpoint"
	done
}

prepare() {
	local mirror kver start

	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_version" ]; then
		return
	fi
	start=$(date +%s)
	if [ -e "$root" ]; then
		unmount_below "$root"
		if mounted_below "$root"; then
			fail "$root has mounts below it; unmount them first"
		fi
		rm -rf "$root"
	fi
	mirror=$(debian_mirror)
	: >"$log"
	say "creating trixie chroot in $root from $mirror (log: $log)"
	mkdir -p "$root"
	trap 'unmount_below "$root"' EXIT
	timeout --foreground -k 10 900 \
		debootstrap --variant=minbase trixie "$root" "$mirror" \
		>>"$log" 2>&1 || fail "debootstrap"

	mount -t proc proc "$root/proc"
	# The kernel package would build an initramfs nobody uses: make
	# update-initramfs a no-op, the dpkg way.
	in_chroot 60 dpkg-divert --quiet --local --rename --add \
		/usr/sbin/update-initramfs >>"$log" 2>&1 || fail "dpkg-divert"
	ln -s /bin/true "$root/usr/sbin/update-initramfs"
	say "installing $packages"
	in_chroot 600 apt-get -q update >>"$log" 2>&1 ||
		fail "apt-get update"
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	in_chroot 900 apt-get -q -y install --no-install-recommends \
		$packages >>"$log" 2>&1 || fail "apt-get install"

	# shellcheck disable=SC2016 # ${Package} is dpkg-query's, not ours
	kver=$(in_chroot 60 dpkg-query -W -f '${Package}\n' 'linux-image-*-amd64' |
		sed -n 's/^linux-image-\(6\.12\..*-amd64\)$/\1/p' | head -n 1)
	[ -n "$kver" ] || fail "no linux-image-6.12.*-amd64 in the chroot"
	[ -f "$root/boot/vmlinuz-$kver" ] || fail "no /boot/vmlinuz-$kver"
	in_chroot 60 apt-get -q clean >>"$log" 2>&1 || true
	unmount_below "$root"
	trap - EXIT

	echo "$kver" >"$root/.tern-kver"
	echo "$stamp_version" >"$stamp"
	say "chroot ready: kernel $kver ($(($(date +%s) - start)) s)"
}

# Kbuild writes objects next to the sources, so build a copy inside the
# chroot; the 6.1 objects in driver/ are neither used nor touched.
module() {
	local kver src="$root/build/tern"

	[ -f "$stamp" ] || fail "chroot not prepared: run $0 prepare"
	kver=$(cat "$root/.tern-kver")
	[ -f "$repo/driver/Kbuild" ] || [ -f "$repo/driver/Makefile" ] ||
		fail "no driver/Kbuild in $repo"
	rm -rf "$src"
	mkdir -p "$src" "$out"
	tar -C "$repo" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
		--exclude=Module.symvers Kbuild VERSION driver model uapi | tar -C "$src" -xf -
	say "building tern.ko for $kver"
	: >"$log.module"
	if ! in_chroot 900 make -C "/lib/modules/$kver/build" M=/build/tern \
		-j"$(nproc)" modules >"$log.module" 2>&1; then
		tail -n 60 "$log.module" >&2
		say "FAILED: module build (full log: $log.module)" >&2
		exit 1
	fi
	# Compiler diagnostics only; the rest of Kbuild's output is noise.
	grep -E 'warning:|error:' "$log.module" || true
	cp "$src/driver/tern.ko" "$out/tern.ko.tmp"
	mv "$out/tern.ko.tmp" "$out/tern.ko"
	echo "$kver" >"$out/kernel-release"
	say "built $out/tern.ko"
}

if [ "$(id -u)" != 0 ]; then
	echo "trixie: needs root (debootstrap, chroot)" >&2
	exit 1
fi
mkdir -p "$repo/build"
exec 9>"$repo/build/trixie.lock"
flock 9

case "${1:-all}" in
prepare) prepare ;;
module) module ;;
all) prepare; module ;;
*) echo "usage: $0 [prepare|module|all]" >&2; exit 2 ;;
esac
