#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fdma soak: short soaks on sim: with a card sweep, a fault injected
# mid-run, buffers cycled, a dma-buf, power sensors from a fake hwmon tree
# and Ctrl-C. Every sample's every byte checked, the verdict's numbers
# consistent with the samples, nothing left held. No timing targets.

. tests/cli/lib.sh

# json_rc DESC STATUS EXPR: as json, for a run that must exit STATUS.
json_rc() {
	if [ "$rc" -ne "$2" ]; then
		bad "$1" "exit $rc, want $2: $(errline)"
		return
	fi
	rc=0
	json "$1" "$3"
}

# Shared by the checks below (L: the run's JSON lines).
S='[o for o in L if o["type"] == "sample"]'
V='[o for o in L if o["type"] == "verdict"][0]'

# ---- usage -------------------------------------------------------------------------------------

expect_usage "--duration 0 is a usage error" soak sim --duration 0
expect_usage "--duration 10x is a usage error" soak sim --duration 10x
expect_usage "--every longer than --duration" soak sim --duration 10s --every 20s
expect_usage "--every under a second" soak sim --duration 10s --every 0.5
expect_usage "--card-sweep without a step" soak sim --card-sweep 0..16M
expect_usage "--card-sweep END not above START" soak sim --card-sweep 16M..16M/4M
expect_usage "--card-sweep past the card's memory" soak sim:mem=16M --card-sweep 0..32M/4M
expect_usage "a sweep window too small for the transfers" soak sim:mem=16M --card-sweep 0..16M/64K --sizes 64K
if grep -q -- "--buffers [0-9]* fits" "$T/err"; then bad "a window too small: no --buffers named" "$(errline)"; else ok "a window too small for any --buffers: no --buffers named"; fi
expect_usage "H2C 1M in 32M windows with --buffers 8" soak sim:mem=64M --card-sweep 0..64M/32M --sizes 1M
if grep -q -- "--buffers 7 fits" "$T/err"; then ok "the window too small names --buffers 7"; else bad "the window too small names the --buffers that fits" "$(errline)"; fi
expect_usage "--card-sweep START not a multiple of 64" soak sim:mem=16M --card-sweep 100..16M/4M
expect_usage "--dir x" soak sim --dir x
expect_usage "--buffers 0" soak sim --buffers 0
expect_usage "--buffers past the ring" soak sim:ring=16 --buffers 16
expect_usage "--mem gpu" soak sim --mem gpu
expect_usage "--max-drift 0" soak sim --max-drift 0
expect_usage "--plot - (stdout carries the samples)" soak sim --plot -
expect_usage "two URIs" soak sim sim
expect_usage "sizes not multiples of 64" soak sim --sizes 100
fdma soak --help
if [ "$rc" -eq 0 ] && grep -q -- "--card-sweep" "$T/out" && grep -q "Leak:" "$T/out"; then
	ok "soak --help names the sweep and what a leak is"
else
	bad "soak --help" "exit $rc"
fi

# ---- a short soak with a sweep, both directions, power sensors -------------------------------

# A fake hwmon: a plain power sensor (microwatts) and an INA3221 rail (mV, mA).
mkdir -p "$T/hwmon/hwmon0" "$T/hwmon/hwmon1"
echo acpi_power >"$T/hwmon/hwmon0/name"
echo 2500000 >"$T/hwmon/hwmon0/power1_input"
echo ina3221 >"$T/hwmon/hwmon1/name"
echo VDD_IN >"$T/hwmon/hwmon1/in1_label"
echo 5000 >"$T/hwmon/hwmon1/in1_input"
echo 1200 >"$T/hwmon/hwmon1/curr1_input"

# Short visits, so that a slow machine (qemu-user) still visits every
# point in every sample.
fdma soak sim:mem=64M --duration 9s --every 3s --sizes 4K,64K --card-sweep 0..64M/16M \
	--dwell 0.02 --hwmon "$T/hwmon" --json --plot "$T/soak.svg"
json "sweep: 3 samples, then the verdict; pass" \
	'len('"$S"') == 3 and L[-1]["type"] == "verdict" and '"$V"'["pass"] is True and '"$V"'["samples"] == 3'
json "every sample: 4 series, 16 points, every point visited, every byte checked" \
	'all(len(o["series"]) == 4 and len(o["points"]) == 16 and all(p["visits"] >= 1 and p["transfers"] > 0 and p["bytes"] > 0 and p["bytes_checked"] == p["bytes"] and p["errors"] == 0 for p in o["points"]) for o in '"$S"')'
json "the sweep's addresses: 0, 16M, 32M, 48M, each in both directions and sizes" \
	'sorted(set((p["dir"], p["size"], p["card_addr"]) for p in '"$S"'[0]["points"])) == sorted((d, z, a << 24) for d in ("c2h", "h2c") for z in (4096, 65536) for a in range(4))'
json "a series' bytes are its points' sum; MB/s is bytes over seconds" \
	'all(s["bytes"] == sum(p["bytes"] for p in o["points"] if (p["dir"], p["size"]) == (s["dir"], s["size"])) and abs(s["mbps"] - s["bytes"] / s["seconds"] / 1e6) <= 0.05 + s["mbps"] * 1e-4 for o in '"$S"' for s in o["series"])'
json "latency percentiles in order: p50 <= p99 <= p999 <= max, mean within" \
	'all(0 < s["p50_us"] <= s["p99_us"] <= s["p999_us"] <= s["max_us"] and s["mean_us"] <= s["max_us"] for o in '"$S"' for s in o["series"])'
json "the verdict's bytes and transfers are the samples' sums" \
	'sum(s["bytes"] for o in '"$S"' for s in o["series"]) == '"$V"'["bytes"] == '"$V"'["bytes_checked"] and sum(s["transfers"] for o in '"$S"' for s in o["series"]) == '"$V"'["transfers"]'
json "trend per series: first and last thirds measured" \
	'all(s["trend"]["first_mbps"] > 0 and s["trend"]["last_mbps"] > 0 and abs(s["trend"]["change_pct"] - (s["trend"]["last_mbps"] / s["trend"]["first_mbps"] - 1) * 100) < 0.01 + 1e-4 * abs(s["trend"]["change_pct"]) + 100 * 0.001 / s["trend"]["first_mbps"] for s in '"$V"'["series"])'
json "spread across 4 addresses per series, from the points' own figures" \
	'all(s["addresses"]["points"] == 4 and 0 < s["addresses"]["mbps_min"] <= s["addresses"]["mbps_max"] and 0 < s["addresses"]["mean_us_min"] <= s["addresses"]["mean_us_max"] and s["addresses"]["mean_us_min_at"] in (0, 1 << 24, 2 << 24, 3 << 24) for s in '"$V"'["series"])'
json "resources: the library holds the same buffers at every sample, fds flat, no driver on sim" \
	'len(set(o["lib_buffers"] for o in '"$S"')) == 1 and '"$S"'[0]["lib_buffers"] > 0 and len(set(o["fds"] for o in '"$S"')) == 1 and all(o["drv_pinned_pages"] is None and o["drv_buffers"] is None for o in '"$S"') and '"$V"'["leaks"] == 0'
json "power: the fake hwmon's sensors, 2.5 W and 5 V x 1.2 A" \
	'all(o["power"] == [{"sensor": "acpi_power/power1", "watts": 2.5}, {"sensor": "ina3221/VDD_IN", "watts": 6.0}] for o in '"$S"') and '"$V"'["power_sensors"] == 2'
if [ -s "$T/soak.svg" ] && [ "$(grep -c '<g class="figure"' "$T/soak.svg")" -eq 2 ] &&
   grep -q "against card address" "$T/soak.svg" && grep -q "c2h 64KiB" "$T/soak.svg"; then
	ok "--plot: against time, and against card address below it"
else
	bad "--plot" "$(ls -l "$T/soak.svg" 2>&1)"
fi

# ---- a fault mid-run: the verdict names the sample it hit ------------------------------------

# The fault comes at the Nth descriptor the device fetches. A visit first
# writes its 2 * 8 + 1 regions' patterns (one descriptor each), then its
# transfers (one each), all fetched before the visit ends: the samples'
# counts say which sample holds descriptor N. N is set from a run without
# the fault, to come in the third of five samples at this machine's pace
# (under qemu-user too): the checks hold if the fault run goes at 0.63 to
# 2.5 times the first run's pace.
D='sum(p["transfers"] + 17 * p["visits"] for p in o["points"])'
fdma soak sim:gen=1,lanes=1 --duration 4s --every 2s --sizes 64K --dir c2h --json
json "no fault: pass, and the first sample's descriptors counted" \
	''"$V"'["pass"] is True and '"$V"'["errors"] == 0 and [o for o in L if o["type"] == "sample"][0]["series"][0]["transfers"] > 0'
N=$(python3 -c 'import json,sys
L=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
o=L[0]
print(int(2.5 * ('"$D"')))' "$T/out" 2>/dev/null || echo 5000)
fdma soak "sim:gen=1,lanes=1,fault=data@$N" --duration 10s --every 2s --sizes 64K --dir c2h --json
json_rc "fault: exit 1, the verdict fails with one error" 1 \
	'('"$V"')["pass"] is False and '"$V"'["errors"] == 1 and '"$V"'["failed"] + '"$V"'["failed_visits"] == 1'
json "fault: one sample has it, the one whose descriptors reach N" '
[k for k, o in enumerate('"$S"') if o["errors"]] == [next(k for k in range(len('"$S"')) if sum('"$D"' for o in '"$S"'[:k + 1]) >= '"$N"')]'
json "fault: the verdict names that sample and the point" \
	'[e["sample"] for e in '"$V"'["error_samples"]] == [o["sample"] for o in '"$S"' if o["errors"]] and "c2h 64KiB at card 0x0" in '"$V"'["error_samples"][0]["first"]'
json "fault: it hit mid-run, and the samples after it moved data again, checked" \
	'1 <= [o["errors"] > 0 for o in '"$S"'].index(True) < len('"$S"') - 1 and all(o["series"][0]["bytes"] > 0 and o["series"][0]["bytes_checked"] == o["series"][0]["bytes"] for o in '"$S"'[[o["errors"] > 0 for o in '"$S"'].index(True) + 1:])'
# Text: the same fault, early (in the first of two samples).
fdma soak "sim:gen=1,lanes=1,fault=data@$((N / 5))" --duration 4s --every 2s --sizes 64K --dir c2h
if [ "$rc" -eq 1 ] && grep -q "^verdict: FAIL (errors)" "$T/out" && grep -q "^    sample [0-9]* (" "$T/out"; then
	ok "fault, text: FAIL (errors) and the sample"
else
	bad "fault, text" "exit $rc: $(grep verdict "$T/out")"
fi

# ---- buffers cycled: given back and taken again at every sample ------------------------------

fdma soak sim:mem=32M --duration 4s --every 1s --sizes 64K --card-sweep 0..32M/16M --cycle-buffers --json
json "--cycle-buffers: nothing held at any sample's end, fds flat, pass" \
	'all(o["lib_buffers"] == 0 and o["lib_bytes"] == 0 for o in '"$S"') and len(set(o["fds"] for o in '"$S"')) == 1 and '"$V"'["pass"] is True and '"$V"'["cycles"] == len('"$S"') >= 2'
json "--cycle-buffers: every byte checked in every sample, both directions" \
	'all(s["bytes"] > 0 and s["bytes_checked"] == s["bytes"] for o in '"$S"' for s in o["series"]) and len('"$S"'[0]["series"]) == 2'

fdma soak sim:mem=32M --duration 4s --every 2s --sizes 64K --mem dmabuf --cycle-buffers --json
json "--mem dmabuf --cycle-buffers: checked through the card, nothing held" \
	'all(o["lib_buffers"] == 0 and all(s["bytes"] > 0 and s["bytes_checked"] == s["bytes"] and s["errors"] == 0 for s in o["series"]) for o in '"$S"') and '"$V"'["mem"] == "dmabuf" and '"$V"'["pass"] is True'

# ---- text, and Ctrl-C --------------------------------------------------------------------------

fdma soak sim --duration 2s --every 1s --sizes 64K --dir h2c --hwmon "$T/none"
if [ "$rc" -eq 0 ] && [ "$(grep -c '^#[0-9]' "$T/out")" -ge 1 ] && grep -q "^verdict: PASS" "$T/out" &&
   grep -q "power: not available" "$T/out" && grep -q "driver pinned pages *not available" "$T/out"; then
	ok "text: a line per sample, PASS, and what is not available said"
else
	bad "text" "exit $rc: $(tail -n 3 "$T/out" | tr '\n' '|')"
fi

"$FDMA" soak sim --duration 1h --every 1s --sizes 64K --json >"$T/out" 2>"$T/err" &
pid=$!
wait_caught "$pid"
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
json "Ctrl-C: the samples so far, the last cut short, and the verdict; exit 0" \
	'len('"$S"') >= 1 and '"$S"'[-1]["interrupted"] is True and '"$V"'["interrupted"] is True and '"$V"'["pass"] is True and '"$V"'["seconds"] < 60'

finish
