# SPDX-License-Identifier: MIT
# The FDMA engine on the RHS Research LiteFury: creates the Vivado project,
# generates the PCIe core (pcie_7x_0), builds the bitstream and the SPI
# flash image.
#
#   vivado -mode batch -source rtl/boards/litefury/create_project.tcl \
#          -tclargs [LANES [DIR [build|project]]]
#
#   LANES   1 (default), 2 or 4: the core's width. x1 and x2 run the core's
#           64-bit interface at 125 MHz; x4 at 250 MHz, which the engine has
#           not been timed at (README.md).
#   DIR     where the project goes (default build/litefury-xLANES at the
#           top of the repository)
#   build   (default) build through write_bitstream and write the flash
#           image; project: stop once the project and the core exist
#
# Written for Vivado's pcie_7x core v3.3; not run here (no Vivado), so
# read the checks it prints. Every CONFIG name below is one that appears in
# Vivado-generated files of public projects (README.md lists which).
set here [file dirname [file normalize [info script]]]
set root [file normalize [file join $here .. .. ..]]
set lanes 1
set what build
if {$argc >= 1} {
	set lanes [lindex $argv 0]
}
set dir [file join $root build litefury-x$lanes]
if {$argc >= 2} {
	set dir [file normalize [lindex $argv 1]]
}
if {$argc >= 3} {
	set what [lindex $argv 2]
}
if {$lanes ni {1 2 4}} {
	error "LANES must be 1, 2 or 4, not $lanes"
}
# the board maker's project uses this part name for the xc7a100t-L2FGG484E
set part xc7a100tfgg484-2L
set user_clk [expr {$lanes == 4 ? 250 : 125}]

create_project litefury-x$lanes $dir -part $part -force
set_property target_language Verilog [current_project]

# ---- sources -----------------------------------------------------------------------
# The engine is every module in rtl/ but the simulation harness's top; the
# ones this design does not use (the AXI4 card port) are left out by
# elaboration.
foreach f [lsort [glob -directory [file join $root rtl] *.v]] {
	if {[file tail $f] ne "fdma_sim_top.v"} {
		add_files -norecurse $f
	}
}
add_files -norecurse [glob -directory [file join $root rtl] *.vh]
set_property include_dirs [list [file join $root rtl]] [current_fileset]
add_files -norecurse [file join $here fdma_litefury_top.v]
add_files -fileset constrs_1 -norecurse [file join $here litefury.xdc]
set_property top fdma_litefury_top [current_fileset]

# ---- the PCIe core ---------------------------------------------------------------------
# docs/rtl.md ("Customize the core") says what the engine needs; the values:
#   Endpoint, gen2, LANES, 64-bit interface.
#   BAR0 only: 8 KiB, 64-bit, memory, not prefetchable; no expansion ROM.
#   MSI-X: 16 vectors, table at BAR0 + 0x1000, PBA at BAR0 + 0x1800
#   (rtl/fdma_defs.vh); MSI with 16 vectors; no INTx.
#   IDs: 10ee:fd3a, the pair fdma.ko binds (engine/fdma_regs.h,
#   docs/engine.md section 16; a shipped design uses its own).
#   Class 0x118000: data acquisition and signal processing controller,
#   other; nothing in Linux treats it specially.
#   MPS 512 and buffering optimized for bus mastering: the receive
#   buffer whose completion credits the engine is given (read back below).
#   Completion timeout Range B (16 to 55 ms): the engine's strap is 40 ms.
#   ECRC trimmed from received TLPs (the shim counts DWs from Length).
#   The core answers poisoned TLPs itself (the shim's REPORT_POISONED 0).
#   No device serial number, no AER.
#   Clocking and GT_COMMON inside the core, every user interface on, no
#   debug or DRP ports: the port list of stub/pcie_7x_0_stub.v.
create_ip -name pcie_7x -vendor xilinx.com -library ip -module_name pcie_7x_0
set ip [get_ips pcie_7x_0]
set_property -dict [list \
	CONFIG.mode_selection               {Advanced} \
	CONFIG.Device_Port_Type             {PCI_Express_Endpoint_device} \
	CONFIG.Maximum_Link_Width           "X$lanes" \
	CONFIG.Link_Speed                   {5.0_GT/s} \
	CONFIG.Trgt_Link_Speed              {4'h2} \
	CONFIG.Interface_Width              {64_bit} \
	CONFIG.User_Clk_Freq                $user_clk \
	CONFIG.Ref_Clk_Freq                 {100_MHz} \
	CONFIG.PCIe_Blk_Locn                {X0Y0} \
	CONFIG.Vendor_ID                    {10EE} \
	CONFIG.Device_ID                    {FD3A} \
	CONFIG.Revision_ID                  {00} \
	CONFIG.Use_Class_Code_Lookup_Assistant {false} \
	CONFIG.Class_Code_Base              {11} \
	CONFIG.Class_Code_Sub               {80} \
	CONFIG.Class_Code_Interface         {00} \
	CONFIG.Bar0_Enabled                 {true} \
	CONFIG.Bar0_Type                    {Memory} \
	CONFIG.Bar0_64bit                   {true} \
	CONFIG.Bar0_Prefetchable            {false} \
	CONFIG.Bar0_Scale                   {Kilobytes} \
	CONFIG.Bar0_Size                    {8} \
	CONFIG.Bar2_Enabled                 {false} \
	CONFIG.Bar3_Enabled                 {false} \
	CONFIG.Bar4_Enabled                 {false} \
	CONFIG.Bar5_Enabled                 {false} \
	CONFIG.Expansion_Rom_Enabled        {false} \
	CONFIG.IntX_Generation              {false} \
	CONFIG.Legacy_Interrupt             {NONE} \
	CONFIG.MSI_Enabled                  {true} \
	CONFIG.MSI_64b                      {true} \
	CONFIG.Multiple_Message_Capable     {16_vectors} \
	CONFIG.MSIx_Enabled                 {true} \
	CONFIG.MSIx_Table_Size              {10} \
	CONFIG.MSIx_Table_Offset            {1000} \
	CONFIG.MSIx_Table_BIR               {BAR_1:0} \
	CONFIG.MSIx_PBA_Offset              {1800} \
	CONFIG.MSIx_PBA_BIR                 {BAR_1:0} \
	CONFIG.Max_Payload_Size             {512_bytes} \
	CONFIG.Extended_Tag_Field           {false} \
	CONFIG.Buf_Opt_BMA                  {true} \
	CONFIG.Perf_Level                   {High} \
	CONFIG.Cpl_Timeout_Disable_Sup      {false} \
	CONFIG.Cpl_Timeout_Range            {Range_B} \
	CONFIG.RECRC_Check_Trim             {true} \
	CONFIG.Disable_Rx_Poisoned_Resp     {false} \
	CONFIG.DSN_Enabled                  {false} \
	CONFIG.AER_Enabled                  {false} \
	CONFIG.en_ext_clk                   {false} \
	CONFIG.en_ext_gt_common             {false} \
	CONFIG.en_ext_ch_gt_drp             {false} \
	CONFIG.en_transceiver_status_ports  {false} \
	CONFIG.shared_logic_in_core         {false} \
	CONFIG.PCIe_Debug_Ports             {false} \
	CONFIG.pl_interface                 {true} \
	CONFIG.cfg_mgmt_if                  {true} \
	CONFIG.cfg_ctl_if                   {true} \
	CONFIG.cfg_status_if                {true} \
	CONFIG.rcv_msg_if                   {true} \
	CONFIG.cfg_fc_if                    {true} \
	CONFIG.err_reporting_if             {true} \
] $ip
generate_target all $ip

# ---- what the core was generated with ----------------------------------------------------
# The model parameters sit in the .xci: JSON since Vivado 2020.x
# ("c_fc_cplh": [ { "value": "36", ...), XML before
# (<spirit:configurableElementValue
# spirit:referenceId="MODELPARAM_VALUE.c_fc_cplh">36<...).
proc xci_param {ip name} {
	set f [open [get_property IP_FILE $ip] r]
	set text [read $f]
	close $f
	set json [format {"%s":\s*\[\s*\{\s*"value":\s*"([^"]*)"} $name]
	set xml [format {MODELPARAM_VALUE\.%s">([^<]*)<} $name]
	if {[regexp $json $text -> v] || [regexp $xml $text -> v]} {
		return $v
	}
	error "create_project.tcl: $name not found in [get_property IP_FILE $ip]"
}
# Completion credits of the receive buffer: the engine throttles its reads
# to them (docs/rtl.md, "Completion space"); giving it more than the core
# has loses completions.
set cplh [xci_param $ip c_fc_cplh]
set cpld [xci_param $ip c_fc_cpld]
puts "create_project.tcl: the core's completion buffer: $cplh headers, $cpld data credits"
set_property generic "LANES=$lanes CPLH_CREDITS=$cplh CPLD_CREDITS=$cpld" [current_fileset]
# MSI-X: the capability's Table Offset/BIR register holds the offset's bits
# 31:3, so a table at 0x1000 and a PBA at 0x1800 are 200 and 300 here, and a
# 16-entry table is 00F (N-1). Public scripts disagree on whether the GUI
# takes a byte offset or one already divided by 8 (README.md); this says
# which one this Vivado applied. lspci -vv on the board is the final word.
set t_off [xci_param $ip c_msix_table_offset]
set p_off [xci_param $ip c_msix_pba_offset]
set t_size [xci_param $ip c_msix_table_size]
puts "create_project.tcl: MSI-X table size field $t_size, table offset field $t_off, PBA offset field $p_off"
if {[scan $t_off %x] != 0x200 || [scan $p_off %x] != 0x300 || [scan $t_size %x] != 15} {
	puts "create_project.tcl: WARNING: expected 00F, 200 and 300 (a 16-entry table at 0x1000, PBA at 0x1800)."
	puts "create_project.tcl: WARNING: if this Vivado takes offsets divided by 8, set MSIx_Table_Offset {200}"
	puts "create_project.tcl: WARNING: and MSIx_PBA_Offset {300}; check with lspci -vv (README.md)."
}

# ---- implementation -----------------------------------------------------------------------
# The board's lane wiring, applied before placement (gt_loc.tcl).
set_property STEPS.PLACE_DESIGN.TCL.PRE [file join $here gt_loc.tcl] [get_runs impl_1]

if {$what ne "build"} {
	puts "create_project.tcl: project in $dir"
	return
}
launch_runs synth_1 -jobs 8
wait_on_run synth_1
if {[get_property PROGRESS [get_runs synth_1]] ne "100%"} {
	error "create_project.tcl: synthesis failed (see $dir)"
}
launch_runs impl_1 -to_step write_bitstream -jobs 8
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} {
	error "create_project.tcl: implementation failed (see $dir)"
}
open_run impl_1
report_timing_summary -file [file join $dir timing.rpt]
report_utilization -file [file join $dir utilization.rpt]
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
puts "create_project.tcl: worst setup slack $wns ns (timing.rpt)"
if {$wns ne "" && $wns < 0} {
	puts "create_project.tcl: WARNING: timing is not met; the bitstream may not work (README.md, risks)"
}

# The flash image: 16 MiB, the smaller of the flashes the LiteFury has been
# sold with (128 Mbit), quad SPI as the bitstream is configured to read it.
set bit [lindex [glob -directory [get_property DIRECTORY [get_runs impl_1]] *.bit] 0]
set img [file join $dir litefury-x$lanes]
write_cfgmem -force -format bin -size 16 -interface SPIx4 -loadbit "up 0x0 $bit" -file $img.bin
write_cfgmem -force -format mcs -size 16 -interface SPIx4 -loadbit "up 0x0 $bit" -file $img.mcs
puts "create_project.tcl: $bit, $img.bin, $img.mcs"
