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
#     interface's tests (tests/vm/guest/net.sh).
# With --libs-only, only the libraries (libc6, zlib1g(-dev), libcmocka0/-dev):
# what the cross builds and their tests under qemu-user need (make
# CROSS_COMPILE=..., make test-cross; docs/install.md). --arch armhf (the
# Zynq-7000's ARMv7 hard-float) implies --libs-only, in build/armhf-sysroot
# by default: there are no armhf VM tests.
# The .debs come through apt with a private state in DIR/.apt (a
# sources.list with the host's Debian mirror, that architecture only), then
# dpkg -x. (Not Debian multiarch, dpkg --add-architecture: that changes the
# host's package state, needs root, and cannot hold the arm64 kernels.)
# The arm64 headers build modules with the host's (amd64) linux-kbuild-*,
# so their versions must be the same as the host's; if not, this fails and
# says which.
#
# A second run does nothing when DIR is complete and still matches the
# host's kbuild packages (with --libs-only: when the libraries are there).
# Exit: 0 done, 1 failure, 2 usage error.
set -u

usage() {
	cat <<'EOF'
usage: tests/vm/arm64-sysroot.sh [--arch arm64|armhf] [--libs-only] [DIR]

Fetch and unpack the arm64 kernels, headers, busybox, libc, zlib, cmocka,
iperf3 and ethtool that tests/vm/run.sh --arch arm64 needs into DIR
(default build/arm64-sysroot).
--libs-only: only libc, zlib and cmocka (for make CROSS_COMPILE=... and
make test-cross). --arch armhf: the armhf libraries (implies --libs-only;
default DIR build/armhf-sysroot).
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
case $ARCH in
arm64) TRIPLET=aarch64-linux-gnu ;;
armhf) TRIPLET=arm-linux-gnueabihf; LIBS_ONLY=1 ;;
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

# A complete sysroot (below) holds the libraries too.
if [ $LIBS_ONLY = 1 ] && { [ -s "$LIBSTAMP" ] || [ -s "$STAMP" ]; } &&
   [ -r "$DIR/usr/include/zlib.h" ] && [ -r "$DIR/usr/include/cmocka.h" ]; then
	note "$DIR has the libraries: nothing to do"
	exit 0
fi
# The stamp lists "KERNEL-VERSION KBUILD-PACKAGE PACKAGE-VERSION" per kernel.
# A sysroot unpacked before the network tools came is fetched again.
if [ $LIBS_ONLY = 0 ] && [ -s "$STAMP" ]; then
	ok=1
	[ -x "$DIR/usr/bin/iperf3" ] && { [ -x "$DIR/sbin/ethtool" ] || [ -x "$DIR/usr/sbin/ethtool" ]; } || ok=0
	while read -r v kb ver; do
		[ -r "$DIR/boot/vmlinuz-$v" ] && [ -d "$DIR/usr/src/linux-headers-$v" ] &&
			host_kbuild_ok "$kb" "$ver" || ok=0
	done <"$STAMP"
	if [ $ok = 1 ]; then
		note "$DIR is complete ($(cut -d' ' -f1 "$STAMP" | paste -sd' ')): nothing to do"
		exit 0
	fi
	note "$DIR does not match the host's kernel build packages any more, or lacks iperf3 or ethtool: fetching again"
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
if ! apt-get -q "${APTOPTS[@]}" update >"$A/update.log" 2>&1; then
	# The libraries alone can do with the main suite when an update or
	# security index is out of step on the mirror (a sync in progress).
	if [ $LIBS_ONLY = 1 ] && ls "$A/lists/"*"_${CODENAME}_main_binary-${ARCH}_Packages"* >/dev/null 2>&1; then
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
PKGS=(libc6 zlib1g zlib1g-dev libcmocka0 libcmocka-dev)
# The tools' libraries by their Depends, not by name: Debian renames them
# (bookworm's libssl3 is trixie's libssl3t64).
if [ $LIBS_ONLY = 0 ]; then
	libiperf=$(dep iperf3 'libiperf[0-9]+') || die "cannot find iperf3's library package (apt-cache show iperf3)"
	libssl=$(dep "$libiperf" 'libssl[0-9.]*(t64)?') || die "cannot find $libiperf's libssl package"
	libsctp=$(dep "$libiperf" 'libsctp[0-9]+') || die "cannot find $libiperf's libsctp package"
	libmnl=$(dep ethtool 'libmnl[0-9]+') || die "cannot find ethtool's libmnl package"
	PKGS+=(busybox-static iperf3 "$libiperf" "$libsctp" "$libssl" ethtool "$libmnl")
fi
KERNELS=()	# "VERSION KBUILD-PACKAGE PACKAGE-VERSION"
[ $LIBS_ONLY = 1 ] ||
for meta in "linux-image-arm64 linux-headers-arm64" "linux-image-6.12-arm64 linux-headers-6.12-arm64"; do
	set -- $meta
	img=$(dep "$1" 'linux-image-[0-9][^ ]*-arm64') ||
		die "cannot resolve $1 to a kernel package (apt-cache show $1)"
	hdr=$(dep "$2" 'linux-headers-[0-9][^ ]*-arm64') ||
		die "cannot resolve $2 to a headers package (apt-cache show $2)"
	v=${img#linux-image-}
	[ "$hdr" = "linux-headers-$v" ] || die "$1 names $img but $2 names $hdr: the mirror is mid-update, try again later"
	common=$(dep "$hdr" 'linux-headers-[^ ]*-common') || die "cannot find the -common package of $hdr"
	kb=$(dep "$hdr" 'linux-kbuild-[^ ]*') || die "cannot find the linux-kbuild package of $hdr"
	ver=$(field "$hdr" Version)
	have=$(dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$kb" 2>/dev/null)
	if [ "${have%% *}" != ii ]; then
		die "$hdr ($ver) builds modules with the host's $kb, which is not installed: install the host's matching amd64 headers (apt-get install linux-headers-amd64 linux-headers-6.12-amd64)"
	elif ! host_kbuild_ok "$kb" "$ver"; then
		die "the arm64 kernel $v is version $ver but the host's $kb is ${have##* }: the kernel ABIs differ; update the host's kernel headers (apt-get update && apt-get install linux-headers-amd64 linux-headers-6.12-amd64) so both come from the same Debian release"
	fi
	PKGS+=("$img" "$hdr" "$common")
	KERNELS+=("$v $kb $ver")
	note "$v: $img, $hdr, $common ($ver), host's $kb"
done

# ---- fetch and unpack ------------------------------------------------------------------
# Anything unpacked before (older kernels) goes: DIR holds exactly this set.
find "$DIR" -mindepth 1 -maxdepth 1 ! -name .apt -exec rm -rf {} +
rm -f "$A"/debs/*.deb
note "downloading ${#PKGS[@]} packages"
(cd "$A/debs" && apt-get -q "${APTOPTS[@]}" download "${PKGS[@]}") >"$A/download.log" 2>&1 ||
	{ tail -20 "$A/download.log" >&2; die "apt-get download failed (log: $A/download.log)"; }
for deb in "$A"/debs/*.deb; do
	dpkg -x "$deb" "$DIR" || die "dpkg -x $deb failed"
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
	[ -r "$DIR/boot/vmlinuz-$v" ] && [ -r "$hd/Makefile" ] || die "$v: no vmlinuz or headers after unpacking"
	# The headers' scripts and tools are links into ../../lib/$kb: the host's.
	ln -sfn "/usr/lib/$kb" "$DIR/usr/lib/$kb"
	# Their Makefile includes /usr/src/...-common/Makefile: use the unpacked one.
	sed -i "s|^include /usr/src/|include $DIR/usr/src/|" "$hd/Makefile"
	# modules.dep, so that run.sh finds the modules fdma.ko depends on.
	depmod -b "$DIR" "$v" || die "depmod -b $DIR $v failed"
done
if [ $LIBS_ONLY = 1 ]; then
	[ -r "$DIR/usr/include/zlib.h" ] && [ -r "$DIR/usr/include/cmocka.h" ] &&
		[ -e "$DIR/usr/lib/$TRIPLET/libcmocka.so" ] || die "no zlib.h, cmocka.h or libcmocka.so after unpacking"
	printf '%s\n' "${PKGS[@]}" >"$LIBSTAMP"
	note "$DIR: $(du -sh --exclude=.apt "$DIR" | cut -f1) unpacked: ${PKGS[*]}"
	exit 0
fi
printf '%s\n' "${KERNELS[@]}" >"$STAMP"
note "$DIR: $(du -sh --exclude=.apt "$DIR" | cut -f1) unpacked, kernels $(cut -d' ' -f1 "$STAMP" | paste -sd' ')"
