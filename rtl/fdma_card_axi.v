// SPDX-License-Identifier: MIT
// The engine's card port (fdma_engine.v) as an AXI4 master, for card memory
// in DDR behind a memory controller (or any AXI4 slave): 64-bit data, one
// ID, INCR bursts of up to 2^BURST_LOG2 beats that never cross 4 KiB.
//
// The engine hands over one word at a time, in address order within a
// descriptor. Consecutive words are gathered into a burst, which is closed
// when it is full, when it would reach a 4 KiB boundary, when the next word
// is elsewhere, or when no word has come for a clock; so a descriptor's
// data goes out as full bursts and the engine never waits on a burst that
// will not fill.
//
// Writes: a burst's address and its data go out once all its words are
// here (so W never waits on the engine); W does not wait for AW either, as
// AXI4 requires (a slave may wait for WVALID before it takes the address). wbusy stays up until
// every write taken has its response: the engine writes an H2C completion
// record only after that, so the host never sees a transfer done whose data
// is not yet in memory.
//
// Reads: answered in order (one ID). R is always ready, because the engine
// asks for no more words than it has room for (CARD_RD_LOG2 of
// fdma_engine: give it 64 words against DDR's latency).
//
// A response other than OKAY is counted in err_wr/err_rd (sticky); the
// engine's specification has no card-memory error, so the data moved is
// whatever the slave did.
module fdma_card_axi #(
	parameter        AW = 21,               // card words (8 bytes): 2^AW
	parameter        ADDR_W = 32,           // AXI address width
	parameter [63:0] BASE = 64'd0,          // card address 0 on the AXI bus (4 KiB aligned)
	parameter        BURST_LOG2 = 5         // longest burst: 32 beats, 256 bytes (1..6)
) (
	input  wire              clk,
	input  wire              rst,
	// the engine's card port
	input  wire              we,
	input  wire [AW-1:0]     wa,
	input  wire [63:0]       wd,
	output wire              wready,
	output wire              wbusy,
	input  wire              re,
	input  wire [AW-1:0]     ra,
	output wire              rready,
	output wire              rvalid,
	output wire [63:0]       rd,
	// AXI4 master
	output wire [ADDR_W-1:0] m_axi_awaddr,
	output wire [7:0]        m_axi_awlen,
	output wire [2:0]        m_axi_awsize,
	output wire [1:0]        m_axi_awburst,
	output wire              m_axi_awvalid,
	input  wire              m_axi_awready,
	output wire [63:0]       m_axi_wdata,
	output wire [7:0]        m_axi_wstrb,
	output wire              m_axi_wlast,
	output wire              m_axi_wvalid,
	input  wire              m_axi_wready,
	input  wire [1:0]        m_axi_bresp,
	input  wire              m_axi_bvalid,
	output wire              m_axi_bready,
	output wire [ADDR_W-1:0] m_axi_araddr,
	output wire [7:0]        m_axi_arlen,
	output wire [2:0]        m_axi_arsize,
	output wire [1:0]        m_axi_arburst,
	output wire              m_axi_arvalid,
	input  wire              m_axi_arready,
	input  wire [63:0]       m_axi_rdata,
	input  wire [1:0]        m_axi_rresp,
	input  wire              m_axi_rlast,
	input  wire              m_axi_rvalid,
	output wire              m_axi_rready,
	output reg  [15:0]       err_wr,
	output reg  [15:0]       err_rd
);
	localparam LW = BURST_LOG2 + 1;         // burst length, 1..2^BURST_LOG2
	localparam QW = AW + LW;                // a queued burst: {start word, length}

	// a word address as a bus address
	function [ADDR_W-1:0] bus;
		input [AW-1:0] word;
		/* verilator lint_off UNUSEDSIGNAL */
		reg   [63:0]   b;               // bits above ADDR_W are the bus's business
		/* verilator lint_on UNUSEDSIGNAL */
		begin
			b = BASE + {{(61 - AW){1'b0}}, word, 3'b000};
			bus = b[ADDR_W-1:0];
		end
	endfunction

	// ---- writes --------------------------------------------------------------
	wire            wo, w_close;            // a burst is being gathered; it closes
	wire [AW-1:0]   wo_a;
	wire [LW-1:0]   wo_n;
	wire            wd_full, wq_full, wq_empty, wl_full, wl_empty, wd_empty;
	wire [QW-1:0]   wq_head;
	wire [LW-1:0]   wl_head;
	wire            w_take = we && wready;
	assign wready = !wd_full && !wq_full && !wl_full;
	// a closed burst is queued for AW and for W at once
	fdma_burst_gather #(.AW(AW), .BURST_LOG2(BURST_LOG2)) wg (
		.clk(clk), .rst(rst), .offer(we), .take(w_take), .addr(wa), .room(!wq_full && !wl_full),
		.open(wo), .start(wo_a), .len(wo_n), .close(w_close));
	wire            aw_fire = m_axi_awvalid && m_axi_awready;
	wire            w_fire = m_axi_wvalid && m_axi_wready;
	reg  [LW-1:0]   w_beat;
	wire            w_end = w_fire && w_beat == wl_head - 1'b1;
	reg  [8:0]      b_out;                  // bursts whose response is still due
	always @(posedge clk) begin
		if (rst) begin
			w_beat <= 0; b_out <= 0; err_wr <= 0;
		end else begin
			if (w_fire)
				w_beat <= w_end ? 0 : w_beat + 1'b1;
			b_out <= b_out + {8'd0, aw_fire} - {8'd0, m_axi_bvalid};
			if (m_axi_bvalid && m_axi_bresp != 2'b00 && err_wr != 16'hffff)
				err_wr <= err_wr + 1'b1;
		end
	end
	// the words, in order; the closed bursts waiting for AW; their lengths
	// waiting for W (both queued when the burst closes)
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_fifo #(.W(64), .AW(BURST_LOG2 + 1)) wdq (
		.clk(clk), .rst(rst), .wr(w_take), .din(wd), .rd(w_fire), .dout(m_axi_wdata),
		.empty(wd_empty), .full(wd_full), .count());
	fdma_fifo #(.W(QW), .AW(2)) wq (
		.clk(clk), .rst(rst), .wr(w_close), .din({wo_a, wo_n}), .rd(aw_fire), .dout(wq_head),
		.empty(wq_empty), .full(wq_full), .count());
	fdma_fifo #(.W(LW), .AW(2)) wl (
		.clk(clk), .rst(rst), .wr(w_close), .din(wo_n), .rd(w_end), .dout(wl_head),
		.empty(wl_empty), .full(wl_full), .count());
	/* verilator lint_on PINCONNECTEMPTY */
	assign m_axi_awaddr  = bus(wq_head[QW-1:LW]);
	assign m_axi_awlen   = {{(8 - LW){1'b0}}, wq_head[LW-1:0] - 1'b1};
	assign m_axi_awsize  = 3'd3;
	assign m_axi_awburst = 2'b01;
	assign m_axi_awvalid = !wq_empty && !b_out[8];   // at most 256 responses owed
	assign m_axi_wstrb   = 8'hff;
	assign m_axi_wlast   = w_beat == wl_head - 1'b1;
	assign m_axi_wvalid  = !wl_empty;       // its words are all in wdq already
	assign m_axi_bready  = 1'b1;
	assign wbusy = wo || !wq_empty || !wl_empty || b_out != 0;

	// ---- reads -------------------------------------------------------------------
	wire            r_close;
	wire [AW-1:0]   ro_a;
	wire [LW-1:0]   ro_n;
	wire            rq_full, rq_empty;
	wire [QW-1:0]   rq_head;
	wire            r_take = re && rready;
	assign rready = !rq_full;
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_burst_gather #(.AW(AW), .BURST_LOG2(BURST_LOG2)) rg (
		.clk(clk), .rst(rst), .offer(re), .take(r_take), .addr(ra), .room(!rq_full),
		.open(), .start(ro_a), .len(ro_n), .close(r_close));
	/* verilator lint_on PINCONNECTEMPTY */
	wire            ar_fire = m_axi_arvalid && m_axi_arready;
	always @(posedge clk) begin
		if (rst) begin
			err_rd <= 0;
		end else begin
			if (m_axi_rvalid && m_axi_rresp != 2'b00 && err_rd != 16'hffff)
				err_rd <= err_rd + 1'b1;
		end
	end
	/* verilator lint_off PINCONNECTEMPTY */
	fdma_fifo #(.W(QW), .AW(2)) rq (
		.clk(clk), .rst(rst), .wr(r_close), .din({ro_a, ro_n}), .rd(ar_fire), .dout(rq_head),
		.empty(rq_empty), .full(rq_full), .count());
	/* verilator lint_on PINCONNECTEMPTY */
	assign m_axi_araddr  = bus(rq_head[QW-1:LW]);
	assign m_axi_arlen   = {{(8 - LW){1'b0}}, rq_head[LW-1:0] - 1'b1};
	assign m_axi_arsize  = 3'd3;
	assign m_axi_arburst = 2'b01;
	assign m_axi_arvalid = !rq_empty;
	assign m_axi_rready  = 1'b1;
	assign rvalid = m_axi_rvalid;
	assign rd     = m_axi_rdata;

	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, wd_empty, m_axi_rlast};
	/* verilator lint_on UNUSEDSIGNAL */
endmodule
