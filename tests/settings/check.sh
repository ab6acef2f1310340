#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The README's settings table against libtern's (libruntime/settings.c):
# the same rows, in the same order; and every TERN_* variable the code
# reads (getenv, tern_setting_*) is a row of it. TAP output.
#
#   tests/settings/check.sh [BUILD]     BUILD: default build
set -u

cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
# shellcheck source=tests/tap-lib.sh
. tests/tap-lib.sh
tap_init
trap 'rm -rf "$tmp"' EXIT

# The README's table: its header row and every row after it.
awk '/^\| Variable \| Values \| Effect \|$/ { on = 1 }
	on && !/^\|/ { exit }
	on' README.md >"$tmp/readme"
run "$build/tests/test_settings" --readme
cp "$out" "$tmp/table"
check "README's settings table is libtern's, row for row" \
	sh -c "[ $rc -eq 0 ] && [ -s '$tmp/readme' ] &&
		diff -u '$tmp/table' '$tmp/readme'"

# The variables read, by name: getenv("TERN_...") and the settings lookups.
read_names() {
	pattern='(getenv|tern_setting_[a-z_]+)\("TERN_[A-Z0-9_]*"'
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git grep -hoE "$pattern" -- libruntime tools python simd
	else
		grep -rhoE "$pattern" libruntime tools python simd
	fi | sed 's/.*("//; s/"$//' | sort -u
}
read_names >"$tmp/read"
# shellcheck disable=SC2016 # the backquotes are the README's
sed -n 's/^| `\(TERN_[A-Z0-9_]*\)` |.*/\1/p' "$tmp/table" | sort -u >"$tmp/known"
check "every TERN_* variable read is in libtern's table" \
	sh -c "[ -s '$tmp/read' ] && [ -z \"\$(comm -23 '$tmp/read' '$tmp/known')\" ] ||
		{ echo 'read but not in libruntime/settings.c:'; comm -23 '$tmp/read' '$tmp/known'; false; }"

tap_finish "settings"
