// SPDX-License-Identifier: MIT
// One FDMA channel (docs/engine.md sections 5-14): its registers, the ring
// protocol (latch, fetch below CH_PIDX, execute and complete in order),
// the H2C or C2H data mover, completion records and the write-back block,
// coalescing, halt on error, STOP and the channel reset handshake.
//
// Descriptors complete one at a time, in order, and the next one posted
// is fetched while the current one moves its data (H2C: as it starts, its
// one read request ahead of the data's; C2H: while no packet waits to be
// sent), so a queue of small descriptors does not wait a read round trip
// between each two.
// H2C goes further: once the current descriptor's reads are all out, the
// prefetched one's reads follow into the free slots of the same reorder
// buffer, so its data is on the way while the current one drains and
// writes its record. Inside a descriptor: H2C keeps NSLOT read requests
// outstanding and reassembles their completions in order, and C2H fills
// one staging slot while it sends the other, so the link stays busy for
// descriptors of a few KiB and up (docs/studies/rtl.md has the figures).
//
// Kind (fixed at synthesis): C2H (else H2C), STREAM (else memory-mapped to
// card memory), TESTGEN (a test generator or checker beside the stream).
// An H2C stream channel is a byte stream (engine 1.3, CAPS.H2C_BYTES): its
// descriptors have any address and length, and a byte packer joins a
// frame's pieces into whole words (section 8).
`include "fdma_defs.vh"

module fdma_chan #(
	parameter        CH = 0,
	parameter        C2H = 0,
	parameter        STREAM = 0,
	parameter        TESTGEN = 0,
	parameter        ALIGN_LOG2 = 6,
	parameter [63:0] CARD_BYTES = 64'h0100_0000,
	parameter        CARD_AW = 21,          // card memory, in 64-bit words
	parameter        RING_MAX_LOG2 = 12,
	parameter        NSLOT = 7,             // H2C: read requests outstanding, 1..7
	parameter        MAX_RD_LOG2 = 9,       // largest read request (reorder slot)
	parameter        MAX_WR_LOG2 = 8,       // largest write payload (staging slot)
	parameter        CARD_RD_LOG2 = 3       // C2H: card words read ahead (covers the memory's latency)
) (
	input  wire         clk,
	input  wire         rst,
	// engine-wide
	input  wire         en,          // CTRL.ENABLE and bus mastering
	input  wire         eng_rst,     // engine reset requested
	output reg          eng_rst_done,
	input  wire         us_tick,
	input  wire         to_tick,     // a quarter of the completion timeout has passed
	input  wire [63:0]  now_ns,
	input  wire [15:0]  req_id,
	input  wire [2:0]   mps_code,    // 128 << code bytes
	input  wire [2:0]   mrrs_code,
	input  wire [31:0]  max_desc_len,
	// registers
	input  wire         reg_we,
	input  wire [6:2]   reg_wa,
	input  wire [31:0]  reg_wd,
	input  wire [6:2]   reg_ra,
	output reg  [31:0]  reg_rd,
	// TLPs out
	output reg          tx_valid,
	input  wire         tx_ready,
	output reg          tx_sop,
	output reg          tx_eop,
	output reg  [127:0] tx_hdr,
	output reg  [63:0]  tx_data,
	// completions for this channel's tags
	input  wire         cpl_valid,
	input  wire         cpl_sop,
	input  wire         cpl_eop,
	input  wire [127:0] cpl_hdr,
	input  wire [63:0]  cpl_data,
	// interrupt request
	output reg          irq_req,
	output wire [3:0]   irq_vec,
	input  wire         irq_ack,
	// card memory: writes (H2C), reads answered in order (C2H)
	output wire         card_we,
	output wire [CARD_AW-1:0] card_wa,
	output wire [63:0]  card_wd,
	input  wire         card_wready,
	input  wire         card_wbusy,     // card writes taken but not yet in memory
	output wire         card_re,
	output wire [CARD_AW-1:0] card_ra,
	input  wire         card_rready,
	input  wire         card_rvalid,
	input  wire [63:0]  card_rd,
	// stream out (H2C): the design's sink
	output wire         m_valid,
	input  wire         m_ready,
	output wire [63:0]  m_data,
	output wire [7:0]   m_keep,      // bytes of a frame's last word; all others whole
	output wire         m_sof,
	output wire         m_last,
	output wire         m_abort,     // with m_last: the frame was cut short
	// stream in (C2H): the design's source
	input  wire         s_valid,
	output wire         s_ready,
	input  wire [63:0]  s_data,
	input  wire [7:0]   s_keep,
	input  wire         s_last,
	// reads given up on this clock (a completion timeout), bit per tag slot
	output wire [7:0]   rd_gone,
	// errors for the core to report: a read timed out, a completion
	// nobody waits for, a poisoned one (one-clock pulses)
	output wire         ev_timeout,
	output wire         ev_unexpect,
	output wire         ev_poisoned,
	// state
	output wire         busy,        // requests outstanding or a TLP half sent
	output wire         quiet        // nothing to do until a register changes
);
	localparam SLOTW_LOG2 = MAX_RD_LOG2 - 3;          // words per reorder slot
	localparam STGW_LOG2 = MAX_WR_LOG2 - 3;           // words per staging slot
	localparam [2:0] DSLOT = 3'd7;
	localparam [31:0] AMASK = (32'd1 << ALIGN_LOG2) - 1;
	localparam        BYTES = STREAM && !C2H;         // descriptors of any address and length
	localparam [31:0] CAP = (C2H ? 32'd1 : 32'd0) | (STREAM ? 32'd2 : 32'd0) |
				(TESTGEN ? 32'd4 : 32'd0);

	// ---- registers: host-written ----------------------------------------
	reg [31:0] r_ctrl, r_ring_lo, r_ring_hi, r_ring_size, r_cpl_lo, r_cpl_hi;
	reg [31:0] r_wb_lo, r_wb_hi, r_pidx, r_coal_count, r_coal_usecs, r_irq_vec;
	reg [31:0] r_reset_req, r_tg_len, r_tg_period, r_tg_ctrl;
	// ---- device-written ---------------------------------------------------
	reg [31:0] cidx, reset_ack, err_idx, overruns, irqs;
	wire [31:0] tg_frames, tg_errors;
	reg        running, halted, stopped;
	reg [6:0]  errs;                 // ST bits 14:8
	reg [31:0] st_pub;               // status last written to wb.status
	reg [31:0] pidx_at_stop;

	wire       idle_bit = cidx == r_pidx;
	wire [31:0] status = {17'd0, errs, 4'd0, stopped, idle_bit, halted, running};

	always @(*) begin
		case ({reg_ra, 2'b00})
		`C_CAPS:        reg_rd = CAP;
		`C_CTRL:        reg_rd = r_ctrl;
		`C_STATUS:      reg_rd = status;
		`C_RING_LO:     reg_rd = r_ring_lo;
		`C_RING_HI:     reg_rd = r_ring_hi;
		`C_RING_SIZE:   reg_rd = r_ring_size;
		`C_CPL_LO:      reg_rd = r_cpl_lo;
		`C_CPL_HI:      reg_rd = r_cpl_hi;
		`C_WB_LO:       reg_rd = r_wb_lo;
		`C_WB_HI:       reg_rd = r_wb_hi;
		`C_PIDX:        reg_rd = r_pidx;
		`C_CIDX:        reg_rd = cidx;
		`C_COAL_COUNT:  reg_rd = r_coal_count;
		`C_COAL_USECS:  reg_rd = r_coal_usecs;
		`C_IRQ_VEC:     reg_rd = r_irq_vec;
		`C_RESET_REQ:   reg_rd = r_reset_req;
		`C_RESET_ACK:   reg_rd = reset_ack;
		`C_ERR_IDX:     reg_rd = err_idx;
		`C_TG_FRAME_LEN: reg_rd = TESTGEN ? r_tg_len : 32'd0;
		`C_TG_PERIOD_NS: reg_rd = TESTGEN ? r_tg_period : 32'd0;
		`C_TG_CTRL:     reg_rd = TESTGEN ? r_tg_ctrl : 32'd0;
		`C_TG_FRAMES:   reg_rd = tg_frames;
		`C_TG_ERRORS:   reg_rd = tg_errors;
		`C_OVERRUNS:    reg_rd = overruns;
		`C_IRQS:        reg_rd = irqs;
		default:             reg_rd = 32'd0;    // reserved, and the W1C strobe
		endcase
	end

	// CH_STATUS_W1C is a strobe: the write clears error bits, the register reads 0.
	wire w1c = reg_we && {reg_wa, 2'b00} == `C_STATUS_W1C;
	// Turning the generator or checker on (TG_CTRL bit 0 from 0 to 1) starts
	// its frame numbers from 0 (docs/engine.md section 14), as a reset does.
	wire tg_start = reg_we && {reg_wa, 2'b00} == `C_TG_CTRL && reg_wd[0] && !r_tg_ctrl[0];

	always @(posedge clk) begin
		if (rst) begin
			r_ctrl <= 0; r_ring_lo <= 0; r_ring_hi <= 0; r_ring_size <= 0;
			r_cpl_lo <= 0; r_cpl_hi <= 0; r_wb_lo <= 0; r_wb_hi <= 0; r_pidx <= 0;
			r_coal_count <= 0; r_coal_usecs <= 0; r_irq_vec <= CH;
			r_reset_req <= 0; r_tg_len <= 0; r_tg_period <= 0; r_tg_ctrl <= 0;
		end else if (reg_we) begin
			case ({reg_wa, 2'b00})
			`C_CTRL:        r_ctrl <= reg_wd & 32'hf;
			`C_RING_LO:     r_ring_lo <= reg_wd;
			`C_RING_HI:     r_ring_hi <= reg_wd;
			`C_RING_SIZE:   r_ring_size <= reg_wd;
			`C_CPL_LO:      r_cpl_lo <= reg_wd;
			`C_CPL_HI:      r_cpl_hi <= reg_wd;
			`C_WB_LO:       r_wb_lo <= reg_wd;
			`C_WB_HI:       r_wb_hi <= reg_wd;
			`C_PIDX:        r_pidx <= reg_wd;
			`C_COAL_COUNT:  r_coal_count <= reg_wd;
			`C_COAL_USECS:  r_coal_usecs <= reg_wd;
			`C_IRQ_VEC:     r_irq_vec <= reg_wd;
			`C_RESET_REQ:   r_reset_req <= reg_wd;
			`C_TG_FRAME_LEN: r_tg_len <= reg_wd;
			`C_TG_PERIOD_NS: r_tg_period <= reg_wd;
			`C_TG_CTRL:     r_tg_ctrl <= reg_wd & 32'h1;
			default: ;
			endcase
		end
	end

	assign irq_vec = r_irq_vec[3:0];

	// ---- the link's limits ------------------------------------------------
	// encodings 6 and 7 are reserved: taken as the largest, 4096 (5)
	wire [2:0]  mps_c  = mps_code > 3'd5 ? 3'd5 : mps_code;
	wire [2:0]  mrrs_c = mrrs_code > 3'd5 ? 3'd5 : mrrs_code;
	wire [12:0] mps_b  = 13'd128 << mps_c;
	wire [12:0] mrrs_b = 13'd128 << mrrs_c;
	wire [12:0] wr_max = mps_b  < (13'd1 << MAX_WR_LOG2) ? mps_b  : (13'd1 << MAX_WR_LOG2);
	wire [12:0] rd_max = mrrs_b < (13'd1 << MAX_RD_LOG2) ? mrrs_b : (13'd1 << MAX_RD_LOG2);

	// ---- latched ring configuration ---------------------------------------
	reg [63:0] ring_base, cpl_base, wb_base;
	reg [31:0] size_mask;
	reg        cfg_bad;              // size or alignment wrong: first descriptor halts
	reg        wb_ok;                // a write-back block is latched
	wire [31:0] slot_idx = cidx & size_mask;
	wire [63:0] desc_addr = ring_base + {27'd0, slot_idx, 5'd0};
	wire [31:0] next_idx = cidx + 32'd1;
	wire [63:0] next_addr = ring_base + {27'd0, next_idx & size_mask, 5'd0};
	wire [63:0] rec_addr  = cpl_base + {28'd0, slot_idx, 4'd0};
	wire size_ok = r_ring_size >= 32'd2 && r_ring_size <= (32'd1 << RING_MAX_LOG2) &&
		       (r_ring_size & (r_ring_size - 32'd1)) == 32'd0;

	// ---- requests in flight: the descriptor slot and the data slots -------
	// A descriptor read (the fetch of cidx's, or the prefetch of the next
	// one while cidx's runs) lands in dn*, d_err; the descriptor in use,
	// dw*, is taken from there (S_FWAIT, or S_IDLE for a prefetch).
	reg               d_busy;        // descriptor read outstanding
	reg  [1:0]        d_err;         // 0 ok, 1 addr (UR/CA/timeout), 2 poisoned
	reg  [63:0]       dn0, dn1, dn2, dn3;
	reg  [63:0]       dw0, dw1, dw2, dw3;
	reg               pf_busy;       // the read outstanding is the prefetch
	reg               pf_valid;      // dn* holds the prefetched descriptor
	reg  [7:0]        s_busy;        // bit per tag slot; NSLOT of them are used
	reg  [9:0]        s_len  [0:7];  // bytes requested (<= 512)
	reg  [9:0]        s_rcvd [0:7];  // bytes arrived: a prefix of the request
	reg  [1:0]        s_err  [0:7];
	reg  [63:0]       rob [0:(8 << SLOTW_LOG2)-1];      // slot s at s << SLOTW_LOG2
	// Per request: its age in to_tick periods (a quarter of the engine's
	// cpl_timeout strap). A request fails at its fifth tick, between 1 and 1.25
	// cpl_timeout after it went, whatever the others do. Its tag is then quarantined
	// (s_quar) for as long again: not reused, so a completion that comes
	// late cannot be taken for a new request's (a descriptor fetch always
	// uses slot 7), and it is dropped as unexpected. Only then is the tag
	// given back (rd_gone: the engine releases its completion space).
	reg  [2:0]        s_age [0:7];
	reg  [7:0]        s_quar;
	// Requests on the link: a slot whose bytes have all come (or failed)
	// is not one, even while its data waits to drain. (Per-slot wires, not
	// a function over the arrays: an event-driven simulator re-evaluates a
	// continuous assignment only when its operands change.)
	wire [7:0]        s_done;
	genvar            gs;
	generate for (gs = 0; gs < 8; gs = gs + 1) begin : g_done
		assign s_done[gs] = s_rcvd[gs] == s_len[gs];
	end endgenerate
	wire              outstanding = d_busy || (s_busy & ~s_done) != 0;
	wire [7:0]        s_out = {d_busy, s_busy[6:0] & ~s_done[6:0]};  // on the link, by slot
	wire [7:0]        to_now, q_end;
	generate for (gs = 0; gs < 8; gs = gs + 1) begin : g_age
		assign to_now[gs] = to_tick && s_out[gs] && s_age[gs] == 3'd4;
		assign q_end[gs]  = to_tick && s_quar[gs] && s_age[gs] == 3'd4;
	end endgenerate
	assign            rd_gone = q_end;

	// completion bookkeeping, beat by beat
	reg  [2:0]        c_slot;
	reg  [SLOTW_LOG2-1:0] c_word;
	reg  [1:0]        c_dword;
	reg  [10:0]       c_dws;
	reg  [12:0]       c_bytes;
	reg               c_bad, c_ep;
	wire [2:0]        h_slot = cpl_hdr[74:72];
	wire [11:0]       h_bc = cpl_hdr[43:32];
	wire [12:0]       h_bytes = h_bc == 12'd0 ? 13'd4096 : {1'b0, h_bc};
	wire [2:0]        h_st = cpl_hdr[47:45];
	wire              h_ep = cpl_hdr[14];
	wire              h_data = cpl_hdr[30];
	wire [10:0]       h_dws = cpl_hdr[9:0] == 10'd0 ? 11'd1024 : {1'b0, cpl_hdr[9:0]};
	wire [9:0]        h_slen = s_len[h_slot];
	wire [9:0]        h_off = h_slen - h_bytes[9:0];        // bytes already sent
	wire [SLOTW_LOG2-1:0] beat_word = cpl_sop ? h_off[MAX_RD_LOG2-1:3] : c_word;
	wire [2:0]        beat_slot = cpl_sop ? h_slot : c_slot;
	wire [1:0]        d_off = 2'd0 - h_bytes[4:3];      // descriptor word: (32 - count) / 8
	wire [1:0]        beat_dword = cpl_sop ? d_off : c_dword;
	wire [12:0]       beat_bytes = cpl_sop ? h_bytes : c_bytes;
	wire [10:0]       beat_dws = cpl_sop ? h_dws : c_dws;
	wire              beat_ep = cpl_sop ? h_ep : c_ep;
	// a request's last completion carries byte count == its own length
	wire              beat_final = beat_bytes == {beat_dws[10:0], 2'b00};
	// Only completions of requests still outstanding count: an unexpected
	// one (a wrong tag, or a late one after a timeout) is dropped, as PCIe
	// says, and cannot overwrite a descriptor in use.
	wire              sop_ok = h_slot == DSLOT ? d_busy
					: s_busy[h_slot] && s_rcvd[h_slot] != s_len[h_slot];
	reg               c_ok;          // the completion being received is expected
	wire              beat_ok = cpl_sop ? sop_ok : c_ok;
	wire              beat_data = cpl_sop ? h_data && h_st == 3'b000 : !c_bad;
	assign            ev_timeout  = |to_now;
	assign            ev_unexpect = cpl_valid && cpl_sop && !sop_ok;
	assign            ev_poisoned = cpl_valid && cpl_sop && sop_ok && h_ep;

	// ---- main state machine -----------------------------------------------
	localparam [4:0] S_IDLE = 0, S_FETCH = 1, S_FWAIT = 2, S_CHECK = 3, S_H2C = 4,
			 S_C2H = 5, S_REC = 6, S_WB = 7, S_PUB = 8, S_POST = 9,
			 S_IRQWB = 10, S_MSI = 11, S_RST = 12, S_RSTWB = 13, S_ERR = 14,
			 S_DRAIN = 15;
	reg  [4:0]  st;
	reg         sb;                  // beat of a two-beat write
	reg  [15:0] e_code;              // error to report once requests drain
	reg  [63:0] rec_cookie;
	reg  [31:0] rec_len;
	reg  [15:0] rec_status, rec_flags;
	reg         errflag;             // the current completion halts the channel
	reg  [31:0] unsig, age_us;
	reg         ovr_flag;            // frames dropped since the last frame started
	reg  [31:0] ovr_pub;             // overruns last written to wb.overruns

	wire        rst_pend = r_reset_req != reset_ack || (eng_rst && !eng_rst_done);
	wire        abort = rst_pend;
	wire [31:0] d_len = dw2[31:0];
	// the 8-byte words a byte stream's descriptor touches, in bytes + 7
	wire [32:0] h_span = {30'd0, dw0[2:0]} + {1'b0, dw2[31:0]} + 33'd7;
	// ... and the prefetched descriptor's (dn*), for its reads issued ahead
	wire [32:0] n_span = {30'd0, dn0[2:0]} + {1'b0, dn2[31:0]} + 33'd7;
	wire [31:0] d_ctrl = dw2[63:32];
	wire [63:0] d_src = dw0, d_dst = dw1;
	// The host bytes a descriptor's reads cover (a byte stream's: the 8-byte
	// words around it), and what S_CHECK refuses it for: the descriptor in
	// use, and the prefetched one, whose reads may go ahead.
	wire [63:0] d_rd_from = BYTES ? {d_src[63:3], 3'b000} : d_src;
	wire [31:0] d_rd_len  = BYTES ? {h_span[31:3], 3'b000} : d_len;
	wire [15:0] d_fault   = desc_fault(d_src, d_dst, d_len, h_span[32], max_desc_len);
	wire [63:0] n_rd_from = BYTES ? {dn0[63:3], 3'b000} : dn0;
	wire [31:0] n_rd_len  = BYTES ? {n_span[31:3], 3'b000} : dn2[31:0];
	wire [15:0] n_fault   = desc_fault(dn0, dn1, dn2[31:0], n_span[32], max_desc_len);
	wire [31:0] coal_n = r_coal_count == 0 ? 32'd1 : r_coal_count;
	wire        irq_en = r_ctrl[`CTRL_IRQ_EN];
	// age_us counts whole-µs ticks since the oldest unsignalled completion, the
	// first of which may come at once: more than N ticks is at least N µs.
	wire        timer_due = r_coal_usecs != 0 && unsig != 0 && age_us > r_coal_usecs;
	wire        empty_due = r_coal_usecs == 0 && unsig != 0 && cidx == r_pidx;
	// wb.status follows CH_STATUS (IDLE rides along), wb.overruns every drop
	wire        pub_due = wb_ok && en && (((status ^ st_pub) & ~32'h4) != 0 || overruns != ovr_pub);
	wire        work = running && !stopped && !halted && cidx != r_pidx && en;
	wire        buf_avail = running && !halted && !stopped && cidx != r_pidx;

	// ---- the data mover's state -------------------------------------------
	// H2C: reads issued, their completions drained in order
	reg  [63:0]       rd_addr;
	reg  [31:0]       rd_left;
	reg  [2:0]        iss, hd;       // slots in use: hd .. iss - 1, modulo NSLOT
	reg  [SLOTW_LOG2-1:0] dr_word;
	reg  [31:0]       dr_left;       // words still to drain
	reg  [CARD_AW-1:0] cw_addr;
	reg               h2c_err_seen;
	// rd_addr, rd_left are the prefetched descriptor's: the current one's
	// reads are all out, and the next one's follow into the free slots
	reg               ahead;
	wire [12:0]       to_4k = 13'd4096 - {1'b0, rd_addr[11:0]};
	wire [12:0]       rl = rd_left < {19'd0, rd_max} ? rd_left[12:0] : rd_max;
	wire [12:0]       rd_n = rl < to_4k ? rl : to_4k;
	wire              can_issue = st == S_H2C && rd_left != 0 && !s_busy[iss] && !s_quar[iss] && en &&
				      !abort && !h2c_err_seen && (!ahead || r_ctrl[`CTRL_RUN]);
	wire              reads_out = rd_left == 0 || ahead;   // the current descriptor's
	wire [SLOTW_LOG2+2:0] rob_ra = {hd, dr_word};
	wire [2:0]        iss_next = iss == NSLOT - 1 ? 3'd0 : iss + 3'd1;
	wire [2:0]        hd_next = hd == NSLOT - 1 ? 3'd0 : hd + 3'd1;
	wire              hd_done = s_busy[hd] && s_rcvd[hd] == s_len[hd];
	// A request's completions arrive in address order, so what has come of
	// the head slot is a prefix: it drains while the rest is on the way.
	wire              hd_ok = s_busy[hd] && s_err[hd] == 2'd0 &&
				  {{(7-SLOTW_LOG2){1'b0}}, dr_word, 3'b000} < s_rcvd[hd];
	wire              dr_valid = st == S_H2C && hd_ok && dr_left != 0 && !h2c_err_seen;
	wire [9:0]        dr_next = {{(10-SLOTW_LOG2){1'b0}}, dr_word} + 10'd1;
	wire              dr_last_of_slot = {dr_next, 3'b000} == {3'b000, s_len[hd]};
	wire              use_chk = TESTGEN && !C2H && r_tg_ctrl[0];
	wire              dr_fire;

	assign card_we = !C2H && !STREAM && dr_valid;
	assign card_wa = cw_addr;
	assign card_wd = rob[rob_ra];
	reg               m_first;       // the next word drained is the descriptor's first

	// ---- H2C byte stream: the packer (fdma_pack.v) ---------------------------
	// A descriptor is read as the 8-byte words that cover it (an 8-byte
	// group never crosses a page, so the extra bytes read are in memory the
	// host mapped); the packer keeps the descriptor's bytes and packs a
	// frame's pieces into whole words.
	reg  [2:0]        b_lo;          // the descriptor's first byte lane
	reg  [2:0]        b_end;         // the lane after its last byte (0: all 8)
	wire              o_valid, o_sof, o_last, o_abort, pk_ready;
	wire [63:0]       o_data;
	wire [7:0]        o_keep;
	wire              o_ready = use_chk || m_ready;
	wire              w_last = dr_left == 32'd1;               // the descriptor's last word
	wire [2:0]        w_lo = m_first ? b_lo : 3'd0;
	wire [3:0]        w_hi = w_last && b_end != 3'd0 ? {1'b0, b_end} : 4'd8;

	// the drain's sink: the packer (every H2C stream is a byte stream) or card memory
	wire              sink_ready = BYTES ? pk_ready : card_wready;
	assign dr_fire = dr_valid && sink_ready;
	assign m_valid = BYTES && o_valid && !use_chk;
	assign m_data  = o_data;
	assign m_keep  = o_keep;
	assign m_sof   = o_sof;
	assign m_last  = o_last;
	assign m_abort = o_abort;

	// C2H: words from card memory or the source into staging slots, sent as writes
	reg  [63:0]       f_addr;        // host address of the next word to fill
	reg  [31:0]       f_bytes;       // bytes of this descriptor filled
	reg  [STGW_LOG2:0] f_words;      // words in the packet being filled
	reg  [STGW_LOG2:0] f_lim;        // its size, words
	reg               f_open;        // a packet is being filled
	reg               f_done;        // the descriptor's last packet is closed
	reg               f_slot;
	reg               f_sof_seen;    // the buffer started a frame
	reg               f_eof;         // the buffer ended one
	reg               in_frame;      // the source is inside a frame
	reg               frame_tg;      // ... a frame of the test generator
	reg  [63:0]       stg [0:(2 << STGW_LOG2)-1];
	reg  [63:0]       p_addr [0:1];
	reg  [STGW_LOG2:0] p_words [0:1];
	reg  [1:0]        p_cnt;         // packets closed, not yet sent
	reg               p_rd;          // packet being sent
	reg  [STGW_LOG2:0] p_beat;
	reg               p_sending;     // its header has gone (cannot stop mid-TLP)
	reg  [CARD_AW-1:0] cr_addr;
	reg  [31:0]       cr_left;       // card words still to request
	reg  [CARD_RD_LOG2:0] cr_fly;    // card reads in flight
	wire [63:0]       cf_dout;
	wire              cf_empty;
	wire [CARD_RD_LOG2:0] cf_count;
	wire [12:0]       f_to4k = 13'd4096 - {1'b0, f_addr[11:0]};
	wire [31:0]       f_rem = d_len - f_bytes;
	wire [12:0]       f_r1 = f_rem < {19'd0, wr_max} ? f_rem[12:0] : wr_max;
	wire [12:0]       f_n = f_r1 < f_to4k ? f_r1 : f_to4k;

	// the word source for C2H: card memory (through a small FIFO) or the stream
	wire              tg_valid, tg_last;
	wire [63:0]       tg_data;
	wire [7:0]        tg_keep;
	wire              tg_ovr;
	// the generator's, while it is on or still sending a frame it started
	// (a started frame goes out whole, docs/engine.md section 13)
	wire              use_tg = TESTGEN && (r_tg_ctrl[0] || tg_valid);
	wire              src_valid = STREAM ? (use_tg ? tg_valid : s_valid) : !cf_empty;
	wire [63:0]       src_data = STREAM ? (use_tg ? tg_data : s_data) : cf_dout;
	wire [7:0]        src_keep = STREAM ? (use_tg ? tg_keep : s_keep) : 8'hff;
	wire              src_last = STREAM ? (use_tg ? tg_last : s_last) : 1'b0;
	// A dropped frame (external source, DROP set, no buffer at its first word)
	// is eaten whole, and so is the rest of an external frame cut by a reset.
	// Only the external source's: the generator restarts on a reset.
	reg               dropping;
	wire              ext_dropping = dropping && !use_tg;
	wire              drop_now = STREAM && C2H && !use_tg && !in_frame && !dropping && s_valid &&
				     r_ctrl[`CTRL_DROP] && !buf_avail;
	wire              f_take = st == S_C2H && f_open && !f_done && src_valid && !abort &&
				   !ext_dropping && !drop_now && f_words != f_lim && p_cnt != 2'd2;
	wire              eat = STREAM && C2H && !use_tg && s_valid && (dropping || drop_now);
	assign s_ready = STREAM && C2H && !use_tg && (f_take || eat);
	wire              tg_ready = use_tg && f_take;
	wire              cf_pop = !STREAM && f_take;
	wire [3:0]        kbytes = {3'd0, src_keep[0]} + {3'd0, src_keep[1]} + {3'd0, src_keep[2]} +
				   {3'd0, src_keep[3]} + {3'd0, src_keep[4]} + {3'd0, src_keep[5]} +
				   {3'd0, src_keep[6]} + {3'd0, src_keep[7]};
	// the word taken ends its buffer (the descriptor), and with it or before
	// it the packet being filled
	wire              f_buf_end = STREAM ? src_last || f_bytes + 32'd8 >= d_len
					 : f_bytes + 32'd8 == d_len;
	wire              f_pkt_end = f_buf_end || f_words + 1'b1 == f_lim;

	assign card_re = C2H && !STREAM && st == S_C2H && cr_left != 0 && !abort &&
			 ({1'b0, cf_count} + {1'b0, cr_fly}) < (1 << CARD_RD_LOG2);
	assign card_ra = cr_addr;

	generate if (C2H && !STREAM) begin : g_cf
		/* verilator lint_off UNUSEDSIGNAL */
		wire cf_full;     // never: reads are issued only with room for them
		/* verilator lint_on UNUSEDSIGNAL */
		fdma_fifo #(.W(64), .AW(CARD_RD_LOG2)) cf (
			.clk(clk), .rst(rst || st == S_RST), .wr(card_rvalid), .din(card_rd),
			.rd(cf_pop), .dout(cf_dout), .empty(cf_empty), .full(cf_full),
			.count(cf_count));
	end else begin : g_nocf
		assign cf_dout = 64'd0;
		assign cf_empty = 1'b1;
		assign cf_count = 0;
	end endgenerate

	// ---- test generator (C2H) and checker (H2C) -----------------------------
	wire tg_rst = rst || (st == S_RST && !outstanding && !p_sending && cr_fly == 0);
	generate if (TESTGEN && C2H) begin : g_gen
		fdma_tg_gen gen (
			.clk(clk), .rst(tg_rst), .restart(tg_start),
			.enable(r_tg_ctrl[0] && running && !halted && r_tg_len >= 32'd32),
			.frame_len(r_tg_len), .period_ns(r_tg_period), .drop(r_ctrl[`CTRL_DROP]),
			.avail(buf_avail && en), .now_ns(now_ns),
			.valid(tg_valid), .ready(tg_ready), .data(tg_data), .keep(tg_keep),
			.last(tg_last), .ovr(tg_ovr), .frames(tg_frames));
		assign tg_errors = 32'd0;
	end else if (TESTGEN) begin : g_chk
		fdma_tg_chk chk (
			.clk(clk), .rst(tg_rst), .restart(tg_start), .valid(o_valid && use_chk),
			.data(o_data), .keep(o_keep), .sof(o_sof), .last(o_last), .abort(o_abort),
			.frames(tg_frames), .errors(tg_errors));
		assign tg_valid = 1'b0; assign tg_data = 64'd0; assign tg_keep = 8'd0;
		assign tg_last = 1'b0; assign tg_ovr = 1'b0;
	end else begin : g_notg
		assign tg_valid = 1'b0; assign tg_data = 64'd0; assign tg_keep = 8'd0;
		assign tg_last = 1'b0; assign tg_ovr = 1'b0;
		assign tg_frames = 32'd0; assign tg_errors = 32'd0;
	end endgenerate

	wire ovr_pulse = (TESTGEN && C2H && tg_ovr) || (drop_now && eat);

	// Fetch the next posted descriptor now (see the top): never past the
	// doorbell, never after a STOP. H2C at once, so that the descriptor is
	// there when its reads may go ahead, even where a root complex returns
	// completions in request order (it costs the first data read one
	// request's time); C2H while no packet is ready to go.
	wire        pf_want = running && r_ctrl[`CTRL_RUN] && !halted && !stopped && en && !abort && !cfg_bad &&
			      !d_busy && !s_quar[DSLOT] && !pf_valid && next_idx != r_pidx && !d_ctrl[`D_STOP] &&
			      ((st == S_H2C && !h2c_err_seen) ||
			       (st == S_C2H && p_cnt == 0 && !p_sending));
	// H2C: the prefetched descriptor's reads start once the current one's
	// are out, if it is one that S_CHECK will pass (a descriptor that will
	// fail reads nothing). Its slots come after the current one's in the
	// reorder buffer, so the drain meets them in order.
	wire        ahead_go = !C2H && st == S_H2C && !ahead && rd_left == 0 && pf_valid &&
			       d_err == 2'd0 && !h2c_err_seen && !abort && r_ctrl[`CTRL_RUN] &&
			       n_fault == 16'd0;

	// ---- TLPs out: one source at a time, by state ---------------------------
	`include "fdma_tlp.vh"
	localparam [7:0] TAG_D = CH * 8 + 7;
	localparam [7:0] TAG_0 = CH * 8;
	wire [31:0] wb_w0 = cidx;
	wire [10:0] p_dws = {{(10-STGW_LOG2){1'b0}}, p_words[p_rd]} << 1;
	always @(*) begin
		tx_valid = 1'b0; tx_sop = 1'b1; tx_eop = 1'b1; tx_hdr = 128'd0; tx_data = 64'd0;
		case (st)
		S_FETCH: begin
			tx_valid = !abort && en && !s_quar[DSLOT];
			tx_hdr = tlp_mem(1'b0, desc_addr, 11'd8, req_id, TAG_D);
		end
		S_H2C: begin
			tx_valid = can_issue || pf_want;
			tx_hdr = pf_want ? tlp_mem(1'b0, next_addr, 11'd8, req_id, TAG_D) :
				 tlp_mem(1'b0, rd_addr, rd_n[12:2], req_id, TAG_0 | {5'd0, iss});
		end
		S_C2H: begin
			tx_valid = pf_want || (p_cnt != 0 && (p_sending || (!abort && en)));
			tx_sop = pf_want || !p_sending;
			tx_eop = pf_want || p_beat + 1'b1 == p_words[p_rd];
			tx_hdr = pf_want ? tlp_mem(1'b0, next_addr, 11'd8, req_id, TAG_D) :
				 tlp_mem(1'b1, p_addr[p_rd], p_dws, req_id, 8'd0);
			tx_data = stg[{p_rd, p_beat[STGW_LOG2-1:0]}];
		end
		S_REC: begin
			tx_valid = sb || (!abort && en);
			tx_sop = !sb; tx_eop = sb;
			tx_hdr = tlp_mem(1'b1, rec_addr, 11'd4, req_id, 8'd0);
			tx_data = sb ? {rec_flags, rec_status, rec_len} : rec_cookie;
		end
		S_WB, S_PUB, S_IRQWB, S_RSTWB: begin
			tx_valid = sb || (en && (!abort || st == S_RSTWB));
			tx_sop = !sb; tx_eop = sb;
			tx_hdr = tlp_mem(1'b1, wb_base, 11'd4, req_id, 8'd0);
			// a reset publishes IDLE alone, whatever CH_PIDX still says (section 11)
			tx_data = sb ? {irqs, overruns} : {st == S_RSTWB ? 32'h4 : status, wb_w0};
		end
		default: ;
		endcase
	end
	wire tx_fire = tx_valid && tx_ready;
	wire pf_fire = pf_want && tx_fire;              // the next descriptor's read went
	wire pkt_fire = st == S_C2H && tx_fire && !pf_want;
	wire wb_state = st == S_WB || st == S_PUB || st == S_IRQWB || st == S_RSTWB;

	assign busy = outstanding || (st == S_C2H && p_sending) || sb || cr_fly != 0;
	assign quiet = st == S_IDLE && !abort && !pub_due && !work && unsig == 0 && !outstanding &&
		       s_quar == 8'd0 &&
		       !(running == 1'b0 && !halted && r_ctrl[`CTRL_RUN] && en) &&
		       !(running && !r_ctrl[`CTRL_RUN]) &&
		       !(stopped && r_pidx != pidx_at_stop) &&
		       !(BYTES && (o_valid || !pk_ready)) &&        // a word held or owed
		       !(STREAM && C2H && (use_tg ? running : s_valid));

	// ---- request ages and quarantined tags (see s_age) ------------------------
	wire [7:0]  issue_now = (st == S_H2C && tx_fire && !pf_want ? 8'd1 << iss : 8'd0) |
				(pf_fire || (st == S_FETCH && tx_fire) ? 8'h80 : 8'd0);
	integer qi;
	always @(posedge clk)
		if (rst) begin
			s_quar <= 0;
			for (qi = 0; qi < 8; qi = qi + 1)
				s_age[qi] <= 0;
		end else begin
			for (qi = 0; qi < 8; qi = qi + 1)
				if (issue_now[qi]) begin
					s_age[qi] <= 0;
				end else if (to_now[qi]) begin
					s_age[qi] <= 0; s_quar[qi] <= 1'b1;
				end else if (q_end[qi]) begin
					s_quar[qi] <= 1'b0;
				end else if (to_tick && (s_out[qi] || s_quar[qi]) && s_age[qi] != 3'd7) begin
					s_age[qi] <= s_age[qi] + 3'd1;
				end
		end

	// ---- sequential part ---------------------------------------------------
	integer i;
	always @(posedge clk) begin
		if (rst) begin
			st <= S_IDLE; sb <= 1'b0;
			cidx <= 0; reset_ack <= 0; err_idx <= 0; overruns <= 0; irqs <= 0;
			running <= 1'b0; halted <= 1'b0; stopped <= 1'b0; errs <= 0;
			st_pub <= 32'h4; pidx_at_stop <= 0;
			ring_base <= 0; cpl_base <= 0; wb_base <= 0; size_mask <= 0; cfg_bad <= 1'b0;
			wb_ok <= 1'b0;
			d_busy <= 1'b0; d_err <= 0; s_busy <= 0;
			pf_busy <= 1'b0; pf_valid <= 1'b0;
			dn0 <= 0; dn1 <= 0; dn2 <= 0; dn3 <= 0;
			c_slot <= 0; c_word <= 0; c_dword <= 0; c_dws <= 0; c_bad <= 1'b0; c_ep <= 1'b0;
			dw0 <= 0; dw1 <= 0; dw2 <= 0; dw3 <= 0;
			e_code <= 0; rec_cookie <= 0; rec_len <= 0; rec_status <= 0; rec_flags <= 0;
			errflag <= 1'b0; eng_rst_done <= 1'b0; c_bytes <= 0; c_ok <= 1'b0;
			unsig <= 0; age_us <= 0; ovr_flag <= 1'b0; irq_req <= 1'b0; ovr_pub <= 0;
			rd_addr <= 0; rd_left <= 0; iss <= 0; hd <= 0; dr_word <= 0; dr_left <= 0;
			cw_addr <= 0; h2c_err_seen <= 1'b0; m_first <= 1'b0; ahead <= 1'b0;
			f_addr <= 0; f_bytes <= 0; f_words <= 0; f_lim <= 0; f_open <= 1'b0;
			f_done <= 1'b0; f_slot <= 1'b0; f_sof_seen <= 1'b0; f_eof <= 1'b0;
			in_frame <= 1'b0; frame_tg <= 1'b0; p_cnt <= 0; p_rd <= 1'b0; p_beat <= 0; p_sending <= 1'b0;
			cr_addr <= 0; cr_left <= 0; cr_fly <= 0; dropping <= 1'b0;
			for (i = 0; i < 8; i = i + 1) begin
				s_len[i] <= 0; s_rcvd[i] <= 0; s_err[i] <= 0;
			end
		end else begin
			if (!eng_rst)
				eng_rst_done <= 1'b0;
			if (w1c)
				errs <= errs & ~reg_wd[14:8];
			if (stopped && r_pidx != pidx_at_stop)
				stopped <= 1'b0;
			if (unsig != 0 && us_tick)
				age_us <= age_us + 1'b1;

			// completions come in whatever state we are in
			// a beat counts only inside an expected completion (sop .. eop)
			if (cpl_valid)
				c_ok <= cpl_sop ? sop_ok && !cpl_eop : c_ok && !cpl_eop;
			if (cpl_valid && beat_ok) begin
				if (beat_slot == DSLOT) begin
					if (beat_data) begin
						case (beat_dword)
						2'd0: dn0 <= cpl_data;
						2'd1: dn1 <= cpl_data;
						2'd2: dn2 <= cpl_data;
						default: dn3 <= cpl_data;
						endcase
					end
				end else if (beat_data) begin
					rob[{beat_slot, beat_word}] <= cpl_data;
				end
				if (cpl_sop) begin
					c_slot <= h_slot; c_dws <= h_dws; c_bytes <= h_bytes;
					c_bad <= !(h_data && h_st == 3'b000);
					c_ep <= h_ep;
				end
				c_word <= beat_word + 1'b1;
				c_dword <= beat_dword + 1'b1;
				if (cpl_eop) begin
					if (beat_slot == DSLOT) begin
						if (!beat_data)
							d_err <= 2'd1;
						else if (beat_ep && d_err == 2'd0)
							d_err <= 2'd2;
						if (!beat_data || beat_final) begin
							d_busy <= 1'b0;
							pf_busy <= 1'b0;
							pf_valid <= pf_busy;
						end
					end else begin
						if (!beat_data) begin
							s_err[beat_slot] <= 2'd1;
							s_rcvd[beat_slot] <= s_len[beat_slot];
						end else begin
							if (beat_ep)
								s_err[beat_slot] <= 2'd2;
							s_rcvd[beat_slot] <=
								s_rcvd[beat_slot] +
								{beat_dws[7:0], 2'b00};
						end
					end
				end
			end
			// A request nobody answers fails alone (address error), and
			// the rest of its completion under way is dropped as a late one
			// (a prefetched descriptor fails when its turn comes).
			if ((c_ok && to_now[c_slot]) || (cpl_valid && cpl_sop && to_now[h_slot]))
				c_ok <= 1'b0;
			if (to_now[DSLOT]) begin
				d_busy <= 1'b0; d_err <= 2'd1;
				pf_busy <= 1'b0; pf_valid <= pf_busy;
			end
			for (i = 0; i < 7; i = i + 1)
				if (to_now[i]) begin
					s_err[i] <= 2'd1; s_rcvd[i] <= s_len[i];
				end

			// overruns are counted whatever the state
			if (ovr_pulse) begin
				overruns <= overruns + 1'b1;
				errs[`ST_OVERRUN - 8] <= 1'b1;
				ovr_flag <= 1'b1;
			end
			if (eat)
				dropping <= !s_last;

			// C2H fill side: words into the staging slot being filled
			if (f_take) begin
				stg[{f_slot, f_words[STGW_LOG2-1:0]}] <= src_data;
				f_words <= f_words + 1'b1;
				// tkeep counts on a frame's last word only: a word
				// before it is 8 bytes whatever its tkeep says, so
				// a source's stray tkeep cannot misalign the frame
				f_bytes <= f_bytes + (STREAM && src_last ? {28'd0, kbytes} : 32'd8);
				f_addr <= f_addr + 64'd8;
				if (STREAM && !in_frame)
					f_sof_seen <= f_bytes == 0;
				if (STREAM)
					in_frame <= !src_last;
				if (STREAM && !in_frame)
					frame_tg <= use_tg;
				if (f_pkt_end) begin
					p_addr[f_slot] <= f_addr - {{(60 - STGW_LOG2){1'b0}}, f_words, 3'b000};
					p_words[f_slot] <= f_words + 1'b1;
					f_slot <= !f_slot;
					f_open <= 1'b0;
					if (f_buf_end)
						f_done <= 1'b1;
					if (STREAM && src_last)
						f_eof <= 1'b1;
				end
			end
			// the packet closed this cycle is counted below, with the send side
			if (card_re && card_rready) begin
				cr_addr <= cr_addr + 1'b1;
				cr_left <= cr_left - 1'b1;
			end
			cr_fly <= cr_fly + {{CARD_RD_LOG2{1'b0}}, card_re && card_rready} -
				  {{CARD_RD_LOG2{1'b0}}, card_rvalid};
			p_cnt <= p_cnt + ((f_take && f_pkt_end) ? 2'd1 : 2'd0)
				       - ((pkt_fire && tx_eop) ? 2'd1 : 2'd0);
			if (tx_fire && sb && wb_state)
				ovr_pub <= overruns;
			if (pf_fire) begin
				d_busy <= 1'b1; pf_busy <= 1'b1; d_err <= 0;
			end
			if (pkt_fire) begin
				p_sending <= !tx_eop;
				p_beat <= tx_eop ? 0 : p_beat + 1'b1;
				if (tx_eop)
					p_rd <= !p_rd;
			end

			case (st)
			S_IDLE: begin
				sb <= 1'b0;
				if (abort) begin
					st <= S_RST;
				end else if (!running && !halted && r_ctrl[`CTRL_RUN] && en) begin
					// latch: the host may not change these until a reset
					ring_base <= {r_ring_hi, r_ring_lo};
					cpl_base <= {r_cpl_hi, r_cpl_lo};
					wb_base <= {r_wb_hi, r_wb_lo};
					size_mask <= r_ring_size - 1'b1;
					cfg_bad <= !size_ok || r_ring_lo[4:0] != 0 || r_cpl_lo[3:0] != 0 ||
						   r_wb_lo[5:0] != 0;
					wb_ok <= r_wb_lo[5:0] == 0 && r_cpl_lo[3:0] == 0;
					running <= 1'b1;
				end else if (running && !r_ctrl[`CTRL_RUN] && !pf_busy && !outstanding) begin
					// nothing fetched before a stop is used after it: the
					// next RUN fetches again (a prefetch, and reads issued
					// ahead for it, land first and are dropped)
					running <= 1'b0;
					pf_valid <= 1'b0;
					ahead <= 1'b0; rd_left <= 0; s_busy <= 0; iss <= 0; hd <= 0;
				end else if (pub_due) begin
					st <= S_PUB;
				end else if (irq_en && (timer_due || empty_due)) begin
					st <= S_IRQWB;
					irqs <= irqs + 1'b1;
					unsig <= 0; age_us <= 0;
				end else if (!irq_en && unsig != 0) begin
					unsig <= 0; age_us <= 0;
				end else if (work && r_ctrl[`CTRL_RUN]) begin
					// (RUN cleared: the branch above drops what was fetched)
					if (cfg_bad) begin
						e_code <= `CPL_DESC_ERR;
						st <= wb_ok ? S_ERR : S_IDLE;
						if (!wb_ok) begin
							// nowhere in host memory to report it
							errs[`ST_DESC_ERR - 8] <= 1'b1;
							halted <= 1'b1; running <= 1'b0;
							err_idx <= cidx;
						end
					end else if (pf_valid) begin
						// fetched while the last one ran: no round trip
						{dw0, dw1, dw2, dw3} <= {dn0, dn1, dn2, dn3};
						pf_valid <= 1'b0;
						if (d_err != 0) begin
							e_code <= `CPL_DESC_ERR; st <= S_ERR;
						end else begin
							st <= S_CHECK;
						end
					end else if (!pf_busy) begin
						st <= S_FETCH;
					end
				end
			end
			S_FETCH: begin
				if (abort) begin
					st <= S_RST;
				end else if (tx_fire) begin
					d_busy <= 1'b1; d_err <= 0;
					st <= S_FWAIT;
				end
			end
			S_FWAIT: begin
				if (!d_busy) begin
					{dw0, dw1, dw2, dw3} <= {dn0, dn1, dn2, dn3};
					if (abort)
						st <= S_RST;
					else if (d_err != 0) begin
						e_code <= `CPL_DESC_ERR; st <= S_ERR;
					end else
						st <= S_CHECK;
				end
			end
			S_CHECK: begin
				rec_cookie <= dw3;
				rec_flags <= 0;
				if (d_fault != 16'd0) begin
					e_code <= d_fault; st <= S_ERR;
				end else if (!C2H) begin
					// a byte stream reads the 8-byte words that cover it
					// (unless its reads were issued ahead, and go on)
					if (!ahead) begin
						rd_addr <= d_rd_from;
						rd_left <= d_rd_len;
					end
					ahead <= 1'b0;
					dr_left <= d_rd_len >> 3;
					b_lo <= d_src[2:0];
					b_end <= d_src[2:0] + d_len[2:0];
					dr_word <= 0; h2c_err_seen <= 1'b0; m_first <= 1'b1;
					cw_addr <= d_dst[CARD_AW+2:3];
					st <= S_H2C;
				end else begin
					f_addr <= d_dst; f_bytes <= 0; f_open <= 1'b0; f_done <= 1'b0;
					f_sof_seen <= 1'b0; f_eof <= 1'b0;
					cr_addr <= d_src[CARD_AW+2:3]; cr_left <= STREAM ? 32'd0 : d_len >> 3;
					st <= S_C2H;
				end
			end
			S_H2C: begin
				if (tx_fire && !pf_want) begin
					s_busy[iss] <= 1'b1;
					s_len[iss] <= rd_n[9:0];
					s_rcvd[iss] <= 0;
					s_err[iss] <= 0;
					iss <= iss_next;
					rd_addr <= rd_addr + {51'd0, rd_n};
					rd_left <= rd_left - {19'd0, rd_n};
				end
				if (ahead_go) begin
					ahead <= 1'b1;
					rd_addr <= n_rd_from;
					rd_left <= n_rd_len;
				end
				// only the current descriptor's slots: one issued ahead may
				// fail, and it is the next descriptor's error
				if (hd_done && s_err[hd] != 0 && !h2c_err_seen && dr_left != 0) begin
					h2c_err_seen <= 1'b1;
					e_code <= s_err[hd] == 2'd2 ? `CPL_DATA_ERR : `CPL_ADDR_ERR;
				end
				if (dr_fire) begin
					m_first <= 1'b0;
					cw_addr <= cw_addr + 1'b1;
					dr_left <= dr_left - 1'b1;
					if (dr_last_of_slot) begin
						s_busy[hd] <= 1'b0;
						hd <= hd_next;
						dr_word <= 0;
					end else begin
						dr_word <= dr_word + 1'b1;
					end
				end
				if (h2c_err_seen || abort) begin
					// let every request still out come back before the tags are reused
					st <= S_DRAIN;
				end else if (dr_left == 0 && reads_out && !card_wbusy) begin
					// the data is in card memory before its record goes out
					rec_len <= d_len; rec_status <= `CPL_OK; rec_flags <= 0;
					st <= S_REC;
				end
			end
			S_DRAIN: begin
				if (!outstanding) begin
					s_busy <= 0; iss <= 0; hd <= 0;
					ahead <= 1'b0; rd_left <= 0;
					// A drain a reset request began ends in the reset even
					// if the request was withdrawn meanwhile (CH_RESET_REQ
					// written back): S_ERR has no error code to report, and
					// would record the abandoned descriptor as done, OK,
					// 0 bytes.
					st <= (abort || !h2c_err_seen) ? S_RST : S_ERR;
				end
			end
			S_C2H: begin
				if (!f_open && !f_done && p_cnt != 2'd2 && !abort) begin
					f_open <= 1'b1; f_words <= 0;
					f_lim <= f_n[STGW_LOG2+3:3];
				end
				if (abort) begin
					// finish a TLP already started; what was not sent is dropped
					if (!p_sending && !(tx_fire && !tx_eop) && cr_fly == 0 &&
					    !(card_re && card_rready)) begin
						dropping <= in_frame && STREAM && !frame_tg;
						in_frame <= 1'b0;
						p_cnt <= 0; p_rd <= 1'b0; f_slot <= 1'b0; p_beat <= 0;
						st <= S_RST;
					end
				end else if (f_done && p_cnt == 0 && !p_sending && !f_take) begin
					rec_len <= f_bytes; rec_status <= `CPL_OK;
					// F_OVERRUN goes on the first buffer of the first frame after
					// the drop, not on a frame that had started before it
					rec_flags <= STREAM ? {13'd0, ovr_flag && f_sof_seen, f_eof, f_sof_seen} : 16'd0;
					if (STREAM && f_sof_seen)
						ovr_flag <= ovr_pulse;     // a drop in this very clock stays owed
					p_rd <= 1'b0; f_slot <= 1'b0; p_beat <= 0;
					st <= S_REC;
				end
			end
			S_ERR: begin
				err_idx <= cidx;
				rec_len <= 0; rec_status <= e_code; rec_flags <= 0;
				errflag <= 1'b1;
				st <= S_REC;
			end
			S_REC: begin
				if (!sb && abort) begin
					st <= S_RST;
				end else if (tx_fire) begin
					sb <= !sb;
					if (sb) begin
						cidx <= cidx + 1'b1;
						st <= S_WB;
					end
				end
			end
			S_WB: begin
				if (!sb && abort) begin
					st <= S_RST;
				end else if (tx_fire) begin
					sb <= !sb;
					if (!sb)
						st_pub <= status;   // what beat 0 carries
					if (sb) begin
						if (errflag) begin
							// HALTED is published last: the host sees every record first
							case (rec_status)
							`CPL_DESC_ERR:  errs[`ST_DESC_ERR - 8] <= 1'b1;
							`CPL_ADDR_ERR:  errs[`ST_ADDR_ERR - 8] <= 1'b1;
							`CPL_DATA_ERR:  errs[`ST_DATA_ERR - 8] <= 1'b1;
							`CPL_ALIGN_ERR: errs[`ST_ALIGN_ERR - 8] <= 1'b1;
							`CPL_RANGE_ERR: errs[`ST_RANGE_ERR - 8] <= 1'b1;
							default:        errs[`ST_LEN_ERR - 8] <= 1'b1;
							endcase
							halted <= 1'b1; running <= 1'b0;
							pf_valid <= 1'b0;
							st <= S_PUB;
						end else begin
							st <= S_POST;
						end
					end
				end
			end
			S_PUB: begin
				if (!sb && abort) begin
					st <= S_RST;
				end else if (tx_fire) begin
					sb <= !sb;
					if (!sb)
						st_pub <= status;
					else
						st <= errflag ? S_POST : S_IDLE;
				end
			end
			S_POST: begin
				// the write-back is out; now IRQ_EN is read (section 7)
				if (irq_en && (errflag || d_ctrl[`D_IRQ] || unsig + 1'b1 >= coal_n ||
					       (r_coal_usecs == 0 && cidx == r_pidx))) begin
					irqs <= irqs + 1'b1;
					unsig <= 0; age_us <= 0;
					st <= S_IRQWB;
				end else begin
					if (irq_en) begin
						unsig <= unsig + 1'b1;
					end else begin
						unsig <= 0; age_us <= 0;
					end
					st <= S_IDLE;
				end
				if (d_ctrl[`D_STOP] && !errflag) begin
					stopped <= 1'b1;
					pidx_at_stop <= r_pidx;
				end
				errflag <= 1'b0;
			end
			S_IRQWB: begin
				if (!sb && abort) begin
					st <= S_RST;
				end else if (tx_fire) begin
					sb <= !sb;
					if (!sb)
						st_pub <= status;
					else begin
						irq_req <= 1'b1;
						st <= S_MSI;
					end
				end
			end
			S_MSI: begin
				if (irq_ack) begin
					irq_req <= 1'b0;
					st <= S_IDLE;
				end
			end
			S_RST: begin
				// nothing of ours may still be on the way before the state is zeroed
				if (!outstanding && cr_fly == 0 && !p_sending) begin
					if (STREAM && C2H && !frame_tg && in_frame)
						dropping <= 1'b1;    // the rest of a cut frame is not a new one
					in_frame <= 1'b0;
					cidx <= 0; err_idx <= 0;
					running <= 1'b0; halted <= 1'b0; stopped <= 1'b0; errs <= 0;
					unsig <= 0; age_us <= 0; ovr_flag <= 1'b0; errflag <= 1'b0;
					s_busy <= 0; iss <= 0; hd <= 0; p_cnt <= 0; p_rd <= 1'b0;
					pf_valid <= 1'b0; ahead <= 1'b0; rd_left <= 0;
					f_slot <= 1'b0; f_open <= 1'b0; f_done <= 1'b0; sb <= 1'b0;
					st_pub <= 32'h4;
					st <= (wb_ok && en) ? S_RSTWB : S_IDLE;
					if (!(wb_ok && en)) begin
						reset_ack <= r_reset_req;
						if (eng_rst)
							eng_rst_done <= 1'b1;
						wb_ok <= 1'b0;  // nothing more goes to that ring configuration
					end
				end
			end
			S_RSTWB: begin
				// the zeroed write-back goes out before the acknowledgement,
				// unless the engine may no longer master the bus
				if ((tx_fire && sb) || (!sb && !en)) begin
					sb <= 1'b0;
					reset_ack <= r_reset_req;
					if (eng_rst)
						eng_rst_done <= 1'b1;
					errs <= 0;      // what a drop set meanwhile: counted in OVERRUNS
					wb_ok <= 1'b0;  // nothing more goes to that ring configuration (section 11)
					st <= S_IDLE;
				end else if (tx_fire) begin
					sb <= 1'b1;
				end
			end
			default: st <= S_IDLE;
			endcase
		end
	end

	generate if (BYTES) begin : g_pack
		fdma_pack pack (
			// a reset or an error halt cuts the frame under way: closed with abort
			.clk(clk), .rst(rst), .clear(st == S_RST || halted),
			.in_valid(dr_valid), .in_ready(pk_ready), .in_data(rob[rob_ra]),
			.in_lo(w_lo), .in_n(w_hi - {1'b0, w_lo}),
			.in_sof(m_first && d_ctrl[`D_SOF]), .in_eof(w_last && d_ctrl[`D_EOF]),
			.out_valid(o_valid), .out_ready(o_ready), .out_data(o_data), .out_keep(o_keep),
			.out_sof(o_sof), .out_last(o_last), .out_abort(o_abort));
	end else begin : g_nopack
		assign pk_ready = 1'b0;
		assign o_valid = 1'b0; assign o_data = 64'd0; assign o_keep = 8'd0;
		assign o_sof = 1'b0; assign o_last = 1'b0; assign o_abort = 1'b0;
	end endgenerate

	// What a channel of this kind does not use (ports are the same for every kind).
	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, now_ns, card_rd, cpl_hdr[127:75], cpl_hdr[71:48], cpl_hdr[44],
			 cpl_hdr[31], cpl_hdr[29:15], cpl_hdr[13:10], h_off[9], h_off[2:0], d_ctrl[31:4],
			 h_span[2:0], n_span[2:0], d_ctrl[2:1], o_ready, w_lo, w_hi,
			 f_n[12:9], f_n[2:0], tg_ready, cf_pop, tg_rst, tg_start};
	/* verilator lint_on UNUSEDSIGNAL */

	// What S_CHECK refuses a descriptor for (0: nothing). span_ovf: a byte
	// stream's covering words overflow 32 bits; max_len: MAX_DESC_LEN (an
	// argument, so that a continuous assignment sees it change).
	function [15:0] desc_fault;
		input [63:0] src, dst;
		input [31:0] len;
		input        span_ovf;
		input [31:0] max_len;
		begin
			if (len == 0 || len > max_len || (BYTES && span_ovf))
				desc_fault = `CPL_LEN_ERR;
			else if ((!BYTES && (len & AMASK) != 0) ||
				 (!STREAM && (src[31:0] & AMASK) != 0) ||
				 ((!STREAM || C2H) && (dst[31:0] & AMASK) != 0))
				desc_fault = `CPL_ALIGN_ERR;
			else if (!STREAM && ((C2H ? src : dst) > CARD_BYTES ||
					     {32'd0, len} > CARD_BYTES - (C2H ? src : dst)))
				desc_fault = `CPL_RANGE_ERR;
			else
				desc_fault = 16'd0;
		end
	endfunction

`ifdef FORMAL
	// ---- properties (rtl/formal/run.sh proves them with yosys-smtbmc) -------
	// Everything outside the channel (host register writes, completions,
	// card memory, the stream source) is a free input: the properties hold
	// whatever the host and the link do.
	reg fv_past = 1'b0;
	reg fv_taken = 1'b0;              // a posted descriptor was taken for cidx
	reg [31:0] fv_pf_idx = 32'd0;     // the ring index the prefetch read
	always @(posedge clk) fv_past <= 1'b1;
	// power-on reset in the first clock only; channel and engine resets
	// (the host's handshakes) come whenever the free inputs ask for them
	always @(*) assume(rst == !fv_past);
	// The ring contract (docs/engine.md section 6): while the channel runs,
	// a doorbell never takes back what it posted.
	always @(*)
		if (reg_we && {reg_wa, 2'b00} == `C_PIDX && running)
			assume(reg_wd - cidx >= r_pidx - cidx);

	// TLP fields as the link sees them
	wire        fv_wr   = tx_hdr[30];
	wire        fv_is4  = tx_hdr[29];
	wire [11:0] fv_a    = fv_is4 ? {tx_hdr[107:98], 2'b00} : {tx_hdr[75:66], 2'b00};
	wire [12:0] fv_len  = {1'b0, tx_hdr[9:0] == 10'd0, tx_hdr[9:0], 2'b00} & 13'h1ffc;
	wire [2:0]  fv_slot = tx_hdr[42:40];
	// the host bytes a descriptor's reads may cover (a byte stream's: the
	// 8-byte words around it)
	wire [63:0] fv_base  = BYTES ? {d_src[63:3], 3'b000} : d_src;
	wire [32:0] fv_size  = BYTES ? {h_span[32:3], 3'b000} : {1'b0, d_len};
	wire [63:0] fv_nbase = BYTES ? {dn0[63:3], 3'b000} : dn0;
	wire [32:0] fv_nsize = BYTES ? {n_span[32:3], 3'b000} : {1'b0, dn2[31:0]};

	always @(posedge clk) if (fv_past && !rst) begin
		// ring: a descriptor is fetched only below the doorbell
		if (st == S_FETCH && tx_fire)
			assert(cidx != r_pidx);
		// ... and the next one too, only while this one runs and never past a STOP
		if (pf_fire)
			assert(next_idx != r_pidx && cidx != r_pidx && !d_ctrl[`D_STOP] &&
			       (st == S_H2C || st == S_C2H));
		// the descriptor in use changes only as it is fetched (FWAIT) or
		// taken from the prefetch (IDLE): never while it runs
		if (!$past(rst) && {dw0, dw1, dw2, dw3} != $past({dw0, dw1, dw2, dw3}))
			assert($past(st) == S_FWAIT || $past(st) == S_IDLE);
		// the prefetch reads the whole ring slot after cidx's, with the descriptor tag
		if (pf_fire)
			assert(tx_hdr == tlp_mem(1'b0, ring_base + {27'd0, (cidx + 32'd1) & size_mask, 5'd0},
						 11'd8, req_id, TAG_D));
		// a prefetched descriptor is the one at cidx when it is used
		if (st == S_IDLE && pf_valid && !pf_busy)
			assert(fv_pf_idx == cidx);
		// H2C data reads lie inside the descriptor they serve: the current
		// one's, or, issued ahead, the prefetched one's, which S_CHECK will
		// pass; a channel left idle keeps no slot
		// (offsets modulo 2^64, as the engine's address arithmetic goes)
		if (tx_fire && !fv_wr && st == S_H2C && !pf_want) begin
			if (ahead)
				assert(pf_valid && n_fault == 16'd0 &&
				       {1'b0, rd_addr - fv_nbase} + {51'd0, rd_n} <= {31'd0, fv_nsize});
			else
				assert({1'b0, rd_addr - fv_base} + {51'd0, rd_n} <= {31'd0, fv_size});
		end
		if (ahead)
			assert(pf_valid || st == S_CHECK || st == S_RST);
		if (st == S_IDLE && !running)
			assert(s_busy == 0 && !ahead);
		// ring: a completion only for a descriptor that was posted and taken
		if (st == S_REC && tx_fire && sb)
			assert(fv_taken);
		if (tx_fire && tx_sop) begin
			// TLP rules: no request crosses 4 KiB; reads <= MRRS, writes <= MPS
			assert({1'b0, fv_a} + fv_len <= 13'd4096);
			if (!fv_wr && st == S_H2C)
				assert(fv_len <= rd_max && fv_len != 0);
			if (fv_wr)
				assert(fv_len <= wr_max && fv_len != 0);
			// tags: a read never reuses a tag still outstanding (the
			// descriptor's tag: one fetch at a time, the next one's too),
			// nor one quarantined after a timeout
			if (!fv_wr && st == S_H2C && !pf_want)
				assert(!s_busy[fv_slot] && fv_slot != DSLOT);
			if (!fv_wr && pf_want)
				assert(!d_busy && fv_slot == DSLOT);
			if (!fv_wr && st == S_C2H)
				assert(pf_want);
			if (!fv_wr && st == S_FETCH)
				assert(!d_busy && fv_slot == DSLOT);
			if (!fv_wr)
				assert(!s_quar[fv_slot]);
		end
		// ... and where a write's length is decided (a packet opens): the
		// same rules, and the staging slot holds all of it
		if (st == S_C2H && !f_open && !f_done && p_cnt != 2'd2 && !abort)
			assert(f_n != 0 && f_n <= wr_max && {1'b0, f_addr[11:0]} + f_n <= 13'd4096 &&
			       f_n[2:0] == 3'd0);
		// quiescing: no new TLP once ENABLE (or bus mastering) is off; one
		// begun finishes
		if (tx_fire && tx_sop)
			assert(en);
		// IDLE (every posted descriptor done) means no read of the host's
		// memory is still out: the host may reuse its buffers
		if (idle_bit && running)
			assert(!outstanding);
		// reset: the channel comes back idle, its count at 0
		// (no slot held either: outstanding counts only requests on the link)
		if ($past(rst))
			assert(st == S_IDLE && cidx == 0 && !running && !halted && !outstanding &&
			       s_busy == 0 && !ahead && rd_left == 0);
		if (reset_ack != $past(reset_ack))
			assert(cidx == 0 && !running && !halted && !stopped && errs == 0 &&
			       !outstanding && !p_sending && s_busy == 0 && !ahead && rd_left == 0);
	end
	// the clock a channel reset zeroes the channel's state (S_RST's exit)
	wire fv_zeroed = st == S_RST && !outstanding && cr_fly == 0 && !p_sending;
	always @(posedge clk)
		if (rst || fv_zeroed)
			fv_taken <= 1'b0;
		else if (st == S_IDLE && !abort && work && !(!running && !halted && r_ctrl[`CTRL_RUN] && en) &&
			 !(running && !r_ctrl[`CTRL_RUN]) && !pub_due &&
			 !(irq_en && (timer_due || empty_due)) && !(!irq_en && unsig != 0) &&
			 (pf_valid || !pf_busy))
			fv_taken <= 1'b1;
		else if (st == S_REC && tx_fire && sb)
			fv_taken <= 1'b0;
	always @(posedge clk)
		if (pf_fire)
			fv_pf_idx <= next_idx;

	// ---- the order in which a descriptor's writes leave: data, record,
	// write-back, MSI (the host reads them in the opposite order) ---------
	// A C2H record saying OK leaves after all the data it counts, and that
	// data went contiguously from the buffer's start, in address order, in
	// whole TLPs: a memory-mapped descriptor's length exactly; a stream
	// buffer's in 8-byte words, the last of which may hold fewer bytes or
	// none (a frame's last beat with no byte kept is still written, and
	// counts 0: harmless, as the buffer is the device's until its record).
	// A write-back publishes CIDX only when as many records have left
	// whole since the channel's reset; an MSI is asked for only after a
	// write-back of the CIDX it announces has left whole. (The engine keeps one source's TLPs in
	// order and whole; the shim holds the MSI until they are with the core.)
	reg [32:0] fv_cb = 33'd0;         // C2H bytes sent for the descriptor executing
	reg [31:0] fv_recs = 32'd0;       // records sent whole since the channel's reset
	reg [31:0] fv_wbc = 32'd0;        // the CIDX the last write-back published
	reg        fv_wbw = 1'b0;         // ... and that write-back left whole
	always @(posedge clk) begin
		if (rst || st == S_CHECK)
			fv_cb <= 33'd0;
		else if (pkt_fire && tx_sop)
			fv_cb <= fv_cb + {20'd0, p_dws, 2'b00};
		if (rst || fv_zeroed)
			fv_recs <= 32'd0;
		else if (st == S_REC && tx_fire && sb)
			fv_recs <= fv_recs + 32'd1;
		if (rst) begin
			fv_wbw <= 1'b0;
		end else if (wb_state && tx_fire) begin
			fv_wbw <= sb;
			if (!sb)
				fv_wbc <= wb_w0;
		end
	end
	always @(posedge clk) if (fv_past && !rst) begin
		if (pkt_fire && tx_sop)
			assert(p_addr[p_rd] == d_dst + {31'd0, fv_cb});
		if (C2H && st == S_REC && tx_fire && !sb && rec_status == `CPL_OK)
			assert(!p_sending && (STREAM ? {1'b0, rec_len} <= fv_cb && fv_cb <= {1'b0, rec_len} + 33'd8 :
						       fv_cb == {1'b0, rec_len} && rec_len == d_len));
		if (wb_state && tx_fire && st != S_RSTWB)
			assert(wb_w0 == fv_recs);
		if (irq_req && !$past(irq_req))
			assert(fv_wbw && fv_wbc == cidx);
	end

`ifdef FV_DATA
	// ---- where completion data lands (H2C memory-mapped; its own proof,
	// since it narrows the link to one that keeps PCIe's rules) ----------
	// Host memory holds its own address in every 8-byte word; completions
	// keep to the rules: one request's come in address order (byte count =
	// what is left of it), 8-byte multiples (the addresses are aligned),
	// framed sop .. eop with as many beats as their length. Then every
	// word written to card memory must be the host word its address
	// stands for, whatever the split, the order across requests and the
	// timing.
	reg  [63:0] fv_ra [0:7];          // each tag slot's read address
	reg         fv_in;                // inside a completion (after its sop)
	reg  [63:0] fv_at;                // the host address of the next data beat
	reg  [8:0]  fv_left;              // its beats still to come
	reg         fv_dat;               // the completion in progress carries data
	wire [8:0]  fv_beats = h_dws[9:1];
	wire        fv_good = cpl_sop && h_slot != DSLOT && sop_ok && h_data && h_st == 3'b000;
	always @(*) begin
		if (cpl_valid)
			assume(cpl_sop == !fv_in);
		if (cpl_valid && fv_good) begin
			assume(h_bytes == {3'd0, s_len[h_slot] - s_rcvd[h_slot]} && !h_dws[0] &&
			       h_dws != 11'd0 && {h_dws, 2'b00} <= h_bytes &&
			       cpl_eop == (fv_beats == 9'd1) &&
			       cpl_data == fv_ra[h_slot] + {54'd0, s_len[h_slot] - h_bytes[9:0]});
		end
		if (cpl_valid && !cpl_sop && fv_in && fv_dat)
			assume(cpl_eop == (fv_left == 9'd1) && cpl_data == fv_at);
		// (a completion with an error status is one beat)
		if (cpl_valid && cpl_sop && h_slot != DSLOT && !(h_data && h_st == 3'b000))
			assume(cpl_eop);
	end
	always @(posedge clk) begin
		if (rst) begin
			fv_in <= 1'b0; fv_dat <= 1'b0;
		end else if (cpl_valid) begin
			fv_in <= !cpl_eop;
			if (cpl_sop) begin
				fv_dat <= fv_good;
				fv_at <= fv_ra[h_slot] + {54'd0, s_len[h_slot] - h_bytes[9:0]} + 64'd8;
				fv_left <= fv_beats - 9'd1;
			end else begin
				fv_at <= fv_at + 64'd8;
				fv_left <= fv_left - 9'd1;
			end
		end
		if (tx_fire && !fv_wr && st == S_H2C && !pf_want)
			fv_ra[fv_slot] <= rd_addr;
	end
	wire [CARD_AW+2:0] fv_off = {cw_addr, 3'b000} - d_dst[CARD_AW+2:0];
	always @(posedge clk)
		if (fv_past && !rst && !C2H && !STREAM && dr_fire)
			assert(card_wd == d_src + {{(61-CARD_AW){1'b0}}, fv_off});
`ifdef FV_RECORD
	// A record saying OK leaves only when its descriptor's data is all in
	// card memory: as many words written as its length has, none still
	// on the way. (Card memory's busy flag rises only with a write.) Its
	// first OK record comes at 24 clocks, so this runs on request (run.sh,
	// DEEP=1, to 25 clocks).
	reg  [31:0] fv_cw = 32'd0;        // card words written for the descriptor executing
	reg         fv_dr_1 = 1'b0, fv_wb_1 = 1'b0;
	always @(posedge clk) begin
		fv_dr_1 <= dr_fire; fv_wb_1 <= card_wbusy;
	end
	always @(*)
		if (fv_past && card_wbusy)
			assume(fv_wb_1 || fv_dr_1);
	always @(posedge clk)
		if (rst || (st != S_H2C && st != S_REC))
			fv_cw <= 0;
		else if (dr_fire)
			fv_cw <= fv_cw + 32'd1;
	always @(posedge clk)
		if (fv_past && !rst && st == S_REC && tx_fire && !sb && rec_status == `CPL_OK) begin
			assert(fv_cw == d_len >> 3 && !card_wbusy);
			cover(1'b1);
		end
`endif
`endif
`endif
endmodule
