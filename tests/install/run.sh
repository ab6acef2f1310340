#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Tests of `make install`, `make uninstall` and `make install-dkms`: the
# installed files, libtern's soname and exported symbols, tern.pc for shared
# and static linking (a program built from the installed tree only), a
# user's program on the simulator with nothing set (installed, or built
# against the build tree, shared or static), the installed tools and man
# pages, the udev rule, a dkms build and install of tern.ko into a scratch
# tree, and .ci/install-deps as root or not. Nothing outside a temporary
# directory is written. TAP output, then cmocka-style summary lines for
# tests/suite-lib.sh; exits 1 if any test failed.
#
# Usage: tests/install/run.sh [BUILD_DIR]      (default: build)
#
# The dkms tests build for TERN_DKMS_KERNEL (default: the newest kernel in
# /lib/modules with headers) and are skipped, with the reason, when dkms
# or the headers are missing (.ci/install-deps installs both).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
make=${MAKE:-make}
version=$(cat "$top/VERSION")

# shellcheck source=tests/tap-lib.sh
. "$here/../tap-lib.sh"
tap_init
trap 'rm -rf "$tmp"' EXIT

same() { [ "$1" = "$2" ] || { printf 'expected: %s\n     got: %s\n' "$2" "$1"; return 1; }; }

# mk ARGS...: make in the top directory with the build tree under test.
mk() { "$make" -s -C "$top" BUILD="$build" "$@"; }

# alone PROG...: runs PROG as a user would, from its folder ($tmp), with
# nothing set: no tern-simd on PATH, no TERN_SIM_DAEMON, no machine
# running yet (a directory of machines of its own), so that libtern must
# find tern-simd and start it by itself. Its output in $out, $err.
user_path=/usr/bin:/bin
alone() {
	machines=$(mktemp -d "$tmp/machines.XXXXXX")
	(cd "$tmp" && run env -u TERN_SIM_DAEMON -u TERN_SIM_MACHINE \
		-u TERN_BACKEND PATH="$user_path" TERN_SIM_DIR="$machines" \
		TERN_SIM_MEM_MB=16 TERN_SIM_IDLE_MS=1000 "$@"; exit "$rc")
	rc=$?
}

# files DIR: every file and link below DIR, relative, sorted.
files() { (cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort); }

# ---- make install DESTDIR=... PREFIX=/usr ----

stage=$tmp/stage
udevdir=$(pkg-config --variable=udevdir udev 2>/dev/null || true)
rulesdir=${udevdir:-/lib/udev}/rules.d
if ! mk install DESTDIR="$stage" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	fail "make install DESTDIR PREFIX=/usr" "$(tail -n 30 "$tmp/install.log")"
	echo "1..$count"
	echo "[  FAILED  ] $failed test(s)"
	exit 1
fi
pass "make install DESTDIR PREFIX=/usr"

docs=$(cd "$top/Documentation" && for f in *.rst; do echo "usr/share/doc/tern/$f"; done)
# The Python package, where its headers let the module build (and the
# process group where libtorch-dev's do).
pydir=usr/lib/python3/dist-packages/tern
python=""
pyinc=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)
if [ -n "$pyinc" ] && [ -f "$pyinc/Python.h" ]; then
	ext=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
	python="$pydir/__init__.py
$pydir/torch.py
$pydir/_tern$ext"
	[ ! -f /usr/include/torch/csrc/distributed/c10d/ProcessGroup.hpp ] ||
		python="$python
$pydir/_torch$ext"
fi
expected=$(LC_ALL=C sort <<LIST
$docs
usr/bin/tern-bench
usr/bin/tern-inspect
usr/bin/tern-simd
usr/include/drm/tern_accel.h
usr/include/tern.h
usr/include/tern_compute.h
usr/include/tern_sim.h
usr/lib/libtern.a
usr/lib/libtern.so
usr/lib/libtern.so.0
usr/lib/libtern.so.$version
usr/lib/pkgconfig/tern.pc
usr/share/man/man1/tern-bench.1
usr/share/man/man1/tern-inspect.1
usr/share/man/man3/libtern.3
${rulesdir#/}/70-tern.rules
${python}
LIST
)
check "install: exactly the expected files" \
	same "$(files "$stage" | grep .)" "$(printf "%s\n" "$expected" | grep .)"
check "install: tern-inspect.rst, which the man page points to, in the doc dir" \
	sh -c "cmp -s '$top/Documentation/tern-inspect.rst' '$stage/usr/share/doc/tern/tern-inspect.rst' &&
		grep -q '/usr/share/doc/tern/tern-inspect.rst' '$stage/usr/share/man/man1/tern-inspect.1'"

lib=$stage/usr/lib
check "libtern.so.0 -> libtern.so.$version" \
	same "$(readlink "$lib/libtern.so.0")" "libtern.so.$version"
check "libtern.so -> libtern.so.0" same "$(readlink "$lib/libtern.so")" libtern.so.0
check "SONAME is libtern.so.0" \
	same "$(readelf -d "$lib/libtern.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" libtern.so.0
map_symbols=$(sed -n '/global:/,/local:/s/^[[:space:]]*\([a-z_0-9]*\);$/\1/p' \
	"$top/libruntime/libtern.map" | LC_ALL=C sort)
# Defined dynamic symbols, less the version node (type A).
so_symbols=$(nm -D --defined-only --format=posix "$lib/libtern.so.$version" |
	awk '$2 != "A" { sub(/@.*/, "", $1); print $1 }' | LC_ALL=C sort -u)
check "exported symbols are libtern.map's global list" same "$so_symbols" "$map_symbols"
check "exported symbols carry version LIBTERN_0" \
	sh -c "[ \$(nm -D --defined-only '$lib/libtern.so.$version' | grep -c '@@LIBTERN_0\$') -eq $(echo "$map_symbols" | wc -l) ]"
check "libtern.a holds tern_device_open" \
	sh -c "nm '$lib/libtern.a' 2>/dev/null | grep -q ' T tern_device_open\$'"
check "tern.h, tern_sim.h, tern_compute.h and tern_accel.h installed unchanged" \
	sh -c "cmp '$top/libruntime/tern.h' '$stage/usr/include/tern.h' &&
		cmp '$top/libruntime/tern_compute.h' '$stage/usr/include/tern_compute.h' &&
		cmp '$top/libruntime/tern_sim.h' '$stage/usr/include/tern_sim.h' &&
		cmp '$top/uapi/drm/tern_accel.h' '$stage/usr/include/drm/tern_accel.h'"
check "udev rule installed unchanged" \
	cmp "$top/dist/udev/70-tern.rules" "$stage$rulesdir/70-tern.rules"
if [ -n "$python" ]; then
	check "the installed Python package imports and finds the installed libtern" \
		sh -c "PYTHONPATH='$stage/usr/lib/python3/dist-packages' LD_LIBRARY_PATH='$stage/usr/lib' \
			/usr/bin/python3 -c 'import tern; print(tern.__version__, tern._tern.__file__)' |
			grep -qx '$version $stage/$pydir/_tern$ext'"
fi
check "tools are executable" \
	test -x "$stage/usr/bin/tern-inspect" -a -x "$stage/usr/bin/tern-bench"

# ---- tern.pc, read through a sysroot as a cross or packaging build would ----

# pkg-config finds tern.pc in the staged tree and libdrm.pc (Requires.private)
# on this system; the sysroot prefixes the staged -I and -L paths.
syspc=$(pkg-config --variable pc_path pkg-config)
pc() {
	PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR="$stage/usr/lib/pkgconfig:$syspc" \
		PKG_CONFIG_SYSROOT_DIR="$stage" pkg-config "$@"
}
check "tern.pc Version is VERSION ($version)" same "$(pc --modversion tern)" "$version"
check "tern.pc directories: prefix /usr, libdir and includedir below it" \
	sh -c "grep -qx 'prefix=/usr' '$lib/pkgconfig/tern.pc' &&
		grep -qx 'libdir=\${prefix}/lib' '$lib/pkgconfig/tern.pc' &&
		grep -qx 'includedir=\${prefix}/include' '$lib/pkgconfig/tern.pc'"
check "pkg-config --libs tern: -ltern, nothing private" \
	sh -c "out=\$(PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR='$stage/usr/lib/pkgconfig:$syspc' PKG_CONFIG_SYSROOT_DIR='$stage' pkg-config --libs tern);
		echo \"\$out\"; echo \"\$out\" | grep -q -- '-ltern' && ! echo \"\$out\" | grep -q -- '-ldrm'"
check "pkg-config --static --libs tern: adds libdrm and pthread" \
	sh -c "out=\$(PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR='$stage/usr/lib/pkgconfig:$syspc' PKG_CONFIG_SYSROOT_DIR='$stage' pkg-config --static --libs tern);
		echo \"\$out\"; echo \"\$out\" | grep -q -- '-ltern.*-ldrm' && echo \"\$out\" | grep -q -- '-lpthread'"

# shellcheck disable=SC2046 # pkg-config output is a list of flags
if cc -std=c11 -Wall -Werror -o "$tmp/prog-shared" "$here/prog.c" \
	$(pc --cflags --libs tern) >"$tmp/cc.log" 2>&1; then
	pass "program builds with pkg-config --cflags --libs tern"
	check "program needs libtern.so.0 and runs on the simulator" \
		sh -c "readelf -d '$tmp/prog-shared' | grep -q 'NEEDED.*\[libtern.so.0\]' &&
			[ \"\$(PATH='$stage/usr/bin':\$PATH LD_LIBRARY_PATH='$lib' TERN_BACKEND=sim TERN_SIM_MEM_MB=16 '$tmp/prog-shared')\" = ok ]"
else
	fail "program builds with pkg-config --cflags --libs tern" "$(cat "$tmp/cc.log")"
fi
# shellcheck disable=SC2046
if cc -std=c11 -Wall -Werror -static -o "$tmp/prog-static" "$here/prog.c" \
	$(pc --static --cflags --libs tern) >"$tmp/cc.log" 2>&1; then
	pass "program links statically with pkg-config --static"
	check "static program has no libtern.so.0 and runs" \
		sh -c "! readelf -d '$tmp/prog-static' 2>/dev/null | grep -q 'libtern' &&
			[ \"\$(PATH='$stage/usr/bin':\$PATH TERN_BACKEND=sim TERN_SIM_MEM_MB=16 '$tmp/prog-static')\" = ok ]"
else
	fail "program links statically with pkg-config --static" "$(cat "$tmp/cc.log")"
fi

# ---- a user's program, nothing set: libtern finds tern-simd ----

if PATH=$user_path command -v tern-simd >/dev/null 2>&1; then
	skip "programs start the simulator with nothing set" \
		"a tern-simd is on $user_path already"
else
	alone env LD_LIBRARY_PATH="$lib" "$tmp/prog-shared"
	check "installed libtern.so finds tern-simd from where it is" \
		same "$(cat "$out")" ok
	# shellcheck disable=SC2046 # pkg-config output is a list of flags
	if cc -std=c11 -Wall -Werror -I"$top/libruntime" -o "$tmp/prog-build-shared" \
		"$here/prog.c" -L"$build" -ltern -Wl,-rpath,"$build" >"$tmp/cc.log" 2>&1 &&
		cc -std=c11 -Wall -Werror -I"$top/libruntime" -o "$tmp/prog-build-static" \
		"$here/prog.c" "$build/libtern.a" $(pkg-config --libs libdrm) \
		-lcrypto -ldl -lpthread -lm >>"$tmp/cc.log" 2>&1; then
		alone "$tmp/prog-build-shared"
		check "a program built against the build tree's libtern.so runs from its folder" \
			same "$(cat "$out")" ok
		alone "$tmp/prog-build-static"
		check "a program linked with the build tree's libtern.a runs from its folder" \
			same "$(cat "$out")" ok
	else
		fail "programs build against the build tree" "$(cat "$tmp/cc.log")"
	fi
	alone "$tmp/prog-static"
	check "a static program of the installed libtern.a runs from its folder" \
		same "$(cat "$out")" ok
fi

check "installed tern-inspect --help" \
	sh -c "'$stage/usr/bin/tern-inspect' --help | grep -q '^Usage: tern-inspect'"
check "installed tern-bench --help" \
	sh -c "'$stage/usr/bin/tern-bench' --help | grep -q 'tern-bench'"

# ---- man pages ----

for page in "$stage"/usr/share/man/man1/*.1 "$stage"/usr/share/man/man3/*.3; do
	page_name=$(basename "$page")
	if command -v mandoc >/dev/null 2>&1; then
		check "mandoc -T lint $page_name" mandoc -T lint -W all "$page"
	else
		skip "mandoc -T lint $page_name" "mandoc not installed (.ci/install-deps)"
	fi
	check "groff renders $page_name without warnings" \
		sh -c "out=\$(LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l -Tutf8 -Z '$page' 2>&1 >/dev/null); echo \"\$out\"; [ -z \"\$out\" ]"
done
check "man finds tern-inspect(1), tern-bench(1), libtern(3) by name" \
	sh -c "for p in 1:tern-inspect 1:tern-bench 3:libtern; do
		MANPATH='$stage/usr/share/man' man -w \${p%%:*} \${p#*:} || exit 1; done"
check "tern-inspect(1) names every command" \
	sh -c "for c in list info topo health top events module metrics help; do
		grep -q \"^\\.B[RI]* \$c\\b\" '$stage/usr/share/man/man1/tern-inspect.1' || { echo \"no \$c\"; exit 1; }; done"

# ---- the udev rule ----

rule=$top/dist/udev/70-tern.rules
check "udev rule: syntax (udev_lint.py)" python3 "$here/udev_lint.py" "$rule"
check "udev rule: render group exists here" getent group render
check "udev rule: accel and render nodes whose parent the tern driver binds" \
	sh -c "grep -v '^#' '$rule' | grep -c 'GROUP=\"render\", MODE=\"0660\"' | grep -qx 2 &&
		grep -q 'SUBSYSTEM==\"accel\", KERNEL==\"accel\[0-9\]\*\", DRIVERS==\"tern\"' '$rule' &&
		grep -q 'SUBSYSTEM==\"drm\", KERNEL==\"renderD\[0-9\]\*\", DRIVERS==\"tern\"' '$rule'"
# udevadm verify arrived in systemd 254; Debian 12 has 252. Debian 13's,
# from the chroot tests/vm/trixie.sh prepares, runs through its own loader
# without touching the chroot.
trixie=$top/build/trixie
if udevadm verify --help >/dev/null 2>&1; then
	check "udevadm verify" udevadm verify "$rule"
elif [ -x "$trixie/usr/bin/udevadm" ] && [ -x "$trixie/lib64/ld-linux-x86-64.so.2" ]; then
	check "udevadm verify (Debian 13's udevadm)" \
		"$trixie/lib64/ld-linux-x86-64.so.2" --library-path \
		"$trixie/usr/lib/x86_64-linux-gnu:$trixie/usr/lib/x86_64-linux-gnu/systemd" \
		"$trixie/usr/bin/udevadm" verify "$rule"
else
	skip "udevadm verify" "this udevadm has no verify (systemd < 254) and build/trixie is not prepared"
fi

# ---- install elsewhere: nothing is rebuilt; uapi header usable ----

opt=$tmp/opt
check "make -n install with another PREFIX runs no compiler or linker" \
	sh -c "out=\$('$make' -n -C '$top' BUILD='$build' install PREFIX='$opt'); ! echo \"\$out\" | grep -E '^(cc|gcc|clang|ar) '"
if mk install PREFIX="$opt" UDEVRULESDIR="$opt/udev" >"$tmp/install.log" 2>&1; then
	pass "make install PREFIX=<dir> (no DESTDIR)"
	# shellcheck disable=SC2046
	check "tern.h with <drm/tern_accel.h> builds from tern.pc and runs" \
		sh -c "cc -std=c11 -Wall -Werror -DTERN_INSTALL_UAPI -o '$tmp/prog-uapi' '$here/prog.c' \
			\$(PKG_CONFIG_PATH='$opt/lib/pkgconfig' pkg-config --cflags --libs tern) &&
			PATH='$opt/bin':\$PATH LD_LIBRARY_PATH='$opt/lib' TERN_BACKEND=sim TERN_SIM_MEM_MB=16 '$tmp/prog-uapi' | grep -q '^ok '"
	alone env LD_LIBRARY_PATH="$opt/lib" "$tmp/prog-uapi"
	check "libtern.so installed under another prefix finds its tern-simd" \
		sh -c "[ $rc -eq 0 ] && grep -q '^ok ' '$out'"
	mkdir -m 700 "$tmp/machines"
	check "tern_sim.h builds from tern.pc: a tool lists the simulated machines" \
		sh -c "printf '%s\\n' '#include <tern_sim.h>' 'int main(void) { tern_sim_machine_t m[4]; uint32_t n; return tern_sim_machine_list(m, 4, &n) != TERN_SUCCESS || n; }' |
			cc -std=c11 -Wall -Werror -x c -o '$tmp/prog-sim' - \$(PKG_CONFIG_PATH='$opt/lib/pkgconfig' pkg-config --cflags --libs tern) &&
			TERN_SIM_DIR='$tmp/machines' LD_LIBRARY_PATH='$opt/lib' '$tmp/prog-sim'"
	check "make install again over the same tree" \
		mk install PREFIX="$opt" UDEVRULESDIR="$opt/udev"
	mk uninstall PREFIX="$opt" UDEVRULESDIR="$opt/udev" >"$tmp/uninstall.log" 2>&1
	check "make uninstall PREFIX=<dir> leaves no file" same "$(files "$opt")" ""
else
	fail "make install PREFIX=<dir> (no DESTDIR)" "$(tail -n 30 "$tmp/install.log")"
fi

check "make uninstall DESTDIR leaves no file" \
	sh -c "'$make' -s -C '$top' BUILD='$build' uninstall DESTDIR='$stage' PREFIX=/usr &&
		[ -z \"\$(find '$stage' ! -type d)\" ]"

# ---- .ci/install-deps: one command, as root or not ----

# Stubs stand for the system: every package is installed but tcpdump; id
# says FAKE_UID; apt-get writes who ran it; sudo runs as uid 0. With the
# stubs alone on PATH, there is no sudo unless with-sudo/ is on it too.
stubs=$tmp/stubs
mkdir -p "$stubs/bin" "$stubs/with-sudo"
for tool in grep env; do
	ln -s "$(command -v "$tool")" "$stubs/bin/$tool"
done
cat >"$stubs/bin/dpkg-query" <<'STUB'
#!/bin/sh
for package; do :; done
[ "$package" = tcpdump ] || printf 'install ok installed'
STUB
cat >"$stubs/bin/id" <<'STUB'
#!/bin/sh
echo "$FAKE_UID"
STUB
cat >"$stubs/bin/apt-get" <<'STUB'
#!/bin/sh
echo "uid $FAKE_UID: apt-get $* (DEBIAN_FRONTEND=$DEBIAN_FRONTEND)" >>"$DEPS_LOG"
STUB
cat >"$stubs/with-sudo/sudo" <<'STUB'
#!/bin/sh
FAKE_UID=0 exec "$@"
STUB
chmod +x "$stubs/bin/dpkg-query" "$stubs/bin/id" "$stubs/bin/apt-get" \
	"$stubs/with-sudo/sudo"
# deps UID PATH: .ci/install-deps as user UID; what apt-get did in $tmp/deps.log.
deps() {
	: >"$tmp/deps.log"
	FAKE_UID=$1 DEPS_LOG=$tmp/deps.log PATH=$2 run /bin/sh "$top/.ci/install-deps"
}
installed_as_root="uid 0: apt-get update -qq (DEBIAN_FRONTEND=noninteractive)
uid 0: apt-get install -y -qq --no-install-recommends tcpdump (DEBIAN_FRONTEND=noninteractive)"
deps 0 "$stubs/bin"
check "install-deps as root, no sudo there: apt-get itself" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(cat '$tmp/deps.log')\" = '$installed_as_root' ]"
deps 1000 "$stubs/with-sudo:$stubs/bin"
check "install-deps as a user: apt-get through sudo" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(cat '$tmp/deps.log')\" = '$installed_as_root' ]"
deps 1000 "$stubs/bin"
check "install-deps as a user without sudo: says it needs root" \
	sh -c "[ $rc -eq 1 ] && grep -qx 'install-deps: need root to install: tcpdump' '$err' &&
		[ ! -s '$tmp/deps.log' ]"
check "README's Quick start: its first command runs without sudo" \
	sh -c "sed -n '/^## Quick start/,/^## /p' '$top/README.md' |
		sed -n '/^\`\`\`sh/{n;p;q}' | grep -q '^\.ci/install-deps && '"

# ---- dkms ----

kernel=${TERN_DKMS_KERNEL:-}
if [ -z "$kernel" ]; then
	for dir in /lib/modules/*/build; do
		[ -d "$dir" ] && kernel=$(basename "$(dirname "$dir")")
	done
fi
dkmsroot=$tmp/dkms-src
check "make install-dkms lays out /usr/src/tern-$version" \
	mk install-dkms DESTDIR="$dkmsroot"
src=$dkmsroot/usr/src/tern-$version
check "dkms source tree: Kbuild, VERSION, dkms.conf, driver/, model/, uapi/; no build products" \
	sh -c "cd '$src' && [ -f Kbuild ] && [ -f dkms.conf ] && [ -f driver/Kbuild ] &&
		[ -f uapi/drm/tern_accel.h ] && [ -f model/tern_model.c ] &&
		[ \"\$(cat VERSION)\" = '$version' ] &&
		[ -z \"\$(find . -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' -o -name '*.symvers')\" ]"
check "dkms source tree: every driver source of the repository" \
	sh -c "cd '$top' && for f in driver/*.c driver/*.h model/*.c model/*.h; do
		case \$f in *.mod.c) continue ;; esac; cmp \"\$f\" '$src'/\"\$f\" || exit 1; done"
check "dkms.conf: name tern, version $version, autoinstall" \
	sh -c "grep -qx 'PACKAGE_NAME=\"tern\"' '$src/dkms.conf' &&
		grep -qx 'PACKAGE_VERSION=\"$version\"' '$src/dkms.conf' &&
		grep -qx 'AUTOINSTALL=\"yes\"' '$src/dkms.conf'"

if ! command -v dkms >/dev/null 2>&1; then
	skip "dkms build, install, remove" "dkms is not installed (.ci/install-deps installs it)"
elif [ -z "$kernel" ] || [ ! -d "/lib/modules/$kernel/build" ]; then
	skip "dkms build, install, remove" "no kernel headers in /lib/modules/*/build"
else
	# Scratch trees for dkms's state, sources and installed modules; an
	# existing, non-executable sign_file keeps dkms from making a signing
	# key in /var/lib/dkms.
	mkdir -p "$tmp/dkms" "$tmp/modules/$kernel"
	: >"$tmp/no-sign-file"
	dkms_run() {
		sign_file=$tmp/no-sign-file dkms "$@" -m tern -v "$version" \
			--sourcetree "$dkmsroot/usr/src" --dkmstree "$tmp/dkms" \
			--installtree "$tmp/modules"
	}
	if dkms_run build -k "$kernel" >"$tmp/dkms.log" 2>&1; then
		pass "dkms build for $kernel"
	else
		fail "dkms build for $kernel" "$(tail -n 30 "$tmp/dkms.log")" \
			"$(tail -n 30 "$tmp"/dkms/tern/"$version"/build/make.log 2>/dev/null)"
	fi
	ko=$tmp/dkms/tern/$version/$kernel/$(uname -m)/module/tern.ko
	check "dkms-built tern.ko: vermagic is $kernel" \
		sh -c "modinfo -F vermagic '$ko' | grep -q '^$kernel '"
	check "dkms-built tern.ko: version $version" \
		same "$(modinfo -F version "$ko" 2>&1)" "$version"
	check "dkms install --no-depmod into the scratch tree" \
		sh -c "sign_file='$tmp/no-sign-file' dkms install --no-depmod -m tern -v '$version' -k '$kernel' \
			--sourcetree '$dkmsroot/usr/src' --dkmstree '$tmp/dkms' --installtree '$tmp/modules' &&
			[ -f '$tmp/modules/$kernel/updates/dkms/tern.ko' ]"
	check "dkms status: installed" \
		sh -c "dkms status -m tern --dkmstree '$tmp/dkms' --sourcetree '$dkmsroot/usr/src' \
			--installtree '$tmp/modules' | tee /dev/stderr | grep -q '^tern/$version, $kernel, .*: installed'"
	check "dkms remove: the module and dkms's state are gone" \
		sh -c "dkms remove --no-depmod -m tern -v '$version' --all --dkmstree '$tmp/dkms' \
			--sourcetree '$dkmsroot/usr/src' --installtree '$tmp/modules' &&
			[ -z \"\$(find '$tmp/modules' -name 'tern.ko*')\" ] && [ ! -e '$tmp/dkms/tern' ]"
fi
check "make uninstall-dkms removes the source tree" \
	sh -c "'$make' -s -C '$top' uninstall-dkms DESTDIR='$dkmsroot' && [ -z \"\$(find '$dkmsroot' ! -type d)\" ]"

tap_finish install
