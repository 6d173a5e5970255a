#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/matrix.sh [RUN.SH OPTIONS]: make test-vm. tests/vm/run.sh once per
# line of the matrix below, each with its output and its tag, then a table
# of the runs and "vm-matrix: N passed, M failed" (runs). A line that starts
# with a path (tests/...) runs that script instead of run.sh, with the rest
# of the line as its options; it prints the same "== WHAT: kernels LIST"
# and "vm: N passed, M failed" lines and exits the same way. The options
# given here (e.g. --keep, --timeout S: both scripts take them) go to every
# run. build/vm-summary gets "passed failed" (runs) for make test's total.
#
# Rows run side by side, VM_JOBS at a time (default: one per CPU): a TCG
# guest keeps one CPU busy, and the runners build one at a time
# (tests/vm/lib/kbuild.sh's lock). A row's output goes to its log and is
# printed whole when it ends; the longest rows come first.
#
# A run that exits 77 (QEMU, a cross compiler, the arm64 sysroot, a kernel
# or a linux-source tarball missing) is listed as skipped with its SKIP
# line; .ci/run installs all of it (the arm64 sysroot:
# tests/vm/arm64-sysroot.sh).
#
# Exit: 0 when no run failed, 1 otherwise.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$ROOT" || exit 1

# One run.sh command line per entry (or a script and its options).
#
# What CI's time budget (40 minutes for all of .ci/run) left out, measured
# on the 2-core machine at a7c0b53: the ASan+UBSan end-to-end copy on
# arm64 (370 s under aarch64 TCG; the x86_64 row keeps it), an arm64 6.12
# row with a coherent PCIe host (215 s; x86_64 is coherent, and the arm64
# row runs the harder non-coherent case), and x86_64 6.12 without
# swiotlb=force (about 230 s; the 6.12 row bounces every mapping); at
# ab1f70e (the matrix 2 rows at a time: 1031 s, all of .ci/run 40 min 7 s),
# arm64 6.1 non-coherent (298 s beside another row: 6.1 runs on x86_64,
# the non-coherent syncs on arm64 6.12). Each still runs by hand:
# tests/vm/run.sh --arch arm64 (both kernels, coherent, with the ASan
# copy), --arch arm64 --kernel 6.1 --noncoherent, tests/vm/run.sh --arch
# x86_64. The XDMA model's steps run on 6.1 (tests/vm/proxy/run.sh
# --engine xdma takes both), its network interfaces on 6.12.
MATRIX=(
	# The kernel's own bug finders (tests/vm/debug-kernel.sh: KASAN, lockdep,
	# DMA-API debug, kmemleak, fault injection): the whole guest suite with
	# fdma.ko built for coverage (the table of the points reached, and the
	# coverage-guided fuzzer for 60 s), then the network interfaces with
	# traffic. Their reports fail the row.
	"--coverage --no-asan"
	"--debug-kernel --no-asan --opts loop=1,streams=2,paced=1,wire=100 --append fdmavm_only=net"
	# Allocation failures injected into fdma.ko, operation by operation
	# (faults.sh; slab_debug keeps the checkers' own caches out of the count).
	"--debug-kernel --no-asan --append fdmavm_only=faults --append slab_debug=A;-,kmemleak_object,kmemleak_scan_area,radix_tree_node,debug_objects_cache"
	"--arch x86_64 --kernel 6.1"				# full, with the ASan e2e copy
	"--arch x86_64 --kernel 6.12 --append swiotlb=force --no-asan"
	"--arch arm64 --kernel 6.12 --noncoherent --no-asan"
	# The network interfaces on XDMA's AXI-ST (byte streams, PG195) over the
	# paced gen2 x1 link, the engine reading BUSY for 2 ms after each chain
	# (a chain handed over meanwhile waits for it to go idle).
	"tests/vm/proxy/run.sh --engine xdma --kernel 6.12 --net --opts paced=1,busy_us=2000"
	"tests/vm/versal/run.sh"	# xlnx-versal-virt, 6.1 and 6.12: zynqmp_dma, dmatest, the DT binding
	"tests/vm/proxy/run.sh --engine xdma --kernel 6.1"	# fdma.ko on the XDMA model behind x-pci-proxy-dev
	"tests/vm/proxy/run.sh --engine fdma --kernel 6.12"	# the FDMA engine's own register path, no ivshmem doorbell
	# The network interfaces over joined stream pairs, with traffic (docs/net.md),
	# one row per kind of engine: byte streams both ways on 6.1 over a 100 Mbit/s
	# wire; none on 6.12 over the paced gen2 x1 link (transmit copies), every
	# mapping bounced by swiotlb so that a missing sync loses data; for
	# transmit only (as the RTL) on arm64 with a non-coherent PCIe host.
	"--arch x86_64 --kernel 6.1 --opts loop=1,streams=2,paced=1,wire=100 --append fdmavm_only=net --no-asan"
	"--arch x86_64 --kernel 6.12 --opts loop=1,streams=2,paced=1,bytes=0 --append fdmavm_only=net --append swiotlb=force --no-asan"
	"--arch arm64 --kernel 6.12 --noncoherent --opts loop=1,streams=2,paced=1,bytes=h2c --append fdmavm_only=net --no-asan"
	"--arch x86_64 --kernel 6.12 --opts fault=stuck@3 --no-asan"	# a stuck channel recovered
	# Transmit when the bounce pool runs out (a registration holds all but 32
	# slabs): dropped packets counted, the rest of their burst still sent.
	"--arch x86_64 --kernel 6.12 --opts loop=1,streams=2,paced=1 --append fdmavm_only=net_drop --append swiotlb=1024,force --append fdmavm_ring=128 --no-asan"
)

LOGS=build/vm-logs
mkdir -p "$LOGS" || exit 1
rm -f "$LOGS"/run-*.log "$LOGS"/run-*.rc
JOBS=${VM_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $JOBS in ''|*[!0-9]*|0) JOBS=1 ;; esac
RUNS_PASS=0
RUNS_FAIL=0
RUNS_SKIP=0
TABLE=()
T0=$(date +%s)
N=${#MATRIX[@]}

row_cmd() { # I: the command line of row I (1-based)
	local args=${MATRIX[$(($1 - 1))]}
	case $args in
	tests/*) echo "$args" ;;
	*) echo "tests/vm/run.sh $args" ;;
	esac
}
# run_row I: row I, its output in its log, then "STATUS SECONDS" in run-I.rc.
run_row() {
	local i=$1 cmd t rc
	cmd=$(row_cmd "$i")
	t=$(date +%s)
	# shellcheck disable=SC2086  # one string: the script and its options
	$cmd "${EXTRA[@]}" >"$LOGS/run-$i.log" 2>&1 </dev/null
	rc=$?
	echo "$rc $(($(date +%s) - t))" >"$LOGS/run-$i.rc"
}
# report: print each row that ended and was not printed yet.
declare -A PRINTED=()
report() {
	local i
	for ((i = 1; i <= N; i++)); do
		[ -e "$LOGS/run-$i.rc" ] && [ -z "${PRINTED[$i]:-}" ] || continue
		PRINTED[$i]=1
		echo
		echo "=== vm run $i/$N: $(row_cmd "$i")${EXTRA[*]:+ ${EXTRA[*]}}"
		cat "$LOGS/run-$i.log"
	done
}

EXTRA=("$@")
running=0
for ((i = 1; i <= N; i++)); do
	run_row "$i" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
		report
	fi
done
wait
report

for ((i = 1; i <= N; i++)); do
	log=$LOGS/run-$i.log
	read -r rc t <"$LOGS/run-$i.rc" || { rc=1; t=0; }
	counts=$(sed -n 's/^vm: \([0-9]* passed, [0-9]* failed\)$/\1/p' "$log" | tail -1)
	what=$(sed -n 's/^== \(.*\): kernels \(.*\)$/\1 (\2)/p' "$log" | head -1)
	[ -n "$what" ] || what=${MATRIX[$((i - 1))]}
	case $rc in
	0) RUNS_PASS=$((RUNS_PASS + 1)); st=PASS ;;
	77) RUNS_SKIP=$((RUNS_SKIP + 1)); st=SKIP; counts=$(grep -m1 '^SKIP' "$log") ;;
	*) RUNS_FAIL=$((RUNS_FAIL + 1)); st=FAIL ;;
	esac
	TABLE+=("$(printf '%-4s %4d s  %-24s  %s' "$st" "$t" "${counts:-exit status $rc}" "$what")")
done

echo
echo "=== vm matrix ($(($(date +%s) - T0)) s, $JOBS at a time; logs in $LOGS/):"
printf '  %s\n' "${TABLE[@]}"
if [ $RUNS_PASS -eq 0 ] && [ $RUNS_FAIL -eq 0 ]; then
	echo "vm: SKIPPED (see the SKIP lines above; .ci/run installs what it needs)"
else
	[ $RUNS_SKIP -eq 0 ] || echo "vm: $RUNS_SKIP of ${#MATRIX[@]} runs skipped (see their SKIP lines; .ci/run installs what they need)"
fi
echo "$RUNS_PASS $RUNS_FAIL" >build/vm-summary
echo "vm-matrix: $RUNS_PASS passed, $RUNS_FAIL failed"
[ $RUNS_FAIL -eq 0 ]
