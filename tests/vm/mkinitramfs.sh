#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mkinitramfs.sh MODULE_DIR OUTPUT
#
# Writes the test VM's initramfs to OUTPUT (gzipped newc cpio): static
# busybox, tests/vm/init.sh as /init, and the modules that mount the host's
# root over virtio-9p, taken from MODULE_DIR (/lib/modules/<release> of the
# kernel to boot) with their dependencies, decompressed, in load order.
set -euo pipefail

moddir=$1
output=$2
here=$(cd -P "$(dirname "$0")" && pwd)
busybox=${BUSYBOX:-/bin/busybox}
wanted="virtio_pci 9pnet_virtio 9p"

[ -f "$moddir/modules.dep" ] || { echo "no $moddir/modules.dep" >&2; exit 1; }
# ldd fails on static executables (or says so for static PIE ones).
if [ ! -x "$busybox" ] ||
	LC_ALL=C ldd "$busybox" 2>&1 | grep -q '=>'; then
	echo "$busybox is not a static busybox: apt-get install busybox-static" >&2
	exit 1
fi

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT

# modules.dep lines are "path: dependency-path...", each listing the full
# dependency closure. Print the paths for the given module names,
# dependencies first, each once; built-in modules have no line and are
# skipped.
load_order() {
	awk -v wanted="$*" '
	function name(path) {
		sub(/.*\//, "", path)
		sub(/\.ko(\.[a-z]+)?$/, "", path)
		gsub(/-/, "_", path)
		return path
	}
	function visit(path,    n, i, d) {
		if (path in seen)
			return
		seen[path] = 1
		n = split(deps[path], d, " ")
		for (i = 1; i <= n; i++)
			visit(d[i])
		print path
	}
	{
		path = $1
		sub(/:$/, "", path)
		$1 = ""
		deps[path] = $0
		byname[name(path)] = path
	}
	END {
		n = split(wanted, w, " ")
		for (i = 1; i <= n; i++)
			if (w[i] in byname)
				visit(byname[w[i]])
	}' "$moddir/modules.dep"
}

mkdir -p "$staging"/{bin,dev,proc,sys,mnt,tmp,lib/modules}
cp "$busybox" "$staging/bin/busybox"
cp "$here/init.sh" "$staging/init"
chmod 755 "$staging/init" "$staging/bin/busybox"
# Lets the kernel give /init a console before devtmpfs is mounted; /init
# reopens /dev/console itself when this cannot be created (not root).
mknod -m 600 "$staging/dev/console" c 5 1 2>/dev/null || true

: >"$staging/lib/modules/load-order"
for path in $(load_order "$wanted"); do
	base=${path##*/}
	base=${base%.ko*}.ko
	case $path in
	*.ko) cp "$moddir/$path" "$staging/lib/modules/$base" ;;
	*.ko.xz) xz -dc "$moddir/$path" >"$staging/lib/modules/$base" ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$staging/lib/modules/$base" ;;
	*.ko.gz) gzip -dc "$moddir/$path" >"$staging/lib/modules/$base" ;;
	*) echo "unknown module format: $path" >&2; exit 1 ;;
	esac
	echo "$base" >>"$staging/lib/modules/load-order"
done

mkdir -p "$(dirname "$output")"
(cd "$staging" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$output.tmp.$$"
mv "$output.tmp.$$" "$output"
