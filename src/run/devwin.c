// SPDX-License-Identifier: GPL-2.0-only
/* Device counters over a load point's window (see devwin.h). */
#include <stdio.h>
#include <string.h>

#include "devwin.h"

void devwin_init(struct devwin *w, const struct sys_devset *set)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; set && i < set->n && i < SYS_MAX_DEVS; i++)
		snprintf(w->name[w->n++], SYS_DEV_NAME, "%s", set->dev[i].name);
}

void devwin_reset(struct devwin *w)
{
	memset(w->ok, 0, sizeof(w->ok));
	memset(w->marked, 0, sizeof(w->marked));
}

void devwin_mark(void *arg, enum load_mark m, uint64_t now_ns)
{
	struct devwin *w = arg;
	if ((unsigned)m > LOAD_MARK_END)
		return;
	for (size_t i = 0; i < w->n; i++)
		w->ok[m][i] = sys_dstat_read(w->name[i], &w->at[m][i]) == 0;
	w->t[m] = now_ns;
	w->marked[m] = true;
}

bool devwin_rates(const struct devwin *w, size_t i, struct sys_drate *r)
{
	if (i >= w->n || !w->marked[0] || !w->marked[1] || !w->ok[0][i] || !w->ok[1][i] ||
	    w->t[1] < w->t[0])
		return false;
	sys_dstat_rates(&w->at[0][i], &w->at[1][i], (double)(w->t[1] - w->t[0]) / 1e9, r);
	return true;
}
