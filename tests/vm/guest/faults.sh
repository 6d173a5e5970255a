#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/faults.sh: allocation failures injected into fdma.ko,
# operation by operation (fdma_failnth.c; docs/vm-harness.md, "Allocation
# failures"). run-guest.sh runs it for fdmavm_only=faults, on the debug
# kernel (tests/vm/run.sh --debug-kernel --append fdmavm_only=faults).
#
# Kernel arguments: fdmavm_faults=OP,OP,... runs those operations only
# (default: every one, in the order below); fdmavm_faults_count=1 only
# counts each operation's allocations (one run each, nothing failed);
# fdmavm_faults_depth=D counts allocations with the driver's frame among
# the innermost D of the stack (default 8: the driver's own allocations
# and those of the kernel's calls it makes, 6 frames deep at most; 32
# reaches deep inside those); fdmavm_faults_kmemleak=end (default: one
# kmemleak check after every operation ran), op (one after each: about
# 20 s more each) or none (only /init's, at the end of the run).
# Each operation prints its steps and "VMTEST PASS faults_OP" or
# "VMTEST FAIL faults_OP: why".
T=/tests

# pass, fail: vmlib.sh.
. "$T/vmlib.sh"

ops=${fdmavm_faults:-init,probe,probe_edu,open,alloc,register,import,nvp2p,submit,ifup,dmatest,dmac}
args=""
[ "${fdmavm_faults_count:-0}" = 1 ] && args="$args --count"
[ -n "${fdmavm_faults_depth:-}" ] && args="$args --depth $fdmavm_faults_depth"
[ -n "${fdmavm_faults_kmemleak:-}" ] && args="$args --kmemleak $fdmavm_faults_kmemleak"

rm -f /tmp/fi.rc
# shellcheck disable=SC2086  # $args: several options
{ $T/fdma_failnth "$ops" $args; echo $? >/tmp/fi.rc; } 2>&1 | tee /tmp/fi.out
rc=$(cat /tmp/fi.rc 2>/dev/null || echo 255)
if ! grep -q 'VMTEST \(PASS\|FAIL\|SKIP\) ' /tmp/fi.out; then
	fail faults "exited with status $rc and reported no result"
elif [ "$rc" != 0 ] && ! grep -q 'VMTEST FAIL ' /tmp/fi.out; then
	fail faults "exited with status $rc"
fi
for m in dmatest fdma_dmac fdma; do
	grep -q "^$m " /proc/modules && rmmod $m
done
exit 0
