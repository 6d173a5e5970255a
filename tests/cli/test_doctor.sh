#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Command-line tests of `fdma doctor`: findings (ids, levels, JSON fields)
# and exit statuses on recorded /sys + /proc trees (tests/cli/doctor/, made
# by tests/cli/doctor/mkfixtures.sh), argument handling, and runs on this
# machine's live /sys and /proc, which must finish with 0 or 1 and valid
# JSON whatever the machine holds.
#
#   FDMA=build/fdma sh tests/cli/test_doctor.sh

. tests/cli/lib.sh

FX=tests/cli/doctor

# djson DESC STATUS EXPR: the last run exited STATUS and its JSON lines
# make EXPR true (lib.sh's json(), which wants status 0). lvl(id) is the
# level of the one finding with that id, f(id) the finding itself.
djson() {
	if [ "$rc" -ne "$2" ]; then
		bad "$1" "exit $rc, want $2: $(errline)"
		return
	fi
	rc=0
	json "$1" "(lambda lvl, f: $3)(lambda i: [o['level'] for o in L if o['id'] == i], lambda i: [o for o in L if o['id'] == i][0])"
	rc=$2
}

# narrow DESC: no line of the last run's stdout is 100 columns or wider.
narrow() {
	_w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$T/out")
	if [ "$_w" -lt 100 ]; then
		ok "$1"
	else
		bad "$1" "a line is $_w columns: $(awk 'length($0) >= 100' "$T/out" | head -n 1)"
	fi
}

# ---- usage -----------------------------------------------------------------------

fdma doctor --help
if [ "$rc" -eq 0 ] && grep -q '^usage: fdma doctor' "$T/out"; then
	ok "doctor --help exits 0 with usage on stdout"
else
	bad "doctor --help exits 0 with usage on stdout" "exit $rc"
fi
fdma --help
if grep -q '^  doctor ' "$T/out"; then
	ok "fdma --help lists doctor"
else
	bad "fdma --help lists doctor"
fi
expect_usage "doctor --no-such-option exits 2" doctor --no-such-option
expect_usage "doctor with two devices exits 2" doctor 01:00.0 02:00.0
expect_usage "doctor on a name that is no device exits 2" doctor nonsense
expect_usage "doctor on sim: exits 2 (nothing to check)" doctor sim:
expect_usage "doctor --sysroot without a value exits 2" doctor --sysroot
expect_usage "doctor --sysroot on a missing folder exits 2" doctor --sysroot "$T/none"

# ---- gen2 x1 card trained at gen1, MPS 128, INTx (arm64) ------------------------

fdma doctor --sysroot $FX/gen1-intx
if [ "$rc" -eq 1 ] && grep -q 'FAIL link.speed' "$T/out"; then
	ok "gen1-intx: exit 1, text names the link.speed fail"
else
	bad "gen1-intx: exit 1, text names the link.speed fail" "exit $rc: $(errline)"
fi
narrow "gen1-intx: text under 100 columns"

fdma doctor --sysroot $FX/gen1-intx --json
djson "gen1-intx: every line has id, level, device, reason and fix" 1 \
	"all(has(o, 'id level device reason fix') for o in L) and \
	 all(o['level'] in ('ok', 'info', 'warn', 'fail') for o in L)"
djson "gen1-intx: link.speed fail (gen1 of gen2), link.width ok" 1 \
	"lvl('link.speed') == ['fail'] and f('link.speed')['gen'] == 1 and \
	 f('link.speed')['max_gen'] == 2 and lvl('link.width') == ['ok']"
djson "gen1-intx: pcie.mps warn (128 of 256), pcie.mrrs ok" 1 \
	"lvl('pcie.mps') == ['warn'] and f('pcie.mps')['mps'] == 128 and \
	 f('pcie.mps')['mps_cap'] == 256 and lvl('pcie.mrrs') == ['ok']"
djson "gen1-intx: irq.mode fail (INTx on a device that offers MSI)" 1 \
	"lvl('irq.mode') == ['fail'] and f('irq.mode')['mode'] == 'intx'"
djson "gen1-intx: driver ok, fdma loaded with irq_mode=intx warns" 1 \
	"lvl('driver') == ['ok'] and f('driver')['node'] == 'fdma0' and \
	 lvl('driver.module') == ['warn']"
djson "gen1-intx: ceilings for gen1 x1 MPS 128 below those at gen2 x1" 1 \
	"lvl('link.ceiling') == ['info'] and \
	 abs(num(f('link.ceiling'), 'write_mbps') - 209.9) < 0.2 and \
	 num(f('link.ceiling'), 'max_write_mbps') > 2 * num(f('link.ceiling'), 'write_mbps') and \
	 num(f('link.ceiling'), 'max_read_mbps') > num(f('link.ceiling'), 'read_mbps')"
djson "gen1-intx: schedutil, 8 MiB memlock and low CMA on arm64 warn" 1 \
	"lvl('cpu.governor') == ['warn'] and lvl('memlock') == ['warn'] and \
	 f('memlock')['limit_bytes'] == 8388608 and lvl('cma') == ['warn'] and \
	 f('cma')['arch'] == 'aarch64'"
djson "gen1-intx: no IOMMU is info; the summary counts 2 fails" 1 \
	"lvl('iommu') == ['info'] and f('iommu')['type'] == 'none' and \
	 f('summary')['fail'] == 3 and f('summary')['level'] == 'fail' and \
	 f('summary')['devices'] == 1"
# A 1080p60 YUYV capture (fdma.ko v4l2=1): 248.8 MB/s, over the gen1 x1
# MPS 128 write ceiling (about 210 MB/s), under gen2 MPS 256's; the output
# device set to 640x480 GREY at 30 fps in its sysfs settings fits.
djson "gen1-intx: video.rate: 1080p60 YUYV capture fails over gen1 x1 MPS 128, the output fits" 1 \
	"lvl('video.rate') == ['fail', 'ok'] and \
	 [o['dir'] for o in L if o['id'] == 'video.rate'] == ['c2h', 'h2c'] and \
	 (lambda c, h: c['need_mbps'] == 248.8 and c['frame_bytes'] == 1920 * 1080 * 2 and \
	  c['ceiling_mbps'] < 248.8 < c['best_mbps'] and 'does not fit' in c['reason'] and \
	  '/dev/video0' in c['reason'] and h['format'] == 'GREY' and \
	  h['frame_bytes'] == 640 * 480 and h['need_mbps'] == 9.2)( \
	  *[o for o in L if o['id'] == 'video.rate'])"

fdma doctor kdev:/dev/fdma0 --sysroot $FX/gen1-intx --json
djson "gen1-intx: kdev:/dev/fdma0 names 0000:01:00.0" 1 \
	"f('link.speed')['device'] == '0000:01:00.0' and lvl('link.speed') == ['fail']"
fdma doctor 01:00.0 --sysroot $FX/gen1-intx --json
djson "gen1-intx: a short PCI address (01:00.0) works" 1 \
	"f('driver')['device'] == '0000:01:00.0'"
fdma doctor 0000:00:00.0 --sysroot $FX/gen1-intx --json
djson "gen1-intx: the root port itself: not an fdma ID, no link fail" 1 \
	"lvl('device') == ['info'] and f('device')['vendor'] == '1d87' and \
	 lvl('link.speed') == ['fail']"
fdma doctor 0000:09:00.0 --sysroot $FX/gen1-intx --json
djson "a PCI address with no function there: device fail, exit 1" 1 \
	"lvl('device') == ['fail'] and f('summary')['devices'] == 0"
fdma doctor kdev:/dev/fdma7 --sysroot $FX/gen1-intx --json
djson "kdev:/dev/fdma7 that is not there: device fail, exit 1" 1 \
	"lvl('device') == ['fail']"

# ---- healthy gen3 x4 card on MSI-X (x86_64) -------------------------------------

fdma doctor --sysroot $FX/gen3x4-msix
if [ "$rc" -eq 0 ] && ! grep -q 'WARN\|FAIL' "$T/out"; then
	ok "gen3x4-msix: exit 0, nothing to warn about"
else
	bad "gen3x4-msix: exit 0, nothing to warn about" "exit $rc: $(grep -m1 'WARN\|FAIL' "$T/out")"
fi
narrow "gen3x4-msix: text under 100 columns"
fdma doctor --sysroot $FX/gen3x4-msix --json
djson "gen3x4-msix: link gen3 x4 ok, MPS 256 ok (the port's limit)" 0 \
	"lvl('link.speed') == ['ok'] and f('link.speed')['gen'] == 3 and \
	 lvl('link.width') == ['ok'] and f('link.width')['width'] == 4 and \
	 lvl('pcie.mps') == ['ok'] and f('pcie.mps')['port_mps_cap'] == 256"
djson "gen3x4-msix: MSI-X with 4 vectors, IOMMU DMA-FQ, NUMA node 0" 0 \
	"lvl('irq.mode') == ['ok'] and f('irq.mode')['mode'] == 'msix' and \
	 f('irq.mode')['vectors'] == 4 and lvl('iommu') == ['ok'] and \
	 f('iommu')['type'] == 'DMA-FQ' and f('numa')['node'] == 0"
djson "gen3x4-msix: system items ok, no warn or fail" 0 \
	"lvl('cpu.governor') == ['ok'] and lvl('memlock') == ['ok'] and \
	 lvl('hugepages') == ['ok'] and f('summary')['warn'] == 0 and \
	 f('summary')['fail'] == 0 and f('summary')['level'] == 'info'"
djson "gen3x4-msix: the ceiling is gen3 x4's (about 3590 MB/s of writes)" 0 \
	"3500 < num(f('link.ceiling'), 'write_mbps') < 3700 and \
	 f('link.ceiling')['source'] == 'model'"
djson "gen3x4-msix: video.rate from an older fdma.ko's parameters: 1080p60 YUYV fits gen3 x4" 0 \
	"lvl('video.rate') == ['ok'] and f('video.rate')['need_mbps'] == 248.8 and \
	 f('video.rate')['dir'] == 'c2h' and 3500 < f('video.rate')['ceiling_mbps'] < 3700"

# ---- a card with no driver, recorded without root, little of /proc --------------

fdma doctor --sysroot $FX/nodriver --json
djson "nodriver: driver fail; MPS, MRRS unknown (64 bytes of config)" 1 \
	"lvl('driver') == ['fail'] and lvl('pcie.mps') == ['info'] and \
	 f('pcie.mps')['mps'] == 0 and lvl('pcie.mrrs') == ['info']"
djson "nodriver: no interrupts in use; missing /proc files are unknown" 1 \
	"f('irq.mode')['mode'] == 'none' and lvl('memlock') == ['info'] and \
	 f('memlock')['limit_bytes'] is None and lvl('hugepages') == ['info'] and \
	 lvl('cma') == ['info'] and lvl('cpu.governor') == ['info']"
fdma doctor --sysroot $FX/nodriver
narrow "nodriver: text under 100 columns"

# ---- strings from the tree that JSON must escape ---------------------------------

# A governor with a quote, a backslash and a tab, an IOMMU unit named with a
# quote: valid JSON, each string exactly as read (the tab as \u0009).
cp -R $FX/gen3x4-msix "$T/odd"
for _g in "$T"/odd/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; do
	printf 'my"gov\\x\tq\n' >"$_g"
done
mkdir "$T/odd/sys/class/iommu/u\"nit"
rm -rf "$T/odd/sys/class/iommu/dmar0"
fdma doctor --sysroot "$T/odd" --json
djson "odd strings in the tree: valid JSON, the governor and the unit as read" "$rc" \
	"f('cpu.governor')['other'] == 'my\"gov\\\\x\\tq' and \
	 f('iommu.system')['first'] == 'u\"nit'"
fdma doctor --sysroot "$T/odd"
if grep -q 'my"gov' "$T/out" && ! grep -q "$(printf '\033')" "$T/out"; then
	ok "odd strings in the tree: text shows them, no control characters"
else
	bad "odd strings in the tree: text" "exit $rc: $(grep governor "$T/out" | head -n 1)"
fi

# ---- an empty tree: nothing to find, nothing to crash on ---------------------------

mkdir -p "$T/empty"
fdma doctor --sysroot "$T/empty" --json
djson "empty tree: 'devices' warns, exit 0; no cpu.wakeup (not live)" 0 \
	"lvl('devices') == ['warn'] and f('summary')['devices'] == 0 and lvl('cpu.wakeup') == []"

# ---- this machine ---------------------------------------------------------------

fdma doctor --json
if [ "$rc" -le 1 ]; then
	djson "live /sys: exit $rc and valid JSON with a summary" "$rc" \
		"f('summary')['id'] == 'summary'"
	# Measured on any machine: a wake-up on one CPU takes some time, and
	# from another CPU (where there are two) too.
	djson "live: cpu.wakeup measured" "$rc" \
		"len(lvl('cpu.wakeup')) == 1 and f('cpu.wakeup')['same_cpu_wake_us'] > 0 and \
		 (f('cpu.wakeup')['cpus'][1] < 0 or f('cpu.wakeup')['cross_cpu_wake_us'] > 0)"
else
	bad "live /sys: exit 0 or 1" "exit $rc: $(errline)"
fi
fdma doctor
if [ "$rc" -le 1 ] && grep -q '^[0-9]* ok, ' "$T/out"; then
	ok "live /sys: text, exit $rc"
else
	bad "live /sys: text, exit 0 or 1" "exit $rc: $(errline)"
fi
narrow "live /sys: text under 100 columns"
fdma doctor --sysroot / --json
if [ "$rc" -le 1 ]; then
	djson "live tree read as a sysroot (/): exit $rc, valid JSON" "$rc" "len(L) > 1"
else
	bad "live tree read as a sysroot (/): exit 0 or 1" "exit $rc: $(errline)"
fi
# Every PCI function here, whatever it is (up to 8).
_n=0
for _d in /sys/bus/pci/devices/*; do
	[ -e "$_d" ] || continue
	[ "$_n" -lt 8 ] || break
	_n=$((_n + 1))
	_b=${_d##*/}
	fdma doctor "$_b" --json
	if [ "$rc" -le 1 ]; then
		djson "live $_b: exit $rc, valid JSON" "$rc" "f('summary')['devices'] == 1"
	else
		bad "live $_b: exit 0 or 1" "exit $rc: $(errline)"
	fi
done

finish
