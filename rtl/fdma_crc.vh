// SPDX-License-Identifier: MIT
// CRC-32 of IEEE 802.3 as zlib computes it (reflected polynomial 0xEDB88320;
// the caller starts from 0xFFFFFFFF and inverts at the end). Bytes are taken
// least significant first, bits least significant first, so a 64-bit word
// is eight bytes of memory in little-endian order. Unrolled, these become
// XOR trees: one word or one byte per clock.
// Included inside each module that uses it.

function [31:0] crc32_d64;
	input [31:0] crc;
	input [63:0] d;
	integer i;
	reg [31:0] c;
	begin
		c = crc;
		for (i = 0; i < 64; i = i + 1)
			c = (c >> 1) ^ ((c[0] ^ d[i]) ? 32'hedb88320 : 32'h0);
		crc32_d64 = c;
	end
endfunction

function [31:0] crc32_d8;
	input [31:0] crc;
	input [7:0]  d;
	integer i;
	reg [31:0] c;
	begin
		c = crc;
		for (i = 0; i < 8; i = i + 1)
			c = (c >> 1) ^ ((c[0] ^ d[i]) ? 32'hedb88320 : 32'h0);
		crc32_d8 = c;
	end
endfunction

