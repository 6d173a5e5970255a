// SPDX-License-Identifier: MIT
// One channel for the formal proofs (rtl/formal/run.sh): small rings and
// requests so the solver's state stays small; every input free.
module chan_top #(
	parameter C2H = 0,
	parameter STREAM = 0
) (
	input wire clk
);
	(* anyseq *) wire rst, en, eng_rst, us_tick, to_tick, reg_we, tx_ready, cpl_valid, cpl_sop, cpl_eop;
	(* anyseq *) wire irq_ack, card_wready, card_wbusy, card_rready, card_rvalid, m_ready, s_valid, s_last;
	(* anyseq *) wire [63:0] now_ns, cpl_data, card_rd, s_data;
	(* anyseq *) wire [127:0] cpl_hdr;
	(* anyseq *) wire [15:0] req_id;
	(* anyseq *) wire [2:0] mps_code, mrrs_code;
	// MAX_DESC_LEN is a strap (rtl/fdma_engine.v): any value, but one
	(* anyconst *) wire [31:0] max_desc_len;
	(* anyseq *) wire [31:0] reg_wd;
	(* anyseq *) wire [6:2] reg_wa, reg_ra;
	(* anyseq *) wire [7:0] s_keep;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_chan #(.CH(0), .C2H(C2H), .STREAM(STREAM), .TESTGEN(0), .CARD_AW(8),
		    .CARD_BYTES(64'd2048), .RING_MAX_LOG2(3), .NSLOT(2), .MAX_RD_LOG2(7),
		    .MAX_WR_LOG2(7)) ch (
		.clk(clk), .rst(rst), .en(en), .eng_rst(eng_rst), .eng_rst_done(),
		.us_tick(us_tick), .to_tick(to_tick), .now_ns(now_ns), .req_id(req_id), .mps_code(mps_code),
		.mrrs_code(mrrs_code), .max_desc_len(max_desc_len),
		.reg_we(reg_we), .reg_wa(reg_wa), .reg_wd(reg_wd), .reg_ra(reg_ra), .reg_rd(),
		.tx_valid(), .tx_ready(tx_ready), .tx_sop(), .tx_eop(), .tx_hdr(), .tx_data(),
		.cpl_valid(cpl_valid), .cpl_sop(cpl_sop), .cpl_eop(cpl_eop), .cpl_hdr(cpl_hdr),
		.cpl_data(cpl_data), .irq_req(), .irq_vec(), .irq_ack(irq_ack),
		.card_we(), .card_wa(), .card_wd(), .card_wready(card_wready), .card_wbusy(card_wbusy),
		.card_re(), .card_ra(), .card_rready(card_rready), .card_rvalid(card_rvalid),
		.card_rd(card_rd), .m_valid(), .m_ready(m_ready), .m_data(), .m_keep(), .m_sof(), .m_last(),
		.s_valid(s_valid), .s_ready(), .s_data(s_data), .s_keep(s_keep), .s_last(s_last),
		.busy(), .quiet());
	/* verilator lint_on PINCONNECTEMPTY */
endmodule
