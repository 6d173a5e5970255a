# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# fdma.ko binds the model's function (behind QEMU's proxy) and the ivshmem
# function that carries its interrupts; the device is what the model is:
# the engine (fdmavm_engine), four channels, MSI-X, the link the model paces.
. /tests/vmlib.sh
ENGINE=${fdmavm_engine:-xdma}
# XDMA has no register for its card memory: the model's (1 GiB) is given.
# A ring smaller than a batch (FDMA_IOC_MAX_BATCH), as the FDMA rows load
# it, so that ioc_invalid can overfill it in one call.
args="irq_carrier=1"
[ "$ENGINE" = xdma ] && args="$args xdma_card_size=0x40000000"
echo "$args" >/tmp/koargs
KOARGS="$args ring_size=256"
if ! insmod /fdma.ko $KOARGS 2>/tmp/ins.err; then
	fail probe "insmod /fdma.ko $KOARGS: $(cat /tmp/ins.err)"
	return 0
fi
dev=$(fdma_wait_node engine)
if [ -z "$dev" ]; then
	fail probe "no /sys/class/fdma/fdmaN after insmod"
	dmesg | tail -20 | say
	return 0
fi
dmesg | grep 'fdma' | grep -v taint | say
/e2e/fdma info --json kdev:/dev/$dev >/tmp/info.json 2>&1
say </tmp/info.json
why=""
want=$ENGINE
[ "$ENGINE" = rtl ] && want=fdma	# the RTL is the FDMA engine
grep -q "\"engine\":\"$want\"" /tmp/info.json || why="$why; engine is not $want"
grep -q '"channels":4' /tmp/info.json || why="$why; not 4 channels"
grep -q '"gen":2,"lanes":1' /tmp/info.json || why="$why; not the model's gen2 x1 link"
[ "$(cat /sys/class/fdma/$dev/irq_mode 2>/dev/null)" = msix ] || why="$why; irq_mode is $(cat /sys/class/fdma/$dev/irq_mode 2>/dev/null), not msix"
drv=fdma
[ "$ENGINE" = xdma ] && drv=fdma_xdma
ls /sys/bus/pci/drivers/$drv/ 2>/dev/null | grep -q '^0000:' || why="$why; no function bound to $drv"
if [ -z "$why" ]; then pass probe; else fail probe "${why#; }"; fi
