// SPDX-License-Identifier: MIT
// The 7-series shim alone for the formal proofs (rtl/formal/run.sh): every
// input free (the engine's side kept to its edge's rules by assumptions);
// the properties are in fdma_pcie_7x.v.
module shim_top (
	input wire clk
);
	(* anyseq *) wire rst, rx_tvalid, rx_tlast, tx_tready, cfg_interrupt_rdy, cfg_err_cpl_rdy;
	(* anyseq *) wire rx_ready, np_ok, np_req, tx_valid, tx_sop, tx_eop, msi_req;
	(* anyseq *) wire e_to, e_unx, e_cep, e_wep, msixen, msixfm, msien;
	(* anyseq *) wire [63:0] rx_tdata, tx_data;
	(* anyseq *) wire [7:0] rx_tkeep;
	(* anyseq *) wire [127:0] tx_hdr;
	(* anyseq *) wire [4:0] msi_num;
	(* anyseq *) wire [15:0] cmd, dcmd;
	(* anyseq *) wire [2:0] mm;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_pcie_7x #(.REPORT_POISONED(1)) shim (
		.clk(clk), .rst(rst),
		.m_axis_rx_tvalid(rx_tvalid), .m_axis_rx_tready(), .m_axis_rx_tdata(rx_tdata),
		.m_axis_rx_tkeep(rx_tkeep), .m_axis_rx_tlast(rx_tlast), .m_axis_rx_tuser(22'd4),
		.rx_np_ok(), .rx_np_req(),
		.s_axis_tx_tvalid(), .s_axis_tx_tready(tx_tready), .s_axis_tx_tdata(),
		.s_axis_tx_tkeep(), .s_axis_tx_tlast(), .s_axis_tx_tuser(), .tx_cfg_gnt(),
		.cfg_command(cmd), .cfg_dcommand(dcmd), .cfg_bus_number(8'd1),
		.cfg_device_number(5'd0), .cfg_function_number(3'd0),
		.cfg_interrupt_msixenable(msixen), .cfg_interrupt_msixfm(msixfm),
		.cfg_interrupt_msienable(msien), .cfg_interrupt_mmenable(mm),
		.cfg_interrupt(), .cfg_interrupt_rdy(cfg_interrupt_rdy), .cfg_interrupt_di(),
		.cfg_interrupt_assert(),
		.cfg_err_ur(), .cfg_err_cpl_timeout(), .cfg_err_cpl_unexpect(), .cfg_err_poisoned(),
		.cfg_err_posted(), .cfg_err_locked(), .cfg_err_tlp_cpl_header(),
		.cfg_err_cpl_rdy(cfg_err_cpl_rdy),
		.cfg_bus_master(), .cfg_msix_en(), .cfg_msix_mask(), .cfg_msi_en(), .cfg_msi_mm(),
		.cfg_mps(), .cfg_mrrs(), .cfg_id(),
		.rx_valid(), .rx_ready(rx_ready), .np_ok(np_ok), .np_req(np_req), .rx_sop(), .rx_eop(),
		.rx_hdr(), .rx_data(),
		.tx_valid(tx_valid), .tx_ready(), .tx_sop(tx_sop), .tx_eop(tx_eop), .tx_hdr(tx_hdr),
		.tx_data(tx_data), .msi_req(msi_req), .msi_num(msi_num), .msi_ack(), .tx_idle(),
		.err_cpl_timeout(e_to), .err_cpl_unexpect(e_unx), .err_cpl_poisoned(e_cep),
		.err_wr_poisoned(e_wep));
	/* verilator lint_on PINCONNECTEMPTY */
endmodule
