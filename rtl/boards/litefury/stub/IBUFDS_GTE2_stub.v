// SPDX-License-Identifier: MIT
// Lint-only black box of the one Xilinx primitive the LiteFury top
// instantiates (IBUFDS_GTE2, UG482: the reference-clock input buffer of
// the GTP quad). Verilator reads it; Yosys uses its own cell library and
// Vivado the real primitive.
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
(* black_box *)
module IBUFDS_GTE2 #(
	parameter CLKCM_CFG    = "TRUE",
	parameter CLKRCV_TRST  = "TRUE",
	parameter CLKSWING_CFG = 2'b11
) (
	output wire O,
	output wire ODIV2,
	input  wire I,
	input  wire IB,
	input  wire CEB
);
endmodule
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNDRIVEN */
/* verilator lint_on DECLFILENAME */
