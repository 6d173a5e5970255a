# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/vm/lib/runner.sh: what the VM runners (tests/vm/run.sh,
# tests/vm/proxy/run.sh, tests/vm/versal/run.sh) begin with, sourced from
# the repository root after their options are parsed (KEEP=1: --keep).
#
#   vm_runner_start NAME   $TMP, a private folder in /dev/shm (kept with
#                          --keep, else removed at exit with the guest's
#                          QEMU, $QPID, and the model's process, $MPID)
#   pass NAME, fail NAME WHY, skip NAME WHY
#                          a result line; NPASS and NFAIL count them
#   show FILE [LINES]      the tail of a log, indented

# shellcheck disable=SC2034  # QPID, MPID and T_START are the runners'
vm_runner_start() {
	TMP=$(mktemp -d "/dev/shm/fdma-$1.XXXXXX") || exit 1
	QPID=""
	MPID=""
	T_START=$(date +%s)
	NPASS=0
	NFAIL=0
	trap vm_runner_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

vm_runner_cleanup() {
	local rc=$?
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null && wait "$QPID" 2>/dev/null
	[ -n "$MPID" ] && kill "$MPID" 2>/dev/null && wait "$MPID" 2>/dev/null
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept: $TMP"
	else
		rm -rf "$TMP"
	fi
	exit $rc
}

pass() { NPASS=$((NPASS + 1)); echo "PASS $1"; }
fail() { NFAIL=$((NFAIL + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
show() { tail -n "${2:-30}" "$1" | tr -d '\r' | sed 's/^/    | /'; }
