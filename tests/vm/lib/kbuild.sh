# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/vm/lib/kbuild.sh: how the VM runners (tests/vm/run.sh, tests/vm/proxy/run.sh,
# tests/vm/versal/run.sh) build: kernel modules, and one runner at a time.
# Sourced from the repository root.
#
# The matrix (tests/vm/matrix.sh) runs rows side by side. What they build
# under build/ is shared (the library, the guest programs, fdma.ko for
# each kernel), so a runner holds build/.vm-build.lock while it builds
# and lets go of it while its guest runs: builds one at a time, guests
# side by side.
#
# fdma.ko is built from a copy of its sources in the DKMS layout (kernel/,
# engine/, include/, model/), one copy per kernel and flavour under build/,
# never in kernel/ itself: the matrix's rows alternate between kernels, and
# an in-place build would compile every file again for each row (about a
# minute each on two cores). A copy is touched only where a file changed,
# so a row finds its kernel's objects from the row before and Kbuild
# rebuilds only what changed.

# vm_put SRC DEST: DEST becomes a copy of SRC, left alone when already equal
# (an untouched file keeps its time stamp, and make its object).
vm_put() { cmp -s "$1" "$2" || { mkdir -p "$(dirname "$2")" && cp "$1" "$2"; }; }

# Kbuild's own parallelism: the runners call it outside make's job server.
VM_KJOBS=-j$(nproc 2>/dev/null || echo 2)

# vm_kbuild_fdma DIR KDIR MAKEARGS...: fdma.ko (the harness's build,
# FDMA_HARNESS=y: QEMU's stand-ins, kernel/harness/) and fdma_dmac.ko built
# for the kernel tree KDIR in DIR/kernel; 0 when make succeeded (the caller
# checks the modules' vermagic).
vm_kbuild_fdma() {
	local b=$1 kdir=$2 f
	shift 2
	# A source gone from the tree goes from the copy too: a stale header
	# there would shadow one that moved (kernel/ is searched first).
	for f in "$b"/kernel/*.[ch] "$b"/kernel/dmac/*.[ch] "$b"/kernel/harness/*.[ch] \
		"$b"/kernel/include/*.h; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		case $f in *.mod.c) continue ;; esac
		[ -e "${f#"$b"/}" ] || rm -f "$f"
	done
	for f in kernel/Kbuild kernel/Makefile kernel/*.c kernel/*.h kernel/include/*.h \
		kernel/dmac/Kbuild kernel/dmac/*.c kernel/dmac/*.h kernel/harness/*.c kernel/harness/*.h \
		engine/*.c engine/*.h \
		include/fdma_ioctl.h; do
		[ -L "$f" ] && continue		# the engine links of an in-place build
		case $f in *.mod.c) continue ;; esac
		vm_put "$f" "$b/$f" || return 1
	done
	make -C "$b/kernel" "$VM_KJOBS" KDIR="$kdir" FDMA_HARNESS=y "$@"
}

# vm_kbuild_ext KDIR DIR MAKEARGS...: the out-of-tree modules whose sources
# and Kbuild are in DIR.
vm_kbuild_ext() {
	local kdir=$1 dir=$2
	shift 2
	make -C "$kdir" "$VM_KJOBS" M="$dir" "$@" modules
}

# vm_build_lock, vm_build_unlock: the builds' lock (above); fd 9.
vm_build_lock() {
	mkdir -p build
	exec 9>>build/.vm-build.lock
	flock 9
}
vm_build_unlock() { flock -u 9; }
