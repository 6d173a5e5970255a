#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/cli/doctor/mkfixtures.sh: writes the recorded /sys + /proc trees
# that tests/cli/test_doctor.sh points `fdma doctor --sysroot` at. The trees
# are committed; run this (from anywhere) after changing it and commit the
# result. Each tree holds only what doctor reads, laid out as Linux lays it
# out (sysfs symlinks included); config space is binary, written from the
# register values below.
#
#   gen1-intx    arm64 board (an RK3568-like SoC): a gen2 x1 FDMA card that
#                trained at gen1, MPS 128 although device and port take 256,
#                INTx although the device offers MSI, fdma loaded with
#                irq_mode=intx and v4l2=1 (1080p60 YUYV), schedutil, 8 MiB
#                memlock, CMA nearly used up
#   gen3x4-msix  healthy x86_64 host: a gen3 x4 card in a gen3 x8 slot,
#                trained at gen3 x4, MSI-X with 4 vectors, MPS 256 (the
#                port's limit; the card takes 512), IOMMU DMA-FQ, NUMA node
#                0, performance governor, memlock unlimited, 16 free huge pages,
#                fdma loaded with v4l2=1 (an older fdma.ko: no per-device
#                settings, the format from the parameters)
#   nodriver     an FDMA card with no driver, recorded by a non-root user
#                (64 bytes of config space) on a minimal system: most of
#                /proc is missing and must read as "unknown"
set -eu

D=$(cd "$(dirname "$0")" && pwd)

# cfg FILE LEN: config space of LEN bytes from "OFFSET WIDTH VALUE" lines
# (hex, width 1, 2 or 4 bytes, little endian) on stdin; the rest is 0.
cfg() {
	awk -v len="$2" '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{ off = hex($1); w = $2 + 0; v = hex($3)
	  for (i = 0; i < w; i++) { b[off + i] = v % 256; v = int(v / 256) } }
	END { for (i = 0; i < len; i++) printf "\\%03o", (i in b) ? b[i] : 0; print "" }
	' | { read -r esc; printf "$esc"; } >"$1"
}

# put FILE TEXT: a one-line text file.
put() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

# ln_s TARGET LINK
ln_s() {
	mkdir -p "$(dirname "$2")"
	rm -f "$2"
	ln -s "$1" "$2"
}

# pci DIR VENDOR DEVICE CUR_SPEED MAX_SPEED CUR_WIDTH MAX_WIDTH IRQ NUMA
pci() {
	put "$1/vendor" "$2"
	put "$1/device" "$3"
	put "$1/current_link_speed" "$4"
	put "$1/max_link_speed" "$5"
	put "$1/current_link_width" "$6"
	put "$1/max_link_width" "$7"
	put "$1/irq" "$8"
	put "$1/numa_node" "$9"
}

# ---- gen1-intx -----------------------------------------------------------------
R=$D/gen1-intx
rm -rf "$R"
P=$R/sys/devices/platform/3c0800000.pcie/pci0000:00/0000:00:00.0
pci "$P" 0x1d87 0x3566 "2.5 GT/s PCIe" "5.0 GT/s PCIe" 1 1 0 -1
# Root port: caps at 0x40, PCIe v2 root port, DevCap MPS 256.
cfg "$P/config" 256 <<EOF
0 2 1d87
2 2 3566
6 2 0010
34 1 40
40 1 10
42 2 0042
44 4 00000001
48 2 0000
4c 4 00000012
52 2 0011
EOF
F=$P/0000:01:00.0
pci "$F" 0x10ee 0xfd3a "2.5 GT/s PCIe" "5.0 GT/s PCIe" 1 1 74 -1
# Endpoint: MSI at 0x50 (64-bit, off), PCIe at 0x70: DevCap MPS 256,
# DevCtl MPS 128 (bits 7:5 = 0) MRRS 512 (14:12 = 2), LnkCap gen2 x1,
# LnkSta gen1 x1; interrupt pin INTA; INTx not disabled.
cfg "$F/config" 256 <<EOF
0 2 10ee
2 2 fd3a
4 2 0006
6 2 0010
b 1 11
34 1 50
3c 1 4a
3d 1 01
50 1 05
51 1 70
52 2 0080
70 1 10
71 1 00
72 2 0002
74 4 00000001
78 2 2000
7c 4 00000012
82 2 0011
EOF
ln_s ../../../../../../bus/pci/drivers/fdma "$F/driver"
N=$F/fdma/fdma0
put "$N/irq_mode" intx
put "$N/irq_vectors" 1
put "$N/mps" 128
put "$N/mrrs" 512
put "$N/link_speed" "2.5 GT/s"
put "$N/link_max_speed" "5.0 GT/s"
put "$N/link_width" 1
put "$N/link_max_width" 1
ln_s ../../../0000:01:00.0 "$N/device"
ln_s ../../../devices/platform/3c0800000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0 \
	"$R/sys/bus/pci/devices/0000:01:00.0"
ln_s ../../../devices/platform/3c0800000.pcie/pci0000:00/0000:00:00.0 \
	"$R/sys/bus/pci/devices/0000:00:00.0"
ln_s ../../devices/platform/3c0800000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0/fdma/fdma0 \
	"$R/sys/class/fdma/fdma0"
put "$R/sys/bus/pci/drivers/fdma/uevent" ""
put "$R/sys/module/fdma/parameters/irq_mode" intx
# Loaded with v4l2=1 for a 1080p60 YUYV camera: a capture device on the
# C2H stream channel 2 with the parameters' format, an output device on
# the H2C one, 3, set to 640x480 GREY at 30 fps through its sysfs settings.
for kv in v4l2=Y v4l2_format=YUYV v4l2_width=1920 v4l2_height=1080 \
	v4l2_bytesperline=0 v4l2_fps=60; do
	put "$R/sys/module/fdma/parameters/${kv%%=*}" "${kv#*=}"
done
put "$N/ch2/dir" c2h
put "$N/ch3/dir" h2c
put "$R/sys/class/video4linux/video0/name" fdma0-ch2
put "$R/sys/class/video4linux/video1/name" fdma0-ch3
for kv in video0/format=YUYV video0/width=1920 video0/height=1080 video0/bytesperline=0 \
	video0/fps=60 video1/format=GREY video1/width=640 video1/height=480 \
	video1/bytesperline=0 video1/fps=30; do
	put "$R/sys/class/video4linux/${kv%%=*}" "${kv#*=}"
done
for i in 0 1 2 3; do
	put "$R/sys/devices/system/cpu/cpu$i/cpufreq/scaling_governor" schedutil
done
put "$R/sys/kernel/mm/transparent_hugepage/enabled" "always [madvise] never"
put "$R/sys/class/iommu/.keep" ""
mkdir -p "$R/proc/self" "$R/proc/sys/kernel"
cat >"$R/proc/meminfo" <<EOF
MemTotal:        3908452 kB
MemFree:         2817320 kB
HugePages_Total:       0
HugePages_Free:        0
HugePages_Rsvd:        0
HugePages_Surp:        0
Hugepagesize:       2048 kB
CmaTotal:          65536 kB
CmaFree:            8192 kB
EOF
cat >"$R/proc/self/limits" <<EOF
Limit                     Soft Limit           Hard Limit           Units     
Max locked memory         8388608              8388608              bytes     
EOF
put "$R/proc/self/status" "CapEff:	0000000000000000"
put "$R/proc/sys/kernel/arch" aarch64
put "$R/proc/cmdline" "console=ttyS2,1500000 root=/dev/mmcblk0p3 rw"

# ---- gen3x4-msix ---------------------------------------------------------------
R=$D/gen3x4-msix
rm -rf "$R"
P=$R/sys/devices/pci0000:00/0000:00:01.0
pci "$P" 0x8086 0x1901 "8.0 GT/s PCIe" "8.0 GT/s PCIe" 4 8 0 0
cfg "$P/config" 256 <<EOF
0 2 8086
2 2 1901
6 2 0010
34 1 40
40 1 10
42 2 0042
44 4 00000001
48 2 0020
4c 4 00000083
52 2 0043
EOF
F=$P/0000:01:00.0
pci "$F" 0x10ee 0xfd3a "8.0 GT/s PCIe" "8.0 GT/s PCIe" 4 4 0 0
# Endpoint: MSI-X at 0x40 (enabled, 4 vectors) -> MSI at 0x50 (off) ->
# PCIe at 0x70: DevCap MPS 512, DevCtl MPS 256 MRRS 512, gen3 x4; INTx off.
cfg "$F/config" 256 <<EOF
0 2 10ee
2 2 fd3a
4 2 0406
6 2 0010
34 1 40
3d 1 01
40 1 11
41 1 50
42 2 8003
50 1 05
51 1 70
52 2 0080
70 1 10
72 2 0002
74 4 00000002
78 2 2020
7c 4 00000043
82 2 0043
EOF
ln_s ../../../../bus/pci/drivers/fdma "$F/driver"
ln_s ../../../../kernel/iommu_groups/12 "$F/iommu_group"
for v in 40 41 42 43; do
	put "$F/msi_irqs/$v" msix
done
N=$F/fdma/fdma0
put "$N/irq_mode" msix
put "$N/irq_vectors" 4
put "$N/mps" 256
put "$N/mrrs" 512
put "$N/link_speed" "8.0 GT/s"
put "$N/link_max_speed" "8.0 GT/s"
put "$N/link_width" 4
put "$N/link_max_width" 4
ln_s ../../../0000:01:00.0 "$N/device"
ln_s ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0 "$R/sys/bus/pci/devices/0000:01:00.0"
ln_s ../../../devices/pci0000:00/0000:00:01.0 "$R/sys/bus/pci/devices/0000:00:01.0"
ln_s ../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/fdma/fdma0 "$R/sys/class/fdma/fdma0"
put "$R/sys/kernel/iommu_groups/12/type" DMA-FQ
put "$R/sys/bus/pci/drivers/fdma/uevent" ""
put "$R/sys/module/fdma/parameters/irq_mode" auto
# An fdma.ko from before the video devices' settings, loaded with v4l2=1:
# the format comes from the module's parameters (1080p60 YUYV).
for kv in v4l2=Y v4l2_format=YUYV v4l2_width=1920 v4l2_height=1080 \
	v4l2_bytesperline=0 v4l2_fps=60; do
	put "$R/sys/module/fdma/parameters/${kv%%=*}" "${kv#*=}"
done
put "$N/ch2/dir" c2h
put "$R/sys/class/video4linux/video0/name" fdma0-ch2
ln_s ../../devices/virtual/iommu/dmar0 "$R/sys/class/iommu/dmar0"
for i in 0 1 2 3; do
	put "$R/sys/devices/system/cpu/cpu$i/cpufreq/scaling_governor" performance
done
put "$R/sys/kernel/mm/transparent_hugepage/enabled" "always [madvise] never"
mkdir -p "$R/proc/self" "$R/proc/sys/kernel"
cat >"$R/proc/meminfo" <<EOF
MemTotal:       32768000 kB
MemFree:        30000000 kB
HugePages_Total:      16
HugePages_Free:       16
HugePages_Rsvd:        0
HugePages_Surp:        0
Hugepagesize:       2048 kB
EOF
cat >"$R/proc/self/limits" <<EOF
Limit                     Soft Limit           Hard Limit           Units     
Max locked memory         unlimited            unlimited            bytes     
EOF
put "$R/proc/self/status" "CapEff:	0000000000000000"
put "$R/proc/sys/kernel/arch" x86_64
put "$R/proc/cmdline" "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 intel_iommu=on"

# ---- nodriver --------------------------------------------------------------------
R=$D/nodriver
rm -rf "$R"
F=$R/sys/devices/pci0000:00/0000:03:00.0
pci "$F" 0x10ee 0xfd3a "8.0 GT/s PCIe" "8.0 GT/s PCIe" 8 8 0 -1
# What a non-root reader gets: the first 64 bytes (no capabilities).
cfg "$F/config" 64 <<EOF
0 2 10ee
2 2 fd3a
6 2 0010
34 1 40
3d 1 01
EOF
ln_s ../../../devices/pci0000:00/0000:03:00.0 "$R/sys/bus/pci/devices/0000:03:00.0"
put "$R/proc/cmdline" "root=/dev/sda1"
