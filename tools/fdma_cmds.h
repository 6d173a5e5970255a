/* SPDX-License-Identifier: MIT */
/*
 * fdma_cmds.h - subcommands of the fdma tool. Each takes the arguments
 * after "fdma" (argv[0] is the subcommand's name) and returns the
 * process exit status.
 */
#ifndef FDMA_CMDS_H
#define FDMA_CMDS_H

/* fdma model: print the PCIe link model's computed ceilings; 0, or 2 on a
 * usage error */
int fdma_cmd_model(int argc, char **argv);

int fdma_cmd_info(int argc, char **argv);
int fdma_cmd_bench(int argc, char **argv);
int fdma_cmd_stream(int argc, char **argv);
/* fdma loop: frames out of an H2C stream channel and back in on a C2H one */
int fdma_cmd_loop(int argc, char **argv);
/* fdma play: frames from a file to an H2C stream channel (also stream --dir h2c) */
int fdma_cmd_play(int argc, char **argv);
/* fdma dump / load: card memory to a file and back */
int fdma_cmd_dump(int argc, char **argv);
int fdma_cmd_load(int argc, char **argv);
/* fdma doctor: check the system and its FDMA devices; 0 no fail, 1 a fail,
 * 2 usage error */
int fdma_cmd_doctor(int argc, char **argv);
/* fdma reg: read or write one device register; 0, 1 refused or failed, 2 usage */
int fdma_cmd_reg(int argc, char **argv);
/* fdma soak: transfers for hours, sampled, with a verdict; 0 pass, 1 fail, 2 usage */
int fdma_cmd_soak(int argc, char **argv);
/* fdma plot: an SVG figure of JSON rows; 0, 1 nothing to draw or a file error, 2 usage */
int fdma_cmd_plot(int argc, char **argv);

#endif /* FDMA_CMDS_H */
