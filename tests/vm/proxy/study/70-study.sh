# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# docs/studies/xdma.md (run.sh --study adds this step): per-transfer costs of 4 KiB
# transfers the way Xilinx's driver is used (--per-call: one transfer at a
# time, its buffer pinned for it) and the fdma way (batches of 32 through
# the shared completion queue, buffers registered once, coalescing 32),
# both directions, waiting by sleeping on the interrupt. Each run must move
# its bytes without an integrity error; the figures are printed as JSON.
. /tests/vmlib.sh
rmmod fdma 2>/dev/null
if ! insmod /fdma.ko $(cat /tmp/koargs) ring_size=256 2>/tmp/ins.err; then
	fail study "insmod: $(cat /tmp/ins.err)"
	return 0
fi
dev=$(fdma_wait_node engine)
for d in c2h h2c; do
	for mode in per-call batched; do
		if [ $mode = per-call ]; then
			set -- --per-call
		else
			set -- --batch 32 --coalesce 32
		fi
		if /e2e/fdma bench kdev:/dev/$dev --dir $d --sizes 4K --seconds ${fdmavm_study_s:-5} \
			--wait sleep --json "$@" >/tmp/study.json 2>/tmp/study.err; then
			echo "STUDY $(cat /tmp/study.json)"
			if grep -q '"errors":0,' /tmp/study.json; then
				pass "study_${d}_$mode"
			else
				fail "study_${d}_$mode" "integrity errors: $(cat /tmp/study.json)"
			fi
		else
			fail "study_${d}_$mode" "$(tail -1 /tmp/study.err)"
		fi
	done
done
rmmod fdma
