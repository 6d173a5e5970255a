// SPDX-License-Identifier: MIT
// Simulation only: an AXI4 slave in front of a block-RAM port, standing in
// for a DDR controller so that the card port's AXI4 master (fdma_card_axi.v)
// is exercised by the whole test suite. It takes up to four bursts each
// way, answers reads after 16 to 47 clocks, drops its ready signals at
// random, pauses within read bursts and takes a write address only while
// its data is offered (as AXI4 allows a slave to), all from a seeded
// generator. It expects R to be always ready, as fdma_card_axi makes it.
module fdma_axi_ram #(
	parameter AW = 23                   // memory words (8 bytes): 2^AW
) (
	input  wire          clk,
	input  wire          rst,
	input  wire [31:0]   awaddr,
	input  wire [7:0]    awlen,
	input  wire          awvalid,
	output wire          awready,
	input  wire [63:0]   wdata,
	input  wire          wlast,
	input  wire          wvalid,
	output wire          wready,
	output wire [1:0]    bresp,
	output wire          bvalid,
	input  wire          bready,
	input  wire [31:0]   araddr,
	input  wire [7:0]    arlen,
	input  wire          arvalid,
	output wire          arready,
	output wire [63:0]   rdata,
	output wire [1:0]    rresp,
	output wire          rlast,
	output reg           rvalid,
	// the memory
	output wire          mem_we,
	output wire [AW-1:0] mem_wa,
	output wire [63:0]   mem_wd,
	output wire          mem_re,
	output wire [AW-1:0] mem_ra,
	input  wire          mem_rvalid,
	input  wire [63:0]   mem_rd,
	output reg  [15:0]   protocol_errors  // a beat against the rules (wlast in the wrong place)
);
	reg [31:0] rng;
	always @(posedge clk)
		rng <= rst ? 32'h1234_5678 : rng ^ (rng << 13) ^ (rng >> 17) ^ (rng << 5);

	// ---- writes: AW queue, W into memory, B after a few clocks -------------------
	reg [AW-1:0] aw_a [0:3];
	reg [7:0]    aw_l [0:3];
	reg [1:0]    aw_wp, aw_rp;
	reg [2:0]    aw_n;
	reg [7:0]    w_beat;
	reg [8:0]    b_owed;
	reg [2:0]    b_wait;
	// a slave may wait for WVALID before it takes the address: this one does
	assign awready = aw_n != 3'd4 && rng[0] && wvalid;
	assign wready  = aw_n != 3'd0 && rng[1];
	wire   aw_fire = awvalid && awready;
	wire   w_fire  = wvalid && wready;
	wire   w_end   = w_fire && w_beat == aw_l[aw_rp];
	assign mem_we  = w_fire;
	assign mem_wa  = aw_a[aw_rp] + {{(AW - 8){1'b0}}, w_beat};
	assign mem_wd  = wdata;
	assign bvalid  = b_owed != 0 && b_wait == 0;
	assign bresp   = 2'b00;
	always @(posedge clk) begin
		if (rst) begin
			aw_wp <= 0; aw_rp <= 0; aw_n <= 0; w_beat <= 0; b_owed <= 0; b_wait <= 0;
			protocol_errors <= 0;
		end else begin
			if (aw_fire) begin
				aw_a[aw_wp] <= awaddr[AW+2:3];
				aw_l[aw_wp] <= awlen;
				aw_wp <= aw_wp + 1'b1;
			end
			if (w_fire) begin
				w_beat <= w_end ? 8'd0 : w_beat + 1'b1;
				if (wlast != w_end)
					protocol_errors <= protocol_errors + 1'b1;
			end
			if (w_end)
				aw_rp <= aw_rp + 1'b1;
			aw_n <= aw_n + {2'd0, aw_fire} - {2'd0, w_end};
			b_owed <= b_owed + {8'd0, w_end} - {8'd0, bvalid && bready};
			if (bvalid && bready)
				b_wait <= rng[4:2];
			else if (b_wait != 0)
				b_wait <= b_wait - 1'b1;
		end
	end

	// ---- reads: AR queue, each burst after its latency, beats with pauses ----------
	reg [AW-1:0] ar_a [0:3];
	reg [7:0]    ar_l [0:3];
	reg [15:0]   ar_t [0:3];            // the clock its data may start
	reg [1:0]    ar_wp, ar_rp;
	reg [2:0]    ar_n;
	reg [7:0]    r_beat;
	reg [15:0]   now;
	reg          r_last_q;
	assign arready = ar_n != 3'd4 && rng[5];
	wire   ar_fire = arvalid && arready;
	wire   r_go    = ar_n != 3'd0 && $signed(now - ar_t[ar_rp]) >= 0 && rng[7:6] != 2'b00;
	wire   r_end   = r_go && r_beat == ar_l[ar_rp];
	assign mem_re  = r_go;
	assign mem_ra  = ar_a[ar_rp] + {{(AW - 8){1'b0}}, r_beat};
	assign rdata   = mem_rd;
	assign rresp   = 2'b00;
	assign rlast   = r_last_q;
	always @(posedge clk) begin
		if (rst) begin
			ar_wp <= 0; ar_rp <= 0; ar_n <= 0; r_beat <= 0; now <= 0; rvalid <= 1'b0;
			r_last_q <= 1'b0;
		end else begin
			now <= now + 1'b1;
			if (ar_fire) begin
				ar_a[ar_wp] <= araddr[AW+2:3];
				ar_l[ar_wp] <= arlen;
				ar_t[ar_wp] <= now + 16'd16 + {11'd0, rng[12:8]};
				ar_wp <= ar_wp + 1'b1;
			end
			if (r_go)
				r_beat <= r_end ? 8'd0 : r_beat + 1'b1;
			if (r_end)
				ar_rp <= ar_rp + 1'b1;
			ar_n <= ar_n + {2'd0, ar_fire} - {2'd0, r_end};
			// the memory answers the next clock: the beat goes out then
			rvalid <= r_go;
			r_last_q <= r_end;
		end
	end

	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, awaddr, araddr, mem_rvalid, rng};
	/* verilator lint_on UNUSEDSIGNAL */
endmodule
