// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metrics report, compare and plot show (--metric): one table, each row
 * naming the results-schema field it reads (src/results/schema.c), so a
 * renamed field is one line here and a metric whose field is not in the
 * schema fails test_report.  A run's value of a metric is taken at the
 * point(s) of its Peak Load, the samples there folded as the metric folds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "jobmix/res_runs.h"
#include "internal.h"

const struct rep_metric rep_metrics[] = {
	{ "jpm", REP_MS_JPM, NULL, "JPM", true, true, 0,
	  "jobs per minute at the Peak Load (with Quick Convergence in the classic table)", 0 },
	{ "jpcs", REP_MS_POINT, "jobs_per_cpu_s", "/cpu-s", true, true, 0,
	  "jobs per CPU second of the users, jobs / (user_cpu_s + sys_cpu_s): other work on the "
	  "host takes wall time, not the users' CPU time, so it moves JPM far more than this "
	  "(CPU-bound mixes; I/O waits are not counted)", 0 },
	{ "elapsed", REP_MS_POINT, "elapsed_s", "s", false, false, 0,
	  "the point's wall time (sysbench's time spent)", 0 },
	{ "cpu.user", REP_MS_POINT, "user_cpu_s", "s", false, false, 0,
	  "user CPU time of the point's users", 0 },
	{ "cpu.sys", REP_MS_POINT, "sys_cpu_s", "s", false, false, 0,
	  "system CPU time of the point's users", 0 },
	{ "reads_s", REP_MS_ENTRY, "reads_s", "ops/s", true, true, 0,
	  "the entry's reads per second, all its users, over its read phases' wall time", 0 },
	{ "writes_s", REP_MS_ENTRY, "writes_s", "ops/s", true, true, 0,
	  "the entry's writes per second, all its users, over its write phases' wall time", 0 },
	{ "fsyncs_s", REP_MS_ENTRY, "fsyncs_s", "ops/s", true, true, 0,
	  "the entry's fsyncs per second, all its users, over the point's wall time", 0 },
	{ "iops", REP_MS_ENTRY, "iops", "ops/s", true, true, 0,
	  "the entry's reads and writes per second, all its users, over the point's wall time "
	  "(sysbench's and fio's figure)", 0 },
	{ "read_mb_s", REP_MS_ENTRY, "read_mb_s", "MB/s", true, true, 0,
	  "the entry's bytes read per second, all its users, over its read phases' wall time "
	  "(10^6 bytes)", 0 },
	{ "write_mb_s", REP_MS_ENTRY, "write_mb_s", "MB/s", true, true, 0,
	  "the entry's bytes written per second, all its users, over its write phases' wall "
	  "time (10^6 bytes)", 0 },
	{ "reads_s_user", REP_MS_ENTRY, "reads_s_user", "ops/s", true, true, 0,
	  "one user's reads per second of its read phases", 0 },
	{ "writes_s_user", REP_MS_ENTRY, "writes_s_user", "ops/s", true, true, 0,
	  "one user's writes per second of its write phases", 0 },
	{ "fsyncs_s_user", REP_MS_ENTRY, "fsyncs_s_user", "ops/s", true, true, 0,
	  "one user's fsyncs per second of its jobs", 0 },
	{ "iops_user", REP_MS_ENTRY, "iops_user", "ops/s", true, true, 0,
	  "one user's reads and writes per second of its jobs", 0 },
	{ "read_mb_s_user", REP_MS_ENTRY, "read_mb_s_user", "MB/s", true, true, 0,
	  "one user's bytes read per second of its read phases (10^6 bytes)", 0 },
	{ "write_mb_s_user", REP_MS_ENTRY, "write_mb_s_user", "MB/s", true, true, 0,
	  "one user's bytes written per second of its write phases (10^6 bytes)", 0 },
	{ "p50_ms", REP_MS_ENTRY, "p50_ms", "ms", false, false, 0,
	  "the entry's median latency of one job (from the merged histograms)", 0.50 },
	{ "p99_ms", REP_MS_ENTRY, "p99_ms", "ms", false, false, 0,
	  "the entry's 99th percentile latency of one job (from the merged histograms)", 0.99 },
	{ "mean_ms", REP_MS_ENTRY, "mean_ms", "ms", false, false, 0,
	  "the entry's mean latency of one job", 0 },
	{ "dev.iops", REP_MS_DEV, "iops", "ops/s", true, true, 0,
	  "requests the device the entries did their I/O on completed per second", 0 },
	{ "dev.mb_s", REP_MS_DEV, "mb_s", "MB/s", true, true, 0,
	  "bytes that device moved per second (10^6 bytes)", 0 },
	{ "dev.kib_req", REP_MS_DEV, "avg_req_kib", "KiB", true, false, 0,
	  "that device's mean request size", 0 },
	{ "dev.qdepth", REP_MS_DEV, "avg_qdepth", "requests", false, false, 0,
	  "requests in flight on that device on average", 0 },
	{ "dev.util", REP_MS_DEV, "util", "%", false, false, 100,
	  "that device's busy share of the window", 0 },
	{ "blk.sched_p50_ms", REP_MS_DEV, "blk.sched_p50_ms", "ms", false, false, 0,
	  "median time a request of that device waited in the IO scheduler, insert to issue "
	  "(block tracepoints; run as root with BTF)", 0 },
	{ "blk.sched_p99_ms", REP_MS_DEV, "blk.sched_p99_ms", "ms", false, false, 0,
	  "99th percentile of the time a request waited in the IO scheduler", 0 },
	{ "blk.dev_p50_ms", REP_MS_DEV, "blk.dev_p50_ms", "ms", false, false, 0,
	  "median time a request spent in the device, issue to completion", 0 },
	{ "blk.dev_p99_ms", REP_MS_DEV, "blk.dev_p99_ms", "ms", false, false, 0,
	  "99th percentile of the time a request spent in the device", 0 },
	{ "blk.req_kib_p50", REP_MS_DEV, "blk.req_kib_p50", "KiB", true, false, 0,
	  "median size of that device's requests at issue", 0 },
	{ "blk.depth_p50", REP_MS_DEV, "blk.depth_p50", "requests", false, false, 0,
	  "median requests in flight on the device at an issue (that one included)", 0 },
	{ "blk.depth_p90", REP_MS_DEV, "blk.depth_p90", "requests", false, false, 0,
	  "90th percentile of requests in flight at an issue", 0 },
	{ "blk.tdepth_p50", REP_MS_DEV, "blk.tdepth_p50", "requests", false, false, 0,
	  "median requests in flight on that device over the window's time (idle: 0)", 0 },
	{ "blk.tdepth_p90", REP_MS_DEV, "blk.tdepth_p90", "requests", false, false, 0,
	  "90th percentile of requests in flight over the window's time", 0 },
	{ "extents", REP_MS_ENTRY, "extents", "extents", false, false, 0,
	  "the entry's files' extents after its writes (FIEMAP), mean per file", 0 },
	{ "machine.other_pct", REP_MS_POINT, "machine.other_pct", "%", false, false, 0,
	  "share of the CPUs other work and steal took over the point's window", 0 },
	{ "machine.steal_pct", REP_MS_POINT, "machine.steal_pct", "%", false, false, 0,
	  "CPU time stolen by the hypervisor over the window", 0 },
	{ "machine.iowait_s", REP_MS_POINT, "machine.iowait_s", "s", false, false, 0,
	  "CPU seconds idle waiting for I/O over the window, all CPUs", 0 },
	{ "machine.ctxt_s", REP_MS_POINT, "machine.ctxt_s", "/s", false, false, 0,
	  "context switches per second, the whole machine", 0 },
	{ "machine.load1", REP_MS_POINT, "machine.load1", "tasks", false, false, 0,
	  "1-minute load average at the window's end", 0 },
	{ "psi.cpu.some", REP_MS_POINT, "machine.psi_cpu_some", "%", false, false, 0,
	  "share of the window some task stalled on CPU (/proc/pressure)", 0 },
	{ "psi.io.some", REP_MS_POINT, "machine.psi_io_some", "%", false, false, 0,
	  "share of the window some task stalled on I/O", 0 },
	{ "psi.io.full", REP_MS_POINT, "machine.psi_io_full", "%", false, false, 0,
	  "share of the window every task stalled on I/O", 0 },
	{ "psi.memory.some", REP_MS_POINT, "machine.psi_memory_some", "%", false, false, 0,
	  "share of the window some task stalled on memory", 0 },
	{ "vm.pgmajfault_s", REP_MS_POINT, "machine.pgmajfault_s", "/s", false, false, 0,
	  "major page faults per second over the window", 0 },
	{ "vm.pgscan_s", REP_MS_POINT, "machine.pgscan_s", "pages/s", false, false, 0,
	  "pages scanned for reclaim per second", 0 },
	{ "vm.refault_s", REP_MS_POINT, "machine.refault_s", "pages/s", false, false, 0,
	  "workingset refaults per second (evicted pages needed again)", 0 },
	{ "vm.nr_written_s", REP_MS_POINT, "machine.nr_written_s", "pages/s", false, false, 0,
	  "pages written back per second", 0 },
	{ "mem.cache_hit_pct", REP_MS_POINT, "machine.cache_hit_pct", "%", true, false, 0,
	  "page cache hits: 1 - device bytes read / bytes the users read", 0 },
	{ "mem.peak_bytes", REP_MS_POINT, "machine.mem_peak_bytes", "B", false, false, 0,
	  "the users' memory cgroup's peak use over the point (--mem-limit)", 0 },
	{ "mem.refault_s", REP_MS_POINT, "machine.mem_refault_s", "pages/s", false, false, 0,
	  "the users' memory cgroup's file refaults per second (--mem-limit)", 0 },
	{ NULL, 0, NULL, NULL, false, false, 0, NULL, 0 },
};

static const struct res_field *rep_field_table(enum rep_msrc src)
{
	static const struct res_field *const tab[] = {
		[REP_MS_JPM] = NULL, [REP_MS_POINT] = res_point_fields,
		[REP_MS_ENTRY] = res_kind_fields, [REP_MS_DEV] = res_dev_fields,
	};
	return tab[src];
}

/* The schema row a metric reads, or NULL. */
static const struct res_field *rep_metric_field(const struct rep_metric *m)
{
	/* looked up once a metric: a report measures 100,000 runs */
	static const struct res_field *known[256];
	static bool looked[256];
	size_t k = (size_t)(m - rep_metrics);
	bool cache = m >= rep_metrics && k < 256;
	if (cache && looked[k])
		return known[k];
	const struct res_field *f = rep_field_table(m->src);
	for (; f && f->key && strcmp(f->key, m->field); f++)
		;
	if (f && !f->key)
		f = NULL;
	if (cache) {
		known[k] = f;
		looked[k] = true;
	}
	return f;
}

/* A real or counter field of a record as a double; NAN for any other type. */
static double rep_field_value(const void *rec, const struct res_field *f)
{
	const char *p = (const char *)rec + f->offset;
	double v;
	switch (f->type) {
	case RF_REAL: memcpy(&v, p, sizeof(v)); return v;
	case RF_U64:
	case RF_U64N: {
		uint64_t u;
		memcpy(&u, p, sizeof(u));
		return f->type == RF_U64N && u == UINT64_MAX ? NAN : (double)u;
	}
	case RF_UINT:
	case RF_USERS: {
		unsigned u;
		memcpy(&u, p, sizeof(u));
		return u;
	}
	default: return NAN;
	}
}

/* The group a metric is listed in: "ENTRY.", "dev[.DEVICE].", "blk[.DEVICE].", "psi.", or "". */
static const char *rep_metric_group(const struct rep_metric *m, size_t *skip, char *buf,
				    size_t len)
{
	const char *dot = strchr(m->name, '.');
	*skip = 0;
	if (m->src == REP_MS_ENTRY)
		return "ENTRY.";
	if (!dot)
		return "";
	*skip = (size_t)(dot - m->name) + 1;
	if (m->src == REP_MS_DEV)
		snprintf(buf, len, "%.*s[.DEVICE].", (int)*skip - 1, m->name);
	else
		snprintf(buf, len, "%.*s", (int)*skip, m->name);
	return buf;
}

size_t rep_metric_names(char *buf, size_t len, bool brief)
{
	size_t used = 0;
	bool done[256] = { false };
	buf[0] = 0;
	for (size_t i = 0; rep_metrics[i].name && i < 256; i++) {
		char gi[32], gk[32];
		size_t skip;
		if (done[i])
			continue;
		const char *g = rep_metric_group(&rep_metrics[i], &skip, gi, sizeof(gi));
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s%s",
					 used ? ", " : "", g, brief && g[0] ? "*" :
					 rep_metrics[i].name + skip);
		for (size_t k = i + 1; g[0] && rep_metrics[k].name && k < 256; k++) {
			if (strcmp(rep_metric_group(&rep_metrics[k], &skip, gk, sizeof(gk)), g))
				continue;
			done[k] = true;
			if (!brief)
				used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
							 "|%s", rep_metrics[k].name + skip);
		}
	}
	return used;
}

int rep_metric_parse(const char *name, const struct rep_metric **m, char *entry, size_t elen,
		     char *err, size_t errlen)
{
	entry[0] = 0;
	for (const struct rep_metric *x = rep_metrics; x->name; x++)
		if (!strcmp(x->name, name) && (x->src == REP_MS_JPM || rep_metric_field(x))) {
			*m = x;
			return 0;
		}
	const char *dot = strrchr(name, '.'), *first = strchr(name, '.');
	if (first && dot > first + 1) {   /* dev.NAME.METRIC, blk.NAME.METRIC */
		char m2[64];
		size_t pre = (size_t)(first - name) + 1, dlen = (size_t)(dot - first) - 1;
		snprintf(m2, sizeof(m2), "%.*s%s", (int)pre, name, dot + 1);
		for (const struct rep_metric *x = rep_metrics; x->name; x++)
			if (x->src == REP_MS_DEV && !strcmp(x->name, m2) && rep_metric_field(x)) {
				if (dlen >= elen)
					break;
				snprintf(entry, elen, "%.*s", (int)dlen, first + 1);
				*m = x;
				return 0;
			}
	}
	if (dot && dot > name) {
		for (const struct rep_metric *x = rep_metrics; x->name; x++)
			if (x->src == REP_MS_ENTRY && !strcmp(x->name, dot + 1) && rep_metric_field(x)) {
				if ((size_t)(dot - name) >= elen)
					break;
				snprintf(entry, elen, "%.*s", (int)(dot - name), name);
				*m = x;
				return 0;
			}
	}
	char names[256];
	rep_metric_names(names, sizeof(names), true);
	snprintf(err, errlen, "--metric '%s': not a metric (%s; jobmix report --metrics lists "
		 "them)", name, names);
	return -1;
}

int rep_opts_add_metric(struct rep_opts *o, const char *name, char *err, size_t errlen)
{
	if (o->nmetric >= REP_MAX_METRICS) {
		snprintf(err, errlen, "--metric: at most %d", REP_MAX_METRICS);
		return -1;
	}
	struct rep_metric_sel *sel = &o->msel[o->nmetric];
	if (rep_metric_parse(name, &sel->m, sel->entry, sizeof(sel->entry), err, errlen))
		return -1;
	o->metric[o->nmetric++] = name;
	return 0;
}

int rep_opts_resolve(struct rep_opts *o, char *err, size_t errlen)
{
	for (size_t i = 0; i < o->nmetric && i < REP_MAX_METRICS; i++) {
		struct rep_metric_sel *sel = &o->msel[i];
		if (!sel->m && rep_metric_parse(o->metric[i], &sel->m, sel->entry,
						sizeof(sel->entry), err, errlen))
			return -1;
	}
	return 0;
}

int rep_metrics_render(FILE *f)
{
	fprintf(f, "%-21s %-8s %-6s %-7s %-44s %s\n", "METRIC", "UNIT", "BETTER", "REPEATS",
		"RUN.JSON FIELD", "MEANING");
	for (const struct rep_metric *m = rep_metrics; m->name; m++) {
		char name[64], field[64];
		static const char *const where[] = { "summary.peak_jpm", "points[].",
						     "points[].jobs_by_kind.ENTRY.",
						     "points[].devices.DEV." };
		snprintf(name, sizeof(name), "%s%s", m->src == REP_MS_ENTRY ? "ENTRY." : "", m->name);
		snprintf(field, sizeof(field), "%s%s", where[m->src], m->field ? m->field : "");
		fprintf(f, "%-21s %-8s %-6s %-7s %-44s %s\n", name, m->unit,
			m->higher_better ? "higher" : "lower", m->quantile > 0 ? "merged" : "gmean", field,
			m->doc);
	}
	fputs("ENTRY is a mix entry's name or its job kind (one entry of that kind); a metric of\n"
	      "an entry without ENTRY (read_mb_s) means every entry, one column each.  An entry's\n"
	      "rates are all its users' together (what sysbench and fio print); *_user: one\n"
	      "user's.  A phased job's (streams: writes, then reads) read rate is over its read\n"
	      "phases' wall time, its users' read time over their mean concurrency.  dev.* is\n"
	      "the device the entries did their I/O on (dev.DEVICE.kib_req: one of several);\n"
	      "blk.* the same device's block tracepoints (blk.DEVICE.dev_p99_ms; a run as root\n"
	      "with BTF, not --no-trace; docs/tracing.md), its percentiles a point's.\n"
	      "Each run's figure is taken at its Peak Load point (a single-point run: its one\n"
	      "point); repeats fold into one centre (docs/reports.md): the geometric mean x/÷ its\n"
	      "spread factor (mean ± sd where a value is not positive; percentiles: of the runs'\n"
	      "merged histograms).\n",
	      f);
	return ferror(f) ? -1 : 0;
}

/* The entry of a point a measure names: by name, else the only one of that kind. */
static const struct res_kind *rep_point_entry(const struct res_point *p, const char *entry)
{
	const struct res_kind *kind = NULL;
	size_t nkind = 0;
	for (size_t i = 0; i < p->nkinds; i++) {
		if (!strcmp(p->kinds[i].name, entry))
			return &p->kinds[i];
		if (!strcmp(p->kinds[i].job, entry)) {
			kind = &p->kinds[i];
			nkind++;
		}
	}
	return nkind == 1 ? kind : NULL;
}

size_t rep_point_devices(const struct res_point *p, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nkinds; i++) {
		const char *d = p->kinds[i].device;
		bool have = !d[0];
		for (size_t k = 0; !have && k < n; k++)
			have = !strcmp(out[k], d);
		if (!have && n < max)
			out[n++] = d;
	}
	return n;
}

/*
 * The device whose statistics stand for a run: the one its entries did their
 * I/O on (the first, where several did), else the first one an A/B
 * switched, else env.device (files before schema 6 name no entry's device).
 */
void rep_run_device(const struct res_rec *r, char *dev, size_t len)
{
	dev[0] = 0;
	for (size_t i = 0; i < r->npoints; i++) {
		const char *d[1];
		if (rep_point_devices(&r->points[i], d, 1)) {
			snprintf(dev, len, "%s", d[0]);
			return;
		}
	}
	if (r->have_sched && r->sched.devices[0]) {
		snprintf(dev, len, "%.*s", (int)strcspn(r->sched.devices, " "), r->sched.devices);
		return;
	}
	const char *d = res_rec_get(r, "device");
	if (d)
		snprintf(dev, len, "%s", d);
}

/* A measure's value at one point; NAN when the point has none. */
static double rep_point_measure(const struct res_rec *r, const struct res_point *p,
				const struct rep_measure *ms, const struct res_field *f)
{
	const void *rec = NULL;
	if (ms->m->src == REP_MS_POINT)
		rec = p;
	else if (ms->m->src == REP_MS_ENTRY)
		rec = rep_point_entry(p, ms->entry);
	else if (ms->m->src == REP_MS_DEV) {
		char dev[32];
		const char *d[1];
		if (ms->entry[0])                 /* dev.NAME.METRIC */
			snprintf(dev, sizeof(dev), "%s", ms->entry);
		else if (rep_point_devices(p, d, 1))
			snprintf(dev, sizeof(dev), "%s", d[0]);
		else
			rep_run_device(r, dev, sizeof(dev));
		for (size_t i = 0; i < p->ndevs && dev[0]; i++)
			if (!strcmp(p->devs[i].name, dev))
				rec = &p->devs[i];
	}
	if (!rec)
		return NAN;
	double v = rep_field_value(rec, f);
	return v * (ms->m->scale ? ms->m->scale : 1);
}

/* The run's peak users (rep_run_measure's choice): its Peak Load point, else its first. */
static unsigned rep_measure_users(const struct res_rec *r)
{
	unsigned u = 0;
	bool ne;
	double jpm;
	if (!rep_run_metric(r, false, false, &jpm, &u, &ne))
		u = 0;
	for (size_t i = 0; !u && i < r->npoints; i++)
		if (!r->points[i].failed && !r->points[i].interrupted)
			u = r->points[i].users;
	return u;
}

bool rep_run_hist(const struct res_rec *r, const struct rep_measure *ms, struct stats_hist *into)
{
	unsigned u = rep_measure_users(r), n = 0;
	for (size_t i = 0; u && ms->m->src == REP_MS_ENTRY && i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];
		if (p->users != u || p->failed || p->interrupted)
			continue;
		const struct res_kind *k = rep_point_entry(p, ms->entry);
		if (!k || !k->hist)
			return false;   /* a sample without one: no merged figure */
		res_hist_add_to(into, k->hist);
		n++;
	}
	return n > 0;
}

bool rep_run_measure(const struct res_rec *r, const struct rep_measure *ms, double *v,
		     unsigned *users)
{
	if (ms->m->quantile > 0) {
		/* the samples' histograms merged, the percentile read off the sum */
		struct stats_hist *h = calloc(1, sizeof(*h));
		bool have = h && rep_run_hist(r, ms, h) && h->count;
		if (have) {
			*v = stats_hist_quantile(h, ms->m->quantile) / 1e6;
			*users = rep_measure_users(r);
		}
		free(h);
		if (have)
			return true;
	}
	unsigned u = 0;
	bool ne;
	double jpm;
	*v = NAN;
	*users = 0;
	if (ms->proj && !r->points && ms->proj <= r->nproj) {
		/* read without its points: what rep_run_project took from them */
		if (!isfinite(r->proj[ms->proj - 1]))
			return false;
		*v = r->proj[ms->proj - 1];
		*users = r->proj_users;
		return true;
	}
	if (!rep_run_metric(r, false, false, &jpm, &u, &ne))
		u = 0;
	if (ms->m->src == REP_MS_JPM) {
		*v = jpm;
		*users = u;
		return u && isfinite(jpm);
	}
	const struct res_field *f = rep_metric_field(ms->m);
	if (!f)
		return false;
	/* no peak (a single point that failed to settle one): the run's first user count */
	for (size_t i = 0; !u && i < r->npoints; i++)
		if (!r->points[i].failed && !r->points[i].interrupted)
			u = r->points[i].users;
	double sum = 0;
	unsigned n = 0;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];
		if (p->users != u || p->failed || p->interrupted)
			continue;
		double x = rep_point_measure(r, p, ms, f);
		if (!isfinite(x) || (ms->m->rate && !(x > 0)))
			continue;
		sum += ms->m->rate ? 1 / x : x;
		n++;
	}
	if (!n)
		return false;
	*v = ms->m->rate ? n / sum : sum / n;
	*users = u;
	return true;
}

unsigned rep_opts_parts(const struct rep_opts *o)
{
	unsigned parts = 0;
	if (o->device_stats)   /* summed over every point */
		return RES_RUNS_POINTS;
	for (size_t i = 0; i < o->nmetric; i++) {
		struct rep_metric_sel sel = o->msel[i];
		char err[256];
		/* a name that does not parse is refused later, with points or without */
		if (!sel.m && rep_metric_parse(o->metric[i], &sel.m, sel.entry, sizeof(sel.entry),
					       err, sizeof(err)))
			continue;
		const struct rep_metric *m = sel.m;
		if (m->src == REP_MS_ENTRY)       /* the mix entries: every point's */
			return RES_RUNS_POINTS;
		if (m->src == REP_MS_DEV)         /* the entries' devices: every point's */
			return RES_RUNS_POINTS;
		if (m->src != REP_MS_JPM)         /* a point's: at the peak */
			parts |= RES_RUNS_PEAK;
	}
	return parts;
}

bool rep_run_metric(const struct res_rec *r, bool qc, bool qc_max, double *v,
			   unsigned *users, bool *not_established)
{
	const struct res_summary *s = &r->summary;
	*not_established = false;
	if (qc) {
		/* re-aim's -q printed the ramp's maximum: the best point measured */
		*v = qc_max ? s->max_jpm : s->converge_jpm;
		*users = qc_max ? s->max_jpm_users : s->converge_users;
		/* convergence into overload lies past the peak: at or below it, it is none */
		if (!qc_max && *users && s->peak_users && *users <= s->peak_users)
			return false;
		return isfinite(*v);
	}
	if (s->peak_beaten && isfinite(s->best_jpm)) {   /* beaten: the ramp's best point, unsure */
		*v = s->best_jpm;
		*users = s->best_users;
		*not_established = true;
		return true;
	}
	if (isfinite(s->peak_jpm)) {
		*v = s->peak_jpm;
		*users = s->peak_users;
		*not_established = !s->peak_established;
		return true;
	}
	if (isfinite(s->max_jpm)) {   /* a ramp with no summary yet: its best point */
		*v = s->max_jpm;
		*users = s->max_jpm_users;
		*not_established = true;
		return true;
	}
	return false;
}
