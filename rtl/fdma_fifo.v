// SPDX-License-Identifier: MIT
// Synchronous FIFO, first-word-fall-through: dout is valid while !empty.
// Small ones become LUT RAM; count lets a producer reserve space for reads
// it has in flight (credit), which is how the engine pipelines RAM reads.
module fdma_fifo #(
	parameter W = 64,
	parameter AW = 3            // depth 2^AW
) (
	input  wire          clk,
	input  wire          rst,
	input  wire          wr,
	input  wire [W-1:0]  din,
	input  wire          rd,
	output wire [W-1:0]  dout,
	output wire          empty,
	output wire          full,
	output reg  [AW:0]   count
);
	reg [W-1:0]  mem [0:(1<<AW)-1];
	reg [AW-1:0] wp, rp;

	assign dout  = mem[rp];
	assign empty = count == 0;
	assign full  = count == (1 << AW);

	always @(posedge clk) begin
		if (rst) begin
			wp <= 0;
			rp <= 0;
			count <= 0;
		end else begin
			if (wr && !full) begin
				mem[wp] <= din;
				wp <= wp + 1'b1;
			end
			if (rd && !empty)
				rp <= rp + 1'b1;
			count <= count + {{AW{1'b0}}, wr && !full} - {{AW{1'b0}}, rd && !empty};
		end
	end
endmodule
