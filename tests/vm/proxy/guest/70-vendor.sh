# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# A vendor driver's probe of the XDMA function: Xilinx's takes its channels'
# vectors plus 16 user ones, MSI-X, even in poll mode. The function offers
# the IP's MSI-X capability and 32-entry table in the DMA BAR, so the probe
# (/fdma_vendorprobe.ko, bound through driver_override) gets its 20 vectors
# and reads the table back as the kernel wrote it. No message reaches a TCG
# guest through the proxy; fdma's carrier covers that for fdma.ko.
. /tests/vmlib.sh
if [ "${fdmavm_engine:-xdma}" != xdma ]; then
	echo "VMTEST SKIP vendor_msix: the IP's MSI-X capability is XDMA's (engine ${fdmavm_engine:-})"
	return 0
fi
fn=""
for d in /sys/bus/pci/devices/*; do
	case "$(cat "$d/vendor"):$(cat "$d/device")" in
	0x10ee:0x90*) fn=${d##*/} ;;
	esac
done
if [ -z "$fn" ]; then
	fail vendor_msix "no 10ee:90xx function"
	return 0
fi
if [ ! -e /fdma_vendorprobe.ko ] || ! insmod /fdma_vendorprobe.ko nvec=20 2>/tmp/ins.err; then
	fail vendor_msix "insmod fdma_vendorprobe.ko: $(cat /tmp/ins.err 2>/dev/null)"
	return 0
fi
echo fdma_vendorprobe >"/sys/bus/pci/devices/$fn/driver_override"
echo "$fn" >/sys/bus/pci/drivers_probe 2>/dev/null
drv=$(readlink "/sys/bus/pci/devices/$fn/driver" 2>/dev/null)
n=$(grep -c fdma_vendorprobe /proc/interrupts)
why=""
[ "${drv##*/}" = fdma_vendorprobe ] || why="$why; not bound (driver '${drv##*/}')"
dmesg | grep -q "fdma_vendorprobe: 20 MSI-X vectors of 32, table as written" ||
	why="$why; no 'table as written' line"
[ "$n" = 20 ] || why="$why; $n vectors in /proc/interrupts, not 20"
dmesg | grep fdma_vendorprobe | say
if [ -z "$why" ]; then pass vendor_msix; else fail vendor_msix "${why#; }"; fi
[ "${drv##*/}" = fdma_vendorprobe ] && echo "$fn" >/sys/bus/pci/drivers/fdma_vendorprobe/unbind
echo >"/sys/bus/pci/devices/$fn/driver_override"
rmmod fdma_vendorprobe
