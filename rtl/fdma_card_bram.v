// SPDX-License-Identifier: MIT
// Card memory as block RAM: 2^AW words of 64 bits, one write port and one
// read port (answered the next clock), which is what the engine's card
// port expects of any memory. Synthesis tools infer true block RAM from it.
module fdma_card_bram #(
	parameter AW = 12
) (
	input  wire          clk,
	input  wire          we,
	input  wire [AW-1:0] wa,
	input  wire [63:0]   wd,
	output wire          wready,
	input  wire          re,
	input  wire [AW-1:0] ra,
	output wire          rready,
	output reg           rvalid,
	output reg  [63:0]   rd
);
	reg [63:0] mem [0:(1 << AW) - 1];

	assign wready = 1'b1;
	assign rready = 1'b1;
	always @(posedge clk) begin
		if (we)
			mem[wa] <= wd;
		rvalid <= re;
		if (re)
			rd <= mem[ra];
	end
endmodule
