#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Figures (docs/plots.md): fdma bench --plot, fdma loop --plot and fdma
# plot write well-formed SVG whose points are the values the same run
# printed: each point's place is read back through the axis ticks drawn
# beside it and compared with the JSON row (a flipped axis, a dropped or
# moved point fails). rsvg-convert renders every figure where it is
# installed. Bad paths, full disks and bad input give clear errors.

. tests/cli/lib.sh

HAVE_RSVG=0
command -v rsvg-convert >/dev/null 2>&1 && HAVE_RSVG=1

# well_formed SVG DESC: parses as XML (python3's xml.etree, else xmllint).
well_formed() {
	if [ "$HAVE_PY" -eq 1 ]; then
		if _why=$(python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
if r.tag != "{http://www.w3.org/2000/svg}svg" or r.get("version") != "1.1":
    sys.exit("not an SVG 1.1 root: %s" % r.tag)
for a in ("width", "height", "viewBox"):
    if not r.get(a):
        sys.exit("no %s" % a)
' "$1" 2>&1); then
			ok "$2: well-formed SVG 1.1 with width, height, viewBox"
		else
			bad "$2: well-formed SVG" "$_why"
		fi
	elif command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout "$1" 2>"$T/xmlerr"; then
			ok "$2: well-formed XML (xmllint)"
		else
			bad "$2: well-formed XML" "$(head -n 1 "$T/xmlerr")"
		fi
	else
		skip "$2: well-formed (neither python3 nor xmllint)"
	fi
}

# renders SVG DESC: rsvg-convert makes a PNG of it.
renders() {
	if [ "$HAVE_RSVG" -eq 0 ]; then
		skip "$2: renders (no rsvg-convert: apt-get install librsvg2-bin)"
	elif rsvg-convert "$1" -o "$T/fig.png" 2>"$T/rsvgerr" && [ -s "$T/fig.png" ]; then
		ok "$2: renders (rsvg-convert)"
	else
		bad "$2: renders" "$(head -n 1 "$T/rsvgerr")"
	fi
}

# points SVG JSON DESC CHECKS...: each CHECK is PANEL|SERIES-TITLE|KEY|ROUND[|log].
# The series titled SERIES-TITLE in panel PANEL has one point per JSON row
# (of JSON, one object a line), in x order, at the row's size and KEY as
# the panel's ticks read them, within half of ROUND (what the JSON rounds
# KEY to) and 0.3% of the axis (log10 with |log: 1%); the size axis is
# log2 and both axes grow away from the origin.
points() {
	_svg=$1
	_json=$2
	_d=$3
	shift 3
	if [ "$HAVE_PY" -eq 0 ]; then
		skip "$_d (no python3)"
		return
	fi
	if _why=$(python3 - "$_svg" "$_json" "$@" <<'PY' 2>&1
import json, math, re, sys, xml.etree.ElementTree as ET
NS = {"s": "http://www.w3.org/2000/svg"}
XL = "{http://www.w3.org/1999/xlink}href"
svg, rows = sys.argv[1], [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
root = ET.parse(svg).getroot()
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "k": 1e3, "M": 1e6, "G": 1e9}

def value(text):
    m = re.fullmatch(r"(-?[0-9.]+(?:e[-+]?[0-9]+)?) ?(B|KiB|MiB|GiB|k|M|G)?", text.strip())
    if not m:
        sys.exit("tick label %r is not a number" % text)
    return float(m.group(1)) * UNITS.get(m.group(2) or "", 1)

def fit(pairs, what):
    # value = a + b * pixel, from the labelled ticks (two or more).
    if len(pairs) < 2:
        sys.exit("%s: fewer than two labelled ticks" % what)
    n = len(pairs)
    mp = sum(p for p, v in pairs) / n
    mv = sum(v for p, v in pairs) / n
    b = sum((p - mp) * (v - mv) for p, v in pairs) / sum((p - mp) ** 2 for p, v in pairs)
    a = mv - b * mp
    for p, v in pairs:
        # Coordinates are written to 0.01 px.
        if abs(a + b * p - v) > 1e-6 * max(1, abs(v)) + 0.006 * abs(b):
            sys.exit("%s: the ticks are not evenly spaced (%s at %.2f)" % (what, v, p))
    return a, b

def ticks(panel, cls, attr, tf):
    out = []
    for g in panel.findall("s:g[@class='%s']" % cls, NS):
        line, text = g.find("s:line", NS), g.find("s:text", NS)
        if line is not None and text is not None:
            out.append((float(line.get(attr)), tf(value(text.text))))
    return out

panels = {p.get("id"): p for p in root.findall("s:g[@class='panel']", NS)}
last = panels["panel%d" % (len(panels) - 1)]
xa, xb = fit(ticks(last, "xtick", "x1", math.log2), "x axis")
if xb <= 0:
    sys.exit("the x axis grows leftwards")
for check in sys.argv[3:]:
    pname, title, key, rnd, *log = check.split("|")
    log, rnd = bool(log), float(rnd)
    panel = panels.get("panel" + pname)
    if panel is None:
        sys.exit("no panel %s" % pname)
    ya, yb = fit(ticks(panel, "ytick", "y1", math.log10 if log else float), "panel %s's y axis" % pname)
    if yb >= 0:
        sys.exit("panel %s's y axis grows downwards" % pname)
    series = [g for g in panel.findall("s:g[@class='series']", NS) if g.find("s:title", NS).text == title]
    if len(series) != 1:
        sys.exit("panel %s: %d series titled %r" % (pname, len(series), title))
    pts = sorted((float(u.get("x")), float(u.get("y"))) for u in series[0].findall("s:use[@class='pt']", NS))
    want = sorted((r["size"], r[key]) for r in rows)
    if len(pts) != len(want):
        sys.exit("%r: %d points for %d rows" % (title, len(pts), len(want)))
    span = max(v for p, v in ticks(panel, "ytick", "y1", float)) - min(v for p, v in ticks(panel, "ytick", "y1", float))
    for (px, py), (size, v) in zip(pts, want):
        got_x = 2 ** (xa + xb * px)
        got_y = ya + yb * py
        if log:
            got_y = 10 ** got_y
        if abs(math.log2(got_x / size)) > 0.01:
            sys.exit("%r: a point at size %.0f where the row has %d" % (title, got_x, size))
        # The figure draws the value before the JSON's rounding, to 0.01 px.
        tol = rnd / 2 + (0.003 * span if not log else 0.01 * v)
        if abs(got_y - v) > tol:
            sys.exit("%r at %d: the figure says %.4g, the row %s %.4g" % (title, size, got_y, key, v))
PY
	); then
		ok "$_d"
	else
		bad "$_d" "$_why"
	fi
}

# ---- fdma bench --plot ----------------------------------------------------------------------

fdma bench sim:gen=3,lanes=4 --sizes 4K,16K,64K,256K --seconds 0.1 --json --plot "$T/bench.svg"
cp "$T/out" "$T/bench.json"
json "bench --plot: the run's rows as usual" 'len(L) == 4 and all(o["errors"] == 0 for o in L)'
if [ -s "$T/bench.svg" ]; then
	well_formed "$T/bench.svg" "bench --plot"
	points "$T/bench.svg" "$T/bench.json" \
		"bench --plot: a point per size at the row's MB/s, ceiling, CPU and interrupts per transfer" \
		"0|measured MB/s|mbps|0.1" "0|link ceiling (the link model's, computed)|ceiling_mbps|0.1" \
		"1|host CPU (cpu%: submitting thread, checking apart)|cpu_pct|0.01" \
		"2|interrupts per completion|irqs_per_completion|0.0001"
	renders "$T/bench.svg" "bench --plot"
	if grep -q "a simulated device (sim): the model" "$T/bench.svg"; then
		ok "bench --plot: the figure says it is a model's"
	else
		bad "bench --plot: the figure says it is a model's" "no note"
	fi
else
	bad "bench --plot writes the figure" "$T/bench.svg is empty or missing"
fi

fdma bench sim:paced=0 --sizes 4K,64K --seconds 0.1 --json --plot "$T/memcpy.svg"
cp "$T/out" "$T/memcpy.json"
json "bench --plot unpaced: rows with memcpy beside" 'len(L) == 2 and all(num(o, "memcpy_mbps") > 0 for o in L)'
points "$T/memcpy.svg" "$T/memcpy.json" "bench --plot unpaced: memcpy dashed beside MB/s, no ceiling" \
	"0|measured MB/s|mbps|0.1" "0|memcpy of the same bytes (measured)|memcpy_mbps|0.1"

expect_fail "bench --plot into a folder that does not exist: exit 1, the path named" \
	"$T/no/such/dir/x.svg" bench sim: --sizes 4K --seconds 0.05 --plot "$T/no/such/dir/x.svg"
if [ -s "$T/out" ]; then
	bad "bench --plot with a bad path fails before the run" "it printed: $(head -n 1 "$T/out")"
else
	ok "bench --plot with a bad path fails before the run"
fi
if [ -w /dev/full ]; then
	expect_fail "bench --plot /dev/full: the write's failure, exit 1, the file named" \
		"cannot write the plot /dev/full: No space left" \
		bench sim:paced=0 --sizes 4K --seconds 0.05 --plot /dev/full
else
	skip "bench --plot /dev/full (no /dev/full)"
fi
expect_fail "bench --plot -: refused, standard output has the rows" "needs a file" \
	bench sim: --sizes 4K --seconds 0.05 --plot -

# ---- fdma loop --plot -------------------------------------------------------------------------

fdma loop sim:loop=1 --sizes 64,1024 --seconds 0.1 --json --plot "$T/loop.svg"
grep '"per-packet"' "$T/out" >"$T/loop-p.json"
grep '"batched"' "$T/out" >"$T/loop-b.json"
json "loop --plot: the run's rows as usual" 'len(L) == 4 and all(o["errors"] == 0 for o in L)'
well_formed "$T/loop.svg" "loop --plot"
points "$T/loop.svg" "$T/loop-p.json" "loop --plot: per-packet frames/s (log axis) and interrupts per frame" \
	"0|per-packet: frames/s|pps|1|log" "1|per-packet: interrupts per frame|irqs_per_packet|0.0001"
points "$T/loop.svg" "$T/loop-b.json" "loop --plot: batched frames/s and doorbells per frame" \
	"0|batched: frames/s|pps|1|log" "1|batched: doorbells per frame|doorbells_per_packet|0.0001"
renders "$T/loop.svg" "loop --plot"

# ---- fdma plot ----------------------------------------------------------------------------------

fdma plot "$T/bench.json" -o "$T/rows.svg" --x size --logx --y mbps --dashed ceiling_mbps \
	--y2 cpu_pct
if [ "$rc" -eq 0 ]; then
	ok "plot: bench's JSON rows drawn"
	points "$T/rows.svg" "$T/bench.json" "plot: the rows' mbps and cpu_pct where bench --plot put them" \
		"0|mbps|mbps|0.1" "1|cpu_pct|cpu_pct|0.01"
	renders "$T/rows.svg" "plot"
else
	bad "plot: bench's JSON rows drawn" "exit $rc: $(errline)"
fi

# A study's rows: every file figures.sh draws parses, and garbage among rows is skipped and said.
{
	echo '# a section'
	head -n 3 "$T/bench.json"
	echo 'not json at all'
	echo '{"size": 1, "mbps": }'
	printf '{"size":8192,"mbps":1e999,"name":"<a&b>\\u0000\\ud800\\"q\\""}\n'
	printf '\001\377\376{{{[[[\n'
	echo '[1, 2, 3]'
	echo '{"size": "4096", "mbps": null}'
	tail -n 1 "$T/bench.json"
} >"$T/mixed.jsonl"
fdma plot "$T/mixed.jsonl" -o "$T/mixed.svg" --x size --logx --y mbps --group name,@section
if [ "$rc" -eq 0 ] && grep -q "not a JSON object" "$T/err" &&
	grep -q "4 lines of mixed.jsonl were not JSON objects: skipped" "$T/mixed.svg" &&
	grep -q "1 point not drawn: not a finite number" "$T/mixed.svg" &&
	grep -q "1 row without a number for size" "$T/mixed.svg"; then
	ok "plot: garbage lines skipped and counted, inf and text values not drawn, all said"
else
	bad "plot: garbage lines skipped and counted" "exit $rc: $(errline)"
fi
well_formed "$T/mixed.svg" "plot of mixed garbage and rows (markup in a group's name)"
renders "$T/mixed.svg" "plot of mixed garbage and rows"

: >"$T/empty.jsonl"
expect_fail "plot of an empty file: exit 1, says there are no rows" "no JSON rows" \
	plot "$T/empty.jsonl" -o "$T/empty.svg" --x size --y mbps
[ -e "$T/empty.svg" ] && bad "plot of an empty file writes no figure" "$T/empty.svg exists" ||
	ok "plot of an empty file writes no figure"
head -c 4096 /dev/urandom >"$T/random.jsonl" 2>/dev/null || printf '\377\000\001' >"$T/random.jsonl"
expect_fail "plot of random bytes: exit 1, no rows" "no JSON rows" \
	plot "$T/random.jsonl" -o "$T/random.svg" --x size --y mbps
expect_fail "plot with a key no row has: exit 1, the key named" "no_such_key" \
	plot "$T/bench.json" -o "$T/nokey.svg" --x size --y no_such_key
expect_fail "plot --where that no row matches: exit 1" "no row matches" \
	plot "$T/bench.json" -o "$T/nowhere.svg" --x size --y mbps --where dir=sideways
expect_fail "plot of a file that does not exist: exit 1, the file named" "$T/nope.jsonl" \
	plot "$T/nope.jsonl" -o "$T/nope.svg" --x size --y mbps
expect_fail "plot of a folder: exit 1" "cannot read" plot "$T" -o "$T/dir.svg" --x size --y mbps
expect_fail "plot -o into a folder that does not exist: exit 1, the path named" "$T/no/dir/x.svg" \
	plot "$T/bench.json" -o "$T/no/dir/x.svg" --x size --y mbps
expect_usage "plot without -o: usage" plot "$T/bench.json" --x size --y mbps
expect_usage "plot without --y: usage" plot "$T/bench.json" -o "$T/x.svg" --x size
expect_usage "plot --where without '=': usage" plot "$T/bench.json" -o "$T/x.svg" --x size --y mbps --where dir
expect_usage "plot --xunit furlongs: usage" plot "$T/bench.json" -o "$T/x.svg" --x size --y mbps --xunit furlongs
expect_rc "plot --help: exit 0" 0 plot --help

finish
