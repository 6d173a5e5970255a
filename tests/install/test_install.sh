#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/install/test_install.sh: `make install PREFIX=/usr DESTDIR=<tmp>`,
# then what a user of the installed tree gets:
#   - the files: fdma, fdma-modeld, libfdma.a, libfdma.so.VERSION and its
#     links, fdma.h, fdma.pc, every man page of docs/man, the udev rule, the
#     sysusers file, the DKMS tree;
#   - libfdma.so's soname (libfdma.so.MAJOR) and dependencies, and the
#     exported symbols of both libraries against the header's functions
#     (check_symbols.sh), and that a program calling an internal function
#     does not link;
#   - pkg-config's answers, with PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_LIBDIR
#     pointing into DESTDIR;
#   - examples/fdma_example.c built with pkg-config against the installed
#     header and libraries, shared (run with LD_LIBRARY_PATH) and static,
#     both run on the simulated device;
#   - the installed header alone compiles as C99 -pedantic and as C++;
#   - the udev rule's syntax, and that its patterns match the device names
#     fdma.ko gives (kernel/*.c) and the group sysusers creates;
#   - dkms.conf's values, and the module built as DKMS would build it: the
#     installed tree copied elsewhere, dkms.conf's MAKE command run there
#     against an installed kernel's headers (skipped, and said, where no
#     /lib/modules/*/build exists);
#   - the Python module imported from DESTDIR's dist-packages over the
#     installed libfdma.so, moving 1 MiB through the simulated device's
#     card memory, checked (skipped without a python3 with numpy);
#   - the GStreamer plugin in GStreamer's plugin folder, loaded from there
#     over the installed libfdma, moving frames the checker counts good;
#   - nothing installed names the DESTDIR.
#
# Environment: BUILD (default build) is the build used; SUMMARY (default
# build/install-summary) gets "passed failed". KEEP=1 keeps the DESTDIR.
# Exit 0 when every check passed.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOTDIR=$PWD
BUILD=${BUILD:-build}
SUMMARY=${SUMMARY:-build/install-summary}
CC=${CC:-cc}
MAKE=${MAKE:-make}
T=$(mktemp -d "${TMPDIR:-/tmp}/fdma-install.XXXXXX") || exit 1
if [ "${KEEP:-0}" = 1 ]; then
	trap 'echo "kept $T"' EXIT
else
	trap 'rm -rf "$T"' EXIT
fi
trap 'exit 1' HUP INT TERM
D=$T/root
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || [ ! -s "$2" ] || tail -n 20 "$2" | sed 's/^/    /'; }
skip() { skip=$((skip + 1)); echo "SKIP $1"; }
finish() {
	mkdir -p "$(dirname "$SUMMARY")"
	echo "$pass $fail" >"$SUMMARY"
	echo "install: $pass passed, $fail failed, $skip skipped"
	[ $fail -eq 0 ]
	exit
}
t0=$SECONDS

VERSION=$(sed -n 's/^#define FDMA_VERSION_STRING "\([0-9.]*\)".*/\1/p' include/fdma.h)
MAJOR=${VERSION%%.*}
[ -n "$VERSION" ] || { bad "FDMA_VERSION_STRING not found in include/fdma.h"; finish; }

# ---- make install ------------------------------------------------------------------
if $MAKE -s BUILD="$BUILD" all >"$T/make.log" 2>&1 &&
   $MAKE -s BUILD="$BUILD" install PREFIX=/usr DESTDIR="$D" >>"$T/make.log" 2>&1; then
	ok "make install PREFIX=/usr DESTDIR=$D"
else
	bad "make install PREFIX=/usr DESTDIR=..." "$T/make.log"
	finish
fi

U=$D/usr
missing=""
for f in bin/fdma bin/fdma-modeld lib/libfdma.a "lib/libfdma.so.$VERSION" include/fdma.h \
	 lib/pkgconfig/fdma.pc lib/udev/rules.d/60-fdma.rules lib/sysusers.d/fdma.conf; do
	[ -f "$U/$f" ] || missing="$missing $f"
done
[ -x "$U/bin/fdma" ] && [ -x "$U/bin/fdma-modeld" ] || missing="$missing (fdma, fdma-modeld executable)"
if [ -z "$missing" ]; then ok "installed: fdma, fdma-modeld, libfdma.a, libfdma.so.$VERSION, fdma.h, fdma.pc, udev rule, sysusers"
else bad "not installed:$missing"; fi

if [ "$(readlink "$U/lib/libfdma.so.$MAJOR")" = "libfdma.so.$VERSION" ] &&
   [ "$(readlink "$U/lib/libfdma.so")" = "libfdma.so.$MAJOR" ]; then
	ok "links libfdma.so -> libfdma.so.$MAJOR -> libfdma.so.$VERSION"
else
	bad "libfdma.so links: $(ls -l "$U"/lib/libfdma.so* 2>&1 | awk '{ print $9, $10, $11 }' | paste -sd' ')"
fi

# Every man page of docs/man, in its section.
n=0 missing=""
for m in docs/man/*.[0-9]; do
	sec=${m##*.}
	f=$U/share/man/man$sec/$(basename "$m")
	# A page, or a link page (.so man3/other.3) to one installed beside it.
	so=$(sed -n 's/^\.so[ \t]*//p' "$f" 2>/dev/null | head -n 1)
	if [ -f "$f" ] && { grep -q '^\.TH ' "$f" || { [ -n "$so" ] && grep -q '^\.TH ' "$U/share/man/$so"; }; }; then
		n=$((n + 1))
	else
		missing="$missing $(basename "$m")"
	fi
done
if [ -z "$missing" ] && [ $n -gt 0 ]; then ok "$n man pages in share/man/man{1,3,7}"
else bad "man pages missing:$missing"; fi
if [ ! -f "$U/share/man/man1/fdma-modeld.1" ]; then
	echo "note: no fdma-modeld(1) in docs/man yet"
fi

# Nothing installed names the staging directory.
if grep -rlF "$D" "$D" >"$T/leak" 2>/dev/null; then bad "installed files name DESTDIR" "$T/leak"
else ok "no installed file names DESTDIR"; fi

# ---- the shared library ---------------------------------------------------------------
SO=$U/lib/libfdma.so.$VERSION
readelf -d "$SO" >"$T/dyn" 2>&1
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' "$T/dyn")
if [ "$soname" = "libfdma.so.$MAJOR" ]; then ok "soname $soname"; else bad "soname '$soname', not libfdma.so.$MAJOR" "$T/dyn"; fi
if grep -q 'NEEDED.*\[libz\.so' "$T/dyn"; then ok "libfdma.so records its dependency on libz"
else bad "libfdma.so does not need libz.so (a program linking -lfdma alone would miss crc32)" "$T/dyn"; fi

if sh tests/install/check_symbols.sh "$U/include/fdma.h" "$U/lib/libfdma.a" "$SO" >"$T/sym" 2>&1; then
	ok "exported symbols: $(grep -c '^ok' "$T/sym") checks (tests/install/check_symbols.sh)"
else
	bad "exported symbols" "$T/sym"
fi

# ---- pkg-config ---------------------------------------------------------------------
export PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_LIBDIR=$U/lib/pkgconfig
unset PKG_CONFIG_PATH
PC=${PKG_CONFIG:-pkg-config}
if ! command -v "$PC" >/dev/null; then
	bad "pkg-config not found (apt-get install pkg-config)"
	finish
fi
v=$($PC --modversion fdma 2>"$T/pc.err")
if [ "$v" = "$VERSION" ]; then ok "pkg-config --modversion fdma: $v"; else bad "pkg-config --modversion fdma: '$v'" "$T/pc.err"; fi
CFL=$($PC --cflags fdma)
LIBS=$($PC --libs fdma)
SLIBS=$($PC --static --libs fdma)
echo "     --cflags: $CFL"
echo "     --libs: $LIBS"
echo "     --static --libs: $SLIBS"
case " $CFL " in *" -I$U/include "*) ok "--cflags names the installed include directory" ;;
*) bad "--cflags '$CFL' lacks -I$U/include" ;; esac
case " $LIBS " in *" -L$U/lib -lfdma -lz -pthread "*) ok "--libs: -L$U/lib -lfdma -lz -pthread" ;;
*) bad "--libs '$LIBS'" ;; esac
m=""
for w in -lfdma -lz -lm -pthread; do case " $SLIBS " in *" $w "*) ;; *) m="$m $w" ;; esac; done
if [ -z "$m" ]; then ok "--static --libs adds -lz -lm -pthread"; else bad "--static --libs '$SLIBS' lacks$m"; fi

# ---- the example, shared and static -----------------------------------------------------
EX=examples/fdma_example.c
# The simulated device unpaced: the example's 64 MiB take milliseconds.
URI=sim:paced=0
# shellcheck disable=SC2086  # pkg-config's output is words
if $CC -std=c11 -Wall -Wextra -Werror -o "$T/ex-shared" "$EX" $CFL $LIBS >"$T/cc1" 2>&1; then
	ok "$EX built shared: cc $EX \$(pkg-config --cflags --libs fdma)"
	if readelf -d "$T/ex-shared" | grep -q "NEEDED.*\[libfdma\.so\.$MAJOR\]"; then ok "the shared example needs libfdma.so.$MAJOR"
	else bad "the shared example does not need libfdma.so.$MAJOR"; fi
	if LD_LIBRARY_PATH=$U/lib timeout 60 "$T/ex-shared" "$URI" >"$T/out1" 2>&1 &&
	   grep -q "libfdma $VERSION, sim device" "$T/out1" && grep -q '32 MiB written and read back, identical' "$T/out1"; then
		ok "shared example on $URI: $(tail -n 1 "$T/out1")"
	else
		bad "shared example on $URI" "$T/out1"
	fi
	# And it really ran the installed library, not one found elsewhere.
	if LD_LIBRARY_PATH=$U/lib ldd "$T/ex-shared" 2>&1 | grep -q "libfdma\.so\.$MAJOR => $U/lib/"; then
		ok "the shared example loads $U/lib/libfdma.so.$MAJOR"
	else
		bad "the shared example does not load the installed libfdma.so"
	fi
else
	bad "$EX shared" "$T/cc1"
fi
# shellcheck disable=SC2086
if $CC -std=c11 -Wall -Wextra -Werror -static -o "$T/ex-static" "$EX" $CFL $SLIBS >"$T/cc2" 2>&1; then
	ok "$EX built static: cc -static $EX \$(pkg-config --static --cflags --libs fdma)"
	if ! readelf -d "$T/ex-static" 2>/dev/null | grep -q NEEDED; then ok "the static example needs no shared library"
	else bad "the static example has NEEDED entries"; fi
	if timeout 60 "$T/ex-static" "$URI" >"$T/out2" 2>&1 &&
	   grep -q '32 MiB written and read back, identical' "$T/out2"; then
		ok "static example on $URI: $(tail -n 1 "$T/out2")"
	else
		bad "static example on $URI" "$T/out2"
	fi
else
	bad "$EX static" "$T/cc2"
fi
# A failure is reported, not hidden: an unknown URI exits 1 naming it.
if [ -x "$T/ex-static" ]; then
	"$T/ex-static" nosuch: >"$T/out3" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q nosuch "$T/out3"; then ok "the example exits 1 on a bad URI, naming it"
	else bad "the example on nosuch: exited $rc" "$T/out3"; fi
fi

# The README's program, exactly as printed (its first ```c block), built
# with pkg-config as the README says and run.
awk '/^```c$/ { f = 1; next } /^```$/ { if (f) exit } f' README.md >"$T/app.c"
# shellcheck disable=SC2086
if [ ! -s "$T/app.c" ]; then
	bad "README.md has a C example"
elif $CC -std=c11 -Wall -Wextra -Werror -o "$T/app" "$T/app.c" $CFL $LIBS >"$T/cc4" 2>&1 &&
     LD_LIBRARY_PATH=$U/lib timeout 60 "$T/app" "$URI" >"$T/out4" 2>&1 &&
     grep -q 'identical' "$T/out4"; then
	ok "README.md's example compiles as printed and runs: $(tail -n 1 "$T/out4")"
else
	bad "README.md's example (cc app.c \$(pkg-config --cflags --libs fdma))" "$T/cc4"
	cat "$T/out4" 2>/dev/null | head -n 3
fi

# Internal functions do not link, with either library.
cat >"$T/internal.c" <<'EOF'
#include <fdma.h>
int fdma_err(struct fdma_dev *dev, int err, const char *fmt, ...);
int main(void) { return fdma_err(0, 0, "x"); }
EOF
# shellcheck disable=SC2086
if $CC -o "$T/int1" "$T/internal.c" $CFL $LIBS >"$T/cc4" 2>&1; then bad "a program calling fdma_err links against libfdma.so"
elif grep -q 'undefined reference to .fdma_err' "$T/cc4"; then ok "fdma_err is not reachable through libfdma.so"
else bad "linking the fdma_err program failed otherwise" "$T/cc4"; fi
# shellcheck disable=SC2086
if $CC -static -o "$T/int2" "$T/internal.c" $CFL $SLIBS >"$T/cc5" 2>&1; then bad "a program calling fdma_err links against libfdma.a"
elif grep -q 'undefined reference to .fdma_err' "$T/cc5"; then ok "fdma_err is not reachable through libfdma.a"
else bad "linking the fdma_err program statically failed otherwise" "$T/cc5"; fi

# The installed header alone, strictly, in C and C++.
echo '#include <fdma.h>' >"$T/h.c"
if $CC -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$U/include" "$T/h.c" >"$T/cc6" 2>&1; then
	ok "fdma.h alone compiles as C99 -pedantic"
else
	bad "fdma.h as C99 -pedantic" "$T/cc6"
fi
if command -v "${CXX:-c++}" >/dev/null; then
	if "${CXX:-c++}" -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$U/include" "$T/h.c" >"$T/cc7" 2>&1; then
		ok "fdma.h compiles as C++"
	else
		bad "fdma.h as C++" "$T/cc7"
	fi
fi

# The installed command runs on its own (linked with the internal archive).
if "$U/bin/fdma" info sim: >"$T/info" 2>&1 && ! readelf -d "$U/bin/fdma" | grep -q 'NEEDED.*libfdma'; then
	ok "installed fdma info sim: runs (libfdma linked in)"
else
	bad "installed fdma info sim:" "$T/info"
fi

# ---- the Python module ---------------------------------------------------------------------
PYD=$U/lib/python3/dist-packages
PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import numpy' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ ! -f "$PYD/fdma/__init__.py" ] || [ ! -f "$PYD/fdma/_ffi.py" ]; then
	bad "the Python module is not installed in $PYD/fdma"
elif [ -z "$PY" ]; then
	skip "the installed Python module: no python3 with numpy (apt-get install python3-numpy)"
elif PYTHONPATH=$PYD FDMA_LIBRARY=$U/lib/libfdma.so.$MAJOR PYTHONDONTWRITEBYTECODE=1 \
	timeout 60 "$PY" - >"$T/py" 2>&1 <<'EOF'
import os
import numpy as np
import fdma
# The installed module, over the installed library.
assert fdma.__file__.startswith(os.environ["PYTHONPATH"] + "/"), fdma.__file__
assert fdma._ffi.lib._name == os.environ["FDMA_LIBRARY"]
n = 1 << 20
with fdma.Device("sim:paced=0") as dev, dev.alloc(n) as src, dev.alloc(n) as dst:
    want = np.random.default_rng(5).integers(0, 256, n, dtype=np.uint8)
    src.array()[:] = want
    dst.array()[:] = ~want
    dev.write_card(src, 0, 4096, n)
    dev.read_card(dst, 0, 4096, n)
    assert np.array_equal(dst.array(), want), "the bytes read back differ"
print("1 MiB to card memory and back, identical")
EOF
then
	ok "the installed Python module (lib/python3/dist-packages/fdma) on sim: $(tail -n 1 "$T/py")"
else
	bad "the installed Python module on sim:" "$T/py"
fi

# ---- the GStreamer plugin ---------------------------------------------------------------
# Where GStreamer looks (its pkg-config pluginsdir), linked against the
# installed libfdma; a pipeline through it moves frames the checker counts.
GSTDIR=$(env -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR \
	pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null || true)
if [ ! -f "$BUILD/gst/libgstfdma.so" ]; then
	skip "the GStreamer plugin: not built (no GStreamer development files)"
elif [ ! -f "$D$GSTDIR/libgstfdma.so" ]; then
	bad "the GStreamer plugin is not installed in $GSTDIR"
elif ! command -v gst-launch-1.0 >/dev/null 2>&1; then
	skip "the installed GStreamer plugin: no gst-launch-1.0 (gstreamer1.0-tools)"
elif GST_PLUGIN_SYSTEM_PATH=$D$GSTDIR GST_PLUGIN_PATH= GST_REGISTRY=$T/gst-registry.bin \
	LD_LIBRARY_PATH=$U/lib timeout 60 gst-launch-1.0 -m fdmasrc device=sim: testgen=true \
	drop=false format=bytes frame-size=4096 num-buffers=20 ! fdmasink device=sim: testgen=true \
	>"$T/gst" 2>&1 && grep -q 'good=(guint64)20, bad=(guint64)0' "$T/gst"; then
	ok "the installed GStreamer plugin ($GSTDIR/libgstfdma.so): 20 frames, all good"
else
	bad "the installed GStreamer plugin: fdmasrc ! fdmasink" "$T/gst"
fi

# ---- udev and sysusers --------------------------------------------------------------------
R=$U/lib/udev/rules.d/60-fdma.rules
# Each rule: comma-separated KEY{ATTR}OP"VALUE" pairs; match keys use == or
# !=, the assignments here = (udev ignores a rule it cannot parse, with
# only a log line: a typo would leave /dev/fdma* root-only).
if awk '
	/^[ \t]*(#|$)/ { next }
	{
		line = $0; n = 0
		while (line != "") {
			if (!match(line, /^[ \t]*[A-Z_]+(\{[^}]*\})?(==|!=|\+=|-=|:=|=)"[^"]*"[ \t]*(,|$)/)) {
				printf "line %d: cannot parse near: %s\n", NR, line; bad = 1; next
			}
			line = substr(line, RLENGTH + 1); n++
		}
	}
	END { exit bad }' "$R" >"$T/udev" 2>&1; then
	ok "60-fdma.rules parses (KEY==\"value\", ... on every rule line)"
else
	bad "60-fdma.rules syntax" "$T/udev"
fi
# The names fdma.ko gives its devices, from its sources.
names=$(sed -n 's/.*dev_set_name([^"]*"\([^"%]*\)%d".*/\1/p' kernel/*.c | sort -u)
[ -n "$names" ] || names="fdma fdma-edu"
for base in $names; do
	for dev in "${base}0" "${base}12"; do
		hit=$(awk -v d="$dev" '
			/^[ \t]*(#|$)/ { next }
			{
				g = ""; s = ""; grp = ""; mode = ""
				if (match($0, /KERNEL=="[^"]*"/)) g = substr($0, RSTART + 9, RLENGTH - 10)
				if (match($0, /SUBSYSTEM=="[^"]*"/)) s = substr($0, RSTART + 12, RLENGTH - 13)
				if (match($0, /GROUP="[^"]*"/)) grp = substr($0, RSTART + 7, RLENGTH - 8)
				if (match($0, /MODE="[^"]*"/)) mode = substr($0, RSTART + 6, RLENGTH - 7)
				print g "|" s "|" grp "|" mode
			}' "$R" | while IFS='|' read -r glob sub grp mode; do
				# shellcheck disable=SC2254  # the rule's glob, as udev matches it
				case $dev in $glob) [ "$sub" = fdma ] && echo "$grp $mode" ;; esac
			done | head -n 1)
		if [ "$hit" = "fdma 0660" ]; then ok "/dev/$dev (class fdma): group fdma, mode 0660"
		else bad "/dev/$dev: the rule gives '$hit', not 'fdma 0660'"; fi
	done
done
# (fdma[0-9]* would also match "fdma0-1", but the class holds no such
# device: the "fdma%d-%u" names are interrupt names, not devices.)
for dev in fdma fdmax fdma-edu fdma-ctl; do
	if awk '/^[ \t]*(#|$)/ { next } { print }' "$R" | grep -o 'KERNEL=="[^"]*"' | sed 's/KERNEL=="\(.*\)"/\1/' |
	   while read -r glob; do case $dev in $glob) echo hit ;; esac; done | grep -q hit; then
		bad "the rule also matches '$dev'"
	fi
done
if grep -qE '^g[ \t]+fdma[ \t]' "$U/lib/sysusers.d/fdma.conf"; then ok "sysusers.d/fdma.conf creates the group fdma"
else bad "sysusers.d/fdma.conf does not create the group fdma"; fi

# ---- DKMS ---------------------------------------------------------------------------------
S=$D/usr/src/fdma-$VERSION
if [ -f "$S/dkms.conf" ]; then
	# dkms sources the file with bash, kernel_source_dir etc. set.
	vals=$(cd "$S" && kernel_source_dir=/KSRC kernelver=KVER arch=ARCH bash -c '
		set -eu; . ./dkms.conf
		echo "$PACKAGE_NAME|$PACKAGE_VERSION|${BUILT_MODULE_NAME[0]}|${BUILT_MODULE_LOCATION[0]:-}|${DEST_MODULE_LOCATION[0]}|${MAKE[0]}|${AUTOINSTALL:-}|${BUILT_MODULE_NAME[1]:-}|${BUILT_MODULE_LOCATION[1]:-}"' 2>"$T/dkms.err")
	IFS='|' read -r name ver mod loc dest mk auto mod1 loc1 <<<"$vals"
	e=""
	[ "$name" = fdma ] || e="$e PACKAGE_NAME=$name"
	[ "$ver" = "$VERSION" ] || e="$e PACKAGE_VERSION=$ver (not $VERSION)"
	[ "$mod" = fdma ] || e="$e BUILT_MODULE_NAME=$mod"
	[ "$mod1" = fdma_dmac ] && [ "$loc1" = "${loc}dmac/" ] || e="$e BUILT_MODULE_NAME[1]=$mod1 in $loc1"
	[ -d "$S/${loc:-.}" ] || e="$e BUILT_MODULE_LOCATION=$loc (no such directory)"
	case $dest in /kernel*|/updates*|/extra*) ;; *) e="$e DEST_MODULE_LOCATION=$dest" ;; esac
	case $mk in *KDIR=/KSRC*) ;; *) e="$e MAKE does not pass KDIR=\${kernel_source_dir} ($mk)" ;; esac
	[ "$auto" = yes ] || e="$e AUTOINSTALL=$auto"
	if [ -z "$e" ]; then ok "dkms.conf: fdma $ver, modules ${loc}fdma.ko and ${loc1}fdma_dmac.ko to $dest, make with KDIR"
	else bad "dkms.conf:$e" "$T/dkms.err"; fi
	# Self-contained: no link out of the tree, no build products.
	find "$S" -type l >"$T/links"
	find "$S" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) >>"$T/links"
	if [ -s "$T/links" ]; then bad "the DKMS tree holds links or build products" "$T/links"
	else ok "the DKMS tree holds sources only ($(find "$S" -type f | wc -l) files)"; fi
else
	bad "no $S/dkms.conf"
	mk=""
fi

# The module, built as DKMS builds it: the tree copied to a build
# directory, dkms.conf's MAKE run there with kernel_source_dir.
KV=""
for v in "$(uname -r)" $(ls /lib/modules 2>/dev/null | sort -V); do
	if [ -f "/lib/modules/$v/build/Makefile" ]; then KV=$v; break; fi
done
if [ -z "$KV" ]; then
	skip "building fdma.ko from the DKMS tree: no kernel headers in /lib/modules/*/build (apt-get install linux-headers-amd64)"
elif [ -n "$mk" ]; then
	cp -a "$S" "$T/dkms-build"
	kmake=$(echo "$mk" | sed "s|/KSRC|/lib/modules/$KV/build|g")
	t1=$SECONDS
	if (cd "$T/dkms-build" && $kmake -j2) >"$T/kbuild.log" 2>&1 && [ -f "$T/dkms-build/${loc}fdma.ko" ] &&
		[ -f "$T/dkms-build/${loc1}fdma_dmac.ko" ]; then
		vm=$(modinfo -F vermagic "$T/dkms-build/${loc}fdma.ko" 2>/dev/null | cut -d' ' -f1)
		if [ "$vm" = "$KV" ]; then ok "fdma.ko and fdma_dmac.ko built from the DKMS tree for $KV ($((SECONDS - t1)) s): $kmake"
		else bad "fdma.ko built from the DKMS tree has vermagic '$vm', not $KV"; fi
		# What a card needs and nothing of the VM harness (kernel/harness/):
		# no parameter of its stand-ins, no binding of QEMU's devices.
		ko=$T/dkms-build/${loc}fdma.ko
		extra=$(modinfo -F parm "$ko" | cut -d: -f1 | grep -xE 'ivshmem|irq_carrier|edu|edu_dma_bits' | tr '\n' ' ')
		[ -z "$(find "$S" -path '*/harness/*' -o -name 'fdma_mdbg.h')" ] || extra="$extra(harness sources in the tree) "
		strings "$ko" | grep -q 'fdma-edu\|ivshmem-doorbell\|interrupt carrier' && extra="$extra(harness strings) "
		if [ -z "$extra" ]; then ok "the DKMS fdma.ko holds no VM-harness code ($(modinfo -F parm "$ko" | wc -l) parameters, none of the harness's)"
		else bad "the DKMS fdma.ko holds VM-harness parts: $extra"; fi
	else
		bad "building fdma.ko from the DKMS tree for $KV: $kmake" "$T/kbuild.log"
	fi
	# And `make -C <tree> KDIR=...` straight in the installed tree works too.
	if $MAKE -s -C "$S" KDIR="/lib/modules/$KV/build" -j2 >"$T/kbuild2.log" 2>&1 && [ -f "$S/kernel/fdma.ko" ]; then
		ok "make -C /usr/src/fdma-$VERSION KDIR=/lib/modules/$KV/build builds kernel/fdma.ko"
	else
		bad "make -C /usr/src/fdma-$VERSION KDIR=/lib/modules/$KV/build" "$T/kbuild2.log"
	fi
fi

echo "install test: $((SECONDS - t0)) s"
finish
