// SPDX-License-Identifier: MIT
// The engine behind its 7-series shim: what sits beside a pcie_7x core
// (PG054). The core's ports on one side (fdma_pcie_7x.v), the engine's
// card memory and stream ports and its straps on the other
// (fdma_engine.v). The simulation top (fdma_sim_top.v) and a board's top
// (boards/) both use it, so the shim and the engine are wired in one place.
module fdma_7x #(
	parameter       CLK_MHZ = 125,
	parameter       CARD_AW = 21,
	parameter       CARD_RD_LOG2 = 3,
	parameter [9:0] CPLH_CREDITS = 10'd36,
	parameter [9:0] CPLD_CREDITS = 10'd461,
	parameter       REPORT_POISONED = 0        // fdma_pcie_7x.v
) (
	input  wire         clk,                  // user_clk_out
	input  wire         rst,                  // user_reset_out, or with !user_lnk_up
	// the core's receive and transmit streams
	input  wire         m_axis_rx_tvalid,
	output wire         m_axis_rx_tready,
	input  wire [63:0]  m_axis_rx_tdata,
	input  wire [7:0]   m_axis_rx_tkeep,
	input  wire         m_axis_rx_tlast,
	input  wire [21:0]  m_axis_rx_tuser,
	output wire         rx_np_ok,
	output wire         rx_np_req,
	output wire         s_axis_tx_tvalid,
	input  wire         s_axis_tx_tready,
	output wire [63:0]  s_axis_tx_tdata,
	output wire [7:0]   s_axis_tx_tkeep,
	output wire         s_axis_tx_tlast,
	output wire [3:0]   s_axis_tx_tuser,
	output wire         tx_cfg_gnt,
	// the core's configuration, interrupt and error ports
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
	output wire         cfg_interrupt_assert,
	output wire         cfg_err_ur,
	output wire         cfg_err_cpl_timeout,
	output wire         cfg_err_cpl_unexpect,
	output wire         cfg_err_poisoned,
	output wire         cfg_err_posted,
	output wire         cfg_err_locked,
	output wire [47:0]  cfg_err_tlp_cpl_header,
	input  wire         cfg_err_cpl_rdy,
	// the engine's straps (tie them to constants on a board)
	input  wire [31:0]  max_desc_len,
	input  wire [31:0]  cpl_timeout,
	// card memory
	output wire         card_we,
	output wire [CARD_AW-1:0] card_wa,
	output wire [63:0]  card_wd,
	input  wire         card_wready,
	input  wire         card_wbusy,
	output wire         card_re,
	output wire [CARD_AW-1:0] card_ra,
	input  wire         card_rready,
	input  wire         card_rvalid,
	input  wire [63:0]  card_rd,
	// the stream source (channel 2) and sink (channel 3)
	input  wire         s_axis_tvalid,
	output wire         s_axis_tready,
	input  wire [63:0]  s_axis_tdata,
	input  wire [7:0]   s_axis_tkeep,
	input  wire         s_axis_tlast,
	output wire         m_axis_tvalid,
	input  wire         m_axis_tready,
	output wire [63:0]  m_axis_tdata,
	output wire [7:0]   m_axis_tkeep,
	output wire         m_axis_tuser,
	output wire         m_axis_tlast,
	output wire         m_axis_tabort,
	// the engine has nothing to do until a register changes, and every TLP
	// taken from it is with the core
	output wire         quiet,
	output wire         tx_idle
);
	wire              bm, msix_en, msix_mask, msi_en, msi_req, msi_ack;
	wire [2:0]        msi_mm, mps, mrrs;
	wire [4:0]        msi_num;
	wire [15:0]       id;
	wire              rx_valid, rx_ready, rx_sop, rx_eop, tx_valid, tx_ready, tx_sop, tx_eop;
	wire [127:0]      rx_hdr, tx_hdr;
	wire [63:0]       rx_data, tx_data;
	wire              np_ok, np_req;
	wire              e_to, e_unx, e_cep, e_wep;
	fdma_pcie_7x #(.REPORT_POISONED(REPORT_POISONED)) shim (
		.clk(clk), .rst(rst),
		.m_axis_rx_tvalid(m_axis_rx_tvalid), .m_axis_rx_tready(m_axis_rx_tready),
		.m_axis_rx_tdata(m_axis_rx_tdata), .m_axis_rx_tkeep(m_axis_rx_tkeep),
		.m_axis_rx_tlast(m_axis_rx_tlast), .m_axis_rx_tuser(m_axis_rx_tuser),
		.rx_np_ok(rx_np_ok), .rx_np_req(rx_np_req),
		.s_axis_tx_tvalid(s_axis_tx_tvalid), .s_axis_tx_tready(s_axis_tx_tready),
		.s_axis_tx_tdata(s_axis_tx_tdata), .s_axis_tx_tkeep(s_axis_tx_tkeep),
		.s_axis_tx_tlast(s_axis_tx_tlast), .s_axis_tx_tuser(s_axis_tx_tuser),
		.tx_cfg_gnt(tx_cfg_gnt),
		.cfg_command(cfg_command), .cfg_dcommand(cfg_dcommand),
		.cfg_bus_number(cfg_bus_number), .cfg_device_number(cfg_device_number),
		.cfg_function_number(cfg_function_number),
		.cfg_interrupt_msixenable(cfg_interrupt_msixenable),
		.cfg_interrupt_msixfm(cfg_interrupt_msixfm),
		.cfg_interrupt_msienable(cfg_interrupt_msienable),
		.cfg_interrupt_mmenable(cfg_interrupt_mmenable),
		.cfg_interrupt(cfg_interrupt), .cfg_interrupt_rdy(cfg_interrupt_rdy),
		.cfg_interrupt_di(cfg_interrupt_di), .cfg_interrupt_assert(cfg_interrupt_assert),
		.cfg_err_ur(cfg_err_ur), .cfg_err_cpl_timeout(cfg_err_cpl_timeout),
		.cfg_err_cpl_unexpect(cfg_err_cpl_unexpect), .cfg_err_poisoned(cfg_err_poisoned),
		.cfg_err_posted(cfg_err_posted), .cfg_err_locked(cfg_err_locked),
		.cfg_err_tlp_cpl_header(cfg_err_tlp_cpl_header), .cfg_err_cpl_rdy(cfg_err_cpl_rdy),
		.cfg_bus_master(bm), .cfg_msix_en(msix_en), .cfg_msix_mask(msix_mask),
		.cfg_msi_en(msi_en), .cfg_msi_mm(msi_mm), .cfg_mps(mps), .cfg_mrrs(mrrs), .cfg_id(id),
		.rx_valid(rx_valid), .rx_ready(rx_ready), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data), .np_ok(np_ok), .np_req(np_req),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.msi_req(msi_req), .msi_num(msi_num), .msi_ack(msi_ack), .tx_idle(tx_idle),
		.err_cpl_timeout(e_to), .err_cpl_unexpect(e_unx), .err_cpl_poisoned(e_cep),
		.err_wr_poisoned(e_wep));
	fdma_engine #(
		.CLK_MHZ(CLK_MHZ), .CARD_AW(CARD_AW), .CARD_RD_LOG2(CARD_RD_LOG2),
		.CPLH_CREDITS(CPLH_CREDITS), .CPLD_CREDITS(CPLD_CREDITS)
	) eng (
		.clk(clk), .rst(rst),
		.cfg_bus_master(bm), .cfg_msix_en(msix_en), .cfg_msix_mask(msix_mask),
		.cfg_msi_en(msi_en), .cfg_msi_mm(msi_mm),
		.cfg_mps(mps), .cfg_mrrs(mrrs), .cfg_id(id),
		.max_desc_len(max_desc_len), .cpl_timeout(cpl_timeout),
		.rx_valid(rx_valid), .rx_ready(rx_ready), .rx_sop(rx_sop), .rx_eop(rx_eop),
		.rx_hdr(rx_hdr), .rx_data(rx_data), .np_ok(np_ok), .np_req(np_req),
		.tx_valid(tx_valid), .tx_ready(tx_ready), .tx_sop(tx_sop), .tx_eop(tx_eop),
		.tx_hdr(tx_hdr), .tx_data(tx_data),
		.msi_req(msi_req), .msi_num(msi_num), .msi_ack(msi_ack),
		.err_cpl_timeout(e_to), .err_cpl_unexpect(e_unx), .err_cpl_poisoned(e_cep),
		.err_wr_poisoned(e_wep),
		.card_we(card_we), .card_wa(card_wa), .card_wd(card_wd), .card_wready(card_wready),
		.card_wbusy(card_wbusy),
		.card_re(card_re), .card_ra(card_ra), .card_rready(card_rready),
		.card_rvalid(card_rvalid), .card_rd(card_rd),
		.s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
		.s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tlast(s_axis_tlast),
		.m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
		.m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tuser(m_axis_tuser),
		.m_axis_tlast(m_axis_tlast), .m_axis_tabort(m_axis_tabort),
		.quiet(quiet));
endmodule
