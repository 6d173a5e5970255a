// SPDX-License-Identifier: MIT
// Stand-ins for the channel and the MSI-X block in the proof of the engine
// around them (rtl/formal/engine_props.vh): the same parameters and ports,
// every output free, so the engine's own logic (register decode, the
// non-posted queue, completion routing, the TX arbiter, the completion
// space) is proved against anything a channel may do. What a channel
// promises its engine (whole TLPs, reads with its own free tags) is
// assumed in engine_props.vh; the channel's own proofs (fdma_chan.v)
// show those promises. A register read returns a value that names the
// block and the register, so the proof sees which one answered.
module fdma_chan #(
	parameter        CH = 0,
	parameter        C2H = 0,
	parameter        STREAM = 0,
	parameter        TESTGEN = 0,
	parameter        ALIGN_LOG2 = 6,
	parameter [63:0] CARD_BYTES = 64'h0100_0000,
	parameter        CARD_AW = 21,
	parameter        RING_MAX_LOG2 = 12,
	parameter        NSLOT = 7,
	parameter        MAX_RD_LOG2 = 9,
	parameter        MAX_WR_LOG2 = 8,
	parameter        CARD_RD_LOG2 = 3
) (
	input  wire         clk,
	input  wire         rst,
	input  wire         en,
	input  wire         eng_rst,
	output wire         eng_rst_done,
	input  wire         us_tick,
	input  wire         to_tick,
	input  wire [63:0]  now_ns,
	input  wire [15:0]  req_id,
	input  wire [2:0]   mps_code,
	input  wire [2:0]   mrrs_code,
	input  wire [31:0]  max_desc_len,
	input  wire         reg_we,
	input  wire [6:2]   reg_wa,
	input  wire [31:0]  reg_wd,
	input  wire [6:2]   reg_ra,
	output wire [31:0]  reg_rd,
	output wire         tx_valid,
	input  wire         tx_ready,
	output wire         tx_sop,
	output wire         tx_eop,
	output wire [127:0] tx_hdr,
	output wire [63:0]  tx_data,
	input  wire         cpl_valid,
	input  wire         cpl_sop,
	input  wire         cpl_eop,
	input  wire [127:0] cpl_hdr,
	input  wire [63:0]  cpl_data,
	output wire         irq_req,
	output wire [3:0]   irq_vec,
	input  wire         irq_ack,
	output wire         card_we,
	output wire [CARD_AW-1:0] card_wa,
	output wire [63:0]  card_wd,
	input  wire         card_wready,
	input  wire         card_wbusy,
	output wire         card_re,
	output wire [CARD_AW-1:0] card_ra,
	input  wire         card_rready,
	input  wire         card_rvalid,
	input  wire [63:0]  card_rd,
	output wire         m_valid,
	input  wire         m_ready,
	output wire [63:0]  m_data,
	output wire [7:0]   m_keep,
	output wire         m_sof,
	output wire         m_last,
	output wire         m_abort,
	input  wire         s_valid,
	output wire         s_ready,
	input  wire [63:0]  s_data,
	input  wire [7:0]   s_keep,
	input  wire         s_last,
	output wire [7:0]   rd_gone,
	output wire         ev_timeout,
	output wire         ev_unexpect,
	output wire         ev_poisoned,
	output wire         busy,
	output wire         quiet
);
	localparam [1:0] CHB = CH;
	(* anyseq *) wire f_tx_valid, f_tx_sop, f_tx_eop, f_irq_req, f_card_we, f_card_re;
	(* anyseq *) wire f_m_valid, f_m_sof, f_m_last, f_m_abort, f_s_ready, f_busy, f_quiet;
	(* anyseq *) wire f_eng_rst_done, f_ev_timeout, f_ev_unexpect, f_ev_poisoned;
	(* anyseq *) wire [127:0] f_tx_hdr;
	(* anyseq *) wire [63:0] f_tx_data, f_card_wd, f_m_data;
	(* anyseq *) wire [CARD_AW-1:0] f_card_wa, f_card_ra;
	(* anyseq *) wire [7:0] f_rd_gone, f_m_keep;
	(* anyseq *) wire [3:0] f_irq_vec;
	assign reg_rd = {4'hc, CHB, 21'd0, reg_ra};
	assign tx_valid = f_tx_valid; assign tx_sop = f_tx_sop; assign tx_eop = f_tx_eop;
	assign tx_hdr = f_tx_hdr; assign tx_data = f_tx_data;
	assign irq_req = f_irq_req; assign irq_vec = f_irq_vec;
	assign card_we = f_card_we; assign card_wa = f_card_wa; assign card_wd = f_card_wd;
	assign card_re = f_card_re; assign card_ra = f_card_ra;
	assign m_valid = f_m_valid; assign m_data = f_m_data; assign m_keep = f_m_keep;
	assign m_sof = f_m_sof; assign m_last = f_m_last; assign m_abort = f_m_abort;
	assign s_ready = f_s_ready; assign rd_gone = f_rd_gone;
	assign ev_timeout = f_ev_timeout; assign ev_unexpect = f_ev_unexpect;
	assign ev_poisoned = f_ev_poisoned; assign busy = f_busy; assign quiet = f_quiet;
	assign eng_rst_done = f_eng_rst_done;
	wire _unused = &{1'b0, clk, rst, en, eng_rst, us_tick, to_tick, now_ns, req_id, mps_code,
			 mrrs_code, max_desc_len, reg_we, reg_wa, reg_wd, tx_ready, cpl_valid, cpl_sop,
			 cpl_eop, cpl_hdr, cpl_data, irq_ack, card_wready, card_wbusy, card_rready,
			 card_rvalid, card_rd, m_ready, s_valid, s_data, s_keep, s_last};
endmodule

module fdma_msix #(
	parameter NREQ = 4
) (
	input  wire            clk,
	input  wire            rst,
	input  wire            msix_en,
	input  wire            func_mask,
	input  wire            en,
	input  wire            msi_en,
	input  wire [2:0]      msi_mm,
	input  wire [15:0]     req_id,
	input  wire            reg_we,
	input  wire [12:2]     reg_wa,
	input  wire [31:0]     reg_wd,
	input  wire [12:2]     reg_ra,
	output wire [31:0]     reg_rd,
	input  wire [NREQ-1:0]   req,
	input  wire [4*NREQ-1:0] vec,
	output wire [NREQ-1:0]   ack,
	output wire            tx_valid,
	input  wire            tx_ready,
	output wire [127:0]    tx_hdr,
	output wire [63:0]     tx_data,
	output wire            msi_req,
	output wire [4:0]      msi_num,
	input  wire            msi_ack,
	output wire            busy
);
	(* anyseq *) wire f_tx_valid, f_msi_req, f_busy;
	(* anyseq *) wire [127:0] f_tx_hdr;
	(* anyseq *) wire [63:0] f_tx_data;
	(* anyseq *) wire [NREQ-1:0] f_ack;
	(* anyseq *) wire [4:0] f_msi_num;
	assign reg_rd = {8'ha5, 13'd0, reg_ra};
	assign tx_valid = f_tx_valid; assign tx_hdr = f_tx_hdr; assign tx_data = f_tx_data;
	assign msi_req = f_msi_req; assign msi_num = f_msi_num; assign busy = f_busy;
	assign ack = f_ack;
	wire _unused = &{1'b0, clk, rst, msix_en, func_mask, en, msi_en, msi_mm, req_id, reg_we,
			 reg_wa, reg_wd, req, vec, tx_ready, msi_ack};
endmodule
