# SPDX-License-Identifier: MIT
# Run by Vivado before placement (create_project.tcl sets it as impl_1's
# STEPS.PLACE_DESIGN.TCL.PRE): puts the PCIe core's GTP channels on the
# sites the LiteFury's M.2 lanes are wired to.
#
# The pcie_7x core's own constraints place lane 0 to 3 on GTPE2_CHANNEL_X0Y7
# down to X0Y4 (the board maker's notes quote them), but the board wires lane
# 0 to X0Y6, lane 1 to X0Y4, lane 2 to X0Y5 and lane 3 to X0Y7 (its own
# constraints; the LiteX platform file's pin order agrees). A LOC cannot
# be moved to a site another cell holds, so every channel is freed first,
# then each is placed; the pads follow the sites. This is the fix both the
# board maker's notes and LitePCIe describe (reset_property, then
# set_property LOC, before placement).
set sites {GTPE2_CHANNEL_X0Y6 GTPE2_CHANNEL_X0Y4 GTPE2_CHANNEL_X0Y5 GTPE2_CHANNEL_X0Y7}
set gts [get_cells -hierarchical -filter {REF_NAME == GTPE2_CHANNEL}]
if {[llength $gts] == 0} {
	error "gt_loc.tcl: no GTPE2_CHANNEL in the design"
}
set placed {}
foreach gt $gts {
	# the core's lane k is .../pipe_lane[k].gt_wrapper_i/...
	if {![regexp {pipe_lane\[([0-9]+)\]} $gt -> lane] || $lane > 3} {
		error "gt_loc.tcl: $gt is not lane 0..3 of the PCIe core"
	}
	lappend placed [list $lane $gt]
}
foreach p $placed {
	reset_property LOC [lindex $p 1]
}
foreach p $placed {
	set lane [lindex $p 0]
	set site [lindex $sites $lane]
	set_property LOC $site [lindex $p 1]
	puts "gt_loc.tcl: PCIe lane $lane on $site"
}
