# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# vm_mod_deps ROOT VERSION MODROOT MODULE...: the kernel modules a guest's
# initramfs needs beside ours. Each MODULE (a name, or one of our .ko
# files, whose dependencies are wanted) and, transitively, what it depends
# on, from the module tree of kernel VERSION under MODROOT ("" for this
# machine's), uncompressed into ROOT/lib/modules/VERSION/kernel; then
# depmod, so that "modprobe NAME" works in the guest. ROOT/fdma.deps gets
# the direct dependencies of fdma.ko, if given: the guest's init loads
# them before anything insmods fdma.ko, which insmod alone cannot (fdma.ko
# needs V4L2 and vb2 where the kernel builds them as modules). A module
# the kernel has built in, or does not have, is skipped.
vm_mod_deps() {
	local root=$1 v=$2 modroot=$3 md todo deps d f
	shift 3
	md="$root/lib/modules/$v"
	mkdir -p "$md/kernel"
	local ours=" " fdeps=""
	todo=""
	for d in "$@"; do
		case $d in
		*.ko)
			ours="$ours$(basename "$d" .ko) "
			deps=$(modinfo -F depends "$d" | tr ',' ' ')
			[ "${d##*/}" = fdma.ko ] && fdeps=$deps
			todo="$todo $deps"
			;;
		*) todo="$todo $d" ;;
		esac
	done
	# Ours (fdma.ko is built over stand-ins of the VM's, which the
	# guest's scripts insmod with their own parameters) are not listed.
	: >"$root/fdma.deps"
	for d in $fdeps; do
		case $ours in *" $d "*) ;; *) echo "$d" >>"$root/fdma.deps" ;; esac
	done
	while [ -n "${todo// /}" ]; do
		deps=$todo; todo=""
		for d in $deps; do
			f=$(modinfo ${modroot:+-b "$modroot"} -k "$v" -n "$d" 2>/dev/null) || continue
			case $f in /*) ;; *) continue ;; esac	# built in
			[ -e "$md/kernel/$d.ko" ] && continue
			case $f in
			*.xz) xz -dc "$f" >"$md/kernel/$d.ko" ;;
			*.zst) zstd -qdc "$f" >"$md/kernel/$d.ko" ;;
			*.gz) gzip -dc "$f" >"$md/kernel/$d.ko" ;;
			*) cp "$f" "$md/kernel/$d.ko" ;;
			esac
			todo="$todo $(modinfo -F depends "$f" | tr ',' ' ')"
		done
	done
	cp "$modroot/lib/modules/$v/modules.builtin" "$modroot/lib/modules/$v/modules.order" "$md/" 2>/dev/null
	depmod -b "$root" "$v"
}
