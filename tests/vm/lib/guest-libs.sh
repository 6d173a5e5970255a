# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/vm/lib/guest-libs.sh: sourced by the VM runners (tests/vm/run.sh,
# tests/vm/proxy/run.sh, tests/vm/versal/run.sh) to put dynamically linked
# programs (the e2e tests, the fdma command, Debian's iperf3 and ethtool)
# into a guest with the libraries they load: the host's own, or arm64 ones.
# LIBDIRS (arm64): the library folders to search, in order (the sysroot's,
# then the cross toolchain's).

# copy_libs_host ELF DEST: every shared library ldd names, at the host's
# path under DEST (the guest's /).
copy_libs_host() {
	local l
	# "lib => /path (addr)" and "/lib64/ld-linux... (addr)": copy each /path.
	for l in $(ldd "$1" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		mkdir -p "$2$(dirname "$l")"
		cp -L "$l" "$2$l"
	done
}
# copy_progs DEST COPYLIBS PROG...: each program PROG (a path, or a name
# looked up in PATH) into DEST/usr/bin with the libraries COPYLIBS
# (copy_libs_host or copy_libs_arm64) finds for it; one not there is noted
# and left out (net.sh runs without it).
copy_progs() {
	local dest=$1 libs=$2 b p
	shift 2
	for b in "$@"; do
		case $b in
		*/*) p=$b; [ -x "$p" ] ;;
		*) p=$(command -v "$b") ;;
		esac || { echo "note: no ${b##*/} (apt-get install ${b##*/}, or the arm64 sysroot's): net.sh runs without it"; continue; }
		mkdir -p "$dest/usr/bin" && cp -L "$p" "$dest/usr/bin/" && "$libs" "$p" "$dest" || return 1
	done
}

# find_lib NAME: the arm64 library NAME, from the sysroot or the cross
# toolchain's folder (the first that has it).
find_lib() {
	local d
	for d in "${LIBDIRS[@]}"; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
# copy_libs_arm64 ELF DEST: its interpreter and every library it needs, to
# DEST/lib/ld-linux-aarch64.so.1 and DEST/lib/aarch64-linux-gnu/ (where
# Debian's arm64 ld.so looks, DEST being the guest's /), found through
# readelf, recursively.
copy_libs_arm64() {
	local interp need f todo=("$1") elf
	interp=$(aarch64-linux-gnu-readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$2$interp" ]; then
		f=$(find_lib "${interp##*/}") || { echo "no ${interp##*/} in ${LIBDIRS[*]}"; return 1; }
		mkdir -p "$2$(dirname "$interp")"
		cp -L "$f" "$2$interp"
	fi
	mkdir -p "$2/lib/aarch64-linux-gnu"
	while [ ${#todo[@]} -gt 0 ]; do
		elf=${todo[0]}
		todo=("${todo[@]:1}")
		for need in $(aarch64-linux-gnu-readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -e "$2/lib/aarch64-linux-gnu/$need" ] && continue
			f=$(find_lib "$need") || { echo "no $need (needed by ${elf##*/}) in ${LIBDIRS[*]}"; return 1; }
			cp -L "$f" "$2/lib/aarch64-linux-gnu/$need"
			todo+=("$2/lib/aarch64-linux-gnu/$need")
		done
	done
}
