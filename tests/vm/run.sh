#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/run.sh: the FDMA engine behind a QEMU guest (docs/vm-harness.md).
#
# fdma-modeld is "the FPGA" (an ivshmem-doorbell peer, DMA straight into the
# guest's RAM file); the guest boots Debian's kernel with a busybox initramfs
# whose /init (tests/vm/init.sh) runs the driverless smoke tests
# (tests/vm/smoke/*.c), then tests/vm/guest/run-guest.sh (the kernel
# driver's tests), then prints its kernel log. Each test prints
# "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>" on the serial console.
#
# Exit: 0 all passed, 1 a failure, 2 a usage error, 77 skipped (no QEMU,
# busybox or kernel).
set -u

usage() {
	cat <<'EOF'
usage: tests/vm/run.sh [--kernel VERSION] [--keep] [--timeout S] [--opts OPTIONS]

  --kernel VERSION  boot /boot/vmlinuz-VERSION, build against /lib/modules/VERSION/build
                    (default: every installed 6.1 and 6.12 kernel, in turn)
  --keep            keep the temp dir (console logs, initramfs, model log) and say where
  --timeout S       wall-clock limit per VM, seconds (default 300)
  --opts OPTIONS    fdma-modeld --opts (sim: URI options), e.g. "channels=2,fault=desc@3";
                    the guest sees them as $fdmavm_opts
EOF
}

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$ROOT" || exit 1

KERNELS=()
KEEP=0
TIMEOUT=300
OPTS=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || { echo "run.sh: --kernel needs a VERSION" >&2; exit 2; }
		KERNELS+=("$2"); shift 2 ;;
	--kernel=*) KERNELS+=("${1#*=}"); shift ;;
	--keep) KEEP=1; shift ;;
	--timeout) [ $# -ge 2 ] || { echo "run.sh: --timeout needs seconds" >&2; exit 2; }
		TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--opts) [ $# -ge 2 ] || { echo "run.sh: --opts needs a value" >&2; exit 2; }
		OPTS=$2; shift 2 ;;
	--opts=*) OPTS=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
case $TIMEOUT in
''|*[!0-9]*|0) echo "run.sh: bad --timeout '$TIMEOUT': expected seconds > 0" >&2; exit 2 ;;
esac
case $OPTS in
*[[:space:]]*) echo "run.sh: --opts must not contain spaces" >&2; exit 2 ;;
esac

QEMU=$(command -v qemu-system-x86_64) || { echo "SKIP: qemu-system-x86_64 not found (apt-get install qemu-system-x86)"; exit 77; }
BUSYBOX=""
for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
	if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then BUSYBOX=$b; break; fi
done
[ -n "$BUSYBOX" ] || { echo "SKIP: no static busybox (apt-get install busybox-static)"; exit 77; }
for t in cpio gzip timeout cc make; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done

HAVE_KMOD=0
[ -f kernel/Makefile ] && HAVE_KMOD=1
# A kernel is usable with its image, and headers when there is a module to build.
kernel_ok() {
	[ -r "/boot/vmlinuz-$1" ] && { [ $HAVE_KMOD = 0 ] || [ -d "/lib/modules/$1/build" ]; }
}
if [ ${#KERNELS[@]} -eq 0 ]; then
	for f in $(printf '%s\n' /boot/vmlinuz-6.1.* /boot/vmlinuz-6.12.* | sort -V); do
		[ -e "$f" ] || continue
		v=${f#/boot/vmlinuz-}
		kernel_ok "$v" && KERNELS+=("$v")
	done
	[ ${#KERNELS[@]} -gt 0 ] || { echo "SKIP: no 6.1 or 6.12 kernel with headers in /boot and /lib/modules (apt-get install linux-image-amd64 linux-headers-amd64)"; exit 77; }
else
	for v in "${KERNELS[@]}"; do
		kernel_ok "$v" || { echo "SKIP: kernel $v not installed (need /boot/vmlinuz-$v$([ $HAVE_KMOD = 1 ] && echo " and /lib/modules/$v/build"))"; exit 77; }
	done
fi

TMP=$(mktemp -d /dev/shm/fdma-vm.XXXXXX) || exit 1
MPID=""
QPID=""
cleanup() {
	local rc=$?
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	[ -n "$MPID" ] && kill "$MPID" 2>/dev/null && wait "$MPID" 2>/dev/null
	if [ $KEEP = 1 ]; then
		echo "kept: $TMP"
	else
		rm -rf "$TMP"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

NPASS=0
NFAIL=0
pass() { NPASS=$((NPASS + 1)); echo "PASS $1"; }
fail() { NFAIL=$((NFAIL + 1)); echo "FAIL $1: $2"; }
# show FILE [LINES]: the tail of a log, indented
show() { tail -n "${2:-30}" "$1" | tr -d '\r' | sed 's/^/    | /'; }

# ---- host side: the model ------------------------------------------------------
MODELD=build/fdma-modeld
if ! make -s build/libfdma.a >"$TMP/make.log" 2>&1 ||
   { ! make -s "$MODELD" >>"$TMP/make.log" 2>&1 &&
     ! cc -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	  -O2 -g -D_GNU_SOURCE -Iinclude -Iengine -Ilib -Imodel model/modeld/*.c build/libfdma.a \
	  -lz -lm -pthread -o "$MODELD" >>"$TMP/make.log" 2>&1; }; then
	fail build-modeld "cannot build $MODELD"
	show "$TMP/make.log"
	echo "vm: $NPASS passed, $NFAIL failed"
	exit 1
fi

# The daemon on its own: this program plays QEMU and the guest (no VM needed).
if cc -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -Iinclude -Iengine -Ilib -Imodel \
	tests/vm/host/modeld_selftest.c build/libfdma.a -lz -lm -pthread \
	-o "$TMP/modeld_selftest" >"$TMP/selftest.log" 2>&1 &&
   timeout 60 "$TMP/modeld_selftest" "$MODELD" >>"$TMP/selftest.log" 2>&1; then
	pass modeld_selftest
else
	fail modeld_selftest "fdma-modeld without QEMU (log below)"
	show "$TMP/selftest.log"
fi

# ---- guest programs (static, kernel-independent) ---------------------------------
GBIN=$TMP/guest-bin
mkdir -p "$GBIN/tests" "$GBIN/smoke"
GCFLAGS=(-static -O2 -g -Wall -D_GNU_SOURCE -Iinclude -Iengine -Ilib -Imodel)
GLIBS=(build/libfdma.a -lz -lm -pthread)
build_guest() { # SRC OUTDIR
	local name
	name=$(basename "$1" .c)
	if ! cc "${GCFLAGS[@]}" "$1" "${GLIBS[@]}" -o "$2/$name" >"$TMP/cc-$name.log" 2>&1; then
		fail "build-$name" "cc failed for $1"
		show "$TMP/cc-$name.log" 20
	fi
}
for src in tests/vm/smoke/*.c; do
	[ -e "$src" ] && build_guest "$src" "$GBIN/smoke"
done
for src in tests/vm/guest/*.c; do
	[ -e "$src" ] && build_guest "$src" "$GBIN/tests"
done
for sh in tests/vm/guest/*.sh; do
	[ -e "$sh" ] && install -m 755 "$sh" "$GBIN/tests/"
done

# The foundation's end-to-end tests and the fdma command, as built for the
# host (dynamically linked: cmocka has no static library), with the shared
# libraries they need; in the guest they run against the driver through
# libfdma's kdev: backend.
E2E=(build/fdma build/tests/sim/test_transfer build/tests/sim/test_wait
     build/tests/sim/test_coalesce build/tests/sim/test_stream build/tests/sim/test_errors)
mkdir -p "$GBIN/libs"
# e2e_copy BUILDDIR DEST MAKEARGS...: build the e2e binaries in BUILDDIR, copy
# them and every shared library they load.
e2e_copy() {
	local bdir=$1 dest=$2 b l targets=()
	shift 2
	for b in "${E2E[@]}"; do targets+=("$bdir/${b#build/}"); done
	if ! make -s BUILD="$bdir" "$@" "${targets[@]}" >"$TMP/e2e-build-$bdir.log" 2>&1; then
		fail "build-e2e-$bdir" "make BUILD=$bdir $* failed"
		show "$TMP/e2e-build-$bdir.log" 20
		return
	fi
	mkdir -p "$GBIN/$dest"
	for b in "${targets[@]}"; do
		cp "$b" "$GBIN/$dest/"
		# "lib => /path (addr)" and "/lib64/ld-linux... (addr)": copy each /path.
		for l in $(ldd "$b" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
			mkdir -p "$GBIN/libs$(dirname "$l")"
			cp -L "$l" "$GBIN/libs$l"
		done
	done
}
e2e_copy build e2e
# The same built with AddressSanitizer and UBSan (as make test-asan builds
# them): the kdev: backend's memory handling checked where it runs.
e2e_copy build-asan e2e-asan SAN=address,undefined OPT=-O1

# ---- one VM per kernel -----------------------------------------------------------------
run_kernel() { # VERSION
	local v=$1
	local tag="($v)" R="$TMP/root-$v" INITRD="$TMP/initrd-$v.gz" LOG="$TMP/console-$v.log"
	local MLOG="$TMP/modeld-$v.log" SOCK="$TMP/ivshmem-$v.sock" RAM="$TMP/guest-ram-$v"
	local t0 t1 tq nchan qrc mrc mods=()

	echo "== kernel $v: /boot/vmlinuz-$v"
	t0=$(date +%s)
	# The driver, built for this kernel (in place, as its developer does);
	# a .ko is used only after a successful build and only if its vermagic
	# names this kernel.
	if [ $HAVE_KMOD = 1 ]; then
		if make -C kernel KDIR="/lib/modules/$v/build" >"$TMP/kbuild-$v.log" 2>&1; then
			for ko in kernel/*.ko; do
				[ -e "$ko" ] || continue
				if [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$v" ]; then
					fail "kbuild $tag" "$ko is for kernel '$(modinfo -F vermagic "$ko")'"
					continue
				fi
				mods+=("$ko")
			done
			if [ ! -e kernel/fdma.ko ]; then
				fail "kbuild $tag" "make -C kernel succeeded but built no kernel/fdma.ko"
			else
				pass "kbuild $tag"
			fi
		else
			fail "kbuild $tag" "make -C kernel KDIR=/lib/modules/$v/build failed"
			show "$TMP/kbuild-$v.log" 40
		fi
	fi

	# initramfs: busybox, /init, smoke tests, driver tests, modules
	rm -rf "$R"
	mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,tests,smoke}
	cp "$BUSYBOX" "$R/bin/busybox"
	for a in $("$BUSYBOX" --list-full); do
		[ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"
	done
	install -m 755 tests/vm/init.sh "$R/init"
	cp -a "$GBIN/smoke/." "$R/smoke/"
	cp -a "$GBIN/tests/." "$R/tests/"
	for d in e2e e2e-asan; do
		[ -d "$GBIN/$d" ] && cp -a "$GBIN/$d" "$R/"
	done
	cp -a "$GBIN/libs/." "$R/"
	if [ ${#mods[@]} -gt 0 ]; then
		local md="$R/lib/modules/$v"
		mkdir -p "$md/extra"
		for ko in "${mods[@]}"; do
			cp "$ko" "$R/"
			cp "$ko" "$md/extra/"
		done
		# Modules ours depend on, so "modprobe fdma" works in the guest.
		local todo deps d f
		todo=$(for ko in "${mods[@]}"; do modinfo -F depends "$ko"; done | tr ',' ' ')
		while [ -n "${todo// /}" ]; do
			deps=$todo; todo=""
			for d in $deps; do
				f=$(modinfo -k "$v" -n "$d" 2>/dev/null) || continue
				case $f in /*) ;; *) continue ;; esac	# built in
				[ -e "$md/kernel/$d.ko" ] && continue
				mkdir -p "$md/kernel"
				case $f in
				*.xz) xz -dc "$f" >"$md/kernel/$d.ko" ;;
				*.zst) zstd -qdc "$f" >"$md/kernel/$d.ko" ;;
				*.gz) gzip -dc "$f" >"$md/kernel/$d.ko" ;;
				*) cp "$f" "$md/kernel/$d.ko" ;;
				esac
				todo="$todo $(modinfo -F depends "$f" | tr ',' ' ')"
			done
		done
		cp "/lib/modules/$v/modules.builtin" "/lib/modules/$v/modules.order" "$md/" 2>/dev/null
		depmod -b "$R" "$v" 2>>"$TMP/depmod-$v.log"
	fi
	if ! (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$INITRD"; then
		fail "initramfs $tag" "cpio/gzip failed"
		return
	fi

	# The model: listening before QEMU starts (QEMU connects at device realize).
	rm -f "$SOCK" "$RAM"
	"$MODELD" --socket "$SOCK" --guest-mem "$RAM" --guest-mem-size 256M --vectors 8 \
		${OPTS:+--opts "$OPTS"} --foreground 2>"$MLOG" &
	MPID=$!
	for _ in $(seq 100); do
		[ -S "$SOCK" ] && grep -q 'listening on' "$MLOG" && break
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	if ! [ -S "$SOCK" ] || ! kill -0 "$MPID" 2>/dev/null; then
		fail "modeld $tag" "fdma-modeld did not start"
		show "$MLOG"
		wait "$MPID" 2>/dev/null
		MPID=""
		return
	fi
	nchan=$(sed -n 's/.*listening on .*: \([0-9]*\) channels.*/\1/p' "$MLOG" | head -1)

	# shellcheck disable=SC2054  # commas inside QEMU option values
	QCMD=("$QEMU" -accel tcg -machine q35,memory-backend=mem -m 256M
	      -object "memory-backend-file,id=mem,size=256M,mem-path=$RAM,share=on"
	      -smp 1 -nographic -no-reboot
	      -kernel "/boot/vmlinuz-$v" -initrd "$INITRD"
	      -append "console=ttyS0 panic=-1 quiet loglevel=4 page_poison=1 fdmavm_nchan=${nchan:-0}${OPTS:+ fdmavm_opts=$OPTS}"
	      -chardev "socket,path=$SOCK,id=ivs" -device ivshmem-doorbell,chardev=ivs,vectors=8
	      -device edu)
	echo "${QCMD[*]}" >"$TMP/qemu-$v.cmd"
	tq=$(date +%s)
	timeout -k 5 "$TIMEOUT" "${QCMD[@]}" </dev/null >"$LOG" 2>&1 &
	QPID=$!
	wait "$QPID"
	qrc=$?
	QPID=""
	# QEMU is gone, so the model sees the disconnect and exits on its own.
	for _ in $(seq 50); do
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	kill "$MPID" 2>/dev/null
	wait "$MPID"
	mrc=$?
	MPID=""
	t1=$(date +%s)

	# Results, from the console outside the kernel-log section.
	tr -d '\r' <"$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' >"$LOG.txt"
	awk '/VMTEST DMESG BEGIN/ { d = 1; next } /VMTEST DMESG END/ { d = 0; next }
	     !d && match($0, /VMTEST (PASS|FAIL) .*/) { print substr($0, RSTART) }' "$LOG.txt" >"$TMP/results-$v"
	local ntests=0 line name why
	while IFS= read -r line; do
		ntests=$((ntests + 1))
		case $line in
		"VMTEST PASS "*) pass "${line#VMTEST PASS } $tag" ;;
		"VMTEST FAIL "*)
			line=${line#VMTEST FAIL }
			name=${line%%:*}
			why=${line#*: }
			[ "$why" = "$line" ] && why="(no reason given)"
			fail "$name $tag" "$why" ;;
		esac
	done <"$TMP/results-$v"
	[ $ntests -gt 0 ] || fail "guest $tag" "no test ran"
	local ended=0 bad='WARNING|BUG|Oops|scheduling while atomic|general protection|Kernel panic|memory corruption'
	grep -q '^VMTEST END' "$LOG.txt" && ended=1
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		fail "guest $tag" "timed out after ${TIMEOUT}s$([ $ended = 0 ] && echo ", before the end marker (console tail below)")"
	elif [ $ended = 0 ]; then
		fail "guest $tag" "did not reach the end marker: hang, panic or crash (console tail below)"
	elif [ $qrc -ne 0 ]; then
		fail "guest $tag" "qemu exited with status $qrc"
	fi
	[ $ended = 0 ] && show "$LOG.txt" 40
	# The guest kernel's log must be clean.
	if [ $ended = 1 ]; then
		sed -n '/^VMTEST DMESG BEGIN/,/^VMTEST DMESG END/p' "$LOG.txt" >"$TMP/dmesg-$v"
		if grep -E "$bad" "$TMP/dmesg-$v" >"$TMP/dmesg-bad-$v"; then
			fail "dmesg $tag" "the guest kernel log has warnings or errors:"
			sed 's/^/    | /' "$TMP/dmesg-bad-$v"
		else
			pass "dmesg $tag"
		fi
	elif grep -E "$bad" "$LOG.txt" >"$TMP/dmesg-bad-$v"; then
		# No kernel log printed: what reached the console is all we have.
		fail "dmesg $tag" "the guest console shows kernel errors:"
		sed 's/^/    | /' "$TMP/dmesg-bad-$v"
	fi
	if [ $mrc -ne 0 ]; then
		fail "modeld $tag" "fdma-modeld exited with status $mrc"
		show "$MLOG"
	fi
	sed -n 's/^fdma-modeld: kicks/fdma-modeld: kicks/p' "$MLOG"
	echo "== kernel $v: $((t1 - t0)) s (QEMU $((t1 - tq)) s)"
	rm -f "$RAM"
}

for v in "${KERNELS[@]}"; do
	run_kernel "$v"
done
echo "vm: $NPASS passed, $NFAIL failed"
[ $NFAIL -eq 0 ] && [ $NPASS -gt 0 ]
