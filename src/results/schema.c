// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run.json schema, declared once: one row per key of each record, and
 * the two walks over those rows that turn a record into JSON and JSON back
 * into a record.  The writer and the reader use nothing else for these keys.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/escape.h"
#include "jobmix/intern.h"
#include "jobmix/results.h"
#include "schema.h"

#define FC(rec, key, type, member, since, csv, doc) \
	{ key, type, offsetof(struct rec, member), sizeof(((struct rec *)0)->member), since, doc, csv }
#define F(rec, key, type, member, since, doc) FC(rec, key, type, member, since, NULL, doc)

const struct res_field res_run_fields[] = {
	F(res_rec, "status", RF_STATUS, status, 1, "running | complete | interrupted | failed"),
	F(res_rec, "started", RF_ISTR, started, 1, "ISO-8601 UTC time the run began"),
	F(res_rec, "finished", RF_ISTR, finished, 1, "ISO-8601 UTC time it ended; null while running"),
	F(res_rec, "workload.name", RF_ISTR, wl_name, 1, "the workload's name"),
	F(res_rec, "workload.path", RF_ISTR, wl_path, 1,
	  "the workload file read: as given, or where its name was found"),
	F(res_rec, "workload.found", RF_ISTR, wl_found, 3,
	  "how it was found: path (given as one) | cwd (./NAME.yaml) | config "
	  "($XDG_CONFIG_HOME/jobmix/workloads) | shipped; null in files written before it"),
	F(res_rec, "workload.sha256", RF_ISTR, wl_sha256, 1, "sha256 of the workload file"),
	F(res_rec, "workload.description", RF_ISTR, wl_description, 1, "the workload's description"),
	F(res_rec, "users.spec", RF_ISTR, users_spec, 3, "-u as given (N%: a share of the online CPUs)"),
	F(res_rec, "users.cpus", RF_UINT, users_cpus, 3, "online CPUs the shares were taken of"),
	F(res_rec, "users.resolved", RF_ISTR, users_resolved, 3, "-u with every N% resolved to users"),
	{ 0 },
};

const struct res_field res_point_fields[] = {
	FC(res_point, "users", RF_USERS, users, 1, "users", "simulated users"),
	FC(res_point, "sample", RF_UINT, sample, 1, "sample", "repeat index at this user count (0 first)"),
	FC(res_point, "jobs_per_user", RF_UINT, jobs_per_user, 1, "jobs_per_user", "jobs each user ran (after rounding)"),
	FC(res_point, "jobs", RF_U64, jobs, 1, "jobs", "jobs counted for JPM"),
	FC(res_point, "elapsed_s", RF_REAL, elapsed_s, 1, "elapsed_s", "release of the users to the last finish"),
	FC(res_point, "jpm", RF_REAL, jpm, 1, "jpm", "jobs per minute"),
	FC(res_point, "jpm_per_user", RF_REAL, jpm_per_user, 1, "jpm_per_user", "JPM / users"),
	FC(res_point, "user_time_s.min", RF_REAL, t_min, 1, "t_min", "earliest user finish time"),
	FC(res_point, "user_time_s.max", RF_REAL, t_max, 1, "t_max", "latest user finish time"),
	FC(res_point, "user_time_s.mean", RF_REAL, t_mean, 1, "t_mean", "mean user finish time"),
	FC(res_point, "user_time_s.stddev", RF_REAL, t_stddev, 1, "t_stddev", "sd of user finish times"),
	F(res_point, "user_jobs.min", RF_REAL, j_min, 2, "fewest jobs a user completed"),
	F(res_point, "user_jobs.max", RF_REAL, j_max, 2, "most jobs a user completed"),
	F(res_point, "user_jobs.mean", RF_REAL, j_mean, 2, "mean jobs per user"),
	F(res_point, "user_jobs.stddev", RF_REAL, j_stddev, 2,
	  "sd of jobs per user (time mode: JTI is taken over these)"),
	FC(res_point, "jti", RF_REAL, jti, 1, "jti", "AIM7 job time index"),
	FC(res_point, "user_cpu_s", RF_REAL, user_cpu_s, 1, "user_cpu_s", "users' CPU time in user mode"),
	FC(res_point, "sys_cpu_s", RF_REAL, sys_cpu_s, 1, "sys_cpu_s", "users' CPU time in the kernel"),
	FC(res_point, "failed", RF_BOOL, failed, 1, "failed", "the point failed (not a measurement)"),
	FC(res_point, "failed_users", RF_UINT, failed_users, 1, "failed_users", "users that crashed or failed"),
	F(res_point, "stuck_users", RF_UINT, stuck_users, 3,
	  "users still there after SIGKILL and the reap deadline (left behind)"),
	F(res_point, "release_spread_ms", RF_REAL, release_spread_ms, 3,
	  "start barrier: first to last user starting work"),
	F(res_point, "reason", RF_STR, reason, 1, "why it failed; null when it did not"),
	F(res_point, "interrupted", RF_BOOL, interrupted, 1, "stopped by a signal"),
	F(res_point, "steady.checked", RF_TRI, steady_checked, 1, "time mode: steady state tested"),
	F(res_point, "steady.attained", RF_TRI, steady_attained, 1, "time mode: steady state reached"),
	F(res_point, "settle.dirty_bytes", RF_U64N, settle_dirty_bytes, 2,
	  "dirty page cache when settling before the point began"),
	F(res_point, "settle.writeback_bytes", RF_U64N, settle_writeback_bytes, 2,
	  "page cache under writeback when settling began"),
	F(res_point, "settle.left_bytes", RF_U64N, settle_left_bytes, 2,
	  "dirty + writeback when settling ended"),
	F(res_point, "settle.wait_s", RF_REAL, settle_wait_s, 2, "how long settling took"),
	F(res_point, "settle.drained", RF_TRI, settle_drained, 2,
	  "dirty + writeback drained within the bound"),
	F(res_point, "settle.dropped", RF_TRI, settle_dropped, 2, "the page cache was dropped"),
	F(res_point, "machine.window_s", RF_REAL, machine.window_s, 5,
	  "time between the two readings"),
	F(res_point, "machine.user_s", RF_REAL, machine.user_s, 5,
	  "CPU seconds in user mode, all CPUs, everything running"),
	F(res_point, "machine.nice_s", RF_REAL, machine.nice_s, 5,
	  "CPU seconds niced"),
	F(res_point, "machine.system_s", RF_REAL, machine.system_s, 5,
	  "CPU seconds in the kernel"),
	F(res_point, "machine.idle_s", RF_REAL, machine.idle_s, 5,
	  "CPU seconds idle"),
	F(res_point, "machine.iowait_s", RF_REAL, machine.iowait_s, 5,
	  "CPU seconds idle waiting for I/O"),
	F(res_point, "machine.irq_s", RF_REAL, machine.irq_s, 5,
	  "CPU seconds in interrupts"),
	F(res_point, "machine.softirq_s", RF_REAL, machine.softirq_s, 5,
	  "CPU seconds in softirqs"),
	F(res_point, "machine.steal_s", RF_REAL, machine.steal_s, 5,
	  "CPU seconds the hypervisor gave others"),
	F(res_point, "machine.busy_s", RF_REAL, machine.busy_s, 5,
	  "CPU seconds not idle nor iowait"),
	F(res_point, "machine.other_pct", RF_REAL, machine.other_pct, 5,
	  "share of the CPUs' capacity other work took: busy time not the users' (user_cpu_s + sys_cpu_s), and steal, in %"),
	F(res_point, "machine.steal_pct", RF_REAL, machine.steal_pct, 5,
	  "steal over all CPU time, in %"),
	F(res_point, "machine.ctxt_s", RF_REAL, machine.ctxt_s, 5,
	  "context switches a second, the whole machine"),
	F(res_point, "machine.load1", RF_REAL, machine.load1, 5,
	  "1-minute load average at the window's end"),
	F(res_point, "machine.psi_cpu_some", RF_REAL, machine.psi_cpu_some, 5,
	  "% of the window some task stalled on CPU (/proc/pressure)"),
	F(res_point, "machine.psi_cpu_full", RF_REAL, machine.psi_cpu_full, 5,
	  "% of the window every task stalled on CPU"),
	F(res_point, "machine.psi_io_some", RF_REAL, machine.psi_io_some, 5,
	  "% some task stalled on I/O"),
	F(res_point, "machine.psi_io_full", RF_REAL, machine.psi_io_full, 5,
	  "% every task stalled on I/O"),
	F(res_point, "machine.psi_memory_some", RF_REAL, machine.psi_mem_some, 5,
	  "% some task stalled on memory"),
	F(res_point, "machine.psi_memory_full", RF_REAL, machine.psi_mem_full, 5,
	  "% every task stalled on memory"),
	F(res_point, "machine.cg_psi_cpu_some", RF_REAL, machine.cg_psi_cpu_some, 5,
	  "the users' cgroup v2 group: % some stalled on CPU"),
	F(res_point, "machine.cg_psi_cpu_full", RF_REAL, machine.cg_psi_cpu_full, 5,
	  "the group: % all stalled on CPU"),
	F(res_point, "machine.cg_psi_io_some", RF_REAL, machine.cg_psi_io_some, 5,
	  "the group: % some stalled on I/O"),
	F(res_point, "machine.cg_psi_io_full", RF_REAL, machine.cg_psi_io_full, 5,
	  "the group: % all stalled on I/O"),
	F(res_point, "machine.cg_psi_memory_some", RF_REAL, machine.cg_psi_mem_some, 5,
	  "the group: % some stalled on memory"),
	F(res_point, "machine.cg_psi_memory_full", RF_REAL, machine.cg_psi_mem_full, 5,
	  "the group: % all stalled on memory"),
	F(res_point, "machine.pgscan_s", RF_REAL, machine.pgscan_s, 5,
	  "pages scanned for reclaim a second (kswapd and direct)"),
	F(res_point, "machine.pgsteal_s", RF_REAL, machine.pgsteal_s, 5,
	  "pages reclaimed a second"),
	F(res_point, "machine.pgmajfault_s", RF_REAL, machine.pgmajfault_s, 5,
	  "major faults a second"),
	F(res_point, "machine.allocstall_s", RF_REAL, machine.allocstall_s, 5,
	  "direct reclaim stalls a second"),
	F(res_point, "machine.nr_dirtied_s", RF_REAL, machine.nr_dirtied_s, 5,
	  "pages dirtied a second"),
	F(res_point, "machine.nr_written_s", RF_REAL, machine.nr_written_s, 5,
	  "pages written back a second"),
	F(res_point, "machine.refault_s", RF_REAL, machine.refault_s, 5,
	  "workingset refaults a second (evicted pages needed again)"),
	F(res_point, "machine.noisy", RF_TRI, machine.noisy, 5,
	  "other work (other_pct) or steal took more than 10% of the CPUs"),
	F(res_point, "machine.mem_limit_bytes", RF_REAL, machine.mem_limit_bytes, 5,
	  "run --mem-limit: the users' memory cgroup's limit; null without one"),
	F(res_point, "machine.mem_peak_bytes", RF_REAL, machine.mem_peak_bytes, 5,
	  "the users' group's peak memory use over the point (from its release)"),
	F(res_point, "machine.mem_refault_s", RF_REAL, machine.mem_refault_s, 5,
	  "the group's workingset refaults of file pages a second"),
	F(res_point, "machine.mem_majfault_s", RF_REAL, machine.mem_majfault_s, 5,
	  "the group's major faults a second"),
	F(res_point, "machine.mem_oom_kills", RF_REAL, machine.mem_oom_kills, 5,
	  "users' processes the group's OOM killer killed during the window"),
	F(res_point, "machine.quiet_wait_s", RF_REAL, machine.quiet_wait_s, 5,
	  "run --require-quiet: seconds waited before the point for a quiet machine; null: not asked"),
	F(res_point, "machine.quiet", RF_TRI, machine.quiet, 5,
	  "run --require-quiet: a quiet second was found (false: the wait ran out, the point ran anyway)"),
	F(res_point, "machine.cache_hit_pct", RF_REAL, machine.cache_hit_pct, 5,
	  "page cache hits: 1 - bytes the watched devices read / bytes the users read, in % "
	  "(readahead beyond what was read counts against it; 0 at least); null when the users "
	  "read nothing or no device was watched"),
	FC(res_point, "jobs_per_cpu_s", RF_REAL, jobs_per_cpu_s, 7, "jobs_per_cpu_s",
	   "jobs / (user_cpu_s + sys_cpu_s): jobs per CPU second of the users, which other "
	   "work on the host barely moves (CPU-bound mixes); computed for older files"),
	F(res_point, "machine.interference_max_pct", RF_REAL, machine.interference_max_pct, 7,
	  "the bound on other_pct this sample was judged by (run --interference-max, else the "
	  "median of the run's quiet samples + 10 (or half the rest), at least 15); null: not "
	  "judged (the run's first sample, or no CPU counters)"),
	FC(res_point, "machine.interfered", RF_TRI, machine.interfered, 7, "interfered",
	   "other work took more than the bound and no re-measure was left (run --remeasure): "
	   "kept, flagged; verdicts say so"),
	FC(res_point, "machine.remeasured", RF_UINT, machine.remeasured, 7, "remeasured",
	   "samples of this point measured before this one and discarded: other work took more "
	   "than the bound"),
	F(res_point, "machine.discarded_other_pct", RF_REAL, machine.discarded_other_pct, 7,
	  "the most other work took in one of those discarded samples; null: none"),
	F(res_point, "machine.discarded_jpm", RF_REAL, machine.discarded_jpm, 7,
	  "those discarded samples' mean JPM; null: none"),
	{ 0 },
};

const struct res_field res_kind_fields[] = {
	F(res_kind, "job", RF_STR, job, 1, "the entry's job kind"),
	F(res_kind, "device", RF_STR, device, 6,
	  "the block device it did its I/O on: its raw device (device:), else the work "
	  "directory's (the scratch device's); null: none (no I/O, or a file system "
	  "without one)"),
	F(res_kind, "runs", RF_U64, runs, 1, "jobs of this entry run"),
	F(res_kind, "job_time_s", RF_REAL, job_time_s, 1, "sum of the runs' times"),
	F(res_kind, "mean_ms", RF_REAL, mean_ms, 1, "mean latency of one run"),
	F(res_kind, "p50_ms", RF_REAL, p50_ms, 1, "median latency"),
	F(res_kind, "p99_ms", RF_REAL, p99_ms, 1, "99th percentile latency"),
	F(res_kind, "max_ms", RF_REAL, max_ms, 1, "largest latency"),
	F(res_kind, "rbytes", RF_U64, rbytes, 1, "bytes read"),
	F(res_kind, "wbytes", RF_U64, wbytes, 1, "bytes written"),
	F(res_kind, "rops", RF_U64, rops, 1, "read requests"),
	F(res_kind, "wops", RF_U64, wops, 1, "write requests"),
	F(res_kind, "fsyncs", RF_U64, fsyncs, 2, "fsync/fdatasync calls on files"),
	F(res_kind, "syncs", RF_U64, syncs, 2, "sync points (sync: global or exec)"),
	F(res_kind, "read_time_s", RF_REAL, read_time_s, 5,
	  "time its users spent reading (its jobs' read phases; else job_time_s)"),
	F(res_kind, "write_time_s", RF_REAL, write_time_s, 5,
	  "time its users spent writing (its jobs' write phases; else job_time_s)"),
	F(res_kind, "reads_s", RF_REAL, reads_s, 5,
	  "reads per second of all its users over its read phases' wall time (version 5: "
	  "one user's, now reads_s_user)"),
	F(res_kind, "writes_s", RF_REAL, writes_s, 5,
	  "writes per second of all its users over its write phases' wall time"),
	F(res_kind, "fsyncs_s", RF_REAL, fsyncs_s, 5,
	  "fsyncs per second of all its users over the point's wall time"),
	F(res_kind, "iops", RF_REAL, iops, 5,
	  "reads and writes per second of all its users over the point's wall time"),
	F(res_kind, "read_mb_s", RF_REAL, read_mb_s, 5,
	  "rbytes / 1e6 per second of all its users over its read phases' wall time"),
	F(res_kind, "write_mb_s", RF_REAL, write_mb_s, 5,
	  "wbytes / 1e6 per second of all its users over its write phases' wall time"),
	F(res_kind, "reads_s_user", RF_REAL, reads_s_user, 6, "rops / read_time_s (one user's rate)"),
	F(res_kind, "writes_s_user", RF_REAL, writes_s_user, 6,
	  "wops / write_time_s (one user's rate)"),
	F(res_kind, "fsyncs_s_user", RF_REAL, fsyncs_s_user, 6,
	  "fsyncs / job_time_s (one user's rate)"),
	F(res_kind, "iops_user", RF_REAL, iops_user, 6,
	  "(rops + wops) / job_time_s (one user's rate)"),
	F(res_kind, "read_mb_s_user", RF_REAL, read_mb_s_user, 6,
	  "rbytes / read_time_s / 1e6 (one user's rate)"),
	F(res_kind, "write_mb_s_user", RF_REAL, write_mb_s_user, 6,
	  "wbytes / write_time_s / 1e6 (one user's rate)"),
	F(res_kind, "reads_s_point", RF_REAL, reads_s_point, 5,
	  "rops / point elapsed (its share of the point)"),
	F(res_kind, "writes_s_point", RF_REAL, writes_s_point, 5, "wops / point elapsed"),
	F(res_kind, "fsyncs_s_point", RF_REAL, fsyncs_s_point, 5, "fsyncs / point elapsed"),
	F(res_kind, "iops_point", RF_REAL, iops_point, 5, "(rops + wops) / point elapsed"),
	F(res_kind, "read_mb_s_point", RF_REAL, read_mb_s_point, 5, "rbytes / point elapsed / 1e6"),
	F(res_kind, "write_mb_s_point", RF_REAL, write_mb_s_point, 5, "wbytes / point elapsed / 1e6"),
	F(res_kind, "extents", RF_REAL, extents, 5,
	  "extents per file it wrote, after its write phase (FIEMAP); null: not measured or "
	  "not supported by the file system"),
	{ 0 },
};

/*
 * What files before version 5 wrote under these keys: read over the
 * current table's reading of them, then res_kind_legacy() fills the rest.
 */
const struct res_field res_kind_legacy_fields[] = {
	F(res_kind, "reads_s", RF_REAL, reads_s_point, 2, "rops / point elapsed"),
	F(res_kind, "writes_s", RF_REAL, writes_s_point, 2, "wops / point elapsed"),
	F(res_kind, "fsyncs_s", RF_REAL, fsyncs_s_point, 2, "fsyncs / point elapsed"),
	F(res_kind, "read_mb_s", RF_REAL, read_mb_s_point, 1, "rbytes / point elapsed / 1e6"),
	F(res_kind, "write_mb_s", RF_REAL, write_mb_s_point, 1, "wbytes / point elapsed / 1e6"),
	F(res_kind, "iops", RF_REAL, iops_point, 1, "(rops + wops) / point elapsed"),
	F(res_kind, "read_mb_s_job", RF_REAL, read_mb_s, 1, "rbytes / read time / 1e6"),
	F(res_kind, "write_mb_s_job", RF_REAL, write_mb_s, 1, "wbytes / write time / 1e6"),
	F(res_kind, "iops_job", RF_REAL, iops, 1, "(rops + wops) / job time"),
	{ 0 },
};

double res_point_jpcs(uint64_t jobs, double user_cpu_s, double sys_cpu_s)
{
	double cpu = user_cpu_s + sys_cpu_s;
	return cpu > 0 && isfinite(cpu) ? (double)jobs / cpu : NAN;
}

/* The time a rate of `bytes` at `mb_s` took; else the job time. */
static double res_legacy_time(uint64_t bytes, double mb_s, double job_s)
{
	return bytes && mb_s > 0 ? (double)bytes / 1e6 / mb_s : job_s;
}

void res_kind_legacy(struct res_kind *k)
{
	double job = k->job_time_s;
	k->read_time_s = res_legacy_time(k->rbytes, k->read_mb_s, job);
	k->write_time_s = res_legacy_time(k->wbytes, k->write_mb_s, job);
	k->extents = NAN;
}

double res_entry_rate(double count, double phase_s, double job_s, double elapsed_s)
{
	if (!(phase_s > 0) || !(job_s > 0) || !(elapsed_s > 0))
		return NAN;
	if (phase_s >= job_s)
		return count / elapsed_s;
	return count * (job_s / elapsed_s) / phase_s;
}

double res_entry_mb_s(uint64_t bytes, double phase_s, double job_s, double elapsed_s)
{
	return res_entry_rate((double)bytes / 1e6, phase_s, job_s, elapsed_s);
}

double res_phase_s(uint64_t phase_ns, double job_s)
{
	return phase_ns ? (double)phase_ns / 1e9 : job_s;
}

/* count / t: one user's rate over its time t; NAN unless t > 0. */
static double res_user_rate(double count, double t)
{
	return t > 0 ? count / t : NAN;
}

void res_kind_rates(struct res_kind *k, double elapsed_s)
{
	double job = k->job_time_s, rt = k->read_time_s, wt = k->write_time_s;
	double rops = (double)k->rops, wops = (double)k->wops, fs = (double)k->fsyncs;
	double rmb = (double)k->rbytes / 1e6, wmb = (double)k->wbytes / 1e6;

	k->reads_s = res_entry_rate(rops, rt, job, elapsed_s);
	k->writes_s = res_entry_rate(wops, wt, job, elapsed_s);
	k->fsyncs_s = res_entry_rate(fs, job, job, elapsed_s);
	k->iops = res_entry_rate(rops + wops, job, job, elapsed_s);
	k->read_mb_s = res_entry_mb_s(k->rbytes, rt, job, elapsed_s);
	k->write_mb_s = res_entry_mb_s(k->wbytes, wt, job, elapsed_s);
	k->reads_s_user = res_user_rate(rops, rt);
	k->writes_s_user = res_user_rate(wops, wt);
	k->fsyncs_s_user = res_user_rate(fs, job);
	k->iops_user = res_user_rate(rops + wops, job);
	k->read_mb_s_user = res_user_rate(rmb, rt);
	k->write_mb_s_user = res_user_rate(wmb, wt);
	k->reads_s_point = res_user_rate(rops, elapsed_s);
	k->writes_s_point = res_user_rate(wops, elapsed_s);
	k->fsyncs_s_point = res_user_rate(fs, elapsed_s);
	k->iops_point = res_user_rate(rops + wops, elapsed_s);
	k->read_mb_s_point = res_user_rate(rmb, elapsed_s);
	k->write_mb_s_point = res_user_rate(wmb, elapsed_s);
}

const struct res_field res_by_users_fields[] = {
	F(res_by_users, "users", RF_USERS, users, 1, "user count"),
	F(res_by_users, "n", RF_UINT, n, 1, "samples"),
	F(res_by_users, "jpm_mean", RF_REAL, jpm_mean, 1, "mean JPM"),
	F(res_by_users, "jpm_sd", RF_REAL, jpm_sd, 1, "sample sd of JPM"),
	F(res_by_users, "ci95_lo", RF_REAL, ci95_lo, 1,
	  "95% CI of JPM on the ratio scale (of the mean of log JPM, exp'd back: about the "
	  "geometric mean, always > 0; null for n < 2), low end"),
	F(res_by_users, "ci95_hi", RF_REAL, ci95_hi, 1, "95% CI of JPM on the ratio scale (see ci95_lo), high end"),
	F(res_by_users, "failed", RF_BOOL, failed, 1, "a sample failed"),
	{ 0 },
};

const struct res_field res_summary_fields[] = {
	F(res_summary, "max_jpm", RF_REAL, max_jpm, 1, "best JPM over completed points"),
	F(res_summary, "max_jpm_users", RF_USERS, max_jpm_users, 1, "users at max_jpm"),
	F(res_summary, "peak_jpm", RF_REAL, peak_jpm, 1, "the ramp's best point (mean JPM)"),
	F(res_summary, "peak_users", RF_USERS, peak_users, 1, "users at the peak"),
	F(res_summary, "peak_established", RF_BOOL, peak_established, 1, "the peak is a claim"),
	F(res_summary, "peak_flat", RF_BOOL, peak_flat, 1, "the curve is flat within the noise"),
	F(res_summary, "peak_beaten", RF_BOOL, peak_beaten, 1, "a later point beat the peak"),
	F(res_summary, "converge_threshold", RF_REAL, converge_threshold, 1, "JPM per user criterion"),
	F(res_summary, "converge_jpm", RF_REAL, converge_jpm, 1, "JPM where the ramp converged"),
	F(res_summary, "converge_users", RF_USERS, converge_users, 1, "users where it converged"),
	F(res_summary, "best_jpm", RF_REAL, best_jpm, 2,
	  "the ramp's best point by mean less one standard error (not the maximum: max_jpm)"),
	F(res_summary, "best_users", RF_USERS, best_users, 2, "users at best_jpm"),
	F(res_summary, "points_measured", RF_UINT, points_measured, 1, "samples measured"),
	F(res_summary, "wall_s", RF_REAL, wall_s, 1, "wall time of the ramp"),
	F(res_summary, "stop_reason", RF_ISTR, stop_reason, 1, "why the ramp stopped"),
	F(res_summary, "noise_sd_rel", RF_REAL, noise_sd_rel, 1, "pooled relative sd of repeats"),
	F(res_summary, "noise_df", RF_UINT, noise_df, 1, "its degrees of freedom"),
	F(res_summary, "peak_users_lo", RF_USERS, peak_users_lo, 3,
	  "the lowest user count the measured noise cannot tell from the peak: one above the "
	  "nearest count measured below it beyond the noise (else the lowest measured); null "
	  "before the noise is measured, and in files written before it"),
	F(res_summary, "peak_users_hi", RF_USERS, peak_users_hi, 3,
	  "the highest such user count: one below the nearest count measured below the peak "
	  "beyond the noise (else the search's ceiling, max_users)"),
	F(res_summary, "peak_ci95_lo", RF_REAL, peak_ci95_lo, 4,
	  "the peak's 95% interval of JPM on the ratio scale (peak_jpm x exp(-t95 x noise_sd_rel "
	  "/ sqrt(n)), n its samples; else its own samples' interval), low end; null when unknown"),
	F(res_summary, "peak_ci95_hi", RF_REAL, peak_ci95_hi, 4, "the same interval's high end"),
	F(res_summary, "converge_tol", RF_REAL, converge_tol, 5,
	  "converge/crossover: the tolerance converge_users was settled to, a fraction of it "
	  "(the configured 3%, widened to twice the measured single-sample noise, at most 6%, or to "
	  "twice the crossing's own scatter, at most 10%: converge_tol_from); "
	  "null when exact or not converged"),
	F(res_summary, "converge_tol_from", RF_ISTR, converge_tol_from, 9,
	  "converge/crossover: why converge_tol is what it is: \"configured\" (as asked), "
	  "\"top noise\" (twice the noise of the top's repeats, at most 6%), \"crossing "
	  "scatter\" (twice converge_scatter, at most 10%) or \"crossing prior\" (10%: "
	  "the crossing's 5% noise assumed until two of its samples measure it); null when "
	  "converge_tol is null"),
	F(res_summary, "converge_scatter", RF_REAL, converge_scatter, 9,
	  "converge/crossover: the relative sd of the samples measured about the crossing (past "
	  "the peak, within 1.5x of the highest count), about their mean; null: fewer than two"),
	F(res_summary, "suspect_users", RF_ISTR, suspect_users, 4,
	  "converge/crossover: user counts past the peak whose JPM lay off the line through "
	  "their neighbours beyond the noise, space separated; null: none"),
	F(res_summary, "outcome", RF_ISTR, outcome, 6,
	  "what the ramp did not reach, as the terminal said it: \"peak: not established "
	  "(max_time)\", \"quick convergence: not reached within 6m (last 134 users at 92.0 "
	  "JPM/user)\", joined by \"; \"; null: everything asked was reached"),
	F(res_summary, "remeasured", RF_UINT, remeasured, 7,
	  "samples discarded and measured again: other work took more than the bound "
	  "(points[].machine.remeasured summed)"),
	F(res_summary, "interfered", RF_UINT, interfered, 7,
	  "points kept flagged: other work over the bound and no re-measure left "
	  "(points[].machine.interfered)"),
	{ 0 },
};

const struct res_field res_dev_fields[] = {
	F(res_dev, "window_s", RF_REAL, window_s, 2, "time between the two readings"),
	F(res_dev, "read_ios", RF_U64, rd_ios, 2, "reads completed"),
	F(res_dev, "write_ios", RF_U64, wr_ios, 2, "writes completed"),
	F(res_dev, "read_merges", RF_U64, rd_merges, 2, "reads merged into others"),
	F(res_dev, "write_merges", RF_U64, wr_merges, 2, "writes merged into others"),
	F(res_dev, "read_sectors", RF_U64, rd_sectors, 2, "512-byte sectors read"),
	F(res_dev, "write_sectors", RF_U64, wr_sectors, 2, "512-byte sectors written"),
	F(res_dev, "flushes", RF_U64, flushes, 2, "flush requests completed"),
	F(res_dev, "io_ticks_ms", RF_U64, io_ticks_ms, 2, "time the device was busy"),
	F(res_dev, "time_in_queue_ms", RF_U64, time_in_queue_ms, 2, "sum of requests' time in flight"),
	F(res_dev, "iops", RF_REAL, iops, 2, "(reads + writes) per second"),
	F(res_dev, "read_iops", RF_REAL, read_iops, 2, "reads per second"),
	F(res_dev, "write_iops", RF_REAL, write_iops, 2, "writes per second"),
	F(res_dev, "mb_s", RF_REAL, mb_s, 2, "bytes read and written / window / 1e6"),
	F(res_dev, "read_mb_s", RF_REAL, read_mb_s, 2, "bytes read / window / 1e6"),
	F(res_dev, "write_mb_s", RF_REAL, write_mb_s, 2, "bytes written / window / 1e6"),
	F(res_dev, "avg_req_kib", RF_REAL, avg_req_kib, 2, "KiB per request (reads and writes)"),
	F(res_dev, "read_req_kib", RF_REAL, read_req_kib, 2, "KiB per read request"),
	F(res_dev, "write_req_kib", RF_REAL, write_req_kib, 2, "KiB per write request"),
	F(res_dev, "merge_ratio", RF_REAL, merge_ratio, 2, "merged / (merged + issued)"),
	F(res_dev, "util", RF_REAL, util, 2, "busy fraction of the window (io_ticks)"),
	F(res_dev, "avg_qdepth", RF_REAL, avg_qdepth, 2, "average requests in flight"),
	F(res_dev, "blk.requests", RF_U64N, blk_requests, 8,
	  "requests issued to the device over the window, from the block tracepoints (null: "
	  "not traced; blk_hist holds the histograms)"),
	F(res_dev, "blk.sched_p50_ms", RF_REAL, blk_sched_p50_ms, 8,
	  "median time a request waited in the IO scheduler (block_rq_insert to block_rq_issue)"),
	F(res_dev, "blk.sched_p99_ms", RF_REAL, blk_sched_p99_ms, 8,
	  "99th percentile of that time"),
	F(res_dev, "blk.dev_p50_ms", RF_REAL, blk_dev_p50_ms, 8,
	  "median time a request spent in the device (block_rq_issue to block_rq_complete)"),
	F(res_dev, "blk.dev_p99_ms", RF_REAL, blk_dev_p99_ms, 8, "99th percentile of that time"),
	F(res_dev, "blk.req_kib_p50", RF_REAL, blk_req_kib_p50, 8,
	  "median request size at issue, KiB"),
	F(res_dev, "blk.depth_p50", RF_REAL, blk_depth_p50, 8,
	  "median requests in flight on the device at an issue (that request included)"),
	F(res_dev, "blk.depth_p90", RF_REAL, blk_depth_p90, 8,
	  "90th percentile of requests in flight at an issue"),
	F(res_dev, "blk.tdepth_p50", RF_REAL, blk_tdepth_p50, 8,
	  "median requests in flight on the device over the window's time (idle counts as 0; "
	  "blk_hist.time_depth)"),
	F(res_dev, "blk.tdepth_p90", RF_REAL, blk_tdepth_p90, 8,
	  "90th percentile of requests in flight over the window's time"),
	F(res_dev, "blk.bypassed", RF_U64N, blk_bypassed, 8,
	  "requests issued without passing the IO scheduler's queue (no block_rq_insert)"),
	F(res_dev, "blk.merged", RF_U64N, blk_merged, 8,
	  "bios and requests merged into another request"),
	F(res_dev, "blk.requeued", RF_U64N, blk_requeued, 8, "requests put back after an issue"),
	F(res_dev, "blk.lost", RF_U64N, blk_lost, 8,
	  "requests whose times were not measured (a tag beyond the tracer's request table)"),
	F(res_dev, "blk.sample", RF_U64N, blk_sample, 10,
	  "the tracer's histograms (blk_hist, blk_entries' times) and the blk.* percentiles "
	  "are from 1 request in this, at random (1: every one); the counts are every request's"),
	{ 0 },
};

const struct res_field res_sizing_fields[] = {
	F(res_sizing, "target_pct", RF_REAL, target_pct, 9,
	  "--point-noise: the relative sd of a sample asked for, %"),
	F(res_sizing, "users", RF_USERS, users, 9, "users of the pilot samples (the first point's)"),
	F(res_sizing, "pilots", RF_UINT, pilots, 9, "pilot samples kept (their JPMs: pilots_jpm)"),
	F(res_sizing, "redone", RF_UINT, redone, 9,
	  "pilots discarded and taken again: other work over the interference bound"),
	F(res_sizing, "mean_jpm", RF_REAL, mean_jpm, 9, "the kept pilots' mean JPM"),
	F(res_sizing, "sd_pct", RF_REAL, sd_pct, 9, "their relative sd (sample sd / mean), %"),
	F(res_sizing, "pilot_s", RF_REAL, pilot_s, 9, "a pilot's mean elapsed time"),
	F(res_sizing, "wanted", RF_UINT, wanted, 9,
	  "the factor the noise asked: (sd / target)^2 rounded up to a power of two"),
	F(res_sizing, "factor", RF_UINT, factor, 9,
	  "the factor every point of every arm was made larger by (1: as asked)"),
	F(res_sizing, "capped", RF_BOOL, capped, 9,
	  "factor below wanted: at most 16, and a point within max_point_s"),
	F(res_sizing, "max_point_s", RF_REAL, max_point_s, 9,
	  "the longest a sized point may be predicted to take"),
	F(res_sizing, "measure", RF_ISTR, measure, 9,
	  "jobs (jobs_per_user was sized) | time (duration was)"),
	F(res_sizing, "jobs_per_user_asked", RF_UINT, jobs_per_user_asked, 9,
	  "users.jobs_per_user as asked"),
	F(res_sizing, "jobs_per_user", RF_UINT, jobs_per_user, 9,
	  "... as measured (workload.resolved holds it)"),
	F(res_sizing, "duration_asked_s", RF_REAL, duration_asked_s, 9,
	  "measure.duration as asked"),
	F(res_sizing, "duration_s", RF_REAL, duration_s, 9,
	  "... as measured (time mode; workload.resolved holds it)"),
	{ 0 },
};

const struct res_field res_blk_ent_fields[] = {
	F(res_blk_ent, "requests", RF_U64, requests, 9,
	  "requests the entry's jobs issued to the device (each inserted or issued by a user "
	  "while it ran a job of the entry; other: by no user)"),
	F(res_blk_ent, "reads", RF_U64, reads, 9, "of them reads"),
	F(res_blk_ent, "writes", RF_U64, writes, 9, "of them writes"),
	F(res_blk_ent, "sched_p50_ms", RF_REAL, sched_p50_ms, 9,
	  "median time its requests waited in the IO scheduler"),
	F(res_blk_ent, "sched_p99_ms", RF_REAL, sched_p99_ms, 9, "99th percentile of that time"),
	F(res_blk_ent, "dev_p50_ms", RF_REAL, dev_p50_ms, 9,
	  "median time its requests spent in the device"),
	F(res_blk_ent, "dev_p99_ms", RF_REAL, dev_p99_ms, 9, "99th percentile of that time"),
	{ 0 },
};

const struct res_field res_warmup_fields[] = {
	F(res_warmup, "users", RF_USERS, users, 2, "users of the warm-up pass"),
	F(res_warmup, "jobs_per_user", RF_UINT, jobs_per_user, 2, "its jobs per user"),
	F(res_warmup, "elapsed_s", RF_REAL, elapsed_s, 2, "how long it took"),
	F(res_warmup, "jpm", RF_REAL, jpm, 2, "its JPM (not a measurement)"),
	F(res_warmup, "failed", RF_BOOL, failed, 2, "it failed"),
	F(res_warmup, "reason", RF_ISTR, reason, 2, "why it failed"),
	{ 0 },
};

const struct res_field res_sched_fields[] = {
	F(res_sched, "scheduler", RF_ISTR, scheduler, 2, "IO scheduler made active for this run"),
	F(res_sched, "devices", RF_ISTR, devices, 2, "devices switched, space separated"),
	F(res_sched, "original", RF_ISTR, original, 2, "\"dev=scheduler\" active before the switch"),
	F(res_sched, "restored", RF_TRI, restored, 2, "original put back; null while running"),
	F(res_sched, "restore_error", RF_ISTR, restore_error, 2, "why a restore failed"),
	F(res_sched, "order", RF_ISTR, order, 2, "A/B order: fair | sequential"),
	F(res_sched, "round", RF_UINT, round, 2, "A/B round of this run (0 first)"),
	F(res_sched, "ab_index", RF_ISTR, ab_index, 2, "the A/B's index.json"),
	F(res_sched, "rounds_run", RF_UINT, rounds_run, 7,
	  "rounds the A/B ran, written when it ended (as its index.json's rounds_run); 0 while "
	  "it runs"),
	F(res_sched, "until_decided", RF_ISTR, until_decided, 7,
	  "run --until-decided: why the rounds stopped (decided, or the budget spent; as the "
	  "index.json's until_decided); null without it"),
	{ 0 },
};

static const char *const res_status_names[] = { "running", "complete", "interrupted", "failed" };

const char *res_status_name(enum res_status s)
{
	return (unsigned)s < 4 ? res_status_names[s] : NULL;
}

void res_fields_init(const struct res_field *table, void *rec, size_t size)
{
	memset(rec, 0, size);
	for (const struct res_field *f = table; f->key; f++) {
		char *at = (char *)rec + f->offset;
		if (f->type == RF_REAL)
			*(double *)at = NAN;
		else if (f->type == RF_TRI)
			*(int *)at = -1;
		else if (f->type == RF_U64N)
			*(uint64_t *)at = UINT64_MAX;
		else if (f->type == RF_ISTR)
			*(const char **)at = "";
	}
}

void res_point_init(struct res_point *p)
{
	res_fields_init(res_point_fields, p, sizeof(*p));
}

void res_summary_init(struct res_summary *s)
{
	res_fields_init(res_summary_fields, s, sizeof(*s));
}

void res_dev_init(struct res_dev *d)
{
	res_fields_init(res_dev_fields, d, sizeof(*d));
}

const char *const res_blk_op_names[RES_BLK_NOPS] = { "read", "write", "flush", "other" };
const char *const res_blk_what_names[RES_BLK_NWHAT] = { "sched", "dev", "size", "depth" };

void res_blk_free(struct res_blk *b)
{
	for (int o = 0; b && o < RES_BLK_NOPS; o++)
		for (int w = 0; w < RES_BLK_NWHAT; w++)
			free(b->h[o][w]);
	if (b) {
		free(b->tdepth);
		free(b->ent);
	}
	free(b);
}

void res_devs_free(struct res_dev *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++)
		res_blk_free(d[i].blk);
	free(d);
}

void res_sched_init(struct res_sched *s)
{
	res_fields_init(res_sched_fields, s, sizeof(*s));
	s->restored = -1;
}

void res_warmup_init(struct res_warmup *w)
{
	memset(w, 0, sizeof(*w));
	w->reason = "";
}

/* ---- record -> JSON ---------------------------------------------------- */

json_t *res_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *res_json_u64(uint64_t v)
{
	return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

/*
 * A JSON string of s; bytes that are not valid UTF-8 (a hostname, a label
 * or an argument in another encoding) are written as \xNN (esc_utf8_fix)
 * rather than losing the value.
 */
json_t *res_json_str(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	size_t n = esc_utf8_fix(NULL, 0, s) + 1;
	char *copy = malloc(n);
	if (!copy)
		return NULL;
	esc_utf8_fix(copy, n, s);
	j = json_string(copy);
	free(copy);
	return j;
}

static json_t *res_field_json(const struct res_field *f, const void *rec)
{
	const char *at = (const char *)rec + f->offset;
	switch (f->type) {
	case RF_UINT:
		return json_integer(*(const unsigned *)at);
	case RF_USERS: {
		unsigned v = *(const unsigned *)at;
		return v ? json_integer(v) : json_null();
	}
	case RF_U64:
		return res_json_u64(*(const uint64_t *)at);
	case RF_U64N: {
		uint64_t v = *(const uint64_t *)at;
		return v == UINT64_MAX ? json_null() : res_json_u64(v);
	}
	case RF_REAL:
		return res_json_num(*(const double *)at);
	case RF_BOOL:
		return json_boolean(*(const bool *)at);
	case RF_TRI: {
		int v = *(const int *)at;
		return v < 0 ? json_null() : json_boolean(v);
	}
	case RF_STR:
		return at[0] ? res_json_str(at) : json_null();
	case RF_ISTR: {
		const char *v = *(const char *const *)at;
		return v && v[0] ? res_json_str(v) : json_null();
	}
	case RF_STATUS: {
		const char *n = res_status_name(*(const enum res_status *)at);
		return n ? json_string(n) : json_null();
	}
	}
	return json_null();
}

/* Set o[k] = v (stealing v); false on failure (v NULL: no memory). */
static bool res_set(json_t *o, const char *k, json_t *v)
{
	return v && !json_object_set_new(o, k, v);
}

int res_fields_to_json(const struct res_field *table, const void *rec, json_t *obj)
{
	char parent[64];
	for (const struct res_field *f = table; f->key; f++) {
		const char *dot = strchr(f->key, '.');
		if (!dot) {
			if (!res_set(obj, f->key, res_field_json(f, rec)))
				return -1;
			continue;
		}
		snprintf(parent, sizeof(parent), "%.*s", (int)(dot - f->key), f->key);
		json_t *sub = json_object_get(obj, parent);
		if (!json_is_object(sub)) {
			sub = json_object();
			if (!res_set(obj, parent, sub))
				return -1;
		}
		if (!res_set(sub, dot + 1, res_field_json(f, rec)))
			return -1;
	}
	/* a nested object whose members are all null is null */
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v) {
		if (!json_is_object(v) || !json_object_size(v))
			continue;
		bool all_null = true;
		const char *k2;
		json_t *v2;
		json_object_foreach(v, k2, v2)
			all_null = all_null && json_is_null(v2);
		bool ours = false;
		for (const struct res_field *f = table; f->key && !ours; f++)
			ours = !strncmp(f->key, key, strlen(key)) && f->key[strlen(key)] == '.';
		if (all_null && ours && json_object_set_new(obj, key, json_null()))
			return -1;
	}
	return 0;
}

/* ---- JSON -> record ---------------------------------------------------- */

static const char *res_type_name(enum res_ftype t)
{
	switch (t) {
	case RF_UINT: case RF_USERS: case RF_U64: case RF_U64N: return "a whole number";
	case RF_REAL: return "a number";
	case RF_BOOL: case RF_TRI: return "true or false";
	case RF_STR: case RF_ISTR: case RF_STATUS: return "a string";
	}
	return "?";
}

/* Store v (not missing) into the field; -1 when its type is wrong. */
static int res_field_set(const struct res_field *f, const json_t *v, void *rec)
{
	char *at = (char *)rec + f->offset;
	switch (f->type) {
	case RF_UINT:
	case RF_USERS: {
		if (json_is_null(v) && f->type == RF_USERS) {
			*(unsigned *)at = 0;
			return 0;
		}
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > (json_int_t)UINT32_MAX)
			return -1;
		*(unsigned *)at = (unsigned)json_integer_value(v);
		return 0;
	}
	case RF_U64N:
		if (json_is_null(v)) {
			*(uint64_t *)at = UINT64_MAX;
			return 0;
		}
		/* fall through */
	case RF_U64:
		if (json_is_integer(v) && json_integer_value(v) >= 0) {
			*(uint64_t *)at = (uint64_t)json_integer_value(v);
			return 0;
		}
		if (json_is_real(v) && json_real_value(v) >= 0) {
			*(uint64_t *)at = (uint64_t)json_real_value(v);
			return 0;
		}
		return -1;
	case RF_REAL:
		if (json_is_null(v)) {
			*(double *)at = NAN;
			return 0;
		}
		if (!json_is_number(v))
			return -1;
		*(double *)at = json_number_value(v);
		return 0;
	case RF_BOOL:
		if (!json_is_boolean(v))
			return -1;
		*(bool *)at = json_is_true(v);
		return 0;
	case RF_TRI:
		if (json_is_null(v)) {
			*(int *)at = -1;
			return 0;
		}
		if (!json_is_boolean(v))
			return -1;
		*(int *)at = json_is_true(v);
		return 0;
	case RF_STR:
		if (json_is_null(v)) {
			at[0] = 0;
			return 0;
		}
		if (!json_is_string(v))
			return -1;
		snprintf(at, f->size, "%s", json_string_value(v));
		return 0;
	case RF_ISTR: {
		const char *t = json_is_null(v) ? "" : json_is_string(v) ? util_intern(json_string_value(v)) : NULL;
		if (!t)
			return -1;
		*(const char **)at = t;
		return 0;
	}
	case RF_STATUS:
		if (!json_is_string(v))
			return -1;
		for (int i = 0; i < 4; i++)
			if (!strcmp(json_string_value(v), res_status_names[i])) {
				*(enum res_status *)at = (enum res_status)i;
				return 0;
			}
		return -1;
	}
	return -1;
}

int res_fields_from_json(const struct res_field *table, const json_t *obj, void *rec,
			 const char *where, char *err, size_t errlen)
{
	char parent[64];
	for (const struct res_field *f = table; f->key; f++) {
		const char *dot = strchr(f->key, '.');
		const json_t *v;
		if (dot) {
			snprintf(parent, sizeof(parent), "%.*s", (int)(dot - f->key), f->key);
			const json_t *sub = json_object_get(obj, parent);
			if (sub && !json_is_null(sub) && !json_is_object(sub)) {
				snprintf(err, errlen, "%s: '%s' is not an object", where, parent);
				return -1;
			}
			v = sub ? json_object_get(sub, dot + 1) : NULL;
		} else {
			v = json_object_get(obj, f->key);
		}
		if (!v)
			continue;   /* a run written before the key existed: left missing */
		if (res_field_set(f, v, rec)) {
			snprintf(err, errlen, "%s: '%s' should be %s", where, f->key,
				 res_type_name(f->type));
			return -1;
		}
	}
	return 0;
}
