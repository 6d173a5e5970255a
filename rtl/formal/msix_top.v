// SPDX-License-Identifier: MIT
// The MSI-X table and message writer alone for the formal proofs
// (rtl/formal/run.sh): every input free; the properties are in
// fdma_msix.v.
module msix_top (
	input wire clk
);
	(* anyseq *) wire rst, msix_en, func_mask, en, msi_en, reg_we, tx_ready, msi_ack;
	(* anyseq *) wire [2:0] msi_mm;
	(* anyseq *) wire [15:0] req_id;
	(* anyseq *) wire [12:2] reg_wa, reg_ra;
	(* anyseq *) wire [31:0] reg_wd;
	(* anyseq *) wire [3:0] req;
	(* anyseq *) wire [15:0] vec;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_msix #(.NREQ(4)) msix (
		.clk(clk), .rst(rst), .msix_en(msix_en), .func_mask(func_mask), .en(en),
		.msi_en(msi_en), .msi_mm(msi_mm), .req_id(req_id),
		.reg_we(reg_we), .reg_wa(reg_wa), .reg_wd(reg_wd), .reg_ra(reg_ra), .reg_rd(),
		.req(req), .vec(vec), .ack(), .tx_valid(), .tx_ready(tx_ready), .tx_hdr(), .tx_data(),
		.msi_req(), .msi_num(), .msi_ack(msi_ack), .busy());
	/* verilator lint_on PINCONNECTEMPTY */
endmodule
