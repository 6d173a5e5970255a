#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/arm64-sysroot.sh [--arch arm64|armhf] [--libs-only] [DIR]: the
# Debian arm64 packages the arm64 VM tests need (docs/vm-harness.md),
# unpacked into DIR (default build/arm64-sysroot) without touching the
# host's package state:
#   - the current 6.1 and 6.12 arm64 kernels with their headers
#     (linux-image-arm64, linux-headers-arm64, linux-image-6.12-arm64,
#     linux-headers-6.12-arm64 name the versions), the headers' -common
#     package, and the host's linux-kbuild-<ver> linked in;
#   - busybox-static, libc6, zlib1g(-dev), libcmocka0/-dev for the guest's
#     programs;
#   - iperf3 and ethtool with their libraries (libiperf0, libsctp1, libssl3,
#     libmnl0 on bookworm, found through the tools' Depends) for the network
#     interface's tests (tests/vm/guest/net.sh);
#   - v4l-utils with its libraries (the same way) for the video devices'
#     tests (tests/vm/guest/v4l2.sh).
# With --libs-only, only the libraries (libc6, zlib1g(-dev), libcmocka0/-dev):
# what the cross builds and their tests under qemu-user need (make
# CROSS_COMPILE=..., make test-cross; docs/install.md). --arch armhf (the
# Zynq-7000's ARMv7 hard-float), in build/armhf-sysroot by default: the
# libraries and the headers of the current 6.1 and 6.12 armmp kernels
# (linux-headers-armmp and linux-headers-6.12-armmp name the versions;
# with their -common package and the host's linux-kbuild-<ver> linked in,
# as for arm64, but for modpost: see below), against which make
# test-cross builds fdma.ko and fdma_dmac.ko for 32-bit ARM; no kernel
# images and no network tools: there are no armhf VM tests. The headers
# are fetched by default, not
# behind an option, so that .ci/run's plain --arch armhf gets them (they
# add four packages, about 26 MB, to the libraries' five); --libs-only
# leaves them out. Where the host has no matching linux-kbuild-<ver>, the
# armhf headers are left out with a warning (the libraries alone still
# serve the user-space cross build).
# The .debs come through apt with a private state in DIR/.apt (a
# sources.list with the host's Debian mirror, that architecture only), then
# dpkg -x. (Not Debian multiarch, dpkg --add-architecture: that changes the
# host's package state, needs root, and cannot hold the arm64 kernels.)
# The arm64 headers build modules with the host's (amd64) linux-kbuild-*,
# so their versions must be the same as the host's; if not, this fails and
# says which. The armhf headers too, all but modpost: the host's computes
# the sizes of device-table entries (struct of_device_id, pci_device_id)
# for a 64-bit target, also in its 32-bit variant, and stops on a 32-bit
# module's tables ("sizeof(struct of_device_id)=200 is not a modulo of the
# size of section __mod_of__..."). Their linux-kbuild-<ver> link is a tree
# of links to the host's files instead, its scripts/mod/modpost a script
# that runs Debian's armhf modpost (from the armhf linux-kbuild-<ver>,
# same version) under qemu-arm-static.
#
# A second run does nothing when DIR is complete and still matches the
# host's kbuild packages (with --libs-only: when the libraries are there).
# Exit: 0 done, 1 failure, 2 usage error.
set -u

usage() {
	cat <<'EOF'
usage: tests/vm/arm64-sysroot.sh [--arch arm64|armhf] [--libs-only] [DIR]

Fetch and unpack the arm64 kernels, headers, busybox, libc, zlib, cmocka, liburing,
iperf3, ethtool and v4l-utils that tests/vm/run.sh --arch arm64 needs into DIR
(default build/arm64-sysroot).
--libs-only: only libc, zlib, cmocka and liburing (for make CROSS_COMPILE=... and
make test-cross). --arch armhf: the armhf libraries and the 6.1 and 6.12
armmp kernel headers (make test-cross builds fdma.ko against them; no
kernels, busybox or network tools; default DIR build/armhf-sysroot).
EOF
}

ARCH=arm64
LIBS_ONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--arch) [ $# -ge 2 ] || { usage >&2; exit 2; }; ARCH=$2; shift 2 ;;
	--arch=*) ARCH=${1#--arch=}; shift ;;
	--libs-only) LIBS_ONLY=1; shift ;;
	-*) echo "arm64-sysroot.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
done
# IMAGES: the kernels themselves, busybox and the network tools too (the
# VM guests'); without, the kernel headers and the libraries only.
case $ARCH in
arm64) TRIPLET=aarch64-linux-gnu IMAGES=1 FLAVOUR=arm64
       METAS=("linux-image-arm64 linux-headers-arm64" "linux-image-6.12-arm64 linux-headers-6.12-arm64") ;;
armhf) TRIPLET=arm-linux-gnueabihf IMAGES=0 FLAVOUR=armmp
       METAS=("- linux-headers-armmp" "- linux-headers-6.12-armmp") ;;
*) echo "arm64-sysroot.sh: unknown architecture '$ARCH' (arm64 or armhf)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
DIR=${1:-$ROOT/build/$ARCH-sysroot}
mkdir -p "$DIR" || exit 1
DIR=$(cd "$DIR" && pwd) || exit 1
A=$DIR/.apt
STAMP=$DIR/.complete
LIBSTAMP=$DIR/.libs-complete	# --libs-only: the packages unpacked

die() { echo "$ARCH-sysroot: $*" >&2; exit 1; }
note() { echo "$ARCH-sysroot: $*"; }

for t in apt-get apt-cache dpkg dpkg-query depmod; do
	command -v $t >/dev/null || die "$t not found (a Debian host is needed)"
done

# host_kbuild_ok NAME VERSION: the host has linux-kbuild package NAME at VERSION.
host_kbuild_ok() {
	[ "$(dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null)" = "ii  $2" ]
}

# libs_ok: the libraries are unpacked (zlib, cmocka, liburing); a sysroot
# from before liburing came is fetched again.
libs_ok() {
	[ -r "$DIR/usr/include/zlib.h" ] && [ -r "$DIR/usr/include/cmocka.h" ] &&
		[ -r "$DIR/usr/include/liburing.h" ]
}

# A complete sysroot (below) holds the libraries too.
if [ $LIBS_ONLY = 1 ] && { [ -s "$LIBSTAMP" ] || [ -s "$STAMP" ]; } &&
   libs_ok; then
	note "$DIR has the libraries: nothing to do"
	exit 0
fi
# The stamp lists "KERNEL-VERSION KBUILD-PACKAGE PACKAGE-VERSION" per kernel.
# A sysroot unpacked before the network tools came is fetched again (arm64);
# an armhf one with the libraries only (before the kernel headers came), too.
if [ $LIBS_ONLY = 0 ] && [ -s "$STAMP" ]; then
	ok=1
	[ $IMAGES = 0 ] || { [ -x "$DIR/usr/bin/iperf3" ] && [ -x "$DIR/usr/bin/v4l2-compliance" ] &&
		{ [ -x "$DIR/sbin/ethtool" ] || [ -x "$DIR/usr/sbin/ethtool" ]; }; } || ok=0
	libs_ok || ok=0
	while read -r v kb ver; do
		{ [ $IMAGES = 1 ] || [ -x "$DIR/usr/lib/$kb/scripts/mod/modpost.$ARCH" ]; } &&
		{ [ $IMAGES = 0 ] || [ -r "$DIR/boot/vmlinuz-$v" ]; } &&
			[ -d "$DIR/usr/src/linux-headers-$v" ] && host_kbuild_ok "$kb" "$ver" || ok=0
	done <"$STAMP"
	if [ $ok = 1 ]; then
		note "$DIR is complete ($(cut -d' ' -f1 "$STAMP" | paste -sd' ')): nothing to do"
		exit 0
	fi
	if [ $IMAGES = 1 ]; then
		note "$DIR does not match the host's kernel build packages any more, or lacks iperf3, ethtool or v4l-utils: fetching again"
	else
		note "$DIR does not match the host's kernel build packages any more: fetching again"
	fi
fi

# ---- the host's Debian mirror --------------------------------------------------------
# host_sources: "URI SUITE KEYRING" for every enabled deb entry of the
# host's apt sources, one-line (*.list) and deb822 (*.sources) forms alike;
# KEYRING is the signed-by file or "-".
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk '
		/^[ \t]*deb[ \t]/ {
			line = $0; sub(/#.*/, "", line); key = "-"
			if (match(line, /\[[^]]*\]/)) {
				o = substr(line, RSTART + 1, RLENGTH - 2)
				line = substr(line, 1, RSTART - 1) " " substr(line, RSTART + RLENGTH)
				if (match(o, /signed-by=[^ ]+/)) key = substr(o, RSTART + 10, RLENGTH - 10)
			}
			n = split(line, w, /[ \t]+/); i = 1
			while (i <= n && w[i] != "deb") i++
			if (i + 2 <= n) print w[i + 1], w[i + 2], key
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk '
		BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = ""; key = "-"; enabled = "yes"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[ \t]/ || $i ~ /^#/ || index($i, ":") == 0) continue
				k = tolower(substr($i, 1, index($i, ":") - 1))
				v = substr($i, index($i, ":") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v)
				if (k == "types") types = v
				else if (k == "uris") uris = v
				else if (k == "suites") suites = v
				else if (k == "enabled") enabled = tolower(v)
				else if (k == "signed-by" && v ~ /^\//) key = v
			}
			if (enabled == "no" || types !~ /(^| )deb( |$)/) next
			n = split(uris, u, /[ \t]+/); m = split(suites, s, /[ \t]+/)
			for (a = 1; a <= n; a++) for (b = 1; b <= m; b++) print u[a], s[b], key
		}' "$f"
	done
}

CODENAME=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ -n "$CODENAME" ] || CODENAME=bookworm
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/debs" || exit 1
: >"$A/status"
: >"$A/sources.list.new"
while read -r uri suite key; do
	case $suite in
	"$CODENAME"|"$CODENAME-updates"|"$CODENAME-security") ;;
	*) continue ;;
	esac
	[ "$key" = - ] && [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		key=/usr/share/keyrings/debian-archive-keyring.gpg
	if [ "$key" = - ]; then opt=""; else opt=" signed-by=$key"; fi
	echo "deb [arch=$ARCH$opt] $uri $suite main"
done < <(host_sources | sort -u) >"$A/sources.list.new"
grep -q " $CODENAME main\$" "$A/sources.list.new" ||
	die "no '$CODENAME' entry in the host's apt sources (/etc/apt/sources.list, /etc/apt/sources.list.d/*.list or *.sources)"
for s in updates security; do
	grep -q " $CODENAME-$s main\$" "$A/sources.list.new" ||
		note "warning: no $CODENAME-$s entry in the host's apt sources: the kernels may be older than the host's"
done
mv "$A/sources.list.new" "$A/sources.list"

APTOPTS=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
	 -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
	 -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o "Dir::State::status=$A/status"
	 -o APT::Architecture=$ARCH -o APT::Architectures=$ARCH -o APT::Sandbox::User=root)
note "apt-get update ($ARCH, private state in $A):"
sed 's/^/    /' "$A/sources.list"
# A mirror in the middle of a sync serves an index that does not match its
# Release file ("File has unexpected size"): apt-get update fails until the
# sync ends, minutes later. So it is tried again, waiting longer each time
# (about two minutes in all) before giving up.
update_ok=0
for wait in 15 30 60 -; do
	if apt-get -q -o Acquire::Retries=3 "${APTOPTS[@]}" update >"$A/update.log" 2>&1; then
		update_ok=1
		break
	fi
	[ "$wait" != - ] || break
	grep '^E:' "$A/update.log" | head -3 | sed 's/^/    /' >&2
	note "apt-get update failed (above): trying again in $wait s"
	sleep "$wait"
done
if [ $update_ok = 0 ]; then
	# The libraries alone can do with the main suite when an update or
	# security index stays out of step on the mirror. armhf's kernel
	# headers are then checked against the host's kbuild as always and
	# left out, with a warning, where they do not match.
	if { [ $LIBS_ONLY = 1 ] || [ $IMAGES = 0 ]; } && ls "$A/lists/"*"_${CODENAME}_main_binary-${ARCH}_Packages"* >/dev/null 2>&1; then
		grep '^E:' "$A/update.log" | sed 's/^/    /' >&2
		note "warning: apt-get update failed for some indexes (above): taking the packages from what was fetched"
	else
		tail -20 "$A/update.log" >&2
		die "apt-get update failed (log: $A/update.log)"
	fi
fi

# field PKG FIELD: FIELD of PKG's candidate version.
field() {
	apt-cache "${APTOPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		sed -n "s/^$2: //p" | head -1
}
# dep PKG REGEX: the first dependency of PKG whose name matches REGEX.
dep() {
	field "$1" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep -E -m1 "^$2\$"
}

# ---- what to fetch -------------------------------------------------------------------
PKGS=(libc6 zlib1g zlib1g-dev libcmocka0 libcmocka-dev liburing2 liburing-dev)
# The tools' libraries by their Depends, not by name: Debian renames them
# (bookworm's libssl3 is trixie's libssl3t64).
if [ $IMAGES = 1 ] && [ $LIBS_ONLY = 0 ]; then
	libiperf=$(dep iperf3 'libiperf[0-9]+') || die "cannot find iperf3's library package (apt-cache show iperf3)"
	libssl=$(dep "$libiperf" 'libssl[0-9.]*(t64)?') || die "cannot find $libiperf's libssl package"
	libsctp=$(dep "$libiperf" 'libsctp[0-9]+') || die "cannot find $libiperf's libsctp package"
	libmnl=$(dep ethtool 'libmnl[0-9]+') || die "cannot find ethtool's libmnl package"
	PKGS+=(busybox-static iperf3 "$libiperf" "$libsctp" "$libssl" ethtool "$libmnl")
	# v4l-utils (v4l2-compliance, v4l2-ctl) for the video devices' tests.
	libv4l=$(dep v4l-utils 'libv4l-[0-9]+') || die "cannot find v4l-utils' libv4l package"
	librds=$(dep v4l-utils 'libv4l2rds[0-9]+') || die "cannot find v4l-utils' libv4l2rds package"
	libconv=$(dep "$libv4l" 'libv4lconvert[0-9]+') || die "cannot find $libv4l's libv4lconvert package"
	libjpeg=$(dep "$libconv" 'libjpeg[0-9a-z-]*') || die "cannot find $libconv's libjpeg package"
	libudev=$(dep v4l-utils 'libudev[0-9]+') || die "cannot find v4l-utils' libudev package"
	libcxx=$(dep v4l-utils 'libstdc\+\+[0-9]+') || die "cannot find v4l-utils' libstdc++ package"
	libgcc=$(dep v4l-utils 'libgcc-s[0-9]+') || die "cannot find v4l-utils' libgcc package"
	PKGS+=(v4l-utils "$libv4l" "$librds" "$libconv" "$libjpeg" "$libudev" "$libcxx" "$libgcc")
fi
KERNELS=()	# "VERSION KBUILD-PACKAGE PACKAGE-VERSION"
# kernel_die MESSAGE: a kernel that cannot be had. arm64's VM guests need
# theirs; armhf's headers are left out (warning) and the libraries fetched.
KPKGS=() KWHY=""
kernel_die() {
	[ $IMAGES = 0 ] || die "$*"
	[ -n "$KWHY" ] || KWHY=$*
}
[ $LIBS_ONLY = 1 ] ||
for meta in "${METAS[@]}"; do
	set -- $meta
	hdr=$(dep "$2" "linux-headers-[0-9][^ ]*-$FLAVOUR") ||
		{ kernel_die "cannot resolve $2 to a headers package (apt-cache show $2)"; continue; }
	v=${hdr#linux-headers-}
	img=""
	if [ $IMAGES = 1 ]; then
		img=$(dep "$1" "linux-image-[0-9][^ ]*-$FLAVOUR") ||
			die "cannot resolve $1 to a kernel package (apt-cache show $1)"
		[ "$img" = "linux-image-$v" ] || die "$1 names $img but $2 names $hdr: the mirror is mid-update, try again later"
	fi
	common=$(dep "$hdr" 'linux-headers-[^ ]*-common') ||
		{ kernel_die "cannot find the -common package of $hdr"; continue; }
	kb=$(dep "$hdr" 'linux-kbuild-[^ ]*') ||
		{ kernel_die "cannot find the linux-kbuild package of $hdr"; continue; }
	ver=$(field "$hdr" Version)
	have=$(dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$kb" 2>/dev/null)
	if [ "${have%% *}" != ii ]; then
		kernel_die "$hdr ($ver) builds modules with the host's $kb, which is not installed: install the host's matching amd64 headers (apt-get install linux-headers-amd64 linux-headers-6.12-amd64)"
		continue
	elif ! host_kbuild_ok "$kb" "$ver"; then
		kernel_die "the $ARCH kernel $v is version $ver but the host's $kb is ${have##* }: the kernel ABIs differ; update the host's kernel headers (apt-get update && apt-get install linux-headers-amd64 linux-headers-6.12-amd64) so both come from the same Debian release"
		continue
	fi
	[ -z "$img" ] || KPKGS+=("$img")
	KPKGS+=("$hdr" "$common")
	# The target's own kbuild, for its modpost (above); unpacked aside.
	[ $IMAGES = 1 ] || KPKGS+=("$kb=$ver")
	KERNELS+=("$v $kb $ver")
	note "$v: ${img:+$img, }$hdr, $common ($ver), host's $kb"
done
# armhf: all the kernels' headers or none (the stamp says which were fetched).
if [ -n "$KWHY" ]; then
	note "warning: $KWHY"
	note "warning: no $ARCH kernel headers: make test-cross skips fdma.ko's $ARCH builds"
	KPKGS=() KERNELS=()
	if [ -s "$LIBSTAMP" ] && libs_ok; then
		note "$DIR has the libraries: nothing more to do"
		exit 0
	fi
	LIBS_ONLY=1
fi
PKGS+=(${KPKGS[@]+"${KPKGS[@]}"})

# ---- fetch and unpack ------------------------------------------------------------------
# Anything unpacked before (older kernels) goes: DIR holds exactly this set.
find "$DIR" -mindepth 1 -maxdepth 1 ! -name .apt -exec rm -rf {} +
rm -f "$A"/debs/*.deb
note "downloading ${#PKGS[@]} packages"
(cd "$A/debs" && apt-get -q "${APTOPTS[@]}" download "${PKGS[@]}") >"$A/download.log" 2>&1 ||
	{ tail -20 "$A/download.log" >&2; die "apt-get download failed (log: $A/download.log)"; }
rm -rf "$A/kbuild"
for deb in "$A"/debs/*.deb; do
	case ${deb##*/} in
	linux-kbuild-*) d=$A/kbuild ;;
	*) d=$DIR ;;
	esac
	dpkg -x "$deb" "$d" || die "dpkg -x $deb failed"
done
# Library links to absolute paths (libz.so -> /lib/...) would point into
# the host: make them relative, inside DIR, so the cross linker follows them.
# (The loader's link, lib/ld-linux-*.so.*, too: qemu-user -L DIR follows it.)
find "$DIR/usr/lib/$TRIPLET" "$DIR/lib/$TRIPLET" "$DIR/lib" -maxdepth 1 -type l -lname '/*' 2>/dev/null |
while read -r l; do
	ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$DIR$(readlink "$l")")" "$l"
done
for k in "${KERNELS[@]}"; do
	set -- $k
	v=$1 kb=$2
	hd=$DIR/usr/src/linux-headers-$v
	{ [ $IMAGES = 0 ] || [ -r "$DIR/boot/vmlinuz-$v" ]; } && [ -r "$hd/Makefile" ] ||
		die "$v: no vmlinuz or headers after unpacking"
	# The headers' scripts and tools are links into ../../lib/$kb: the host's.
	if [ $IMAGES = 1 ]; then
		ln -sfn "/usr/lib/$kb" "$DIR/usr/lib/$kb"
	else
		# ... but for modpost (see the top): links to each of the
		# host's files, and a modpost that runs the target's.
		m=$DIR/usr/lib/$kb/scripts/mod
		real=$A/kbuild/usr/lib/$kb/scripts/mod/modpost.real-lsb-32
		[ -x "$real" ] || die "no $ARCH modpost in $kb ($real)"
		rm -rf "$DIR/usr/lib/$kb"
		cp -as "/usr/lib/$kb" "$DIR/usr/lib/$kb" || die "cannot link the host's $kb into $DIR"
		rm -f "$m/modpost"
		cp "$real" "$m/modpost.$ARCH" || exit 1
		cat >"$m/modpost" <<-EOF || exit 1
		#!/bin/sh
		# $kb's modpost for $ARCH modules, under qemu-user (tests/vm/arm64-sysroot.sh).
		command -v qemu-arm-static >/dev/null ||
		    { echo "modpost: the $ARCH modpost needs qemu-arm-static (apt-get install qemu-user-static)" >&2; exit 1; }
		exec qemu-arm-static -L '$DIR' '$m/modpost.$ARCH' "\$@"
		EOF
		chmod +x "$m/modpost"
	fi
	# Their Makefile includes /usr/src/...-common/Makefile: use the unpacked one.
	sed -i "s|^include /usr/src/|include $DIR/usr/src/|" "$hd/Makefile"
	# modules.dep, so that run.sh finds the modules fdma.ko depends on.
	[ $IMAGES = 0 ] || depmod -b "$DIR" "$v" || die "depmod -b $DIR $v failed"
done
if [ $LIBS_ONLY = 1 ]; then
	libs_ok && [ -e "$DIR/usr/lib/$TRIPLET/libcmocka.so" ] ||
		die "no zlib.h, cmocka.h, liburing.h or libcmocka.so after unpacking"
	printf '%s\n' "${PKGS[@]}" >"$LIBSTAMP"
	note "$DIR: $(du -sh --exclude=.apt "$DIR" | cut -f1) unpacked: ${PKGS[*]}"
	exit 0
fi
libs_ok || die "no zlib.h, cmocka.h or liburing.h after unpacking"
printf '%s\n' "${KERNELS[@]}" >"$STAMP"
if [ $IMAGES = 1 ]; then
	note "$DIR: $(du -sh --exclude=.apt "$DIR" | cut -f1) unpacked, kernels $(cut -d' ' -f1 "$STAMP" | paste -sd' ')"
else
	note "$DIR: $(du -sh --exclude=.apt "$DIR" | cut -f1) unpacked, the libraries and the kernel headers $(cut -d' ' -f1 "$STAMP" | paste -sd' ')"
fi
