// SPDX-License-Identifier: MIT
// A register slice for a valid/ready stream: every output, s_ready
// included, comes from a flop, so neither side's ready or valid reaches
// the other side's logic in the same clock. Full rate: a beat a clock
// while m_ready stays high. When m_ready falls under a beat, the beat
// offered with it waits in the skid register, which is why s_ready can be
// a flop (it falls one clock late and the skid catches the overshoot).
module fdma_skid #(
	parameter W = 64
) (
	input  wire         clk,
	input  wire         rst,
	input  wire         s_valid,
	output wire         s_ready,
	input  wire [W-1:0] s_data,
	output wire         m_valid,
	input  wire         m_ready,
	output wire [W-1:0] m_data
);
	reg [W-1:0] m_r, k_r;
	reg         m_v, k_v;
	wire        m_take = m_v && m_ready;
	assign s_ready = !k_v;
	assign m_valid = m_v;
	assign m_data  = m_r;
	always @(posedge clk)
		if (rst) begin
			m_v <= 1'b0; k_v <= 1'b0;
		end else if (k_v) begin
			// nothing comes in while the skid is full; it moves up
			if (m_take) begin
				m_r <= k_r; k_v <= 1'b0;
			end
		end else if (!m_v || m_take) begin
			m_v <= s_valid;
			if (s_valid)
				m_r <= s_data;
		end else if (s_valid) begin
			k_r <= s_data; k_v <= 1'b1;
		end
endmodule
