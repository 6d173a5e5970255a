#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/lib/linux-src.sh TARBALL: the upstream kernel files the VM tests
# build out of tree as fixtures (dmatest, the ZynqMP DMA driver), taken
# from a Debian linux-source tarball (/usr/src/linux-source-SERIES.tar.xz)
# and kept in build/linux-src-SERIES/. Prints that directory.
#
# Extracting them decompresses the whole tarball (10-14 s), so they are
# extracted again only when one is missing or the tarball changed (a Debian
# update: the stamp holds its path, size and time). Run from the
# repository root. Exit 1 (with the reason on stderr) when they cannot be
# had.
set -u
FILES=(drivers/dma/dmatest.c drivers/dma/dmaengine.h drivers/dma/xilinx/zynqmp_dma.c)

tb=${1:?usage: tests/vm/lib/linux-src.sh TARBALL}
[ -r "$tb" ] || { echo "linux-src.sh: no $tb (Debian's linux-source package)" >&2; exit 1; }
top=${tb##*/}
top=${top%.tar.xz}		# the tarball's top directory, linux-source-SERIES
dir=build/linux-src-${top#linux-source-}
stamp="$(readlink -f "$tb") $(stat -L -c '%s %Y' "$tb")"
ok=1
for f in "${FILES[@]}"; do [ -r "$dir/$f" ] || ok=0; done
[ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] || ok=0
if [ $ok = 0 ]; then
	t0=$(date +%s)
	rm -rf "$dir.new" && mkdir -p "$dir.new" || exit 1
	if ! tar -xJf "$tb" -C "$dir.new" --strip-components=1 "${FILES[@]/#/$top/}" >&2; then
		echo "linux-src.sh: cannot extract ${FILES[*]} from $tb" >&2
		rm -rf "$dir.new"
		exit 1
	fi
	echo "$stamp" >"$dir.new/.stamp"
	rm -rf "$dir" && mv "$dir.new" "$dir" || exit 1
	echo "   extracted ${FILES[*]} from $tb into $dir/ in $(($(date +%s) - t0)) s" >&2
fi
echo "$dir"
