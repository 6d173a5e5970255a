// SPDX-License-Identifier: MIT
// MSI-X table and PBA (in BAR0 at `MSIX_TABLE_OFF and `MSIX_PBA_OFF) and the
// message writer. A channel asks for its vector and is answered at once:
// the message goes out, or, while the vector or the function is masked or
// the engine may not master the bus, its pending bit is set and the message
// goes out when that changes (PCIe's MSI-X rules).
`include "fdma_defs.vh"

module fdma_msix #(
	parameter NVEC = 16,        // table entries (<= 32)
	parameter NREQ = 4          // requesters
) (
	input  wire            clk,
	input  wire            rst,
	input  wire            msix_en,      // MSI-X Enable in the capability
	input  wire            func_mask,    // Function Mask in the capability
	input  wire            en,           // the engine may master the bus
	input  wire [15:0]     req_id,
	// table and PBA accesses (offset within BAR0)
	input  wire            reg_we,
	input  wire [12:2]     reg_wa,
	input  wire [31:0]     reg_wd,
	input  wire [12:2]     reg_ra,
	output reg  [31:0]     reg_rd,
	// requests: one vector each
	input  wire [NREQ-1:0]   req,
	input  wire [4*NREQ-1:0] vec,
	output reg  [NREQ-1:0]   ack,
	// message writes
	output wire            tx_valid,
	input  wire            tx_ready,
	output wire [127:0]    tx_hdr,
	output wire [63:0]     tx_data,
	output wire            busy
);
	`include "fdma_tlp.vh"
	reg [31:0] t_lo [0:NVEC-1];
	reg [31:0] t_hi [0:NVEC-1];
	reg [31:0] t_dat [0:NVEC-1];
	reg [NVEC-1:0] t_mask, pend;
	reg        sending;
	reg [4:0]  sv;                  // vector being sent

	wire       deliver = msix_en && !func_mask && en;
	// lowest pending vector that may go now
	reg  [4:0] pv;
	reg        pv_ok;
	integer k;
	always @(*) begin
		pv = 5'd0; pv_ok = 1'b0;
		for (k = NVEC - 1; k >= 0; k = k - 1)
			if (pend[k] && !t_mask[k]) begin
				pv = k[4:0]; pv_ok = deliver;
			end
	end

	wire [12:0] ra = {reg_ra, 2'b00};
	wire [12:0] wa = {reg_wa, 2'b00};
	wire [4:0]  rent = ra[8:4];
	wire [4:0]  went = wa[8:4];
	always @(*) begin
		reg_rd = 32'd0;
		if (ra >= `MSIX_PBA_OFF)
			reg_rd = ra[12:2] == (`MSIX_PBA_OFF >> 2) ? {{(32-NVEC){1'b0}}, pend} : 32'd0;
		else if (rent < NVEC)
			case (ra[3:2])
			2'd0: reg_rd = t_lo[rent];
			2'd1: reg_rd = t_hi[rent];
			2'd2: reg_rd = t_dat[rent];
			default: reg_rd = {31'd0, t_mask[rent]};
			endcase
	end

	assign tx_valid = sending;
	assign tx_hdr   = tlp_mem(1'b1, {t_hi[sv], t_lo[sv]}, 11'd1, req_id, 8'd0);
	assign tx_data  = {32'd0, t_dat[sv]};
	assign busy     = sending;

	integer j;
	reg     took;
	always @(posedge clk) begin
		if (rst) begin
			for (j = 0; j < NVEC; j = j + 1) begin
				t_lo[j] <= 0; t_hi[j] <= 0; t_dat[j] <= 0;
			end
			t_mask <= {NVEC{1'b1}};
			pend <= 0; sending <= 1'b0; sv <= 0; ack <= 0;
		end else begin
			ack <= 0;
			if (reg_we && wa < `MSIX_PBA_OFF && went < NVEC)
				case (wa[3:2])
				2'd0: t_lo[went] <= {reg_wd[31:2], 2'b00};
				2'd1: t_hi[went] <= reg_wd;
				2'd2: t_dat[went] <= reg_wd;
				default: t_mask[went] <= reg_wd[0];
				endcase
			if (sending && tx_ready)
				sending <= 1'b0;
			// requests become pending bits; the sender takes them in vector order
			took = 1'b0;
			for (j = 0; j < NREQ; j = j + 1)
				if (req[j] && !ack[j] && !took) begin
					pend[vec[4*j +: 4]] <= 1'b1;
					ack[j] <= 1'b1;
					took = 1'b1;
				end
			if (!sending && pv_ok && !(took && 1'b0)) begin
				sending <= 1'b1;
				sv <= pv;
				pend[pv] <= 1'b0;
			end
		end
	end
endmodule
