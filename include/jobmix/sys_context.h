/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a run's numbers depend on beyond the kernel and the file system: the
 * CPU model, the CPUs online and the CPUs the users may run on (affinity,
 * cpuset: a run under `taskset -c 0` is a one-CPU run), frequency governor
 * and boost, SMT, transparent huge pages, memory and swap, the kernel
 * command line, the hypervisor, and how jobmix was built.  Captured once a
 * run, before its first point; reads only; what cannot be learnt is ""/0.
 */
#ifndef JOBMIX_SYS_CONTEXT_H
#define JOBMIX_SYS_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#define SYS_CTX_STR 256

struct sys_context {
	char cpu_model[SYS_CTX_STR];     /* /proc/cpuinfo "model name" (or "Processor", "cpu model") */
	unsigned cpus_online;
	unsigned cpus_allowed;           /* sched_getaffinity of this process, which users inherit */
	char cpus_allowed_list[SYS_CTX_STR]; /* "0-3,8" */
	char governor[64];               /* cpu0's scaling_governor, "" without cpufreq */
	char boost[16];                  /* "on" / "off" / "" (cpufreq/boost or intel_pstate/no_turbo) */
	char smt[16];                    /* "on" / "off" / "" (smt/active) */
	char thp[32];                    /* the bracketed mode of transparent_hugepage/enabled */
	char thp_defrag[32];
	uint64_t mem_bytes, swap_bytes;
	char cmdline[1024];              /* /proc/cmdline */
	char virt[64];                   /* hypervisor: cpuid's vendor ("KVMKVMKVM" as "kvm"), /sys/hypervisor, or "none" */
	char build[SYS_CTX_STR];         /* the compiler and flags jobmix was built with */
};

void sys_context_capture(struct sys_context *c);

/* Pure helpers (tested alone). */
/* "a b [c] d" -> "c"; "" when nothing is bracketed. */
void sys_ctx_bracketed(const char *text, char *out, size_t len);
/* A CPU set (bits 0..n-1 of `set`, CPU_SETSIZE wide) as "0-3,8". */
void sys_ctx_cpu_list(const unsigned char *set, size_t nbits, char *out, size_t len);
/* The "model name" of a /proc/cpuinfo text. */
void sys_ctx_cpu_model(const char *cpuinfo, char *out, size_t len);
/*
 * Mount options with the access-time mode said: the kernel lists relatime
 * or noatime for every mount but a strictatime one, so options naming
 * neither ("rw" alone) gain ",strictatime".
 */
void sys_ctx_atime(const char *options, char *out, size_t len);

#endif
