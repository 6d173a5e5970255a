// SPDX-License-Identifier: MIT
// What the simulation harness (rtl/sim/) drives: the engine behind the
// 7-series shim, as it sits on a pcie_7x core, its streams left to the test
// generator and checker. The ports are the core's AXI4-Stream and
// configuration ports (fdma_pcie_7x.v). Card memory is block RAM, reached
// either directly or, with the card_axi strap, through the AXI4 master
// (fdma_card_axi.v) and a simulated AXI4 slave with DDR-like latency
// (sim/fdma_axi_ram.v).
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
	output wire         cfg_err_ur,
	output wire         cfg_err_cpl_timeout,
	output wire         cfg_err_cpl_unexpect,
	output wire         cfg_err_poisoned,
	output wire         cfg_err_posted,
	output wire         cfg_err_locked,
	output wire [47:0]  cfg_err_tlp_cpl_header,
	input  wire         cfg_err_cpl_rdy,
	input  wire [31:0]  max_desc_len,   // a strap: the harness sets it per run
	input  wire [31:0]  cpl_timeout,    // a strap too: clocks a read may wait
	input  wire         card_axi,       // a strap: card memory through AXI4
	output wire [15:0]  card_errors,    // AXI protocol errors and error responses seen
	input  wire         m_axis_rx_tvalid,
	output wire         m_axis_rx_tready,
	output wire         rx_np_ok,       // the core may hand over non-posted requests
	output wire         rx_np_req,      // ... or one more of them (the core's default mode)
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
	// the engine's card port, the AXI4 master's answer, the memory's port
	wire              we, re, wready, rready, rvalid, wbusy;
	wire [CARD_AW-1:0] wa, ra;
	wire [63:0]       wd, rd;
	wire              a_wready, a_wbusy, a_rready, a_rvalid;
	wire [63:0]       a_rd;
	wire              m_we, m_re, m_rvalid, b_wready, b_rready;
	wire [CARD_AW-1:0] m_wa, m_ra;
	wire [63:0]       m_wd, m_rd;
	wire              tx_idle, eng_quiet;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_7x #(.CARD_AW(CARD_AW), .CARD_RD_LOG2(6), .REPORT_POISONED(1)) dma (
		.clk(clk), .rst(rst),
		.m_axis_rx_tvalid(m_axis_rx_tvalid), .m_axis_rx_tready(m_axis_rx_tready),
		.m_axis_rx_tdata(m_axis_rx_tdata), .m_axis_rx_tkeep(m_axis_rx_tkeep),
		.m_axis_rx_tlast(m_axis_rx_tlast), .m_axis_rx_tuser(22'd4),     // BAR0 hit
		.rx_np_ok(rx_np_ok), .rx_np_req(rx_np_req),
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
		.cfg_err_ur(cfg_err_ur), .cfg_err_cpl_timeout(cfg_err_cpl_timeout),
		.cfg_err_cpl_unexpect(cfg_err_cpl_unexpect), .cfg_err_poisoned(cfg_err_poisoned),
		.cfg_err_posted(cfg_err_posted), .cfg_err_locked(cfg_err_locked),
		.cfg_err_tlp_cpl_header(cfg_err_tlp_cpl_header), .cfg_err_cpl_rdy(cfg_err_cpl_rdy),
		.max_desc_len(max_desc_len), .cpl_timeout(cpl_timeout),
		.card_we(we), .card_wa(wa), .card_wd(wd), .card_wready(wready), .card_wbusy(wbusy),
		.card_re(re), .card_ra(ra), .card_rready(rready), .card_rvalid(rvalid), .card_rd(rd),
		.s_axis_tvalid(1'b0), .s_axis_tready(), .s_axis_tdata(64'd0), .s_axis_tkeep(8'd0),
		.s_axis_tlast(1'b0),
		.m_axis_tvalid(), .m_axis_tready(1'b1), .m_axis_tdata(), .m_axis_tkeep(), .m_axis_tuser(),
		.m_axis_tlast(), .m_axis_tabort(),
		.quiet(eng_quiet), .tx_idle(tx_idle));

	wire [31:0] awaddr, araddr;
	wire [7:0]  awlen, arlen;
	wire [2:0]  awsize, arsize;
	wire [1:0]  awburst, arburst, bresp, rresp;
	wire        awvalid, awready, wvalid, wready_a, wlast, bvalid, bready;
	wire        arvalid, arready, rvalid_a, rready_a, rlast;
	wire [63:0] wdata, rdata;
	wire [7:0]  wstrb;
	wire [15:0] err_wr, err_rd, perr;
	fdma_card_axi #(.AW(CARD_AW), .ADDR_W(32)) axi (
		.clk(clk), .rst(rst),
		.we(we && card_axi), .wa(wa), .wd(wd), .wready(a_wready), .wbusy(a_wbusy),
		.re(re && card_axi), .ra(ra), .rready(a_rready), .rvalid(a_rvalid), .rd(a_rd),
		.m_axi_awaddr(awaddr), .m_axi_awlen(awlen), .m_axi_awsize(awsize),
		.m_axi_awburst(awburst), .m_axi_awvalid(awvalid), .m_axi_awready(awready),
		.m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wlast(wlast),
		.m_axi_wvalid(wvalid), .m_axi_wready(wready_a),
		.m_axi_bresp(bresp), .m_axi_bvalid(bvalid), .m_axi_bready(bready),
		.m_axi_araddr(araddr), .m_axi_arlen(arlen), .m_axi_arsize(arsize),
		.m_axi_arburst(arburst), .m_axi_arvalid(arvalid), .m_axi_arready(arready),
		.m_axi_rdata(rdata), .m_axi_rresp(rresp), .m_axi_rlast(rlast),
		.m_axi_rvalid(rvalid_a), .m_axi_rready(rready_a),
		.err_wr(err_wr), .err_rd(err_rd));
	wire        s_we, s_re;
	wire [CARD_AW-1:0] s_wa, s_ra;
	wire [63:0] s_wd;
	fdma_axi_ram #(.AW(CARD_AW)) ram (
		.clk(clk), .rst(rst),
		.awaddr(awaddr), .awlen(awlen), .awvalid(awvalid), .awready(awready),
		.wdata(wdata), .wlast(wlast), .wvalid(wvalid), .wready(wready_a),
		.bresp(bresp), .bvalid(bvalid), .bready(bready),
		.araddr(araddr), .arlen(arlen), .arvalid(arvalid), .arready(arready),
		.rdata(rdata), .rresp(rresp), .rlast(rlast), .rvalid(rvalid_a),
		.mem_we(s_we), .mem_wa(s_wa), .mem_wd(s_wd), .mem_re(s_re), .mem_ra(s_ra),
		.mem_rvalid(m_rvalid), .mem_rd(m_rd), .protocol_errors(perr));
	// AXI4's rules and what the slave model takes for granted: INCR bursts of
	// 8-byte beats, every byte written, R always ready, no burst across 4 KiB
	reg [15:0] bad_req;
	wire [13:0] aw_end = {2'd0, awaddr[11:0]} + {3'd0, awlen, 3'b000} + 14'd8;
	wire [13:0] ar_end = {2'd0, araddr[11:0]} + {3'd0, arlen, 3'b000} + 14'd8;
	always @(posedge clk)
		if (rst)
			bad_req <= 0;
		else if ((awvalid && (awsize != 3'd3 || awburst != 2'b01 || aw_end > 14'd4096)) ||
			 (arvalid && (arsize != 3'd3 || arburst != 2'b01 || ar_end > 14'd4096)) ||
			 (wvalid && wstrb != 8'hff) || !rready_a)
			bad_req <= bad_req + 1'b1;
	assign card_errors = err_wr + err_rd + perr + bad_req;

	// the engine's card port: the memory itself, or the AXI4 master
	assign wready = card_axi ? a_wready : b_wready;
	assign rready = card_axi ? a_rready : b_rready;
	assign rvalid = card_axi ? a_rvalid : m_rvalid;
	assign rd     = card_axi ? a_rd : m_rd;
	assign wbusy  = card_axi && a_wbusy;
	assign m_we = card_axi ? s_we : we;
	assign m_wa = card_axi ? s_wa : wa;
	assign m_wd = card_axi ? s_wd : wd;
	assign m_re = card_axi ? s_re : re;
	assign m_ra = card_axi ? s_ra : ra;
	/* verilator lint_on PINCONNECTEMPTY */
	fdma_card_bram #(.AW(CARD_AW)) card (
		.clk(clk), .we(m_we), .wa(m_wa), .wd(m_wd), .wready(b_wready),
		.re(m_re), .ra(m_ra), .rready(b_rready), .rvalid(m_rvalid), .rd(m_rd));
	// quiet only when the shim holds nothing either
	assign quiet = eng_quiet && tx_idle && !cfg_interrupt;
endmodule
