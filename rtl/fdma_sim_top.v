// SPDX-License-Identifier: MIT
// What the simulation harness (rtl/sim/) drives: the engine with block-RAM
// card memory, its streams left to the test generator and checker, at the
// generic TLP edge.
module fdma_sim_top #(
	parameter CARD_AW = 23      // 64 MiB of card memory
) (
	input  wire         clk,
	input  wire         rst,
	input  wire         cfg_bus_master,
	input  wire         cfg_msix_en,
	input  wire         cfg_msix_mask,
	input  wire [2:0]   cfg_mps,
	input  wire [2:0]   cfg_mrrs,
	input  wire [15:0]  cfg_id,
	input  wire [31:0]  max_desc_len,   // a strap: the harness sets it per run
	input  wire         rx_valid,
	output wire         rx_ready,
	input  wire         rx_sop,
	input  wire         rx_eop,
	input  wire [127:0] rx_hdr,
	input  wire [63:0]  rx_data,
	output wire         tx_valid,
	input  wire         tx_ready,
	output wire         tx_sop,
	output wire         tx_eop,
	output wire [127:0] tx_hdr,
	output wire [63:0]  tx_data,
	output wire         quiet
);
	wire              we, re, wready, rready, rvalid;
	wire [CARD_AW-1:0] wa, ra;
	wire [63:0]       wd, rd;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_engine #(.CARD_AW(CARD_AW)) eng (
		.clk(clk), .rst(rst),
		.cfg_bus_master(cfg_bus_master), .cfg_msix_en(cfg_msix_en),
		.cfg_msix_mask(cfg_msix_mask), .cfg_mps(cfg_mps), .cfg_mrrs(cfg_mrrs), .cfg_id(cfg_id),
		.max_desc_len(max_desc_len),
		.rx_valid(rx_valid), .rx_ready(rx_ready), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.card_we(we), .card_wa(wa), .card_wd(wd), .card_wready(wready),
		.card_re(re), .card_ra(ra), .card_rready(rready), .card_rvalid(rvalid), .card_rd(rd),
		.s_axis_tvalid(1'b0), .s_axis_tready(), .s_axis_tdata(64'd0), .s_axis_tkeep(8'd0),
		.s_axis_tlast(1'b0),
		.m_axis_tvalid(), .m_axis_tready(1'b1), .m_axis_tdata(), .m_axis_tuser(),
		.m_axis_tlast(),
		.quiet(quiet));
	/* verilator lint_on PINCONNECTEMPTY */
	fdma_card_bram #(.AW(CARD_AW)) card (
		.clk(clk), .we(we), .wa(wa), .wd(wd), .wready(wready),
		.re(re), .ra(ra), .rready(rready), .rvalid(rvalid), .rd(rd));
endmodule
