// SPDX-License-Identifier: MIT
// The FDMA engine (docs/engine.md, version 1.1) at a generic raw-TLP edge.
//
// Channels: 0 H2C memory-mapped, 1 C2H memory-mapped, 2 C2H stream, 3 H2C
// stream (the last two with the test generator and checker), the layout of
// the software model's default device. Card memory is reached through a
// simple word port (fdma_card_bram.v, or an adapter to a DDR controller).
//
// The TLP edge (docs/rtl.md): 64-bit beats, valid/ready, sop/eop; the
// header (four DWs, DW0 in bits 31:0) rides beside the first beat, and
// payload DW k is bits 32*(k%2) +: 32 of beat k/2, so payload is always
// aligned to the beat whatever the header format. A hard-IP shim
// (fdma_pcie_7x.v for Xilinx 7-series) translates to the core's own format.
`include "fdma_defs.vh"

module fdma_engine #(
	parameter        CLK_MHZ = 125,
	parameter        ALIGN_LOG2 = 6,
	parameter        CARD_AW = 21,                  // card memory: 2^CARD_AW words of 8 bytes
	parameter        RING_MAX_LOG2 = 12,
	parameter        NSLOT = 7,                     // H2C reads in flight per channel (1..7)
	parameter        MAX_RD_LOG2 = 9,
	parameter        MAX_WR_LOG2 = 8,
	parameter        CARD_RD_LOG2 = 3,              // card words read ahead: 8 for block RAM, 64 for DDR
	// The core's receive buffer for completions, in header credits (one a
	// completion) and data credits (16 bytes): PG054's figures for the
	// core as configured (docs/rtl.md). Reads are throttled to fit.
	parameter [9:0]  CPLH_CREDITS = 10'd36,
	parameter [9:0]  CPLD_CREDITS = 10'd461
) (
	input  wire         clk,
	input  wire         rst,
	// from the PCIe core's configuration space
	input  wire         cfg_bus_master,
	input  wire         cfg_msix_en,
	input  wire         cfg_msix_mask,
	input  wire         cfg_msi_en,     // MSI, used when MSI-X is off
	input  wire [2:0]   cfg_msi_mm,     // vectors allocated: 2^cfg_msi_mm
	input  wire [2:0]   cfg_mps,        // Device Control: 128 << n bytes
	input  wire [2:0]   cfg_mrrs,
	input  wire [15:0]  cfg_id,         // bus, device, function
	// Largest descriptor, bytes: a multiple of 2^ALIGN_LOG2, read back in
	// MAX_DESC_LEN. A strap: tie it to a constant and synthesis folds it
	// (the simulation harness sets it per run).
	input  wire [31:0]  max_desc_len,
	// Clocks a read may wait for its completion (6 250 000: 50 ms at
	// 125 MHz). A strap like max_desc_len: tie it to a constant.
	input  wire [31:0]  cpl_timeout,
	// TLPs from the link: requests to BAR0 and completions
	input  wire         rx_valid,
	output wire         rx_ready,
	output wire         np_ok,          // room for more non-posted requests (rx_np_ok)
	output wire         np_req,         // ... one more asked for this clock (rx_np_req)
	input  wire         rx_sop,
	input  wire         rx_eop,
	input  wire [127:0] rx_hdr,
	input  wire [63:0]  rx_data,
	// TLPs to the link
	output wire         tx_valid,
	input  wire         tx_ready,
	output wire         tx_sop,
	output wire         tx_eop,
	output wire [127:0] tx_hdr,
	output wire [63:0]  tx_data,
	// MSI through the hard IP's interrupt port (the message number, held
	// until acknowledged); MSI-X messages are memory writes on tx_*
	output wire         msi_req,
	output wire [4:0]   msi_num,
	input  wire         msi_ack,
	// errors for the PCIe core to report (one-clock pulses): a read timed
	// out, a completion nobody waits for, a poisoned completion taken, a
	// poisoned write to BAR0 dropped. Unsupported requests are answered
	// with UR completions on tx_* (a core that sends them itself takes
	// them from there: fdma_pcie_7x.v).
	output wire         err_cpl_timeout,
	output wire         err_cpl_unexpect,
	output wire         err_cpl_poisoned,
	output wire         err_wr_poisoned,
	// card memory
	output wire         card_we,
	output wire [CARD_AW-1:0] card_wa,
	output wire [63:0]  card_wd,
	input  wire         card_wready,
	input  wire         card_wbusy,     // writes taken, not yet in memory (0 for block RAM)
	output wire         card_re,
	output wire [CARD_AW-1:0] card_ra,
	input  wire         card_rready,
	input  wire         card_rvalid,
	input  wire [63:0]  card_rd,
	// stream source (channel 2) and sink (channel 3): AXI-Stream
	input  wire         s_axis_tvalid,
	output wire         s_axis_tready,
	input  wire [63:0]  s_axis_tdata,
	input  wire [7:0]   s_axis_tkeep,
	input  wire         s_axis_tlast,
	output wire         m_axis_tvalid,
	input  wire         m_axis_tready,
	output wire [63:0]  m_axis_tdata,
	output wire [7:0]   m_axis_tkeep,   // a frame's last word: its bytes
	output wire         m_axis_tuser,   // first word of a frame
	output wire         m_axis_tlast,
	output wire         m_axis_tabort,  // with tlast: the frame was cut short (a new frame
					    // started, the channel halted or was reset): drop it
	// nothing to do until the host writes a register (simulation uses it to sleep)
	output wire         quiet
);
	`include "fdma_tlp.vh"
	localparam NCH = 4;
	localparam NSRC = NCH + 2;                     // TX: the channels, read completions, MSI-X
	localparam [63:0] CARD_BYTES = 64'd8 << CARD_AW;
	// COALESCE, TESTGEN, H2C_BYTES (1.3: the H2C stream channel is a byte stream)
	localparam [31:0] CAPS = NCH | (ALIGN_LOG2 << 8) | (1 << 16) | (1 << 17) | (1 << 20);

	// ---- time --------------------------------------------------------------
	// ns exact for any whole MHz: 1000 / CLK_MHZ a clock, the remainder
	// carried (156 MHz: 6 ns and 64/156 ns)
	localparam [63:0] NS_INT = 1000 / CLK_MHZ;
	localparam [15:0] NS_REM = 1000 % CLK_MHZ;
	reg [63:0] now_ns;
	reg [15:0] ns_frac, us_div;
	reg        us_tick;
	always @(posedge clk) begin
		if (rst) begin
			now_ns <= 0; ns_frac <= 0; us_div <= 0; us_tick <= 1'b0;
		end else begin
			if (ns_frac + NS_REM >= CLK_MHZ) begin
				now_ns <= now_ns + NS_INT + 64'd1;
				ns_frac <= ns_frac + NS_REM - CLK_MHZ;
			end else begin
				now_ns <= now_ns + NS_INT;
				ns_frac <= ns_frac + NS_REM;
			end
			us_tick <= us_div == CLK_MHZ - 1;
			us_div <= us_div == CLK_MHZ - 1 ? 16'd0 : us_div + 16'd1;
		end
	end

	// A quarter of the completion timeout: each channel times its requests
	// in these (fdma_chan.v, s_age).
	wire [31:0] to_q = cpl_timeout < 32'd8 ? 32'd2 : cpl_timeout >> 2;
	reg  [31:0] to_div;
	reg         to_tick;
	always @(posedge clk)
		if (rst) begin
			to_div <= 0; to_tick <= 1'b0;
		end else begin
			to_tick <= to_div >= to_q - 32'd1;
			to_div <= to_div >= to_q - 32'd1 ? 32'd0 : to_div + 32'd1;
		end

	// ---- global registers -------------------------------------------------
	reg  [31:0] g_ctrl, g_reset_req, g_reset_ack;
	wire        en = g_ctrl[0] && cfg_bus_master;
	wire [NCH-1:0] ch_busy, ch_quiet, ch_rst_done;
	wire        msix_busy;
	reg         tx_mid;                    // a TLP is half sent
	wire        busy = g_ctrl[0] || ch_busy != 0 || msix_busy || tx_mid;
	wire        eng_rst = g_reset_req != g_reset_ack;

	wire [NCH+1:0]   src_valid, src_sop, src_eop, src_fire;

	// ---- requests to BAR0 ---------------------------------------------------
	// Writes (posted) are applied as they arrive, one DW a clock. Reads
	// (non-posted) wait in a queue for their completion. So a read whose
	// completion cannot leave (TX backed up) never holds back the
	// completions and writes behind it: PCIe requires that both may pass a
	// blocked non-posted request, or the link can deadlock. The core holds
	// further reads back while the queue is nearly full (np_ok, the shim's
	// rx_np_ok).
	wire        h_is4 = rx_hdr[29];
	wire [31:0] h_lo = h_is4 ? rx_hdr[127:96] : rx_hdr[95:64];
	wire [4:0]  h_type = rx_hdr[28:24];
	wire        is_wr = rx_hdr[30];
	wire        is_cpl = h_type == `TLP_TYPE_CPL;
	wire        is_mem = h_type == `TLP_TYPE_MEM;
	// a request that needs a completion: anything but a memory write, a
	// message or a completion. With data too: an I/O or configuration
	// write or an AtomicOp, none of which this function supports, is
	// answered UR (PCIe), not dropped, or its requester waits out its
	// completion timeout.
	wire        is_np = !(is_mem && is_wr) && h_type[4:1] != 4'b0101 && h_type[4:3] != 2'b10;
	wire [10:0] h_dws = rx_hdr[9:0] == 10'd0 ? 11'd1024 : {1'b0, rx_hdr[9:0]};
	wire        h_ep = rx_hdr[14];                 // poisoned
	wire [3:0]  h_fbe = rx_hdr[35:32];
	wire [3:0]  h_lbe = rx_hdr[39:36];

	// the non-posted queue
	localparam NPQ_LOG2 = 3;
	wire        npq_full, npq_empty;
	wire [NPQ_LOG2:0] npq_count;
	wire [61:0] npq_head;
	reg         rx_cpl_in, rx_wr_in;              // the TLP being received
	reg  [1:0]  rx_ch_in;
	reg         w2_pend;                          // a beat's second DW waits to be written
	assign rx_ready = !w2_pend && !(rx_sop && is_np && npq_full);
	wire        rx_fire = rx_valid && rx_ready;
	// A completion is for this function only with its requester ID and a
	// tag the engine uses (tag[7:5] = 0, tag[4:3] the channel). Any other,
	// and any CplLk (no locked read is ever sent), is an Unexpected
	// Completion: reported and dropped, so it reaches no channel and
	// frees no completion space.
	wire        is_ours = is_cpl && rx_hdr[95:80] == cfg_id && rx_hdr[79:77] == 3'd0;
	wire        cpl_foreign = (is_cpl && !is_ours) || h_type == 5'b01011;
	wire        cur_cpl = rx_sop ? is_ours : rx_cpl_in;
	wire [1:0]  cur_ch  = rx_sop ? rx_hdr[76:75] : rx_ch_in;   // tag[4:3]
	// Up to 2^NPQ_LOG2 reads wait. The core hands reads over in one of two
	// ways, chosen when it is generated (PG054), so both are driven:
	// rx_np_req asks for one read a clock (np_cred counts those asked for
	// and not yet come, so the queue always has room for them); with
	// rx_np_ok the core may still hand over two after it falls, and the
	// shim may hold one more on its way, so it falls while fewer than four
	// entries are free.
	localparam [NPQ_LOG2:0] NPQ_N = 1 << NPQ_LOG2;
	reg  [NPQ_LOG2:0] np_cred;
	assign np_ok  = npq_count < NPQ_N - 3;
	assign np_req = {1'b0, npq_count} + {1'b0, np_cred} < {1'b0, NPQ_N};
	// MRd of one or two DWs is answered; anything longer, and any other
	// non-posted request (MRdLk, which an endpoint must not support; I/O
	// and configuration requests; AtomicOps), gets Unsupported Request.
	wire        np_ur = !is_mem || is_wr || h_dws > 11'd2;
	wire        np_lk = h_type == 5'b00001;
	// queue entry: {length, lk, ur, two, lbe, fbe, attr, tc, tag, requester, off[12:2]}
	wire [61:0] np_entry = {rx_hdr[9:0], np_lk, np_ur, h_dws == 11'd2, h_lbe, h_fbe,
				{rx_hdr[18], rx_hdr[13:12]}, rx_hdr[22:20], rx_hdr[47:40],
				rx_hdr[63:48], h_lo[12:2]};
	wire        np_take = rx_fire && rx_sop && is_np;
	always @(posedge clk)
		if (rst)
			np_cred <= 0;
		else if (np_req && !np_take)
			np_cred <= np_cred + 1'b1;
		else if (!np_req && np_take && np_cred != 0)   // (rx_np_ok: no credit)
			np_cred <= np_cred - 1'b1;

	// Writes: the DWs of a beat go to the register port one a clock, each
	// at the TLP's offset plus its index, each only if all its bytes are
	// enabled (registers are whole 32-bit words); a poisoned write is
	// dropped whole (PCIe: its data must not be used).
	reg  [12:2] w_base;
	reg  [10:0] w_idx, w_len;
	reg  [3:0]  w_fbe, w_lbe;
	reg         w_ep;
	reg  [12:2] w2_off;
	reg  [31:0] w2_val;
	reg         w2_ok;
	wire        wbeat = rx_fire && (rx_sop ? is_mem && is_wr : rx_wr_in);
	wire [12:2] b_base = rx_sop ? h_lo[12:2] : w_base;
	wire [10:0] b_idx  = rx_sop ? 11'd0 : w_idx;    // index of the beat's first DW
	wire [10:0] b_len  = rx_sop ? h_dws : w_len;
	wire [3:0]  b_fbe  = rx_sop ? h_fbe : w_fbe;
	wire [3:0]  b_lbe  = rx_sop ? h_lbe : w_lbe;
	wire        b_ep   = rx_sop ? h_ep : w_ep;
	wire [10:0] b_idx1 = b_idx + 11'd1;
	wire [3:0]  be0 = b_idx == 11'd0 ? b_fbe : b_idx == b_len - 11'd1 ? b_lbe : 4'hf;
	wire [3:0]  be1 = b_idx1 == b_len - 11'd1 ? b_lbe : 4'hf;
	wire        dw1_in = b_idx1 < b_len;             // the beat holds a second DW
	wire        wp_we = w2_pend ? w2_ok : wbeat && be0 == 4'hf && !b_ep;
	wire [12:0] w_off = w2_pend ? {w2_off, 2'b00} : {b_base + b_idx[10:0], 2'b00};
	wire [31:0] wp_val = w2_pend ? w2_val : rx_data[31:0];
	wire        wr_hit = wp_we;
	assign      err_wr_poisoned = rx_fire && rx_sop && is_mem && is_wr && h_ep;

	always @(posedge clk) begin
		if (rst) begin
			g_ctrl <= 0; g_reset_req <= 0; g_reset_ack <= 0;
			rx_cpl_in <= 1'b0; rx_wr_in <= 1'b0; rx_ch_in <= 0;
			w_base <= 0; w_idx <= 0; w_len <= 0; w_fbe <= 0; w_lbe <= 0; w_ep <= 1'b0;
			w2_pend <= 1'b0; w2_off <= 0; w2_val <= 0; w2_ok <= 1'b0;
		end else begin
			if (rx_fire && rx_sop) begin
				rx_cpl_in <= is_ours;
				rx_ch_in <= rx_hdr[76:75];
				rx_wr_in <= is_mem && is_wr && !rx_eop;
			end else if (rx_fire && rx_eop) begin
				rx_wr_in <= 1'b0;
			end
			if (wbeat) begin
				w_base <= b_base; w_len <= b_len; w_fbe <= b_fbe; w_lbe <= b_lbe;
				w_ep <= b_ep;
				w_idx <= b_idx + 11'd2;
				w2_pend <= dw1_in;
				w2_off <= b_base + b_idx1;
				w2_val <= rx_data[63:32];
				w2_ok <= be1 == 4'hf && !b_ep;
			end else begin
				w2_pend <= 1'b0;
			end
			if (wr_hit && w_off < 13'h100)
				case (w_off[11:0])
				`R_CTRL:      g_ctrl <= wp_val & 32'h1;
				`R_RESET_REQ: g_reset_req <= wp_val;
				default: ;
				endcase
			if (eng_rst && ch_rst_done == {NCH{1'b1}})
				g_reset_ack <= g_reset_req;
		end
	end

	// Reads, one at a time from the queue's head: DW0 is sampled, then DW1
	// for a two-DW read, then the completion waits for the TX arbiter. A
	// read sees every write that arrived before it (they were applied as
	// they came); a write that came after it may already show, which
	// PCIe's ordering allows (posted requests may pass non-posted ones).
	localparam RC_IDLE = 2'd0, RC_DW1 = 2'd1, RC_SEND = 2'd2;
	reg  [1:0]  rc_st;
	reg  [31:0] rc_d0, rc_d1;
	wire [12:2] rc_off = npq_head[10:0];
	wire [15:0] rc_req = npq_head[26:11];
	wire [7:0]  rc_tag = npq_head[34:27];
	wire [2:0]  rc_tc = npq_head[37:35];
	wire [2:0]  rc_attr = npq_head[40:38];
	wire [3:0]  rc_fbe = npq_head[44:41];
	wire [3:0]  rc_lbe = npq_head[48:45];
	wire        rc_two = npq_head[49];
	wire        rc_ur = npq_head[50];
	wire        rc_lk = npq_head[51];
	wire [9:0]  rc_len = npq_head[61:52];
	wire [12:0] r_off = {rc_st == RC_DW1 ? rc_off + 11'd1 : rc_off, 2'b00};
	wire        rc_pop = rc_st == RC_SEND && src_fire[NCH];
	// channel register ports
	wire        w_ch = w_off >= 13'h100 && w_off < 13'h100 + NCH * 13'h80;
	wire [3:0]  w_chn = w_off[10:7] - 4'd2;
	wire        r_ch = r_off >= 13'h100 && r_off < 13'h100 + NCH * 13'h80;
	wire [3:0]  r_chn = r_off[10:7] - 4'd2;
	wire [31:0] ch_rd [0:NCH-1];
	wire [31:0] msix_rd;
	reg  [31:0] rd_val;
	always @(*) begin
		rd_val = 32'd0;
		if (r_off >= `MSIX_TABLE_OFF)
			rd_val = msix_rd;
		else if (r_ch)
			rd_val = ch_rd[r_chn[1:0]];
		else
			case (r_off[11:0])
			`R_ID:           rd_val = `FDMA_ID_MAGIC;
			`R_VERSION:      rd_val = `FDMA_VERSION;
			`R_CAPS:         rd_val = CAPS;
			`R_MAX_DESC_LEN: rd_val = max_desc_len;
			`R_CARD_SIZE_LO: rd_val = CARD_BYTES[31:0];
			`R_CARD_SIZE_HI: rd_val = CARD_BYTES[63:32];
			`R_RING_MAX:     rd_val = 32'd1 << RING_MAX_LOG2;
			`R_CTRL:         rd_val = g_ctrl;
			`R_STATUS:       rd_val = {30'd0, busy, 1'b1};
			`R_RESET_REQ:    rd_val = g_reset_req;
			`R_RESET_ACK:    rd_val = g_reset_ack;
			default:         rd_val = 32'd0;
			endcase
	end

	fdma_fifo #(.W(62), .AW(NPQ_LOG2)) npq (
		.clk(clk), .rst(rst), .wr(np_take), .din(np_entry), .rd(rc_pop),
		.dout(npq_head), .empty(npq_empty), .full(npq_full), .count(npq_count));
	always @(posedge clk) begin
		if (rst) begin
			rc_st <= RC_IDLE; rc_d0 <= 0; rc_d1 <= 0;
		end else
			case (rc_st)
			RC_IDLE: if (!npq_empty) begin
				rc_d0 <= rd_val;
				rc_d1 <= 32'd0;
				rc_st <= rc_two && !rc_ur ? RC_DW1 : RC_SEND;
			end
			RC_DW1: begin
				rc_d1 <= rd_val;
				rc_st <= RC_SEND;
			end
			default: if (rc_pop) rc_st <= RC_IDLE;
			endcase
	end

	// ---- channels ----------------------------------------------------------
	wire [127:0]     src_hdr [0:NCH+1];
	wire [63:0]      src_data [0:NCH+1];
	wire [NCH-1:0]   irq_req, irq_ack;
	wire [8*NCH-1:0] rd_gone;          // tags channel c gave up on (8c + slot)
	wire [4*NCH-1:0] irq_vec;
	wire [NCH-1:0]   ev_to, ev_unx, ev_ep;
	// The stream source comes in through a register slice: the channel
	// decides whether to take a word from its valid (a frame's first
	// word is dropped when DROP is set and no buffer waits), and that
	// must not make s_axis_tready a function of s_axis_tvalid.
	wire             sk_valid, sk_ready, sk_last;
	wire [63:0]      sk_data;
	wire [7:0]       sk_keep;
	fdma_skid #(.W(73)) s_slice (
		.clk(clk), .rst(rst),
		.s_valid(s_axis_tvalid), .s_ready(s_axis_tready),
		.s_data({s_axis_tlast, s_axis_tkeep, s_axis_tdata}),
		.m_valid(sk_valid), .m_ready(sk_ready), .m_data({sk_last, sk_keep, sk_data}));
	assign err_cpl_timeout  = |ev_to;
	assign err_cpl_unexpect = |ev_unx || (rx_fire && rx_sop && cpl_foreign);
	assign err_cpl_poisoned = |ev_ep;
	wire [NCH-1:0]   ch_cpl = {NCH{rx_fire && cur_cpl}} & (4'b0001 << cur_ch);
	wire             ch0_we, ch1_re;
	wire [CARD_AW-1:0] ch0_wa, ch1_ra;
	wire [63:0]      ch0_wd;

	genvar c;
	generate for (c = 0; c < NCH; c = c + 1) begin : g_ch
		wire        we_c = wr_hit && w_ch && w_chn == c;
		// each channel drives only the ports of its kind
		/* verilator lint_off UNUSEDSIGNAL */
		wire        cw_we, cr_re, mv, ms, ml, ma, sr;
		wire [CARD_AW-1:0] cw_a, cr_a;
		wire [63:0] cw_d, md;
		wire [7:0]  mk;
		/* verilator lint_on UNUSEDSIGNAL */
		fdma_chan #(
			.CH(c), .C2H(c == 1 || c == 2), .STREAM(c >= 2), .TESTGEN(c >= 2),
			.ALIGN_LOG2(ALIGN_LOG2),
			.CARD_BYTES(c >= 2 ? 64'd0 : CARD_BYTES), .CARD_AW(CARD_AW),
			.RING_MAX_LOG2(RING_MAX_LOG2), .NSLOT(NSLOT),
			.MAX_RD_LOG2(MAX_RD_LOG2), .MAX_WR_LOG2(MAX_WR_LOG2),
			.CARD_RD_LOG2(CARD_RD_LOG2)
		) ch (
			.clk(clk), .rst(rst), .en(en), .eng_rst(eng_rst), .eng_rst_done(ch_rst_done[c]),
			.us_tick(us_tick), .to_tick(to_tick), .now_ns(now_ns), .req_id(cfg_id),
			.mps_code(cfg_mps), .mrrs_code(cfg_mrrs), .max_desc_len(max_desc_len),
			.reg_we(we_c), .reg_wa(w_off[6:2]), .reg_wd(wp_val),
			.reg_ra(r_off[6:2]), .reg_rd(ch_rd[c]),
			.tx_valid(src_valid[c]), .tx_ready(src_fire[c]), .tx_sop(src_sop[c]),
			.tx_eop(src_eop[c]), .tx_hdr(src_hdr[c]), .tx_data(src_data[c]),
			.cpl_valid(ch_cpl[c]), .cpl_sop(rx_sop), .cpl_eop(rx_eop),
			.cpl_hdr(rx_hdr), .cpl_data(rx_data),
			.irq_req(irq_req[c]), .irq_vec(irq_vec[4*c +: 4]), .irq_ack(irq_ack[c]),
			.card_we(cw_we), .card_wa(cw_a), .card_wd(cw_d), .card_wready(c == 0 ? card_wready : 1'b0),
			.card_wbusy(c == 0 ? card_wbusy : 1'b0),
			.card_re(cr_re), .card_ra(cr_a), .card_rready(c == 1 ? card_rready : 1'b0),
			.card_rvalid(c == 1 ? card_rvalid : 1'b0), .card_rd(card_rd),
			.m_valid(mv), .m_ready(c == 3 ? m_axis_tready : 1'b0), .m_data(md),
			.m_keep(mk), .m_sof(ms), .m_last(ml), .m_abort(ma),
			.s_valid(c == 2 ? sk_valid : 1'b0), .s_ready(sr), .s_data(sk_data),
			.s_keep(sk_keep), .s_last(sk_last),
			.rd_gone(rd_gone[8*c +: 8]),
			.ev_timeout(ev_to[c]), .ev_unexpect(ev_unx[c]), .ev_poisoned(ev_ep[c]),
			.busy(ch_busy[c]), .quiet(ch_quiet[c]));
		if (c == 0) begin : g_w
			assign ch0_we = cw_we; assign ch0_wa = cw_a; assign ch0_wd = cw_d;
		end
		if (c == 1) begin : g_r
			assign ch1_re = cr_re; assign ch1_ra = cr_a;
		end
		if (c == 2) begin : g_s
			assign sk_ready = sr;
		end
		if (c == 3) begin : g_m
			assign m_axis_tvalid = mv; assign m_axis_tdata = md; assign m_axis_tkeep = mk;
			assign m_axis_tuser = ms; assign m_axis_tlast = ml; assign m_axis_tabort = ma;
		end
	end endgenerate
	assign card_we = ch0_we; assign card_wa = ch0_wa; assign card_wd = ch0_wd;
	assign card_re = ch1_re; assign card_ra = ch1_ra;

	// ---- register-read completions ------------------------------------------
	assign src_valid[NCH] = rc_st == RC_SEND;
	assign src_sop[NCH] = 1'b1;
	assign src_eop[NCH] = 1'b1;
	// Byte count and lower address from the byte enables: from the first
	// enabled byte to the last (a 1-DW read with no enables, the zero-length
	// read hosts use as a flush, is answered as 1 byte).
	reg  [11:0] rc_bc;
	reg  [1:0]  rc_la, rc_lz;
	always @(*) begin
		casez (rc_fbe)
		4'b1??1: rc_bc = 12'd4;
		4'b01?1: rc_bc = 12'd3;
		4'b1?10: rc_bc = 12'd3;
		4'b0011, 4'b0110, 4'b1100: rc_bc = 12'd2;
		default: rc_bc = 12'd1;
		endcase
		casez (rc_fbe)
		4'b???1, 4'b0000: rc_la = 2'd0;
		4'b??10: rc_la = 2'd1;
		4'b?100: rc_la = 2'd2;
		default: rc_la = 2'd3;
		endcase
		casez (rc_lbe)                 // disabled bytes at the top of the last DW
		4'b1???: rc_lz = 2'd0;
		4'b01??: rc_lz = 2'd1;
		4'b001?: rc_lz = 2'd2;
		default: rc_lz = 2'd3;
		endcase
		if (rc_two)
			rc_bc = 12'd8 - {10'd0, rc_la} - {10'd0, rc_lz};
	end
	// UR carries the request's whole byte count (none of it is returned);
	// to a locked read it goes back as CplLk (type 01011)
	wire [127:0] rc_urh = tlp_cpl(`CPL_UR, rc_tc, rc_attr, 11'd0, {rc_len, 2'b00}, cfg_id, rc_req,
				      rc_tag, 7'd0);
	assign src_hdr[NCH] = rc_ur ? {rc_urh[127:25], rc_lk, rc_urh[23:0]}
				    : tlp_cpl(`CPL_SC, rc_tc, rc_attr, rc_two ? 11'd2 : 11'd1, rc_bc,
					      cfg_id, rc_req, rc_tag, {rc_off[6:2], rc_la});
	assign src_data[NCH] = {rc_d1, rc_d0};

	// ---- MSI-X ----------------------------------------------------------------
	wire msix_we = wr_hit && w_off >= `MSIX_TABLE_OFF;
	fdma_msix #(.NREQ(NCH)) msix (
		.clk(clk), .rst(rst), .msix_en(cfg_msix_en), .func_mask(cfg_msix_mask), .en(en),
		.msi_en(cfg_msi_en), .msi_mm(cfg_msi_mm), .msi_req(msi_req), .msi_num(msi_num),
		.msi_ack(msi_ack),
		.req_id(cfg_id), .reg_we(msix_we), .reg_wa(w_off[12:2]), .reg_wd(wp_val),
		.reg_ra(r_off[12:2]), .reg_rd(msix_rd),
		.req(irq_req), .vec(irq_vec), .ack(irq_ack),
		.tx_valid(src_valid[NCH+1]), .tx_ready(src_fire[NCH+1]), .tx_hdr(src_hdr[NCH+1]),
		.tx_data(src_data[NCH+1]), .busy(msix_busy));
	assign src_sop[NCH+1] = 1'b1;
	assign src_eop[NCH+1] = 1'b1;

	// ---- completion space: reads only while their completions fit ------------
	// An endpoint advertises infinite completion credits, so nothing on the
	// link stops a root complex from sending every completion at once: the
	// engine must not have more read data outstanding than the core's
	// receive buffer holds (PG054). Each read reserves, when it is sent, the
	// most its completions can take: one header per 64-byte read completion
	// boundary it touches (the smallest RCB a root complex may split at) and
	// one data credit per 16 bytes. The reservation is given back when the
	// read's last completion has been taken from the core, or when its
	// channel gives up on it (a completion timeout).
	localparam RES_W = 6;                        // per tag: up to 9 headers, 34 data credits
	reg  [RES_W-1:0] res_h [0:31];
	reg  [RES_W-1:0] res_d [0:31];
	reg  [9:0]  used_h, used_d;
	reg  [9:0]  rel_h, rel_d;             // given back this clock (below)
	// the completion being received, for giving its read's credits back
	wire [4:0]  cpl_tag = rx_hdr[76:72];
	wire        cpl_last = !rx_hdr[30] || rx_hdr[47:45] != 3'b000 ||
			       rx_hdr[43:32] == {h_dws[9:0], 2'b00};
	reg         cr_last_in;
	reg  [4:0]  cr_tag_in;
	wire        cr_rel = rx_fire && rx_eop && cur_cpl && (rx_sop ? cpl_last : cr_last_in);
	wire [4:0]  cr_tag = rx_sop ? cpl_tag : cr_tag_in;
	// what a source's read would reserve, and whether it fits now
	reg  [NSRC-1:0] s_rd, s_fits;
	reg  [RES_W-1:0] need_h [0:NSRC-1];
	reg  [RES_W-1:0] need_d [0:NSRC-1];
	integer    u;
	reg  [12:0] nb, nh, nd;
	reg  [5:0]  na;
	always @(*) begin
		for (u = 0; u < NSRC; u = u + 1) begin
			s_rd[u] = src_valid[u] && src_sop[u] && !src_hdr[u][30] &&
				  src_hdr[u][28:24] == `TLP_TYPE_MEM;
			nb = {src_hdr[u][9:0] == 10'd0, src_hdr[u][9:0], 2'b00};
			na = src_hdr[u][29] ? src_hdr[u][101:96] : src_hdr[u][69:64];
			nh = ({7'd0, na} + nb + 13'd63) >> 6;
			nd = ({9'd0, na[3:0]} + nb + 13'd15) >> 4;
			need_h[u] = nh[RES_W-1:0];
			need_d[u] = nd[RES_W-1:0];
			s_fits[u] = {4'd0, need_h[u]} <= CPLH_CREDITS - used_h &&
				    {4'd0, need_d[u]} <= CPLD_CREDITS - used_d;
		end
	end

	// ---- TX: round robin over whole TLPs ------------------------------------
	reg  [2:0] grant, last_grant;
	reg        locked;
	reg  [2:0] pick, pick_w;
	reg        pick_ok, pick_w_ok;
	integer    s;
	reg  [3:0] q;
	reg        rd_wait, aside;
	// The first valid source after the last one granted. The index wraps
	// by one compare and subtract (last_grant + s < 2 * NSRC), never a
	// modulo: a `%` on an integer is a divider in synthesis. If that source
	// is a read whose completions do not fit yet (rd_wait), it keeps its
	// turn: TLPs that are not reads may go meanwhile ("aside": last_grant
	// does not move past the read), no other read does, so the space only
	// drains until the read fits, and a large read is never starved by
	// small ones.
	always @(*) begin
		pick = 3'd0; pick_ok = 1'b0; pick_w = 3'd0; pick_w_ok = 1'b0;
		for (s = NSRC; s >= 1; s = s - 1) begin
			q = {1'b0, last_grant} + s[3:0];
			if (q >= NSRC)
				q = q - NSRC;
			if (src_valid[q[2:0]]) begin
				pick = q[2:0]; pick_ok = 1'b1;
			end
			if (src_valid[q[2:0]] && !s_rd[q[2:0]]) begin
				pick_w = q[2:0]; pick_w_ok = 1'b1;
			end
		end
		rd_wait = pick_ok && s_rd[pick] && !s_fits[pick];
		if (rd_wait) begin
			pick = pick_w; pick_ok = pick_w_ok;
		end
	end
	wire [2:0] cur = locked ? grant : pick;
	assign tx_valid = locked ? src_valid[grant] : pick_ok;
	assign tx_sop   = src_sop[cur];
	assign tx_eop   = src_eop[cur];
	assign tx_hdr   = src_hdr[cur];
	assign tx_data  = src_data[cur];
	assign src_fire = (tx_valid && tx_ready) ? (6'b000001 << cur) : 6'd0;
	wire       rd_sent = tx_valid && tx_ready && !locked && s_rd[cur];
	wire [4:0] rd_tag = tx_hdr[44:40];
	always @(posedge clk) begin
		if (rst) begin
			grant <= 0; last_grant <= 0; locked <= 1'b0; tx_mid <= 1'b0; aside <= 1'b0;
		end else if (tx_valid && tx_ready) begin
			locked <= !tx_eop;
			tx_mid <= !tx_eop;
			grant <= cur;
			if (!locked)
				aside <= rd_wait;
			if (tx_eop && !(locked ? aside : rd_wait))
				last_grant <= cur;
		end
	end

	// the reservations: taken as a read goes, given back as above. What is
	// given back is added up in two steps, a channel's tags first: the
	// sum of every tag a timeout frees is too deep for one clock at
	// 250 MHz. Meanwhile the space counts as used a clock longer, which
	// is safe; a tag's reservation is cleared as it is counted, so a tag
	// used again at once starts from nothing.
	reg  [8:0] rel_ch_h [0:NCH-1];
	reg  [8:0] rel_ch_d [0:NCH-1];
	reg  [5:0] rel_c_h, rel_c_d;           // the completion's read (one tag)
	reg  [8:0] sum_h [0:NCH-1];
	reg  [8:0] sum_d [0:NCH-1];
	wire       c_rel = cr_rel && !rd_gone[cr_tag];   // (counted once if both)
	integer    t, cc;
	always @(*) begin
		for (cc = 0; cc < NCH; cc = cc + 1) begin
			sum_h[cc] = 9'd0; sum_d[cc] = 9'd0;
			for (t = 8 * cc; t < 8 * cc + 8; t = t + 1)
				if (rd_gone[t]) begin
					sum_h[cc] = sum_h[cc] + {3'd0, res_h[t]};
					sum_d[cc] = sum_d[cc] + {3'd0, res_d[t]};
				end
		end
		rel_h = {4'd0, rel_c_h}; rel_d = {4'd0, rel_c_d};
		for (cc = 0; cc < NCH; cc = cc + 1) begin
			rel_h = rel_h + {1'b0, rel_ch_h[cc]};
			rel_d = rel_d + {1'b0, rel_ch_d[cc]};
		end
	end
	always @(posedge clk) begin
		if (rst) begin
			used_h <= 0; used_d <= 0; cr_last_in <= 1'b0; cr_tag_in <= 0;
			rel_c_h <= 0; rel_c_d <= 0;
			for (t = 0; t < 32; t = t + 1) begin
				res_h[t] <= 0; res_d[t] <= 0;
			end
			for (cc = 0; cc < NCH; cc = cc + 1) begin
				rel_ch_h[cc] <= 0; rel_ch_d[cc] <= 0;
			end
		end else begin
			if (rx_fire && rx_sop) begin
				cr_last_in <= cpl_last;
				cr_tag_in <= cpl_tag;
			end
			for (cc = 0; cc < NCH; cc = cc + 1) begin
				rel_ch_h[cc] <= sum_h[cc];
				rel_ch_d[cc] <= sum_d[cc];
			end
			rel_c_h <= c_rel ? res_h[cr_tag] : 6'd0;
			rel_c_d <= c_rel ? res_d[cr_tag] : 6'd0;
			for (t = 0; t < 32; t = t + 1)
				if (rd_gone[t] || (cr_rel && cr_tag == t[4:0])) begin
					res_h[t] <= 0; res_d[t] <= 0;
				end
			if (rd_sent) begin
				res_h[rd_tag] <= need_h[cur];
				res_d[rd_tag] <= need_d[cur];
			end
			used_h <= used_h - rel_h + (rd_sent ? {4'd0, need_h[cur]} : 10'd0);
			used_d <= used_d - rel_d + (rd_sent ? {4'd0, need_d[cur]} : 10'd0);
		end
	end

	/* verilator lint_off UNUSEDSIGNAL */
	wire _unused = &{1'b0, h_lo[31:13], h_lo[1:0], r_chn[3:2], rc_urh[24], nh[12:6], nd[12:6]};
	/* verilator lint_on UNUSEDSIGNAL */

	assign quiet = ch_quiet == {NCH{1'b1}} && npq_empty && rc_st == RC_IDLE && !w2_pend && !msix_busy && !tx_mid && !eng_rst;

`ifdef FV_ENGINE
	// the proof of the engine around its channels (rtl/formal/run.sh)
`include "engine_props.vh"
`endif
endmodule
