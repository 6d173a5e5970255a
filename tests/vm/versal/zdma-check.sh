#!/bin/bash
# A hand-run check, not part of `make test`: boot Debian's arm64 kernel on
# QEMU's xlnx-versal-virt machine, load the unmodified upstream zynqmp_dma
# driver and dmatest (both built out of tree from Debian's linux-source),
# and run dmatest on the ZynqMP DMA channels QEMU models. With --dtprobe
# it also adds phandles and #dma-cells to the first two ZDMA nodes and a node
# `compatible = "fdma,dmaengine"` with dmas/dma-names "tx", "rx" naming them,
# and loads tests/vm/versal/dtprobe.c built for the kernel (a platform driver
# for that compatible that requests the channels and runs a batch of memcpys).
# See docs/dmaengine.md, "Feasibility".
#
# usage: tests/vm/versal/zdma-check.sh [--kernel VER] [--sysroot DIR]
#        [--source TARBALL] [--dtprobe] [--keep]
# Needs: qemu-system-aarch64, gcc-aarch64-linux-gnu, device-tree-compiler
# (fdtput), cpio, the arm64 sysroot (tests/vm/arm64-sysroot.sh), and
# /usr/src/linux-source-<series>.tar.xz for the kernel's series.
set -u
KVER=6.1.0-57-arm64
SYSROOT=build/arm64-sysroot
SRC=""
DTPROBE=""
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KVER=$2; shift 2 ;;
	--sysroot) SYSROOT=$2; shift 2 ;;
	--source) SRC=$2; shift 2 ;;
	--dtprobe) DTPROBE=1; shift ;;
	--keep) KEEP=1; shift ;;
	*) echo "usage: $0 [--kernel VER] [--sysroot DIR] [--source TARBALL] [--dtprobe] [--keep]" >&2; exit 2 ;;
	esac
done
SYSROOT=$(readlink -f "$SYSROOT")
series=${KVER%%-*}; series=${series%.*}	# 6.1.0-57-arm64 -> 6.1, 6.12.117+deb12-arm64 -> 6.12
case $KVER in 6.12*) series=6.12 ;; esac
[ -n "$SRC" ] || SRC=/usr/src/linux-source-$series.tar.xz
HDR=$SYSROOT/usr/src/linux-headers-$KVER
for f in "$SRC" "$HDR/Makefile" "$SYSROOT/boot/vmlinuz-$KVER" "$SYSROOT/bin/busybox"; do
	[ -e "$f" ] || { echo "SKIP: $f missing"; exit 77; }
done
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc fdtput dtc cpio busybox; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done

T=$(mktemp -d /tmp/zdma-check.XXXXXX)
QPID=""
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	if [ $KEEP = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT INT TERM

# 1. zynqmp_dma.ko and dmatest.ko from the kernel's own sources.
t0=$(date +%s)
mkdir -p "$T/m/xilinx"
tar -xJf "$SRC" -C "$T" --wildcards --strip-components=1 \
	"linux-source-$series/drivers/dma/dmatest.c" \
	"linux-source-$series/drivers/dma/dmaengine.h" \
	"linux-source-$series/drivers/dma/xilinx/zynqmp_dma.c" || exit 1
cp "$T/drivers/dma/dmatest.c" "$T/drivers/dma/dmaengine.h" "$T/m/"
cp "$T/drivers/dma/xilinx/zynqmp_dma.c" "$T/m/xilinx/"
echo 'obj-m += dmatest.o xilinx/zynqmp_dma.o' >"$T/m/Kbuild"
make -C "$HDR" M="$T/m" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules \
	>"$T/kbuild.log" 2>&1 || { tail -20 "$T/kbuild.log"; exit 1; }
if [ -n "$DTPROBE" ]; then
	mkdir -p "$T/p"
	cp "$(dirname "$0")/dtprobe.c" "$T/p/"
	echo 'obj-m += dtprobe.o' >"$T/p/Kbuild"
	make -C "$HDR" M="$T/p" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules \
		>>"$T/kbuild.log" 2>&1 || { tail -20 "$T/kbuild.log"; exit 1; }
	DTPROBE=$T/p/dtprobe.ko
fi
echo "built zynqmp_dma.ko and dmatest.ko for $KVER in $(($(date +%s) - t0)) s"

# 2. The device tree QEMU generates for the machine, optionally with a client node.
M="xlnx-versal-virt"
qemu-system-aarch64 -M "$M,dumpdtb=$T/versal.dtb" -m 1G -nographic >/dev/null 2>&1
DTB=()
if [ -n "$DTPROBE" ]; then
	fdtput -t x "$T/versal.dtb" /dma@ffa80000 phandle 0xfd00
	fdtput -t x "$T/versal.dtb" /dma@ffa80000 '#dma-cells' 1
	fdtput -t x "$T/versal.dtb" /dma@ffa90000 phandle 0xfd01
	fdtput -t x "$T/versal.dtb" /dma@ffa90000 '#dma-cells' 1
	fdtput -c "$T/versal.dtb" /fdma-dmaengine
	fdtput -t s "$T/versal.dtb" /fdma-dmaengine compatible fdma,dmaengine
	fdtput -t x "$T/versal.dtb" /fdma-dmaengine dmas 0xfd00 0 0xfd01 0
	fdtput -t s "$T/versal.dtb" /fdma-dmaengine dma-names tx rx
	DTB=(-dtb "$T/versal.dtb")
fi

# 3. initramfs: the arm64 busybox (applets listed by the host's), the modules, /init.
R=$T/root
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp}
cp "$SYSROOT/bin/busybox" "$R/bin/busybox"
for a in $(busybox --list-full); do [ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"; done
cp "$T/m/dmatest.ko" "$T/m/xilinx/zynqmp_dma.ko" "$R/"
[ -n "$DTPROBE" ] && cp "$DTPROBE" "$R/dtprobe.ko"
cat >"$R/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t debugfs none /sys/kernel/debug
echo "ZDMA BEGIN $(uname -r)"
echo "zdma platform devices: $(ls /sys/bus/platform/devices | grep -c ffa.0000.dma)"
insmod /zynqmp_dma.ko
echo "dma channels: $(ls /sys/class/dma | tr '\n' ' ')"
cat /sys/kernel/debug/dmaengine/summary 2>/dev/null | head -20
if [ -e /dtprobe.ko ]; then insmod /dtprobe.ko; dmesg | grep -i dtprobe; fi
insmod /dmatest.ko timeout=5000 iterations=200 threads_per_chan=1 max_channels=8 test_buf_size=65536
echo 1 >/sys/module/dmatest/parameters/run
cat /sys/module/dmatest/parameters/wait >/dev/null
dmesg | grep -E 'dmatest: (dma.*summary|Added|Started)' 
echo "zdma interrupts: $(grep -i zynqmp /proc/interrupts | awk '{s += $2} END {print s}')"
dmesg | grep -E 'WARNING|BUG|Oops|zynqmp.*(error|fail)' | grep -v 'module verification failed' | head
echo "ZDMA END"
poweroff -f
INIT
chmod 755 "$R/init"
(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$T/initrd.gz"

# 4. Boot.
t0=$(date +%s)
timeout 300 qemu-system-aarch64 -M "$M" -m 1G -nographic -no-reboot "${DTB[@]}" \
	-kernel "$SYSROOT/boot/vmlinuz-$KVER" -initrd "$T/initrd.gz" \
	-append "console=ttyAMA0 panic=-1 quiet loglevel=4" >"$T/console.log" 2>&1 &
QPID=$!
wait $QPID; rc=$?; QPID=""
sed -n '/ZDMA BEGIN/,/ZDMA END/p' "$T/console.log"
echo "qemu exit $rc, $(($(date +%s) - t0)) s"
grep -q 'ZDMA END' "$T/console.log" || { tail -30 "$T/console.log"; exit 1; }
fails=$(grep -c 'summary.*[1-9][0-9]* failures' "$T/console.log")
sums=$(grep -c 'summary.* 0 failures' "$T/console.log")
echo "dmatest channels with 0 failures: $sums; with failures: $fails"
[ "$sums" -gt 0 ] && [ "$fails" = 0 ]
