// SPDX-License-Identifier: MIT
// The engine for the formal proofs (rtl/formal/run.sh, "engine"): the
// channels and the MSI-X block replaced by free stand-ins
// (engine_stubs.v), every input free, a completion buffer small enough
// that the solver fills it in a few clocks. The properties are in
// engine_props.vh.
module engine_top (
	input wire clk
);
	(* anyseq *) wire rst, cfg_bus_master, cfg_msix_en, cfg_msix_mask, cfg_msi_en;
	(* anyseq *) wire [2:0] cfg_msi_mm, cfg_mps, cfg_mrrs;
	// straps and the function's ID (set at enumeration, before any DMA)
	(* anyconst *) wire [15:0] cfg_id;
	(* anyconst *) wire [31:0] max_desc_len, cpl_timeout;
	(* anyseq *) wire rx_valid, rx_sop, rx_eop, tx_ready, msi_ack;
	(* anyseq *) wire [127:0] rx_hdr;
	(* anyseq *) wire [63:0] rx_data, card_rd, s_axis_tdata;
	(* anyseq *) wire card_wready, card_wbusy, card_rready, card_rvalid;
	(* anyseq *) wire s_axis_tvalid, s_axis_tlast, m_axis_tready;
	(* anyseq *) wire [7:0] s_axis_tkeep;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_engine #(.CARD_AW(8), .CPLH_CREDITS(10'd12), .CPLD_CREDITS(10'd40)) eng (
		.clk(clk), .rst(rst), .cfg_bus_master(cfg_bus_master), .cfg_msix_en(cfg_msix_en),
		.cfg_msix_mask(cfg_msix_mask), .cfg_msi_en(cfg_msi_en), .cfg_msi_mm(cfg_msi_mm),
		.cfg_mps(cfg_mps), .cfg_mrrs(cfg_mrrs), .cfg_id(cfg_id), .max_desc_len(max_desc_len),
		.cpl_timeout(cpl_timeout),
		.rx_valid(rx_valid), .rx_ready(), .np_ok(), .np_req(), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data),
		.tx_valid(), .tx_ready(tx_ready), .tx_sop(), .tx_eop(), .tx_hdr(), .tx_data(),
		.msi_req(), .msi_num(), .msi_ack(msi_ack),
		.err_cpl_timeout(), .err_cpl_unexpect(), .err_cpl_poisoned(), .err_wr_poisoned(),
		.card_we(), .card_wa(), .card_wd(), .card_wready(card_wready), .card_wbusy(card_wbusy),
		.card_re(), .card_ra(), .card_rready(card_rready), .card_rvalid(card_rvalid),
		.card_rd(card_rd),
		.s_axis_tvalid(s_axis_tvalid), .s_axis_tready(), .s_axis_tdata(s_axis_tdata),
		.s_axis_tkeep(s_axis_tkeep), .s_axis_tlast(s_axis_tlast),
		.m_axis_tvalid(), .m_axis_tready(m_axis_tready), .m_axis_tdata(), .m_axis_tkeep(),
		.m_axis_tuser(), .m_axis_tlast(), .m_axis_tabort(), .quiet());
	/* verilator lint_on PINCONNECTEMPTY */
endmodule
