// SPDX-License-Identifier: MIT
// Gathers the engine's card-memory words, one address a clock, into AXI4
// bursts (fdma_card_axi.v, once for writes and once for reads). The open
// burst takes the next word if it follows on, is not full and does not
// reach a 4 KiB boundary (512 words); otherwise, or when no word is offered,
// it closes, given room to queue it.
module fdma_burst_gather #(
	parameter AW = 21,                      // word address bits (at least 9)
	parameter BURST_LOG2 = 5                // longest burst: 2^BURST_LOG2 words
) (
	input  wire                clk,
	input  wire                rst,
	input  wire                offer,       // a word is offered this clock
	input  wire                take,        // ... and taken
	input  wire [AW-1:0]       addr,
	input  wire                room,        // a closed burst can be queued
	output reg                 open,
	output reg  [AW-1:0]       start,
	output reg  [BURST_LOG2:0] len,
	output wire                close
);
	localparam LW = BURST_LOG2 + 1;
	localparam [LW-1:0] MAXB = 1 << BURST_LOG2;
	wire joins = open && addr == start + {{(AW - LW){1'b0}}, len} && len != MAXB &&
		     addr[8:0] != 9'd0;
	assign close = open && room && (take ? !joins : !offer);
	always @(posedge clk) begin
		if (rst) begin
			open <= 1'b0; start <= 0; len <= 0;
		end else if (take) begin
			open <= 1'b1;
			start <= joins ? start : addr;
			len <= joins ? len + 1'b1 : 1;
		end else if (close) begin
			open <= 1'b0;
		end
	end
endmodule
