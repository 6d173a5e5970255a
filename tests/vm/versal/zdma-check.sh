#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The hand-run check of docs/dmaengine.md 1.3, now tests/vm/versal/run.sh
# (what make test-vm runs; it always does the device-tree probe, so
# --dtprobe is accepted and has nothing left to switch). Without --kernel,
# both 6.1 and 6.12 run.
#
# usage: tests/vm/versal/zdma-check.sh [--kernel VER] [--sysroot DIR]
#        [--source TARBALL] [--dtprobe] [--keep] [--timeout S]
args=()
for a in "$@"; do
	[ "$a" = --dtprobe ] || args+=("$a")
done
exec "$(dirname "$0")/run.sh" "${args[@]}"
