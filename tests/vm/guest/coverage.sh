#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/coverage.sh start|end: the coverage of fdma.ko and
# fdma_dmac.ko over a whole guest (docs/vm-harness.md, "Coverage"), in a
# row whose modules were built with FDMA_COV=y (tests/vm/run.sh
# --coverage; /init runs this).
#
# start: loads /fdma_covstore.ko (tests/vm/kmod/fdma_covstore.c), which
#        the modules link against and record into, before any test loads
#        them.
# end:   unloads fdma_dmac and fdma (their exit paths count too), prints
#        /sys/kernel/debug/fdma_cov/hits between the lines
#        "VMTEST COVERAGE BEGIN" and "VMTEST COVERAGE END" (the host's
#        tests/vm/cov-report.sh turns them into the table), and unloads
#        fdma_covstore.
COV=/sys/kernel/debug/fdma_cov

pass() { echo "VMTEST PASS $1"; }
fail() { echo "VMTEST FAIL $1: $2"; }

case ${1:-} in
start)
	if [ ! -e /fdma_covstore.ko ]; then
		fail coverage_start "no /fdma_covstore.ko"
	elif ! insmod /fdma_covstore.ko 2>/tmp/cov.err; then
		fail coverage_start "insmod /fdma_covstore.ko: $(cat /tmp/cov.err)"
	elif [ ! -e $COV/points ]; then
		fail coverage_start "no $COV/points"
	else
		pass coverage_start
	fi
	;;
end)
	for m in fdma_dmac fdma; do
		grep -q "^$m " /proc/modules && rmmod $m 2>/dev/null
	done
	left=$(grep -o '^\(fdma_dmac\|fdma\) ' /proc/modules | tr -d '\n')
	if [ ! -e $COV/hits ]; then
		fail coverage_end "no $COV/hits (fdma_covstore.ko not loaded)"
		exit 0
	fi
	echo "VMTEST COVERAGE BEGIN"
	cat $COV/hits
	echo "VMTEST COVERAGE END"
	echo "coverage: $(cat $COV/points) points reached"
	if [ -n "$left" ]; then
		fail coverage_end "still loaded, its exit path not counted: $left"
	elif ! rmmod fdma_covstore 2>/tmp/cov.err; then
		fail coverage_end "rmmod fdma_covstore: $(cat /tmp/cov.err)"
	else
		pass coverage_end
	fi
	;;
*)
	echo "usage: coverage.sh start|end" >&2
	exit 2
	;;
esac
exit 0
