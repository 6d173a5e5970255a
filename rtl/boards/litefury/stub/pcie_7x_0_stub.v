// SPDX-License-Identifier: MIT
// A black box with the ports of the pcie_7x_0 core that create_project.tcl
// generates (7-series Integrated Block for PCI Express, PG054, v3.3; 64-bit
// AXI4-Stream interface; clocking and GT_COMMON kept inside the core, no
// PCIe DRP or transceiver debug ports, every optional interface on). It
// exists so that the top lints with Verilator and synthesizes with Yosys
// without Vivado: it has no behaviour, and Vivado never reads it (it uses
// the generated core). Written from the port tables of PG054, checked
// against port lists that Vivado generated for this core in public
// projects (README.md, "What was checked"). After generating the core,
// compare this file with the pcie_7x_0_stub.v that Vivado writes beside it.
//
// The lane count is fixed when the core is generated, so it is a macro
// here, not a parameter: the real core has no parameter to set.
`ifndef PCIE_LANES
`define PCIE_LANES 1
`endif
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off UNUSEDSIGNAL */
(* black_box *)
module pcie_7x_0 (
	// serial lanes and system inputs
	output wire [`PCIE_LANES-1:0] pci_exp_txp,
	output wire [`PCIE_LANES-1:0] pci_exp_txn,
	input  wire [`PCIE_LANES-1:0] pci_exp_rxp,
	input  wire [`PCIE_LANES-1:0] pci_exp_rxn,
	input  wire         sys_clk,               // 100 MHz from IBUFDS_GTE2
	input  wire         sys_rst_n,             // PERST#
	// common
	output wire         user_clk_out,
	output wire         user_reset_out,
	output wire         user_lnk_up,
	output wire         user_app_rdy,
	// transmit
	output wire [5:0]   tx_buf_av,
	output wire         tx_cfg_req,
	output wire         tx_err_drop,
	output wire         s_axis_tx_tready,
	input  wire [63:0]  s_axis_tx_tdata,
	input  wire [7:0]   s_axis_tx_tkeep,
	input  wire         s_axis_tx_tlast,
	input  wire         s_axis_tx_tvalid,
	input  wire [3:0]   s_axis_tx_tuser,
	input  wire         tx_cfg_gnt,
	// receive
	output wire [63:0]  m_axis_rx_tdata,
	output wire [7:0]   m_axis_rx_tkeep,
	output wire         m_axis_rx_tlast,
	output wire         m_axis_rx_tvalid,
	input  wire         m_axis_rx_tready,
	output wire [21:0]  m_axis_rx_tuser,
	input  wire         rx_np_ok,
	input  wire         rx_np_req,
	// flow control
	output wire [11:0]  fc_cpld,
	output wire [7:0]   fc_cplh,
	output wire [11:0]  fc_npd,
	output wire [7:0]   fc_nph,
	output wire [11:0]  fc_pd,
	output wire [7:0]   fc_ph,
	input  wire [2:0]   fc_sel,
	// configuration space: status
	output wire [31:0]  cfg_mgmt_do,
	output wire         cfg_mgmt_rd_wr_done,
	output wire [15:0]  cfg_status,
	output wire [15:0]  cfg_command,
	output wire [15:0]  cfg_dstatus,
	output wire [15:0]  cfg_dcommand,
	output wire [15:0]  cfg_lstatus,
	output wire [15:0]  cfg_lcommand,
	output wire [15:0]  cfg_dcommand2,
	output wire [2:0]   cfg_pcie_link_state,
	output wire         cfg_pmcsr_pme_en,
	output wire [1:0]   cfg_pmcsr_powerstate,
	output wire         cfg_pmcsr_pme_status,
	output wire         cfg_received_func_lvl_rst,
	// configuration space: management (user access)
	input  wire [31:0]  cfg_mgmt_di,
	input  wire [3:0]   cfg_mgmt_byte_en,
	input  wire [9:0]   cfg_mgmt_dwaddr,
	input  wire         cfg_mgmt_wr_en,
	input  wire         cfg_mgmt_rd_en,
	input  wire         cfg_mgmt_wr_readonly,
	input  wire         cfg_mgmt_wr_rw1c_as_rw,
	// error reporting
	input  wire         cfg_err_ecrc,
	input  wire         cfg_err_ur,
	input  wire         cfg_err_cpl_timeout,
	input  wire         cfg_err_cpl_unexpect,
	input  wire         cfg_err_cpl_abort,
	input  wire         cfg_err_posted,
	input  wire         cfg_err_cor,
	input  wire         cfg_err_atomic_egress_blocked,
	input  wire         cfg_err_internal_cor,
	input  wire         cfg_err_malformed,
	input  wire         cfg_err_mc_blocked,
	input  wire         cfg_err_poisoned,
	input  wire         cfg_err_norecovery,
	input  wire [47:0]  cfg_err_tlp_cpl_header,
	output wire         cfg_err_cpl_rdy,
	input  wire         cfg_err_locked,
	input  wire         cfg_err_acs,
	input  wire         cfg_err_internal_uncor,
	// control
	input  wire         cfg_trn_pending,
	input  wire         cfg_pm_halt_aspm_l0s,
	input  wire         cfg_pm_halt_aspm_l1,
	input  wire         cfg_pm_force_state_en,
	input  wire [1:0]   cfg_pm_force_state,
	input  wire [63:0]  cfg_dsn,
	// interrupts
	input  wire         cfg_interrupt,
	output wire         cfg_interrupt_rdy,
	input  wire         cfg_interrupt_assert,
	input  wire [7:0]   cfg_interrupt_di,
	output wire [7:0]   cfg_interrupt_do,
	output wire [2:0]   cfg_interrupt_mmenable,
	output wire         cfg_interrupt_msienable,
	output wire         cfg_interrupt_msixenable,
	output wire         cfg_interrupt_msixfm,
	input  wire         cfg_interrupt_stat,
	input  wire [4:0]   cfg_pciecap_interrupt_msgnum,
	// power management, identity
	output wire         cfg_to_turnoff,
	input  wire         cfg_turnoff_ok,
	output wire [7:0]   cfg_bus_number,
	output wire [4:0]   cfg_device_number,
	output wire [2:0]   cfg_function_number,
	input  wire         cfg_pm_wake,
	input  wire         cfg_pm_send_pme_to,
	input  wire [7:0]   cfg_ds_bus_number,
	input  wire [4:0]   cfg_ds_device_number,
	input  wire [2:0]   cfg_ds_function_number,
	// messages received; root port status
	output wire         cfg_msg_received,
	output wire [15:0]  cfg_msg_data,
	output wire         cfg_bridge_serr_en,
	output wire         cfg_slot_control_electromech_il_ctl_pulse,
	output wire         cfg_root_control_syserr_corr_err_en,
	output wire         cfg_root_control_syserr_non_fatal_err_en,
	output wire         cfg_root_control_syserr_fatal_err_en,
	output wire         cfg_root_control_pme_int_en,
	output wire         cfg_aer_rooterr_corr_err_reporting_en,
	output wire         cfg_aer_rooterr_non_fatal_err_reporting_en,
	output wire         cfg_aer_rooterr_fatal_err_reporting_en,
	output wire         cfg_aer_rooterr_corr_err_received,
	output wire         cfg_aer_rooterr_non_fatal_err_received,
	output wire         cfg_aer_rooterr_fatal_err_received,
	output wire         cfg_msg_received_err_cor,
	output wire         cfg_msg_received_err_non_fatal,
	output wire         cfg_msg_received_err_fatal,
	output wire         cfg_msg_received_pm_as_nak,
	output wire         cfg_msg_received_pm_pme,
	output wire         cfg_msg_received_pme_to_ack,
	output wire         cfg_msg_received_assert_int_a,
	output wire         cfg_msg_received_assert_int_b,
	output wire         cfg_msg_received_assert_int_c,
	output wire         cfg_msg_received_assert_int_d,
	output wire         cfg_msg_received_deassert_int_a,
	output wire         cfg_msg_received_deassert_int_b,
	output wire         cfg_msg_received_deassert_int_c,
	output wire         cfg_msg_received_deassert_int_d,
	output wire         cfg_msg_received_setslotpowerlimit,
	// physical layer
	input  wire [1:0]   pl_directed_link_change,
	input  wire [1:0]   pl_directed_link_width,
	input  wire         pl_directed_link_speed,
	input  wire         pl_directed_link_auton,
	input  wire         pl_upstream_prefer_deemph,
	output wire         pl_sel_lnk_rate,
	output wire [1:0]   pl_sel_lnk_width,
	output wire [5:0]   pl_ltssm_state,
	output wire [1:0]   pl_lane_reversal_mode,
	output wire         pl_phy_lnk_up,
	output wire [2:0]   pl_tx_pm_state,
	output wire [1:0]   pl_rx_pm_state,
	output wire         pl_link_upcfg_cap,
	output wire         pl_link_gen2_cap,
	output wire         pl_link_partner_gen2_supported,
	output wire [2:0]   pl_initial_link_width,
	output wire         pl_directed_change_done,
	output wire         pl_received_hot_rst,
	input  wire         pl_transmit_hot_rst,
	input  wire         pl_downstream_deemph_source,
	// advanced error reporting
	input  wire [127:0] cfg_err_aer_headerlog,
	input  wire [4:0]   cfg_aer_interrupt_msgnum,
	output wire         cfg_err_aer_headerlog_set,
	output wire         cfg_aer_ecrc_check_en,
	output wire         cfg_aer_ecrc_gen_en,
	// virtual channels
	output wire [6:0]   cfg_vc_tcvc_map
);
endmodule
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNDRIVEN */
/* verilator lint_on DECLFILENAME */
