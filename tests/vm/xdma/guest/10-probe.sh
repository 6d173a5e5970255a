# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# fdma.ko binds the XDMA function (behind QEMU's proxy) and the ivshmem
# function that carries its interrupts; the device is what the model is:
# XDMA, four channels, MSI-X, the link the model paces.
. /tests/vmlib.sh
# The model's card memory (fdma-xdmad's default 1 GiB): XDMA has no register
# for it. A ring smaller than a batch (FDMA_IOC_MAX_BATCH), as the FDMA rows
# load it, so that ioc_bad can overfill it in one call.
echo "xdma_irq_carrier=1 xdma_card_size=0x40000000" >/tmp/koargs
KOARGS="$(cat /tmp/koargs) ring_size=256"
if ! insmod /fdma.ko $KOARGS 2>/tmp/ins.err; then
	fail probe "insmod /fdma.ko $KOARGS: $(cat /tmp/ins.err)"
	return 0
fi
dev=$(fdma_node engine)
if [ -z "$dev" ]; then
	fail probe "no /sys/class/fdma/fdmaN after insmod"
	dmesg | tail -20 | say
	return 0
fi
dmesg | grep 'fdma' | grep -v taint | say
/e2e/fdma info --json kdev:/dev/$dev >/tmp/info.json 2>&1
say </tmp/info.json
why=""
grep -q '"engine":"xdma"' /tmp/info.json || why="$why; engine is not xdma"
grep -q '"channels":4' /tmp/info.json || why="$why; not 4 channels"
grep -q '"gen":2,"lanes":1' /tmp/info.json || why="$why; not the model's gen2 x1 link"
[ "$(cat /sys/class/fdma/$dev/irq_mode 2>/dev/null)" = msix ] || why="$why; irq_mode is $(cat /sys/class/fdma/$dev/irq_mode 2>/dev/null), not msix"
grep -q 'fdma_xdma' /sys/bus/pci/devices/*/uevent 2>/dev/null || why="$why; no device bound to fdma_xdma"
if [ -z "$why" ]; then pass probe; else fail probe "${why#; }"; fi
