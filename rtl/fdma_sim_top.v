// SPDX-License-Identifier: MIT
// What the simulation harness (rtl/sim/) drives: the engine behind the
// 7-series shim, as it sits on a pcie_7x core, with block-RAM card memory and
// its streams left to the test generator and checker. The ports are the
// core's AXI4-Stream and configuration ports (fdma_pcie_7x.v).
module fdma_sim_top #(
	parameter CARD_AW = 23      // 64 MiB of card memory
) (
	input  wire         clk,
	input  wire         rst,
	input  wire [15:0]  cfg_command,
	input  wire [15:0]  cfg_dcommand,
	input  wire [7:0]   cfg_bus_number,
	input  wire [4:0]   cfg_device_number,
	input  wire [2:0]   cfg_function_number,
	input  wire         cfg_interrupt_msixenable,
	input  wire         cfg_interrupt_msixfm,
	input  wire         cfg_interrupt_msienable,
	input  wire [2:0]   cfg_interrupt_mmenable,
	output wire         cfg_interrupt,
	input  wire         cfg_interrupt_rdy,
	output wire [7:0]   cfg_interrupt_di,
	input  wire [31:0]  max_desc_len,   // a strap: the harness sets it per run
	input  wire         m_axis_rx_tvalid,
	output wire         m_axis_rx_tready,
	input  wire [63:0]  m_axis_rx_tdata,
	input  wire [7:0]   m_axis_rx_tkeep,
	input  wire         m_axis_rx_tlast,
	output wire         s_axis_tx_tvalid,
	input  wire         s_axis_tx_tready,
	output wire [63:0]  s_axis_tx_tdata,
	output wire [7:0]   s_axis_tx_tkeep,
	output wire         s_axis_tx_tlast,
	output wire         quiet
);
	wire              we, re, wready, rready, rvalid;
	wire [CARD_AW-1:0] wa, ra;
	wire [63:0]       wd, rd;
	wire              bm, msix_en, msix_mask, msi_en, msi_req, msi_ack;
	wire [2:0]        msi_mm, mps, mrrs;
	wire [4:0]        msi_num;
	wire [15:0]       id;
	wire              rx_valid, rx_ready, rx_sop, rx_eop, tx_valid, tx_ready, tx_sop, tx_eop;
	wire [127:0]      rx_hdr, tx_hdr;
	wire [63:0]       rx_data, tx_data;
	wire              tx_idle, eng_quiet;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_pcie_7x shim (
		.clk(clk), .rst(rst),
		.m_axis_rx_tvalid(m_axis_rx_tvalid), .m_axis_rx_tready(m_axis_rx_tready),
		.m_axis_rx_tdata(m_axis_rx_tdata), .m_axis_rx_tkeep(m_axis_rx_tkeep),
		.m_axis_rx_tlast(m_axis_rx_tlast), .m_axis_rx_tuser(22'd4),     // BAR0 hit
		.rx_np_ok(), .rx_np_req(),
		.s_axis_tx_tvalid(s_axis_tx_tvalid), .s_axis_tx_tready(s_axis_tx_tready),
		.s_axis_tx_tdata(s_axis_tx_tdata), .s_axis_tx_tkeep(s_axis_tx_tkeep),
		.s_axis_tx_tlast(s_axis_tx_tlast), .s_axis_tx_tuser(), .tx_cfg_gnt(),
		.cfg_command(cfg_command), .cfg_dcommand(cfg_dcommand),
		.cfg_bus_number(cfg_bus_number), .cfg_device_number(cfg_device_number),
		.cfg_function_number(cfg_function_number),
		.cfg_interrupt_msixenable(cfg_interrupt_msixenable),
		.cfg_interrupt_msixfm(cfg_interrupt_msixfm),
		.cfg_interrupt_msienable(cfg_interrupt_msienable),
		.cfg_interrupt_mmenable(cfg_interrupt_mmenable),
		.cfg_interrupt(cfg_interrupt), .cfg_interrupt_rdy(cfg_interrupt_rdy),
		.cfg_interrupt_di(cfg_interrupt_di), .cfg_interrupt_assert(),
		.cfg_bus_master(bm), .cfg_msix_en(msix_en), .cfg_msix_mask(msix_mask),
		.cfg_msi_en(msi_en), .cfg_msi_mm(msi_mm), .cfg_mps(mps), .cfg_mrrs(mrrs), .cfg_id(id),
		.rx_valid(rx_valid), .rx_ready(rx_ready), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.msi_req(msi_req), .msi_num(msi_num), .msi_ack(msi_ack), .tx_idle(tx_idle));
	fdma_engine #(.CARD_AW(CARD_AW)) eng (
		.clk(clk), .rst(rst),
		.cfg_bus_master(bm), .cfg_msix_en(msix_en), .cfg_msix_mask(msix_mask),
		.cfg_msi_en(msi_en), .cfg_msi_mm(msi_mm),
		.cfg_mps(mps), .cfg_mrrs(mrrs), .cfg_id(id),
		.max_desc_len(max_desc_len),
		.rx_valid(rx_valid), .rx_ready(rx_ready), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.msi_req(msi_req), .msi_num(msi_num), .msi_ack(msi_ack),
		.card_we(we), .card_wa(wa), .card_wd(wd), .card_wready(wready),
		.card_re(re), .card_ra(ra), .card_rready(rready), .card_rvalid(rvalid), .card_rd(rd),
		.s_axis_tvalid(1'b0), .s_axis_tready(), .s_axis_tdata(64'd0), .s_axis_tkeep(8'd0),
		.s_axis_tlast(1'b0),
		.m_axis_tvalid(), .m_axis_tready(1'b1), .m_axis_tdata(), .m_axis_tuser(),
		.m_axis_tlast(),
		.quiet(eng_quiet));
	/* verilator lint_on PINCONNECTEMPTY */
	fdma_card_bram #(.AW(CARD_AW)) card (
		.clk(clk), .we(we), .wa(wa), .wd(wd), .wready(wready),
		.re(re), .ra(ra), .rready(rready), .rvalid(rvalid), .rd(rd));
	// quiet only when the shim holds nothing either
	assign quiet = eng_quiet && tx_idle && !cfg_interrupt;
endmodule
