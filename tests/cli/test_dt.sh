#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The device-tree example of fdma_dmac.ko's binding
# (docs/examples/fdma-axidma.dtso, a Zynq AXI DMA as fdma's stream
# channels): it compiles as an overlay, applies to a base that has an
# axi_dma_0 (xlnx,axi-dma-1.00.a, #dma-cells = <1>), and the result has
# the node as the binding says: compatible "fdma,dmaengine", two dmas
# entries pointing at that controller with channels 0 and 1, dma-names
# h2c0 and c2h0.
#
#   sh tests/cli/test_dt.sh

. tests/cli/lib.sh

if ! command -v dtc >/dev/null 2>&1 || ! command -v fdtoverlay >/dev/null 2>&1 ||
   ! command -v fdtget >/dev/null 2>&1; then
	skip "every check: no dtc, fdtoverlay or fdtget (apt-get install device-tree-compiler)"
	finish
fi

cat >"$T/base.dts" <<'DTS'
/dts-v1/;
/ {
	#address-cells = <1>;
	#size-cells = <1>;
	axi_dma_0: dma@40400000 {
		compatible = "xlnx,axi-dma-1.00.a";
		reg = <0x40400000 0x10000>;
		#dma-cells = <1>;
		xlnx,addrwidth = <0x20>;
		dma-channel@40400000 {
			compatible = "xlnx,axi-dma-mm2s-channel";
			xlnx,datawidth = <0x40>;
			xlnx,include-sg;
		};
		dma-channel@40400030 {
			compatible = "xlnx,axi-dma-s2mm-channel";
			xlnx,datawidth = <0x40>;
			xlnx,include-sg;
		};
	};
};
DTS

if dtc -@ -q -I dts -O dtb -o "$T/base.dtb" "$T/base.dts" 2>"$T/err"; then
	ok "a base with axi_dma_0 compiles with symbols"
else
	bad "the test's base device tree" "$(errline)"
fi
if dtc -@ -q -I dts -O dtb -o "$T/fdma.dtbo" docs/examples/fdma-axidma.dtso 2>"$T/err"; then
	ok "docs/examples/fdma-axidma.dtso compiles as an overlay"
else
	bad "dtc docs/examples/fdma-axidma.dtso" "$(errline)"
fi
if fdtoverlay -i "$T/base.dtb" -o "$T/out.dtb" "$T/fdma.dtbo" 2>"$T/err"; then
	ok "the overlay applies to the base"
else
	bad "fdtoverlay" "$(errline)"
fi
compat=$(fdtget "$T/out.dtb" /fdma-axidma compatible 2>/dev/null)
names=$(fdtget "$T/out.dtb" /fdma-axidma dma-names 2>/dev/null)
dmas=$(fdtget -t x "$T/out.dtb" /fdma-axidma dmas 2>/dev/null)
ph=$(fdtget -t x "$T/out.dtb" /dma@40400000 phandle 2>/dev/null)
ring=$(fdtget "$T/out.dtb" /fdma-axidma fdma,ring-size 2>/dev/null)
if [ "$compat" = "fdma,dmaengine" ] && [ "$names" = "h2c0 c2h0" ] && [ -n "$ph" ] &&
   [ "$dmas" = "$ph 0 $ph 1" ] && [ "$ring" = 256 ]; then
	ok "the node: fdma,dmaengine, dmas <axi_dma_0 0>, <axi_dma_0 1>, dma-names h2c0 c2h0, ring 256"
else
	echo "compatible '$compat' dma-names '$names' dmas '$dmas' (phandle '$ph') ring '$ring'" >"$T/err"
	bad "the overlaid node" "$(errline)"
fi
finish
