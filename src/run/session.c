// SPDX-License-Identifier: GPL-2.0-only
/* A run's session: work area, device holds, scheduler switch (see session.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/run_session.h"
#include "jobmix/sys.h"

/* A message for the user, through the session's say (nothing printed here). */
static void __attribute__((format(printf, 2, 3))) session_say(const struct session *s,
							      const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	if (!s->say)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	s->say(s->say_arg, text);
}

int session_open_area(struct session *s, const struct workload *wl, char *err, size_t errlen)
{
	if (load_area_create(wl, &s->area, err, errlen))
		return -1;
	s->have_area = true;
	if (s->area.stale_removed)
		session_say(s, "%s%s", s->area.stale_note,
			    s->area.stale_removed > 1 ? " (and others like it)" : "");
	if (s->area.workdir_note[0])
		session_say(s, "%s", s->area.workdir_note);
	if (s->area.others)
		session_say(s, "warning: %s%s", s->area.others_note,
			    s->area.others > 1 ? " (and other runs)" : "");
	return 0;
}

int session_hold(struct session *s, const struct sys_devset *set, char *err, size_t errlen)
{
	for (size_t i = 0; i < set->n; i++) {
		if (!set->dev[i].settable)
			continue;
		struct sys_sched_hold *h = &s->holds[s->nholds];
		if (sys_sched_hold(set->dev[i].name, h, err, errlen)) {
			session_release_devices(s);
			return -1;
		}
		s->nholds++;
		if (h->repaired[0])
			session_say(s, "%s", h->repaired);
	}
	s->released = false;
	return 0;
}

int session_hold_knob(struct session *s, const struct sys_knob_family *f, const char *key,
		      const char *target, char *err, size_t errlen)
{
	if (s->nknobs == SESSION_MAX_KNOBS) {
		snprintf(err, errlen, "-X: more than %d system values to hold", SESSION_MAX_KNOBS);
		return -1;
	}
	struct sys_knob *k = &s->knobs[s->nknobs];
	if (sys_knob_hold(k, f, key, target, err, errlen))
		return -1;
	s->nknobs++;
	s->released = false;
	if (k->repaired[0])
		session_say(s, "%s", k->repaired);
	return 0;
}

int session_scratch(struct session *s, struct sys_scratch_hold *h, const struct workload *wl,
		    const char *type, bool mkfs, const char *mkfs_opts, const char *mnt, char *err,
		    size_t errlen)
{
	size_t i;
	for (i = 0; i < s->nknobs && s->knobs[i].fam->on != SYS_KNOB_ON_SCRATCH; i++)
		;
	if (i == s->nknobs || s->knobs[i].lock_fd < 0 || strcmp(s->knobs[i].target, h->name)) {
		snprintf(err, errlen, "the scratch device is not held");
		return -1;
	}
	struct sys_knob *k = &s->knobs[i];
	if (s->have_area) {
		/* the file system goes: its files first (the area's descriptors held on it) */
		int rc = load_area_remove(&s->area);
		s->have_area = false;
		if (rc) {
			snprintf(err, errlen, "cannot remove the work files from the scratch file "
				 "system on %s", k->target);
			return -1;
		}
	}
	snprintf(k->current, sizeof(k->current), "%s%s%s%s%s", type, mkfs_opts[0] ? " " : "",
		 mkfs_opts, mnt[0] ? " -o " : "", mnt);
	if (sys_scratch_make(h, type, mkfs, mkfs_opts, mnt, s->read_back[i],
			     sizeof(s->read_back[i]), err, errlen))
		return -1;
	return wl ? session_open_area(s, wl, err, errlen) : 0;
}

int session_memcg(struct session *s, uint64_t limit, char *err, size_t errlen)
{
	if (s->have_memcg)
		return s->memcg.limit == limit ? 0 :
		       sys_memcg_set_limit(&s->memcg, limit, err, errlen);
	if (sys_memcg_create(&s->memcg, limit, err, errlen))
		return -1;
	s->have_memcg = true;
	return 0;
}

bool session_holds_mount(const struct session *s, const char *path)
{
	struct sys_mount m;
	if (sys_mount_find(path, &m))
		return false;
	for (size_t i = 0; i < s->nknobs; i++)
		if (s->knobs[i].fam->on == SYS_KNOB_ON_MOUNTS &&
		    !strcmp(s->knobs[i].target, m.mount_point))
			return true;
	return false;
}

int session_set_knob(struct session *s, const char *key, const char *value, char *err,
		     size_t errlen)
{
	if (s->have_area && load_area_settle(&s->area)) {
		snprintf(err, errlen, "cannot write back the work files before setting %s=%s", key,
			 value);
		return -1;
	}
	for (size_t i = 0; i < s->nknobs; i++) {
		struct sys_knob *k = &s->knobs[i];
		if (strcmp(k->key, key))
			continue;
		if (sys_knob_set(k, value, s->read_back[i], sizeof(s->read_back[i]), err, errlen))
			return -1;
	}
	if (s->have_area && load_area_settle(&s->area)) {
		snprintf(err, errlen, "cannot drop the work files' cached pages after setting %s=%s",
			 key, value);
		return -1;
	}
	return 0;
}

int session_switch(struct session *s, const char *sched, char *err, size_t errlen)
{
	/* dirty data of the last point goes out under the scheduler that made it */
	if (s->have_area && load_area_settle(&s->area)) {
		snprintf(err, errlen, "cannot write back the work files before switching to %s",
			 sched);
		return -1;
	}
	for (size_t i = 0; i < s->nholds; i++)
		if (sys_sched_switch(&s->holds[i], sched, err, errlen))
			return -1;
	snprintf(s->current, sizeof(s->current), "%s", sched);
	if (s->have_area && load_area_settle(&s->area)) {
		snprintf(err, errlen, "cannot drop the work files' cached pages after switching to %s",
			 sched);
		return -1;
	}
	return 0;
}

/* A restore that failed: said in every run.json (the first error kept). */
static void session_restore_failed(struct session *s, const char *err)
{
	s->restore_failed = true;
	if (!s->restore_error[0])
		snprintf(s->restore_error, sizeof(s->restore_error), "%s", err);
}

/* An iosched tunable: it belongs to the scheduler, so it goes back after the scheduler. */
static bool session_knob_iosched(const struct sys_knob *k)
{
	return k->fam->sched_bound;
}

/* Restore and unlock held knob k; a failure said and kept.  0 or -1. */
static int session_release_knob(struct session *s, struct sys_knob *k)
{
	char err[512];
	if (k->lock_fd < 0)
		return 0;
	if (k->fam->on == SYS_KNOB_ON_SCRATCH && s->have_area) {
		/* the work area is on the scratch file system: it goes before the unmount */
		if (load_area_remove(&s->area) && errno == ETIMEDOUT)
			session_say(s, "%s", s->area.left_note);
		s->have_area = false;
	}
	if (!sys_knob_release(k, err, sizeof(err)))
		return 0;
	session_restore_failed(s, err);
	session_say(s, "*** NOT RESTORED: %s ***", err);
	session_say(s, "*** its record is kept: run 'jobmix restore' ***");
	return -1;
}

/*
 * The knobs (reverse order), then the schedulers, then the iosched
 * tunables: the scheduler restored makes its elevator afresh, and the
 * original tunable goes back into that one.
 */
int session_release_devices(struct session *s)
{
	int ret = 0;
	for (size_t i = s->nknobs; i-- > 0;)
		if (!session_knob_iosched(&s->knobs[i]) && session_release_knob(s, &s->knobs[i]))
			ret = -1;
	for (size_t i = s->nholds; i-- > 0;) {
		char err[512];
		struct sys_sched_hold *h = &s->holds[i];
		if (h->lock_fd < 0)
			continue;
		if (sys_sched_release(h, err, sizeof(err))) {
			ret = -1;
			session_restore_failed(s, err);
			session_say(s, "*** IO SCHEDULER NOT RESTORED: %s ***", err);
			session_say(s, "*** %s should be '%s'; its state is kept: run "
				    "'jobmix sched --restore' ***", h->dev, h->original);
		}
	}
	for (size_t i = s->nknobs; i-- > 0;)
		if (session_knob_iosched(&s->knobs[i]) && session_release_knob(s, &s->knobs[i]))
			ret = -1;
	s->released = true;
	return ret;
}

/*
 * The devices come back first, then the area goes: its removal may block
 * on a hung or frozen filesystem, and then runs out in its child while the
 * run ends (load_area_remove waits a bounded time).  A removal left to its
 * child is said with where, and does not change the run's outcome; one
 * that failed does.
 */
int session_close(struct session *s)
{
	int ret = session_release_devices(s);
	if (s->have_area) {
		if (load_area_remove(&s->area)) {
			if (errno == ETIMEDOUT) {
				session_say(s, "%s", s->area.left_note);
			} else {
				session_say(s, "could not remove every work file");
				ret = -1;
			}
		}
		s->have_area = false;
	}
	if (s->have_memcg) {
		char err[512];
		if (sys_memcg_remove(&s->memcg, err, sizeof(err))) {
			session_say(s, "%s", err);
			ret = -1;
		}
		s->have_memcg = false;
	}
	return ret;
}

void session_originals(const struct session *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < s->nholds && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "",
					 s->holds[i].dev, s->holds[i].original);
}

void session_devices(const struct session *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < s->nholds && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 s->holds[i].dev);
}
