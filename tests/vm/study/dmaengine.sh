#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/study/dmaengine.sh: the runs behind docs/studies/dmaengine.md.
# Boots an x86_64 guest (tests/vm/run.sh, Debian's 6.12 by default) with
# fdmavm_only=dmac_study: fdma.ko's dmaengine provider over the paced model
# (two memory-to-memory channels), fdma_dmac.ko over it, and
# tests/vm/guest/fdma_dmac_study in each mode (sync, async, signal) at each
# size and rate (tests/vm/guest/dmac-study.sh). Prints the STUDY lines as
# a Markdown table, and writes them to build/study-dmaengine.jsonl.
#
# Usage: tests/vm/study/dmaengine.sh [--kernel VERSION] [--secs S]
#                                    [--sizes A:B:..] [--rates A:B:..]
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
KERNEL=6.12
SECS=3
SIZES=4096:65536:1048576
RATES=100:1000:4000
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--secs) SECS=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	--rates) RATES=$2; shift 2 ;;
	-h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "dmaengine.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
tests/vm/run.sh --arch x86_64 --kernel "$KERNEL" --no-asan --keep --timeout 900 \
	--append "fdmavm_only=dmac_study study_secs=$SECS study_sizes=$SIZES study_rates=$RATES" \
	>"$LOG" 2>&1 || true
dir=$(sed -n 's/^kept: //p' "$LOG" | tail -1)
if [ -z "$dir" ] || ! ls "$dir"/console-*.log.txt >/dev/null 2>&1; then
	cat "$LOG"
	echo "dmaengine.sh: the guest left no console log" >&2
	exit 1
fi
grep -ah '^STUDY {' "$dir"/console-*.log.txt | sed 's/^STUDY //' >build/study-dmaengine.jsonl
grep -ah 'STUDY-ERROR' "$dir"/console-*.log.txt >&2 || true
rm -rf "$dir"
[ -s build/study-dmaengine.jsonl ] || { echo "dmaengine.sh: no STUDY line" >&2; exit 1; }
echo "| size | copies/s asked | mode | copies/s | guest CPU % (schedstat) | guest CPU % (ticks) | process CPU % | syscalls/copy | callbacks/copy | issue_pending/copy |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# One flat JSON object per line: awk picks the fields by name.
awk 'function f(k,   r) { if (match($0, "\"" k "\":\"?[^,\"}]*")) { r = substr($0, RSTART, RLENGTH); sub(/^"[^"]*":"?/, "", r); return r } return "?" }
     { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f("size"), f("rate"), f("mode"),
       f("copies_per_s"), f("guest_cpu_pct"), f("guest_tick_cpu_pct"), f("process_cpu_pct"),
       f("syscalls_per_copy"), f("callbacks_per_copy"), f("issue_pending_per_copy") }' build/study-dmaengine.jsonl
