// SPDX-License-Identifier: MIT
// The byte packer of an H2C byte stream (docs/engine.md section 8, engine
// 1.3 H2C_BYTES). The channel reads a descriptor as the 8-byte words that
// cover it and offers them here one by one, each with the lanes that are
// the descriptor's (in_lo, in_n). The packer drops the other lanes and
// packs the frame's bytes into whole words across its descriptors: up to
// 7 wait in acc for the next piece, and the frame's last word goes out
// with out_keep saying how many bytes it holds (a prefix of the lanes).
//
// One word in and at most one out per clock, through an output register
// that holds a word until the sink takes it (AXI-Stream). A frame whose
// last piece leaves more than 8 bytes sends the rest in one more word
// (fl) before the next word is taken.
//
// A frame cut short (a new frame starts before it ended, or clear: the
// channel halted or was reset) is closed, never left open: a sink that
// frames on tlast would otherwise join it to the next. If any of its words
// has gone out, one more word carries the bytes it still held (none, if it
// held none: tkeep 0) with out_last and out_abort; if none has, the sink
// never saw it and its bytes are dropped. clear never drops the tail owed
// to a frame that did end.
//
// LW is a lane's width: 8 (a byte) in the engine; the proofs use narrower
// lanes, the same logic with a smaller state for the solver.
module fdma_pack #(
	parameter LW = 8
) (
	input  wire        clk,
	input  wire        rst,
	input  wire        clear,
	input  wire        in_valid,
	output wire        in_ready,
	input  wire [8*LW-1:0] in_data,
	input  wire [2:0]  in_lo,       // first lane of the descriptor's bytes
	input  wire [3:0]  in_n,        // how many, 1..8 (in_lo + in_n <= 8)
	input  wire        in_sof,      // the word opens a frame
	input  wire        in_eof,      // the word ends it
	output reg         out_valid,
	input  wire        out_ready,
	output reg  [8*LW-1:0] out_data,
	output reg  [7:0]  out_keep,
	output reg         out_sof,
	output reg         out_last,
	output reg         out_abort     // with out_last: the frame was cut short
);
	localparam   W = 8 * LW;       // a word's bits
	reg  [W-LW-1:0] acc;           // bytes carried; lanes at and above acc_n are 0
	reg  [2:0]   acc_n;
	reg          fl;               // acc holds a frame's last bytes, owed a word
	reg          pend_sof;         // the frame has started, its first word not out
	reg          shown;            // a word of the frame has gone out, its last not yet

	wire         o_free = !out_valid || out_ready;
	// a frame the sink has seen part of is cut: close it before anything else
	wire         cut = shown && !fl && (clear || (in_valid && in_sof));
	assign       in_ready = o_free && !fl && !cut;
	wire         fire = in_valid && in_ready;
	wire [W-1:0] w_sh = in_data >> (in_lo * LW);
	wire [W-1:0] w_bytes = w_sh & ~({W{1'b1}} << (in_n * LW));
	wire [2:0]   a_n = in_sof ? 3'd0 : acc_n;
	wire [W-LW-1:0] a_v = in_sof ? {(W-LW){1'b0}} : acc;
	wire [2*W-LW-1:0] comb = {{W{1'b0}}, a_v} | ({{(W-LW){1'b0}}, w_bytes} << (a_n * LW));
	wire [3:0]   tot = {1'b0, a_n} + in_n;            // bytes in comb, 1..15

	always @(posedge clk) begin
		if (rst) begin
			acc <= 0; acc_n <= 0; fl <= 1'b0; pend_sof <= 1'b0; shown <= 1'b0;
			out_valid <= 1'b0; out_sof <= 1'b0; out_last <= 1'b0; out_abort <= 1'b0;
			out_data <= 0; out_keep <= 0;
		end else begin
			if (out_valid && out_ready)
				out_valid <= 1'b0;
			if (fire) begin
				if (tot[3] || in_eof) begin
					// a whole word, or the frame's last
					out_valid <= 1'b1;
					out_data <= comb[W-1:0];
					out_keep <= tot[3] ? 8'hff : 8'hff >> (4'd8 - tot);
					out_sof <= in_sof || pend_sof;
					out_last <= in_eof && tot <= 4'd8;
					out_abort <= 1'b0;
					shown <= !(in_eof && tot <= 4'd8);
					pend_sof <= 1'b0;
					fl <= in_eof && tot > 4'd8;
					acc <= tot[3] ? comb[2*W-LW-1:W] : {(W-LW){1'b0}};
					acc_n <= tot[3] ? tot[2:0] : 3'd0;
				end else begin
					acc <= comb[W-LW-1:0];
					acc_n <= tot[2:0];
					pend_sof <= in_sof || pend_sof;
				end
			end else if (fl && o_free) begin
				out_valid <= 1'b1;
				out_data <= {{LW{1'b0}}, acc};
				out_keep <= 8'hff >> (4'd8 - {1'b0, acc_n});
				out_sof <= 1'b0;
				out_last <= 1'b1;
				out_abort <= 1'b0;
				fl <= 1'b0; acc <= 0; acc_n <= 0; shown <= 1'b0;
			end else if (cut) begin
				// the cut frame's closing word, when the sink has room
				if (o_free) begin
					out_valid <= 1'b1;
					out_data <= {{LW{1'b0}}, acc};
					out_keep <= acc_n == 3'd0 ? 8'h00 : 8'hff >> (4'd8 - {1'b0, acc_n});
					out_sof <= 1'b0;
					out_last <= 1'b1;
					out_abort <= 1'b1;
					acc <= 0; acc_n <= 0; shown <= 1'b0; pend_sof <= 1'b0;
				end
			end else if (clear && !fl) begin
				acc <= 0; acc_n <= 0; pend_sof <= 1'b0;
			end
		end
	end

`ifdef FORMAL
	// ---- properties (rtl/formal/run.sh) ---------------------------------------
	// They hold for all time: run.sh proves them by k-induction, so each is
	// also what the next clock may assume of this one.
	reg         fv_past = 1'b0;
	reg  [7:0]  fv_in, fv_out, fv_drop;   // bytes taken, sent, dropped (mod 256)
	reg         fv_held = 1'b0;           // a word was offered and not taken last clock
	reg  [W+10:0] fv_word;                // ... this one
	reg         fv_open = 1'b0;           // the sink has taken part of a frame, not its end
	wire [3:0]  fv_kn = {3'd0, out_keep[0]} + {3'd0, out_keep[1]} + {3'd0, out_keep[2]} +
			    {3'd0, out_keep[3]} + {3'd0, out_keep[4]} + {3'd0, out_keep[5]} +
			    {3'd0, out_keep[6]} + {3'd0, out_keep[7]};
	always @(posedge clk) begin
		fv_past <= 1'b1;
		fv_held <= out_valid && !out_ready && !rst;
		fv_word <= {out_data, out_keep, out_sof, out_last, out_abort};
		if (rst) begin
			fv_in <= 0; fv_out <= 0; fv_drop <= 0; fv_open <= 1'b0;
		end else begin
			if (out_valid && out_ready)
				fv_open <= !out_last;
			fv_in <= fv_in + (fire ? {4'd0, in_n} : 8'd0);
			fv_out <= fv_out + (out_valid && out_ready ? {4'd0, fv_kn} : 8'd0);
			fv_drop <= fv_drop + (fire && in_sof ? {5'd0, acc_n} : 8'd0) +
				   (!fire && !(fl && o_free) && !cut && clear && !fl ? {5'd0, acc_n} : 8'd0);
		end
	end
	always @(posedge clk) if (fv_past && !rst) begin
		// every byte taken is sent, dropped, or still here
		assert(fv_in == fv_out + fv_drop + {5'd0, acc_n} + (out_valid ? {4'd0, fv_kn} : 8'd0));
		// acc holds acc_n bytes and nothing above them
		assert((acc >> (acc_n * LW)) == {(W-LW){1'b0}});
		// a word owed holds bytes, and the word before it did not end the frame
		assert(!fl || acc_n != 0);
		assert(!fl || !(out_valid && out_last));
		assert(!fl || !pend_sof);
		// a word sent holds a prefix of lanes, whole unless it ends a frame;
		// only a cut frame's closing word may hold none
		if (out_valid) begin
			assert((out_keep != 8'd0 || out_abort) && (out_keep & (out_keep + 8'd1)) == 8'd0);
			assert(out_keep == 8'hff || out_last);
			assert(!out_abort || (out_last && !out_sof));
		end
		// every frame the sink sees ends with a last word: a new frame never
		// starts inside one it has open (a cut one is closed first)
		assert(shown == (out_valid ? !out_last : fv_open));
		assert(!(pend_sof && shown));         // a frame not yet shown is the only one
		if (out_valid && out_sof)
			assert(!fv_open);
		// AXI-Stream: a word offered stays, unchanged, until taken
		if (fv_held)
			assert(out_valid && {out_data, out_keep, out_sof, out_last, out_abort} == fv_word);
	end

`ifdef FDMA_PACK_ALONE
	// The packer alone (rtl/formal/pack_top.v, every input free): a word's
	// lanes are 1..8 inside it, as the channel offers them, and a frame's
	// lane i carries the value i (mod 2^LW) wherever it sits in the words
	// offered. Every lane sent, and every lane carried, must then hold its
	// place in the frame: a lane lost, repeated, reordered or taken from
	// outside a descriptor shows. After a clear the next word opens a frame.
	reg          fv_cut;
	reg  [LW-1:0] fv_ip, fv_op;           // place of the next lane in, and out
	wire [LW-1:0] fv_ib = in_sof ? {LW{1'b0}} : fv_ip;
	wire [LW-1:0] fv_ob = out_sof ? {LW{1'b0}} : fv_op;
	// where acc's first lane sits in its frame
	wire [LW-1:0] fv_base = pend_sof ? {LW{1'b0}} : out_valid ? fv_ob + fv_kn : fv_op;
	always @(*) begin
		assume(rst == !fv_past);     // power-on reset in the first clock only
		assume(in_n != 4'd0 && in_n <= 4'd8 && {1'b0, in_lo} + in_n <= 4'd8);
		if (in_valid && fv_cut)
			assume(in_sof);
	end
	always @(posedge clk)
		if (rst) begin
			fv_ip <= 0; fv_op <= 0; fv_cut <= 1'b0;
		end else begin
			if (fire) begin
				fv_ip <= fv_ib + in_n;
				fv_cut <= 1'b0;
			end else if (clear) begin
				fv_cut <= 1'b1;
			end
			if (out_valid && out_ready)
				fv_op <= fv_ob + fv_kn;
		end
	always @(posedge clk)
		if (fv_past && !rst && !fv_cut)
			assert(fv_ip == fv_base + acc_n);
	genvar g;
	generate for (g = 0; g < 8; g = g + 1) begin : fv_lane
		wire [LW-1:0] ev = fv_ib + g - in_lo;
		wire [LW-1:0] xv = fv_ob + g;
		always @(*)
			if (in_valid && g >= in_lo && g < in_lo + in_n)
				assume(in_data[g * LW +: LW] == ev);
		always @(posedge clk)
			if (fv_past && !rst && out_valid)
				assert(out_data[g * LW +: LW] == (g < fv_kn ? xv : {LW{1'b0}}));
		if (g < 7) begin : carried
			wire [LW-1:0] av = fv_base + g;
			always @(posedge clk)
				if (fv_past && !rst && g < acc_n)
					assert(acc[g * LW +: LW] == av);
		end
	end endgenerate
`endif
`endif
endmodule
