/* SPDX-License-Identifier: GPL-2.0-only */
/* Sub-commands; each returns a process exit code (see exitcode.h). */
#ifndef JOBMIX_CLI_H
#define JOBMIX_CLI_H

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_reaim(int argc, char **argv);

#endif
