#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the guests whose checks are steps: versal-virt
# (tests/vm/versal/run.sh) and the proxied models (tests/vm/proxy/run.sh), which build the
# initramfs around it and name the row on the kernel command line
# (fdmavm_name=versal, proxy). /modules holds the modules built for this
# kernel, /steps the steps (tests/vm/ROW/guest/*.sh). Each step runs in name
# order, sourced in a subshell so it has the helpers below and cannot
# change what the next one sees; it prints "VMTEST PASS <name>" or
# "VMTEST FAIL <name>: <why>" per check. Then the kernel log between
# markers, "VMTEST END", power off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -e /dev/null ] || mknod -m 666 /dev/null c 1 3
NAME=${fdmavm_name:-vm}
hostname "fdma-$NAME"

# What fdma.ko needs loaded before an insmod of it (V4L2 and vb2, where the
# kernel builds them as modules): tests/vm/lib/moddeps.sh lists them.
for m in $(cat /fdma.deps 2>/dev/null); do
	modprobe "$m" || echo "VMTEST FAIL fdma_deps: modprobe $m"
done

pass() { echo "VMTEST PASS $1"; }
fail() { echo "VMTEST FAIL $1: $2"; }
# say [LINES...]: context for the host's log, indented (no arguments: stdin)
say() { if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cat; fi | sed 's/^/| /'; }
# kmark TEXT: a marker line in the kernel log, to find what came after it
kmark() { echo "$NAME: $*" >/dev/kmsg; }
# klog_since TEXT: the kernel log from the last marker TEXT on
klog_since() { dmesg | awk -v m="$NAME: $1" 'index($0, m) { n = 0 } { buf[n++] = $0 } END { for (i = 1; i < n; i++) print buf[i] }'; }
# zdma_irqs: the ZDMA interrupts so far, all channels
zdma_irqs() { awk '/zynqmp-dma|zynqmp_dma|ffa[0-9a-f]0000\.dma/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }

echo "VMTEST BEGIN $(uname -r)"
for step in /steps/*.sh; do
	[ -e "$step" ] || continue
	name=${step##*/}
	kmark "step $name"
	rm -f /tmp/rc
	# shellcheck disable=SC1090  # the steps are copied in by run.sh
	{ ( . "$step" ); echo $? >/tmp/rc; } 2>&1 | tee /tmp/out
	rc=$(cat /tmp/rc 2>/dev/null || echo 255)
	# A step that reports nothing, or fails without saying so, fails.
	if ! grep -q 'VMTEST \(PASS\|FAIL\|SKIP\) ' /tmp/out; then
		fail "$name" "exited with status $rc and reported no result"
	elif [ "$rc" != 0 ] && ! grep -q 'VMTEST FAIL ' /tmp/out; then
		fail "$name" "exited with status $rc"
	fi
done

echo "VMTEST DMESG BEGIN"
dmesg
echo "VMTEST DMESG END"
echo "VMTEST END"
poweroff -f
