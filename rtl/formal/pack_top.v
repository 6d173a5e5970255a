// SPDX-License-Identifier: MIT
// The byte packer alone for the formal proofs (rtl/formal/run.sh): every
// input free, lanes of 4 bits (16 values, more than the 15 lanes in
// flight) for a small state; the properties and the environment are in
// fdma_pack.v (FDMA_PACK_ALONE).
module pack_top (
	input wire clk
);
	(* anyseq *) wire rst, clear, in_valid, in_sof, in_eof, out_ready;
	(* anyseq *) wire [31:0] in_data;
	(* anyseq *) wire [2:0] in_lo;
	(* anyseq *) wire [3:0] in_n;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_pack #(.LW(4)) pack (
		.clk(clk), .rst(rst), .clear(clear), .in_valid(in_valid), .in_ready(),
		.in_data(in_data), .in_lo(in_lo), .in_n(in_n), .in_sof(in_sof), .in_eof(in_eof),
		.out_valid(), .out_ready(out_ready), .out_data(), .out_keep(), .out_sof(),
		.out_last(), .out_abort());
	/* verilator lint_on PINCONNECTEMPTY */
endmodule
