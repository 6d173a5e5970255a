# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/vm/arm64-libs.sh: sourced by tests/vm/run.sh and
# tests/vm/versal/run.sh to put dynamically linked arm64 programs (the e2e
# tests, the fdma command) into a guest with the libraries they load.
# LIBDIRS: the arm64 library folders to search, in order (the sysroot's,
# then the cross toolchain's).

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
