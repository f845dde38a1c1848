// SPDX-License-Identifier: GPL-2.0-only
/* An output file that is standard output for NULL or "-", else atomic.h's writer. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/outfile.h"

int outfile_open(struct outfile *o, const char *path, const struct atom_set *inputs, char *err,
		 size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	int rc = atom_begin_at(&o->a, AT_FDCWD, path, inputs, err, errlen);
	if (rc)
		return rc;
	o->f = o->a.f;
	o->file = true;
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	if (!o->file) {
		if (fflush(o->f) || ferror(o->f)) {
			snprintf(err, errlen, "write to standard output failed");
			return -1;
		}
		return 0;
	}
	o->f = NULL;
	o->file = false;
	return atom_commit(&o->a, err, errlen) ? -1 : 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->file)
		atom_abort(&o->a);
	o->file = false;
	o->f = NULL;
}
