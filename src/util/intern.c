// SPDX-License-Identifier: GPL-2.0-only
/*
 * The intern pool (intern.h): an open-addressing hash set of string
 * pointers (FNV-1a, linear probing, grown at 1/2 full), the strings packed
 * into 64 KiB blocks (a longer one gets a block of its own).  Nothing is
 * freed before exit; what the pool holds stays reachable from its statics.
 */
#include "jobmix/intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INTERN_BLOCK 65536

struct intern_block {
	struct intern_block *next;
	size_t used, cap;
	char s[];
};

static struct {
	const char **slot;
	size_t nslot, n;
	struct intern_block *blk;
	size_t bytes;
} pool;

static uint64_t intern_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Room for n + 1 bytes in the pool's blocks, or NULL. */
static char *intern_room(size_t n)
{
	struct intern_block *b = pool.blk;
	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > INTERN_BLOCK / 4 ? n + 1 : INTERN_BLOCK;
		struct intern_block *nb = malloc(sizeof(*nb) + cap);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->cap = cap;
		pool.bytes += sizeof(*nb) + cap;
		if (b && cap != INTERN_BLOCK) {
			/* a long string's own block: keep filling the current one */
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			pool.blk = nb;
		}
		b = nb;
	}
	char *p = b->s + b->used;
	b->used += n + 1;
	return p;
}

static int intern_grow(void)
{
	size_t nslot = pool.nslot ? pool.nslot * 2 : 4096;
	const char **slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < pool.nslot; i++) {
		const char *s = pool.slot[i];
		if (!s)
			continue;
		size_t j = intern_hash(s, strlen(s)) & (nslot - 1);
		while (slot[j])
			j = (j + 1) & (nslot - 1);
		slot[j] = s;
	}
	pool.bytes += (nslot - pool.nslot) * sizeof(*slot);
	free(pool.slot);
	pool.slot = slot;
	pool.nslot = nslot;
	return 0;
}

const char *util_intern_n(const char *s, size_t n)
{
	if (!n)
		return "";
	if ((pool.n + 1) * 2 > pool.nslot && intern_grow())
		return NULL;
	size_t j = intern_hash(s, n) & (pool.nslot - 1);
	for (const char *t; (t = pool.slot[j]); j = (j + 1) & (pool.nslot - 1))
		if (!strncmp(t, s, n) && !t[n])
			return t;
	char *p = intern_room(n);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	pool.slot[j] = p;
	pool.n++;
	return p;
}

const char *util_intern(const char *s)
{
	return s ? util_intern_n(s, strlen(s)) : "";
}

const char *util_istr(const char *s)
{
	const char *t = util_intern(s);
	return t ? t : "";
}

size_t util_intern_bytes(void)
{
	return pool.bytes;
}
