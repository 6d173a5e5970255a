// SPDX-License-Identifier: MIT
// TLP headers at the engine's generic edge. A header is four DWs, DW0 in
// bits 31:0, each DW laid out as the PCIe spec draws it (byte 0 of the TLP in
// bits 31:24 of DW0). Memory requests below 4 GiB use the 3DW format, as the
// spec requires; above, the 4DW one (DW3 then unused or the low address).
// Included inside each module that builds TLPs (Verilog-2005 has no packages).

// memory read or write request: dws payload DWs (1..1024; 1024 encodes as 0)
function [127:0] tlp_mem;
	input        wr;
	/* verilator lint_off UNUSEDSIGNAL */
	input [63:0] addr;          // DW aligned: bits 1:0 are 0
	/* verilator lint_on UNUSEDSIGNAL */
	input [10:0] dws;
	input [15:0] rid;
	input [7:0]  tg;
	reg   [3:0]  lbe;
	reg          is4;
	begin
		is4 = addr[63:32] != 32'd0;
		lbe = dws == 11'd1 ? 4'h0 : 4'hf;
		tlp_mem[31:0]   = {1'b0, wr, is4, `TLP_TYPE_MEM, 8'h00, 6'b000000, dws[9:0]};
		// posted writes may not go out as Relaxed Ordering: attr stays 0
		tlp_mem[63:32]  = {rid, tg, lbe, 4'hf};
		tlp_mem[95:64]  = is4 ? addr[63:32] : {addr[31:2], 2'b00};
		tlp_mem[127:96] = is4 ? {addr[31:2], 2'b00} : 32'd0;
	end
endfunction

// completion (with one data DW when st is SC and dws is 1); tc and attr
// ({ID-based ordering, relaxed ordering, no snoop}) are the request's
function [127:0] tlp_cpl;
	input [2:0]  cst;
	input [2:0]  tc;
	input [2:0]  attr;
	input [10:0] dws;
	input [11:0] byte_count;
	input [15:0] cpl_id;
	input [15:0] rid;
	input [7:0]  tg;
	input [6:0]  lower_addr;
	begin
		tlp_cpl[31:0]   = {1'b0, dws != 11'd0, 1'b0, `TLP_TYPE_CPL, 1'b0, tc, 1'b0, attr[2],
				   4'b0000, attr[1:0], 2'b00, dws[9:0]};
		tlp_cpl[63:32]  = {cpl_id, cst, 1'b0, byte_count};
		tlp_cpl[95:64]  = {rid, tg, 1'b0, lower_addr};
		tlp_cpl[127:96] = 32'd0;
	end
endfunction

