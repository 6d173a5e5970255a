// SPDX-License-Identifier: MIT
// Stream test generator (docs/engine.md section 14): frames of frame_len
// bytes, a 32-byte header (magic, seq, len, CRC-32 of the payload, the
// device time) and payload word i = seq << 32 | i, on an AXI-Stream master.
//
// The header carries the CRC of a payload that follows it, so the CRC is
// computed first, from the frame's seq and length alone (the payload is a
// function of both): one word per clock, then one byte per clock for a tail
// of (len - 32) % 8 zero bytes.
//
// Pacing: every period_ns a frame is due. drop = 1: a frame due while the
// previous one is still going out or while no buffer is posted is lost and
// counted (ovr), never sent late in a burst. drop = 0: the frame waits for a
// buffer and the period restarts when it goes. period 0: a frame whenever a
// buffer is posted.
`include "fdma_defs.vh"

module fdma_tg_gen (
	input  wire        clk,
	input  wire        rst,
	input  wire        restart,     // turned on: seq from 0, a fresh schedule
	input  wire        enable,
	input  wire [31:0] frame_len,
	input  wire [31:0] period_ns,
	input  wire        drop,
	input  wire        avail,       // a buffer is posted
	input  wire [63:0] now_ns,
	output wire        valid,
	input  wire        ready,
	output reg  [63:0] data,
	output wire [7:0]  keep,
	output wire        last,
	output reg         ovr,         // a due frame was dropped (one clock)
	output reg  [31:0] frames       // frames delivered
);
	`include "fdma_crc.vh"
	localparam [1:0] G_WAIT = 0, G_CRC = 1, G_TAIL = 2, G_SEND = 3;
	reg  [1:0]  g;
	reg  [31:0] seq, fseq, len, crc, w, nw;   // seq: next number; fseq: the frame's
	reg  [2:0]  tail;
	reg  [63:0] tstamp, next_tick;
	reg         armed;                    // next_tick is meaningful

	wire [31:0] words = (len + 32'd7) >> 3;
	wire        due = armed && period_ns != 0 && now_ns >= next_tick;
	wire        start_free = period_ns == 0 && avail;
	assign valid = g == G_SEND;
	assign last  = w + 1'b1 == words;
	assign keep  = !last || len[2:0] == 3'd0 ? 8'hff : (8'hff >> (4'd8 - {1'b0, len[2:0]}));

	always @(*) begin
		case (w)
		32'd0:   data = {fseq, `FRAME_MAGIC};
		32'd1:   data = {~crc, len};
		32'd2:   data = tstamp;
		32'd3:   data = 64'd0;
		default: data = (w - 32'd4) < nw ? {fseq, w - 32'd4} : 64'd0;
		endcase
	end

	always @(posedge clk) begin
		ovr <= 1'b0;
		if (rst || (!enable && g != G_SEND)) begin
			// a frame that has started goes out whole (section 13), even if
			// the channel stops or the generator is turned off meanwhile
			g <= G_WAIT; w <= 0; armed <= 1'b0;
			if (rst) begin
				seq <= 0; fseq <= 0; frames <= 0;
			end
		end else begin
			// enabled, or (G_SEND only) a started frame finishing with it off
			if (enable && !armed) begin
				armed <= 1'b1;
				next_tick <= now_ns;        // the first frame is due at once
			end
			case (g)
			G_WAIT: begin
				if (start_free || (due && avail)) begin
					len <= frame_len;
					fseq <= seq; seq <= seq + 1'b1;
					nw <= (frame_len - 32'd32) >> 3;
					tail <= frame_len[2:0];
					// a paced frame carries its own tick, however late it starts
					tstamp <= due && drop ? next_tick : now_ns;
					crc <= 32'hffffffff;
					w <= 0;
					g <= G_CRC;
					if (due)
						next_tick <= drop ? next_tick + {32'd0, period_ns}
								  : now_ns + {32'd0, period_ns};
				end else if (due && drop) begin
					ovr <= 1'b1; seq <= seq + 1'b1;
					next_tick <= next_tick + {32'd0, period_ns};
				end
			end
			G_CRC: begin
				if (w == nw) begin
					w <= 0;
					g <= tail != 0 ? G_TAIL : G_SEND;
				end else begin
					crc <= crc32_d64(crc, {fseq, w});
					w <= w + 1'b1;
				end
			end
			G_TAIL: begin
				crc <= crc32_d8(crc, 8'd0);
				tail <= tail - 1'b1;
				if (tail == 3'd1)
					g <= G_SEND;
			end
			default: begin      // G_SEND
				if (enable && due && drop) begin
					// a tick while this frame is still going: that frame is lost
					ovr <= 1'b1; seq <= seq + 1'b1;
					next_tick <= next_tick + {32'd0, period_ns};
				end
				if (ready) begin
					w <= w + 1'b1;
					if (last) begin
						frames <= frames + 1'b1;
						w <= 0;
						g <= G_WAIT;
					end
				end
			end
			endcase
		end
		// The frame being sent keeps its number; the next one is 0.
		if (restart && !rst) begin
			seq <= 0; armed <= 1'b0;
		end
	end
endmodule
