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
	_Alignas(16) char s[];     /* 16-aligned: blobs of records start at 16-byte offsets */
};

static struct {
	const char **slot;
	size_t nslot, n;
	struct intern_block *blk;
	size_t bytes;
} pool;

/* The blobs: their own set (length and hash kept beside each). */
struct intern_blob {
	const void *p;
	size_t n;
	uint64_t h;
};
static struct {
	struct intern_blob *slot;
	size_t nslot, n;
} blobs;

/* A hash of n bytes a word at a time (blobs are KBs: settings lists of 7 KB). */
static uint64_t blob_hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, b + i, n - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static uint64_t intern_hash(const char *s, size_t n)
{
	return blob_hash(s, n);
}

/* Room for n + 1 bytes in the pool's blocks (at `align`), or NULL. */
static char *intern_room_at(size_t n, size_t align)
{
	struct intern_block *b = pool.blk;
	if (b)
		b->used = b->used + align - 1 > b->cap ? b->cap : (b->used + align - 1) & ~(align - 1);
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

static char *intern_room(size_t n)
{
	return intern_room_at(n, 1);
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

const char *util_keep_n(const char *s, size_t n)
{
	char *p = intern_room(n);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
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

static int blob_grow(void)
{
	size_t nslot = blobs.nslot ? blobs.nslot * 2 : 256;
	struct intern_blob *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < blobs.nslot; i++) {
		if (!blobs.slot[i].p)
			continue;
		size_t j = blobs.slot[i].h & (nslot - 1);
		while (slot[j].p)
			j = (j + 1) & (nslot - 1);
		slot[j] = blobs.slot[i];
	}
	pool.bytes += (nslot - blobs.nslot) * sizeof(*slot);
	free(blobs.slot);
	blobs.slot = slot;
	blobs.nslot = nslot;
	return 0;
}

const void *util_intern_blob(const void *p, size_t n)
{
	if (!n || ((blobs.n + 1) * 2 > blobs.nslot && blob_grow()))
		return NULL;
	uint64_t h = blob_hash(p, n);
	size_t j = h & (blobs.nslot - 1);
	for (; blobs.slot[j].p; j = (j + 1) & (blobs.nslot - 1))
		if (blobs.slot[j].h == h && blobs.slot[j].n == n && !memcmp(blobs.slot[j].p, p, n))
			return blobs.slot[j].p;
	char *q = intern_room_at(n, 16);
	if (!q)
		return NULL;
	memcpy(q, p, n);
	blobs.slot[j] = (struct intern_blob){ q, n, h };
	blobs.n++;
	return q;
}

size_t util_intern_bytes(void)
{
	return pool.bytes;
}
