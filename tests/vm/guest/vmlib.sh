# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# tests/vm/guest/vmlib.sh: what the guest's test scripts share (sourced by
# run-guest.sh, e2e.sh and dmac.sh from the folder they run in, /tests).
# Every check prints "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>".

pass() { echo "VMTEST PASS $1"; }
fail() { echo "VMTEST FAIL $1: $2"; }

# t NAME CMD...: run a test program, which reports each check as above
# ("VMTEST SKIP <name>: <why>" where it cannot run here) and exits by the
# tests' one contract (tests/common/test_exit.h): 0 passed, 1 failed, 77
# skipped. One that reports nothing, exits non-zero without reporting a
# failure, or skips without saying why, fails.
t() {
	name=$1
	shift
	rm -f /tmp/vt.rc /tmp/vt.out
	{ "$@"; echo $? > /tmp/vt.rc; } 2>&1 | tee /tmp/vt.out
	rc=$(cat /tmp/vt.rc 2>/dev/null || echo 255)
	if ! grep -q 'VMTEST \(PASS\|FAIL\|SKIP\) ' /tmp/vt.out; then
		fail "$name" "exited with status $rc and reported no result"
	elif [ "$rc" = 77 ] && ! grep -q 'VMTEST SKIP ' /tmp/vt.out; then
		fail "$name" "exited 77 (skipped) without saying why"
	elif [ "$rc" != 0 ] && [ "$rc" != 77 ] && ! grep -q 'VMTEST FAIL ' /tmp/vt.out; then
		fail "$name" "exited with status $rc"
	fi
}

# fdma_node BACKEND: the first fdma class device whose rings are driven by
# BACKEND ("engine": an FDMA function; "dmaengine": fdma_dmac.ko); status
# 1 if there is none.
fdma_node() {
	for d in /sys/class/fdma/fdma*; do
		[ "$(cat "$d/backend" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# fdma_wait_node BACKEND [TENTHS]: fdma_node, waiting up to TENTHS tenths of
# a second (default 50) for it: a probe deferred for a device it needs
# (the interrupt carrier) runs again from a workqueue after the insmod.
fdma_wait_node() {
	n=0
	while ! fdma_node "$1"; do
		n=$((n + 1))
		[ $n -ge "${2:-50}" ] && return 1
		sleep 0.1
	done
}

# kmark: a mark in the kernel log; klog: the log since the last mark. A
# step reads what it made the kernel print without clearing the log,
# which the run reads whole at the end for reports (tests/vm/run.sh).
KMARKN=0
kmark() {
	KMARKN=$((KMARKN + 1))
	KMARK="fdma-vm: mark $$ $KMARKN"
	echo "$KMARK" >/dev/kmsg
}
klog() { dmesg -s 4194304 | sed -n "/$KMARK\$/,\$p"; }
