#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Kernel coding style over tern.ko's sources with the kernel's own
# checkpatch.pl, taken from Debian's linux-source-6.1 tarball once.
#
# Driver files get --strict. The shared model is also built for userspace
# (its libc branch needs <stdint.h> types) and the uapi header cannot use the
# kernel-internal BIT() macros, so those two get the default checks.
# LINUX_VERSION_CODE is ignored: out of tree, tern_compat.h needs it.
set -eu
cd "$(dirname "$0")/.."
dir=${BUILD:-build}/checkpatch
tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-6.1*.tar.xz' 2>/dev/null | sort | head -n 1)
if [ ! -f "$dir/checkpatch.pl" ]; then
	[ -n "$tarball" ] || { echo "checkpatch: install linux-source-6.1" >&2; exit 1; }
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=2 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
run() {
	perl "$dir/checkpatch.pl" --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE "$@"
}
status=0
run --strict -f driver/tern_*.[ch] driver/Kbuild || status=1
run -f model/*.[ch] uapi/drm/tern_accel.h || status=1
exit $status
