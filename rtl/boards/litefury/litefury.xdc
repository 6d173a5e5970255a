# SPDX-License-Identifier: MIT
# RHS Research LiteFury (xc7a100t-L2FGG484E): pins, I/O standards, clocks and
# configuration for fdma_litefury_top. Facts from the board maker's own
# constraints (github.com/RHSResearchLLC/NiteFury-and-LiteFury,
# Sample-Projects/Project-0/FPGA/common/Constraints/{early,normal}.xdc) and
# LiteX's platform file for the same board (litex-boards,
# litex_boards/platforms/sqrl_acorn.py, variant cle-101); README.md says what
# agrees between them and what is not checked on hardware.

# ---- PCIe reference clock: MGTREFCLK0 of GTP quad 216 --------------------------
# Dedicated GT clock pads: no I/O standard; the IBUFDS_GTE2 in the top.
set_property PACKAGE_PIN F6 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN E6 [get_ports pcie_refclk_n]
create_clock -name pcie_refclk -period 10.000 [get_ports pcie_refclk_p]

# ---- PCIe lanes ----------------------------------------------------------------
# Not constrained here. The lanes are fixed by placing the core's GTP
# channels (gt_loc.tcl, run by create_project.tcl before placement), and a
# GT's pads follow its site. The board's wiring, M.2 lane : GTP channel :
# pads (RXP/RXN, TXP/TXN):
#   lane 0 : GTPE2_CHANNEL_X0Y6 : B10/A10, B6/A6
#   lane 1 : GTPE2_CHANNEL_X0Y4 : B8/A8,   B4/A4
#   lane 2 : GTPE2_CHANNEL_X0Y5 : D11/C11, D5/C5
#   lane 3 : GTPE2_CHANNEL_X0Y7 : D9/C9,   D7/C7
# PACKAGE_PIN on the lane ports would clash with the core's own lane
# placement, which Vivado applies first (the board maker's notes describe
# the critical warnings that gives); gt_loc.tcl moves the channels instead.

# ---- PERST#, CLKREQ# -------------------------------------------------------------
set_property PACKAGE_PIN J1 [get_ports pcie_perst_n]
set_property IOSTANDARD LVCMOS33 [get_ports pcie_perst_n]
# a card on a riser or adapter that leaves PERST# floating comes out of reset
set_property PULLUP true [get_ports pcie_perst_n]
# asynchronous: the core synchronizes it
set_false_path -from [get_ports pcie_perst_n]

set_property PACKAGE_PIN G1 [get_ports pcie_clkreq_n]
set_property IOSTANDARD LVCMOS33 [get_ports pcie_clkreq_n]
set_false_path -to [get_ports pcie_clkreq_n]

# ---- LEDs (lit low) -----------------------------------------------------------------
set_property PACKAGE_PIN G3 [get_ports {led_n[0]}]
set_property PACKAGE_PIN H3 [get_ports {led_n[1]}]
set_property PACKAGE_PIN G4 [get_ports {led_n[2]}]
set_property PACKAGE_PIN H4 [get_ports {led_n[3]}]
set_property IOSTANDARD LVCMOS33 [get_ports {led_n[*]}]
set_property DRIVE 8 [get_ports {led_n[*]}]
# off while the FPGA configures, as the board maker's design has them
set_property PULLUP true [get_ports {led_n[*]}]
set_false_path -to [get_ports {led_n[*]}]

# ---- configuration ------------------------------------------------------------------
# Bank 0 at 3.3 V. Quad SPI flash (S25FL series, 128 or 256 Mbit on the
# LiteFury), read with the external master clock on EMCCLK and compressed,
# so that the FPGA is up before the host starts link training.
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
set_property CONFIG_MODE SPIx4 [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4 [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN Div-1 [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
set_property BITSTREAM.CONFIG.OVERTEMPPOWERDOWN ENABLE [current_design]
