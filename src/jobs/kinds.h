/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one list of job kinds.  Each X(name) refers to
 * `const struct job_kind job_<name>` defined in the family's file.
 * The registry, `jobmix jobs`, docs/jobs.md's table and the smoke test are
 * all generated from this list; order here is the order they show.
 */
#ifndef JOBMIX_KINDS_H
#define JOBMIX_KINDS_H

/* metadata jobs: src/jobs/fs.c */
#define JOB_KINDS_FS(X) X(creat_clo) X(link_test)

/* AIM7 disk jobs: src/jobs/disk.c, src/jobs/disk_src.c */
#define JOB_KINDS_DISK(X) X(disk_rr) X(disk_rw) X(disk_rd) X(disk_wrt) X(disk_cp) \
	X(disk_brr) X(disk_brw) X(disk_brd) X(disk_bwrt) X(disk_bcp) \
	X(disk_dio_rr) X(disk_dio_rw) X(disk_dio_rd) X(disk_dio_wrt) X(disk_dio_cp) \
	X(sync_disk_rw) X(sync_disk_wrt) X(sync_disk_cp) X(sync_disk_update) X(disk_src)

/* AIM7 compute and library jobs: src/jobs/arith.c, calls.c, math.c, libc.c */
#define JOB_KINDS_COMPUTE(X) \
	X(add_double) X(add_float) X(add_long) X(add_int) X(add_short) \
	X(mul_double) X(mul_float) X(mul_long) X(mul_int) X(mul_short) \
	X(div_double) X(div_float) X(div_long) X(div_int) X(div_short) \
	X(fun_cal) X(fun_cal1) X(fun_cal2) X(fun_cal15) \
	X(sieve) X(num_rtns_1) X(trig_rtns) X(series_1) X(new_raph) X(matrix_rtns) X(array_rtns) \
	X(string_rtns) X(mem_rtns_1) X(mem_rtns_2) X(ram_copy) X(sort_rtns_1) X(misc_rtns_1) \
	X(dir_rtns_1)

/* AIM7 IPC, process and memory jobs: src/jobs/ipc.c, net.c, proc.c, heap.c */
#define JOB_KINDS_SYS(X) X(pipe_cpy) X(stream_pipe) X(dgram_pipe) X(fifo_test) X(tcp_test) X(udp_test) X(shared_memory) X(fork_test) X(exec_test) X(shell_rtns_1) X(shell_rtns_2) X(shell_rtns_3) X(page_test) X(brk_test) X(jmp_test) X(signal_test)

/* parametrised I/O patterns: src/jobs/fileio.c, seqread.c, streams.c */
#define JOB_KINDS_IO(X) X(fileio) X(seqread) X(streams)

/* ---- the list ---- */

#define JOB_KINDS(X) \
	JOB_KINDS_DISK(X) \
	JOB_KINDS_FS(X) \
	JOB_KINDS_COMPUTE(X) \
	JOB_KINDS_SYS(X) \
	JOB_KINDS_IO(X)

#endif
