#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/dmac-study.sh: the runs of docs/studies/dmaengine.md, in
# a guest booted by tests/vm/study/dmaengine.sh (fdmavm_only=dmac_study;
# run-guest.sh has loaded fdma.ko with dmaengine=1). For each mode, size
# and rate: fdma_dmac.ko loaded (sync_wait=1 for the synchronous mode),
# fdma_dmac_study run for $study_secs seconds, its STUDY line printed.
T=/tests
KO=/fdma_dmac.ko
# fdma_node BACKEND: vmlib.sh.
. "$T/vmlib.sh"
secs=${study_secs:-3}
# study_sizes, study_rates: ':'-separated lists (the kernel command line
# has no spaces to give).
sizes=$(echo "${study_sizes:-4096:65536:1048576}" | tr ':' ' ')
rates=$(echo "${study_rates:-100:1000:4000}" | tr ':' ' ')
for size in $sizes; do
	for rate in $rates; do
		# 1 MiB copies: the paced model moves ~1 GB/s both ways at most.
		[ $size = 1048576 ] && [ $rate -gt 400 ] && continue
		for m in sync async signal; do
			p=""
			[ $m = sync ] && p=sync_wait=1
			insmod $KO $p || { echo "VMTEST FAIL study_$m: insmod"; continue; }
			dev=$(fdma_node dmaengine)
			FDMA_VM_DEV=$dev $T/fdma_dmac_study $m $size $rate $secs
			rmmod fdma_dmac
		done
	done
done
echo "VMTEST PASS dmac_study"
