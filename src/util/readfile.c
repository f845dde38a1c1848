// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one bounded reader for files that others name (readfile.h): stat
 * before opening, so a FIFO or a device is refused without being opened;
 * open with O_NONBLOCK (a FIFO swapped in between stat and open does not
 * block) and fstat the descriptor (it must still be a regular file, the
 * same one); then read at most cap + 1 bytes, so a file that grows past
 * the cap while it is read is refused too.
 */
#include "jobmix/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "a FIFO", "a character device", ... for a refusal message. */
static const char *rf_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

int jm_is_regular(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int jm_read_file(const char *path, size_t cap, const char *what, char **out, size_t *len,
		 char *err, size_t errlen)
{
	struct stat st, fst;
	char *buf = NULL;
	size_t n = 0, size;
	int fd = -1, ret = -1;

	*out = NULL;
	*len = 0;
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory, not a %s", path, what);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s); a %s must be a regular file",
			 path, rf_kind(st.st_mode), what);
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &fst) || !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		snprintf(err, errlen, "%s: not a regular file (it changed while opened); a %s must "
			 "be a regular file", path, what);
		goto out;
	}
	if (fst.st_size < 0 || (unsigned long long)fst.st_size > cap) {
		snprintf(err, errlen, "%s: too large (%lld bytes; a %s is at most %zu bytes)", path,
			 (long long)fst.st_size, what, cap);
		goto out;
	}
	/* the size stat gave, and one byte more to see EOF (or growth) */
	size = (size_t)fst.st_size + 1;
	if (!(buf = malloc(size + 1))) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		if (n == size) {
			size_t ns = size * 2 > cap + 1 ? cap + 1 : size * 2;
			char *nb = ns > size ? realloc(buf, ns + 1) : NULL;
			if (!nb) {
				snprintf(err, errlen, "%s: %s", path, ns > size ? "out of memory"
					 : "too large (it grew while read)");
				goto out;
			}
			buf = nb;
			size = ns;
		}
		ssize_t r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > cap) {
			snprintf(err, errlen, "%s: too large (a %s is at most %zu bytes)", path, what,
				 cap);
			goto out;
		}
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}
