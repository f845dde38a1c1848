// SPDX-License-Identifier: GPL-2.0-only
/* Device and machine counters over a load point's window (see devwin.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devwin.h"

void devwin_init(struct devwin *w, const struct sys_devset *set)
{
	memset(w, 0, sizeof(*w));
	const char *off = getenv("JOBMIX_NO_EVIDENCE");
	w->machine = !(off && !strcmp(off, "1"));
	for (size_t i = 0; set && i < set->n && i < SYS_MAX_DEVS; i++)
		snprintf(w->name[w->n++], SYS_DEV_NAME, "%s", set->dev[i].name);
}

void devwin_reset(struct devwin *w)
{
	memset(w->ok, 0, sizeof(w->ok));
	memset(w->marked, 0, sizeof(w->marked));
	iotrace_stop(w->tr);
	iotrace_clear(w->tr);
}

int devwin_trace(const struct devwin *w, size_t i, struct res_dev *d)
{
	if (!w->tr || i >= w->n || !w->marked[0] || !w->marked[1])
		return 0;
	return iotrace_read(w->tr, i, d);
}

void devwin_mark(void *arg, enum load_mark m, uint64_t now_ns)
{
	struct devwin *w = arg;
	if ((unsigned)m > LOAD_MARK_END)
		return;
	if (m == LOAD_MARK_END)
		iotrace_stop(w->tr);
	for (size_t i = 0; i < w->n; i++)
		w->ok[m][i] = sys_dstat_read(w->name[i], &w->at[m][i]) == 0;
	if (w->machine)
		sys_pstat_read(&w->ps[m], NULL);
	if (w->cg) {
		if (m == LOAD_MARK_START)
			sys_memcg_reset_peak(w->cg);
		sys_memcg_read(w->cg, &w->ms[m]);
	}
	w->t[m] = now_ns;
	w->marked[m] = true;
	if (m == LOAD_MARK_START)
		iotrace_start(w->tr);
}

bool devwin_read_bytes(const struct devwin *w, double *bytes)
{
	bool any = false;
	*bytes = 0;
	for (size_t i = 0; w->marked[0] && w->marked[1] && i < w->n; i++)
		if (w->ok[0][i] && w->ok[1][i] && w->at[1][i].rd_sectors >= w->at[0][i].rd_sectors) {
			*bytes += 512.0 * (double)(w->at[1][i].rd_sectors - w->at[0][i].rd_sectors);
			any = true;
		}
	return any;
}

bool devwin_rates(const struct devwin *w, size_t i, struct sys_drate *r)
{
	if (i >= w->n || !w->marked[0] || !w->marked[1] || !w->ok[0][i] || !w->ok[1][i] ||
	    w->t[1] < w->t[0])
		return false;
	sys_dstat_rates(&w->at[0][i], &w->at[1][i], (double)(w->t[1] - w->t[0]) / 1e9, r);
	return true;
}

void devwin_machine(const struct devwin *w, double users_cpu_s, unsigned ncpu,
		    struct res_machine *m)
{
	struct res_point blank;
	res_point_init(&blank);
	*m = blank.machine;
	if (!w->machine || !w->marked[0] || !w->marked[1] || w->t[1] <= w->t[0])
		return;
	double secs = (double)(w->t[1] - w->t[0]) / 1e9;
	struct sys_pdelta d;
	sys_pstat_delta(&w->ps[0], &w->ps[1], secs, sysconf(_SC_CLK_TCK), &d);
	m->window_s = secs;
	if (d.ok_cpu) {
		double *cpu[SYS_CPU_NSTATES] = { &m->user_s, &m->nice_s, &m->system_s, &m->idle_s,
						 &m->iowait_s, &m->irq_s, &m->softirq_s, &m->steal_s };
		for (int k = 0; k < SYS_CPU_NSTATES; k++)
			*cpu[k] = d.cpu_s[k];
		m->busy_s = d.busy_s;
		m->steal_pct = d.steal_pct;
		m->ctxt_s = d.ctxt_s;
		m->other_pct = sys_pstat_other_pct(&d, secs, ncpu, users_cpu_s);
		m->noisy = m->other_pct > RES_NOISY_PCT || m->steal_pct > RES_NOISY_PCT;
	}
	m->load1 = d.load1;
	double *psi[SYS_PSI_NRES][2] = { { &m->psi_cpu_some, &m->psi_cpu_full },
					 { &m->psi_io_some, &m->psi_io_full },
					 { &m->psi_mem_some, &m->psi_mem_full } };
	double *cg[SYS_PSI_NRES][2] = { { &m->cg_psi_cpu_some, &m->cg_psi_cpu_full },
					{ &m->cg_psi_io_some, &m->cg_psi_io_full },
					{ &m->cg_psi_mem_some, &m->cg_psi_mem_full } };
	for (int r = 0; r < SYS_PSI_NRES; r++) {
		*psi[r][0] = d.psi_some_pct[r];
		*psi[r][1] = d.psi_full_pct[r];
		*cg[r][0] = d.cg_psi_some_pct[r];
		*cg[r][1] = d.cg_psi_full_pct[r];
	}
	const struct sys_memcg_stat *c0 = &w->ms[0], *c1 = &w->ms[1];
	if (w->cg && c0->ok && c1->ok) {
		m->mem_limit_bytes = (double)w->cg->limit;
		m->mem_peak_bytes = (double)c1->peak_bytes;
		m->mem_refault_s = (double)(c1->refault_file - c0->refault_file) / secs;
		m->mem_majfault_s = (double)(c1->majfault - c0->majfault) / secs;
		m->mem_oom_kills = (double)(c1->oom_kill - c0->oom_kill);
	}
	double *vm[SYS_VM_NITEMS] = { &m->pgscan_s, &m->pgsteal_s, &m->pgmajfault_s,
				      &m->allocstall_s, &m->nr_dirtied_s, &m->nr_written_s,
				      &m->refault_s };
	for (int v = 0; v < SYS_VM_NITEMS; v++)
		*vm[v] = d.vm_s[v];
}
