// SPDX-License-Identifier: MIT
// Register offsets and bit numbers of the FDMA engine (docs/engine.md); the
// same facts as engine/fdma_regs.h, which is the machine-readable original.
`ifndef FDMA_DEFS_VH
`define FDMA_DEFS_VH

`define FDMA_ID_MAGIC      32'h46444d41
`define FDMA_VERSION       32'h00010003   // 1.3: H2C byte streams; no MEM2MEM channels (1.2)

// global block (byte offsets)
`define R_ID               12'h000
`define R_VERSION          12'h004
`define R_CAPS             12'h008
`define R_MAX_DESC_LEN     12'h00c
`define R_CARD_SIZE_LO     12'h010
`define R_CARD_SIZE_HI     12'h014
`define R_RING_MAX         12'h018
`define R_CTRL             12'h020
`define R_STATUS           12'h024
`define R_RESET_REQ        12'h028
`define R_RESET_ACK        12'h02c

// per-channel block: offset within CH_BASE(ch) = 0x100 + ch * 0x80
`define C_CAPS             7'h00
`define C_CTRL             7'h04
`define C_STATUS           7'h08
`define C_STATUS_W1C       7'h0c
`define C_RING_LO          7'h10
`define C_RING_HI          7'h14
`define C_RING_SIZE        7'h18
`define C_CPL_LO           7'h20
`define C_CPL_HI           7'h24
`define C_WB_LO            7'h28
`define C_WB_HI            7'h2c
`define C_PIDX             7'h30
`define C_CIDX             7'h34
`define C_COAL_COUNT       7'h38
`define C_COAL_USECS       7'h3c
`define C_IRQ_VEC          7'h40
`define C_RESET_REQ        7'h44
`define C_RESET_ACK        7'h48
`define C_ERR_IDX          7'h4c
`define C_TG_FRAME_LEN     7'h50
`define C_TG_PERIOD_NS     7'h54
`define C_TG_CTRL          7'h58
`define C_TG_FRAMES        7'h5c
`define C_TG_ERRORS        7'h60
`define C_OVERRUNS         7'h64
`define C_IRQS             7'h68

// CH_CTRL bits
`define CTRL_RUN           0
`define CTRL_IRQ_EN        1
`define CTRL_DROP          2

// CH_STATUS bits
`define ST_RUNNING         0
`define ST_HALTED          1
`define ST_IDLE            2
`define ST_STOPPED         3
`define ST_DESC_ERR        8
`define ST_ADDR_ERR        9
`define ST_DATA_ERR        10
`define ST_ALIGN_ERR       11
`define ST_RANGE_ERR       12
`define ST_LEN_ERR         13
`define ST_OVERRUN         14

// descriptor ctrl bits
`define D_IRQ              0
`define D_SOF              1
`define D_EOF              2
`define D_STOP             3

// completion status values and flags
`define CPL_OK             16'd0
`define CPL_DESC_ERR       16'd1
`define CPL_ADDR_ERR       16'd2
`define CPL_DATA_ERR       16'd3
`define CPL_ALIGN_ERR      16'd4
`define CPL_RANGE_ERR      16'd5
`define CPL_LEN_ERR        16'd6
`define CPL_F_SOF          0
`define CPL_F_EOF          1
`define CPL_F_OVERRUN      2

`define FRAME_MAGIC        32'h304d5246

// MSI-X table and PBA in BAR0, outside the 4 KiB register file
`define MSIX_TABLE_OFF     13'h1000
`define MSIX_PBA_OFF       13'h1800

// TLP formats and types (PCIe Base Specification, header DW0)
`define TLP_FMT_3DW_ND     3'b000
`define TLP_FMT_4DW_ND     3'b001
`define TLP_FMT_3DW_D      3'b010
`define TLP_FMT_4DW_D      3'b011
`define TLP_TYPE_MEM       5'b00000
`define TLP_TYPE_CPL       5'b01010

`define CPL_SC             3'b000
`define CPL_UR             3'b001
`define CPL_CA             3'b100

`endif
