#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fdma bench: figures that mean what they say. Every JSON row carries its
# settings; an unpaced device has no ceiling (null, '-'); tables fit 100
# columns unless --wide; text output never says null; every byte moved is
# checked. Short runs, no timing targets.

. tests/cli/lib.sh

SETTINGS="dir batch wait coalesce_count coalesce_us paced hugepages_requested hugepages seconds elapsed_s"

fdma bench sim:paced=0 --sizes 4K,64K --seconds 0.2 --json
json "unpaced: ceiling_mbps and pct_ceiling null, memcpy beside, settings in every row" \
	'len(L) == 2 and all(o["ceiling_mbps"] is None and o["pct_ceiling"] is None and num(o, "memcpy_mbps") > 0 and has(o, "'"$SETTINGS"'") and o["paced"] is False and o["errors"] == 0 and o["bytes_checked"] == o["bytes"] > 0 for o in L)'
json "a run that was not interrupted: interrupted false in every row" \
	'all(o["interrupted"] is False for o in L)'

fdma bench sim: --sizes 64K --seconds 0.2 --json --coalesce 8,50 --wait sleep --batch 16
json "paced: a ceiling, the settings as given (batch 16, sleep, coalesce 8,50)" \
	'num(L[0], "ceiling_mbps") > 0 and num(L[0], "pct_ceiling") > 0 and L[0]["memcpy_mbps"] is None and L[0]["batch"] == 16 and L[0]["wait"] == "sleep" and L[0]["coalesce_count"] == 8 and L[0]["coalesce_us"] == 50 and L[0]["paced"] is True and L[0]["seconds"] == 0.2'

fdma bench sim:paced=0 --sizes 64K --seconds 0.2 --json
json "the device's coalescing left alone: coalesce null; idle latency measured" \
	'L[0]["coalesce_count"] is None and num(L[0], "idle_p50_us") > 0 and num(L[0], "idle_p99_us") >= L[0]["idle_p50_us"]'

fdma bench sim:paced=0 --sizes 64K --seconds 0.2 --json --hugepages
json "--hugepages: requested, and hugepages says whether they were had (a boolean)" \
	'L[0]["hugepages_requested"] is True and isinstance(L[0]["hugepages"], bool) and L[0]["errors"] == 0'

fdma bench sim:paced=0 --dir h2c --sizes 64K --seconds 0.2 --json
json "H2C unpaced: read back and checked, no ceiling" \
	'L[0]["dir"] == "h2c" and L[0]["ceiling_mbps"] is None and L[0]["bytes_checked"] == L[0]["bytes"] > 0 and L[0]["errors"] == 0'

fdma bench sim:paced=0,memcpy=1 --dir copy --sizes 4K,256K --seconds 0.2 --json
json "copy unpaced: every byte copied checked, memcpy beside, no ceiling" \
	'len(L) == 2 and all(o["dir"] == "copy" and o["ceiling_mbps"] is None and num(o, "memcpy_mbps") > 0 and o["bytes_checked"] == o["bytes"] > 0 and o["errors"] == 0 for o in L)'
fdma bench sim:memcpy=1,gen=3,lanes=4 --dir copy --sizes 1M --seconds 0.2 --json
json "copy paced: the ceiling is the slower direction's (read, on this link)" \
	'L[0]["dir"] == "copy" and num(L[0], "ceiling_mbps") > 0 and L[0]["errors"] == 0 and L[0]["bytes_checked"] == L[0]["bytes"] > 0'
expect_fail "bench --dir copy on a device without a memory-to-memory channel names it" \
	"no memory-to-memory channel" bench sim:paced=0 --dir copy --sizes 4K --seconds 0.1
expect_usage "bench --dir sideways exits 2" bench sim: --dir sideways

# --mem dmabuf: the slots are an imported dma-buf (a memfd stands in on sim:
# where the system has no exporter) the CPU never touches: filled and
# checked through the card, every byte.
for d in c2h h2c; do
	fdma bench sim:paced=0 --mem dmabuf --dir $d --sizes 4K,64K --seconds 0.2 --json
	json "bench --mem dmabuf --dir $d: every byte checked through the card, no memcpy row" \
		'len(L) == 2 and all(o["mem"] == "dmabuf" and o["check"] == "card" and o["exporter"] and o["errors"] == 0 and o["bytes_checked"] == o["bytes"] > 0 and o["memcpy_mbps"] is None for o in L)'
done
fdma bench sim:engine=xdma,paced=0 --mem dmabuf --sizes 64K --batch 8 --seconds 0.2 --json
json "bench --mem dmabuf on the XDMA engine" \
	'L[0]["mem"] == "dmabuf" and L[0]["errors"] == 0 and L[0]["bytes_checked"] == L[0]["bytes"] > 0'
fdma bench sim: --sizes 64K --seconds 0.2 --json
json "host memory, the default: mem host, checked by the CPU, no exporter" \
	'L[0]["mem"] == "host" and L[0]["check"] == "cpu" and L[0]["exporter"] is None'
# The fault counts descriptors on every channel: it hits the data's or a
# read-back's, as the threads run, and either way the run fails.
expect_fail "bench --mem dmabuf: a transfer that fails mid-run is an error, exit 1" \
	"error" bench sim:paced=0,fault=data@3000 --mem dmabuf --sizes 4K --seconds 0.2
# A failed transfer mid-run: the library resets the channel and cancels
# what was queued behind it; the run drains and still reports its row.
fdma bench sim:fault=data@1000 --sizes 64K --seconds 0.3 --json
rc=$((rc == 1 ? 0 : 99))
json "bench: a transfer failed mid-run: exit 1, its row with one error, the rest canceled and not counted as errors" \
	'len(L) == 1 and L[0]["errors"] == 1 and L[0]["canceled"] >= 0 and L[0]["bytes"] > 0 and L[0]["bytes_checked"] == L[0]["bytes"]'
expect_usage "bench --mem gpu exits 2" bench sim: --mem gpu
expect_usage "bench --mem dmabuf --per-call exits 2, naming it" bench sim: --mem dmabuf --per-call

# Text: 100 columns by default, no null, '-' where nothing is known.
for dev in sim: sim:paced=0; do
	fdma bench "$dev" --sizes 4K,1M --seconds 0.1
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/out")
	if [ "$rc" -eq 0 ] && [ "$w" -le 100 ] && ! grep -q null "$T/out"; then
		ok "bench $dev table: at most 100 columns ($w), no 'null'"
	else
		bad "bench $dev table" "exit $rc, $w columns: $(head -n 3 "$T/out" | tail -n 1)"
	fi
done
fdma bench sim:paced=0 --sizes 4K --seconds 0.1 --wide
if [ "$rc" -eq 0 ] && grep -q "idle p50" "$T/out" && grep -q "model%" "$T/out" && \
   ! grep -q null "$T/out" && grep -q " - " "$T/out"; then
	ok "bench --wide: every column, '-' for the unpaced ceiling, no 'null'"
else
	bad "bench --wide" "exit $rc: $(head -n 3 "$T/out" | tail -n 1)"
fi
if grep -q "4KiB" "$T/out" && grep -q "chk MB" "$T/out"; then
	ok "bench: sizes in KiB/MiB, byte counts in MB (10^6)"
else
	bad "bench: units" "$(head -n 3 "$T/out" | tail -n 1)"
fi

# Unpaced, the software's figure and memcpy's share the CPUs with whatever
# else runs: the load other processes put on them is measured and shown
# (JSON others_cpu_pct, --wide others%, a line under the table).
fdma bench sim:paced=0 --sizes 4K,64K --seconds 0.2 --json
json "bench unpaced --json: others_cpu_pct measured in every row (a number, 0 or more)" \
	'all(num(o, "others_cpu_pct") >= 0 for o in L)'
fdma bench sim:paced=0 --sizes 4K,64K --seconds 0.2
if [ "$rc" -eq 0 ] && grep -q "^  load: other processes used [0-9]*-[0-9]*% of a core meanwhile, on [0-9]* CPUs" "$T/out"; then
	ok "bench unpaced table: the load beside it, said under it"
else
	bad "bench unpaced table: the load beside it" "exit $rc: $(tail -n 2 "$T/out" | tr '\n' '|')"
fi
fdma bench sim: --sizes 64K --seconds 0.1
if [ "$rc" -eq 0 ] && ! grep -q "load:" "$T/out"; then
	ok "bench paced table: no load line (the link, not the CPUs, bounds it)"
else
	bad "bench paced table: no load line" "exit $rc"
fi
fdma bench sim:paced=0 --sizes 4K --seconds 0.1 --wide
if [ "$rc" -eq 0 ] && grep -q "others%" "$T/out"; then
	ok "bench --wide: an others% column"
else
	bad "bench --wide: an others% column" "exit $rc: $(sed -n 3p "$T/out")"
fi

# Ctrl-C: the size it cut short is the last row, and says so; exit 0.
"$FDMA" bench sim: --sizes 4K,64K,1M --seconds 20 --json >"$T/out" 2>"$T/err" &
pid=$!
wait_caught "$pid"
kill -INT "$pid"
wait "$pid"
rc=$?
json "bench --json interrupted by SIGINT: one row, interrupted true" \
	'len(L) == 1 and L[0]["size"] == 4096 and L[0]["interrupted"] is True and L[0]["errors"] == 0 and L[0]["elapsed_s"] < 15'
if grep -q "interrupted during the 4KiB run" "$T/err"; then
	ok "bench interrupted: said on stderr"
else
	bad "bench interrupted: said on stderr" "$(errline)"
fi

fdma bench --help
if [ "$rc" -eq 0 ] && grep -q "queueing" "$T/out" && grep -q "10^6" "$T/out"; then
	ok "bench --help defines latency (queueing) and MB"
else
	bad "bench --help defines latency and MB" "exit $rc"
fi
expect_usage "bench --coalesce x exits 2" bench sim: --coalesce x

finish
