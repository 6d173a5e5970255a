#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/debug-kernel.sh [--print] [--rebuild]: the guests' debug kernel
# (x86_64), built from Debian's linux-source-6.12 with the kernel's own bug
# finders (tests/vm/debug/debug.config: KASAN, lockdep, DMA-API debug,
# kmemleak, UBSAN, fault injection, KCOV, the hung-task and soft-lockup
# detectors) over `make tinyconfig`, so that it builds in minutes.
#
# The result is cached outside the clone, in $FDMA_CACHE/debug-kernel/KEY/
# (FDMA_CACHE: /var/cache/fdma when writable, else ~/.cache/fdma), where KEY
# is the source tarball's Debian version and the hash of the config
# fragment and of BUILD_REV below: a machine that built it once reuses it,
# and a new source or config builds a new one. The folder holds
#   boot/vmlinuz-RELEASE           the kernel
#   lib/modules/RELEASE/           its modules (modules_install)
#   build/                         the tree, prepared for out-of-tree modules
#   release                        RELEASE (e.g. 6.12.57-fdma-debug)
#   log                            the build's output, times at the end
# Builds are serialised with a lock (the matrix's rows start together).
#
# Prints the folder's path on stdout (the build's progress goes to stderr).
# --print: print it only if the kernel is cached (exit 1 otherwise).
# --rebuild: build again even if cached.
# --background LOG: if it is not cached, build it at the lowest priority in
# the background, output to LOG, and return at once (make test starts it
# first, so that it uses what the earlier stages leave of the CPUs; the
# debug rows wait for it on the lock).
#
# Exit: 0 with the path, 1 when the build failed, 77 when something it
# needs is missing (linux-source-6.12, flex, bison, bc, libelf, libssl).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
FRAG=$ROOT/tests/vm/debug/debug.config
TARBALL=${FDMA_DEBUG_SRC:-/usr/src/linux-source-6.12.tar.xz}
PRINT=0
REBUILD=0
BGLOG=""
while [ $# -gt 0 ]; do
	case $1 in
	--print) PRINT=1 ;;
	--rebuild) REBUILD=1 ;;
	--background) [ $# -ge 2 ] || { echo "debug-kernel.sh: --background needs a log file" >&2; exit 2; }
		BGLOG=$2; shift ;;
	-h|--help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "debug-kernel.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

if [ -z "${FDMA_CACHE:-}" ]; then
	if mkdir -p /var/cache/fdma 2>/dev/null && [ -w /var/cache/fdma ]; then
		FDMA_CACHE=/var/cache/fdma
	else
		FDMA_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/fdma
	fi
fi

[ -r "$TARBALL" ] || { echo "SKIP: no $TARBALL (apt-get install linux-source-6.12)" >&2; exit 77; }
# The key: the source's Debian version (or the tarball's size and time when
# no package owns it), the fragment, and BUILD_REV: raise it when a change
# here changes what is built.
BUILD_REV=1
srcver=$(dpkg -S "$TARBALL" 2>/dev/null | cut -d: -f1 | head -1)
[ -n "$srcver" ] && srcver=$(dpkg-query -W -f '${Version}' "$srcver" 2>/dev/null)
[ -n "$srcver" ] || srcver=$(stat -L -c '%s-%Y' "$TARBALL")
hash=$( (cat "$FRAG"; echo "rev $BUILD_REV") | sha256sum | cut -c1-12)
KEY=$srcver-$hash
DIR=$FDMA_CACHE/debug-kernel/$KEY

cached() { [ -s "$DIR/release" ] && [ -e "$DIR/.complete" ]; }
if [ $PRINT = 1 ]; then
	cached && { echo "$DIR"; exit 0; }
	exit 1
fi
if [ -n "$BGLOG" ]; then
	cached && exit 0
	mkdir -p "$(dirname "$BGLOG")" || exit 1
	echo "debug kernel: building in the background (log: $BGLOG)"
	# shellcheck disable=SC2086  # ionice only where it exists
	nohup nice -n 19 $(command -v ionice >/dev/null && echo ionice -c 3) "$0" >"$BGLOG" 2>&1 </dev/null &
	exit 0
fi

mkdir -p "$FDMA_CACHE/debug-kernel" || exit 1
exec 8>>"$FDMA_CACHE/debug-kernel/.lock"
flock 8
if cached && [ $REBUILD = 0 ]; then
	echo "debug kernel $(cat "$DIR/release"): cached in $DIR" >&2
	echo "$DIR"
	exit 0
fi

for t in flex bison bc make gcc perl xz; do
	command -v $t >/dev/null ||
		{ echo "SKIP: $t not found (apt-get install flex bison bc libelf-dev libssl-dev)" >&2; exit 77; }
done
for h in /usr/include/libelf.h /usr/include/openssl/ssl.h; do
	[ -e "$h" ] || { echo "SKIP: no $h (apt-get install libelf-dev libssl-dev)" >&2; exit 77; }
done

NEW=$DIR.new
rm -rf "$NEW" "$DIR"
mkdir -p "$NEW/build" || exit 1
LOG=$NEW/log
: >"$LOG"
T0=$(date +%s)
step() { echo "debug kernel: $*" | tee -a "$LOG" >&2; }
die() {
	echo "debug kernel: $* (the log's tail below; whole log in $LOG)" >&2
	tail -30 "$LOG" | sed 's/^/    | /' >&2
	exit 1
}

step "unpacking $TARBALL ($srcver)"
tar -xJf "$TARBALL" -C "$NEW/build" --strip-components=1 || die "cannot unpack $TARBALL"
T1=$(date +%s)
K=(make -C "$NEW/build" ARCH=x86_64 -j"$(nproc 2>/dev/null || echo 2)")
step "configuring: tinyconfig + $FRAG"
{
	"${K[@]}" tinyconfig &&
	(cd "$NEW/build" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m .config "$FRAG") &&
	"${K[@]}" olddefconfig
} >>"$LOG" 2>&1 || die "configuration failed"
# Every option the fragment sets must be as it says: a dependency olddefconfig
# resolved the other way would otherwise test less without a word.
missing=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\([ymn]\)$/\1=\2/p' "$FRAG" | while read -r want; do
	opt=${want%%=*}
	case $want in
	*=n) grep -q "^$opt=[ym]" "$NEW/build/.config" && echo "$want (got: $(grep "^$opt=" "$NEW/build/.config"))" ;;
	*) grep -qx "$want" "$NEW/build/.config" || echo "$want (got: $(grep "^$opt=" "$NEW/build/.config" || echo "not set"))" ;;
	esac
done)
[ -z "$missing" ] || die "the fragment's options not in the final .config: $missing"
# A release of its own, so that its modules never mix with Debian's.
(cd "$NEW/build" && scripts/config --set-str LOCALVERSION -fdma-debug --disable LOCALVERSION_AUTO) &&
	"${K[@]}" olddefconfig >>"$LOG" 2>&1 || die "cannot set the release name"

step "building bzImage and modules (12 minutes on 2 cores; 14 to 26 beside make test)"
"${K[@]}" bzImage modules >>"$LOG" 2>&1 || die "the build failed"
T2=$(date +%s)
REL=$("${K[@]}" -s kernelrelease 2>>"$LOG") && [ -n "$REL" ] || die "no kernelrelease"
"${K[@]}" INSTALL_MOD_PATH="$NEW" modules_install >>"$LOG" 2>&1 || die "modules_install failed"
mkdir -p "$NEW/boot"
cp "$NEW/build/arch/x86/boot/bzImage" "$NEW/boot/vmlinuz-$REL" || die "no bzImage"
# modules_install links lib/modules/REL/build to the tree: make it relative to the cache folder.
rm -f "$NEW/lib/modules/$REL/build" "$NEW/lib/modules/$REL/source"
ln -s ../../../build "$NEW/lib/modules/$REL/build"
# Out-of-tree modules need the configured tree, not the kernel's objects.
find "$NEW/build" -name '*.o' ! -path '*/scripts/*' ! -path '*/tools/*' -delete
rm -f "$NEW/build/vmlinux.o" "$NEW/build/vmlinux.a"
echo "$REL" >"$NEW/release"
T3=$(date +%s)
step "unpack $((T1 - T0)) s, build $((T2 - T1)) s, install $((T3 - T2)) s: $REL in $DIR"
touch "$NEW/.complete"
mv "$NEW" "$DIR" || exit 1
# Under the lock, so no other build is under way: what an interrupted
# build left, and all but the two newest kernels (another checkout may
# still use the one before).
rm -rf "$FDMA_CACHE"/debug-kernel/*.new
ls -dt "$FDMA_CACHE"/debug-kernel/*/ | tail -n +3 | while read -r old; do rm -rf "$old"; done
echo "$DIR"
