// SPDX-License-Identifier: MIT
// Stream test checker (docs/engine.md section 14): for every frame (sof ..
// last) it checks the magic, that the header's length is the bytes received,
// the CRC-32 of the payload and that seq is the one expected (0 after a
// reset or after it is turned on, then the previous frame's + 1). Words outside a frame and a new sof
// before the last word count as errors too.
`include "fdma_defs.vh"

module fdma_tg_chk (
	input  wire        clk,
	input  wire        rst,
	input  wire        restart,     // turned on: expects seq 0 and a new frame
	input  wire        valid,       // one word, accepted
	input  wire [63:0] data,
	input  wire [7:0]  keep,        // a frame's last word: its bytes (a prefix)
	input  wire        sof,
	input  wire        last,
	input  wire        abort,       // with last: the frame was cut short
	output reg  [31:0] frames,
	output reg  [31:0] errors
);
	`include "fdma_crc.vh"
	reg        in_frame, stray, magic_ok;
	reg [31:0] wi, seq_got, hlen, hcrc, crc, exp_seq;

	// what the frame looks like once this word is in
	wire [31:0] w_now  = sof ? 32'd0 : wi;
	wire        m_now  = w_now == 0 ? data[31:0] == `FRAME_MAGIC : magic_ok;
	wire [31:0] s_now  = w_now == 0 ? data[63:32] : seq_got;
	wire [31:0] l_now  = w_now == 1 ? data[31:0] : hlen;
	wire [31:0] c_now  = w_now == 1 ? data[63:32] : hcrc;
	// bytes in this word: 8 but on a frame's last word (engine 1.3 byte streams)
	wire [3:0]  nb = !last ? 4'd8 : {3'd0, keep[0]} + {3'd0, keep[1]} + {3'd0, keep[2]} +
			 {3'd0, keep[3]} + {3'd0, keep[4]} + {3'd0, keep[5]} + {3'd0, keep[6]} +
			 {3'd0, keep[7]};
	// Temporaries of the clocked block below, computed only for an accepted
	// word (the CRC's XOR tree is the costliest logic here).
	reg  [31:0] k_now;
	reg         good;

	// the CRC of a word's first n bytes (n < 8)
	function [31:0] crc32_part;
		input [31:0] c;
		input [63:0] d;
		input [3:0]  n;
		integer b;
		begin
			crc32_part = c;
			for (b = 0; b < 7; b = b + 1)
				if (b < n)
					crc32_part = crc32_d8(crc32_part, d[b * 8 +: 8]);
		end
	endfunction

	/* verilator lint_off BLKSEQ */
	always @(posedge clk) begin
		if (rst) begin
			in_frame <= 1'b0; stray <= 1'b0; frames <= 0; errors <= 0; exp_seq <= 0;
			wi <= 0; crc <= 32'hffffffff; magic_ok <= 1'b0; seq_got <= 0; hlen <= 0; hcrc <= 0;
		end else if (valid) begin
			k_now = sof ? 32'hffffffff : crc;
			if (w_now >= 4)
				k_now = nb == 4'd8 ? crc32_d64(k_now, data) : crc32_part(k_now, data, nb);
			good = m_now && w_now >= 3 && l_now == (w_now << 3) + {28'd0, nb} &&
			       ~k_now == c_now && s_now == exp_seq;
			if (!sof && !in_frame) begin
				// bytes outside a frame: one error per run of them
				if (!stray)
					errors <= errors + 1'b1;
				stray <= 1'b1;
			end else begin
				stray <= 1'b0;
				if (sof && in_frame)
					errors <= errors + 1'b1;     // the previous frame never ended
				magic_ok <= m_now; seq_got <= s_now; hlen <= l_now; hcrc <= c_now;
				crc <= k_now;
				wi <= w_now + 1'b1;
				in_frame <= !last;
				if (last) begin
					if (good && !abort)
						frames <= frames + 1'b1;
					else
						errors <= errors + 1'b1 + ((sof && in_frame) ? 32'd1 : 32'd0);
					exp_seq <= (w_now == 0 && !m_now) ? exp_seq + 1'b1 : s_now + 1'b1;
				end
			end
		end
		if (restart && !rst) begin
			exp_seq <= 0; in_frame <= 1'b0; stray <= 1'b0;
		end
	end
	/* verilator lint_on BLKSEQ */
endmodule
