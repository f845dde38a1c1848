/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small, fast, reproducible PRNG (xoshiro256**, seeded through splitmix64).
 * Each user gets its own generator seeded from the run seed and its index,
 * so job order and random offsets are the same from run to run.
 */
#ifndef JOBMIX_RNG_H
#define JOBMIX_RNG_H

#include <stdint.h>

struct jm_rng {
	uint64_t s[4];
};

static inline uint64_t jm_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void jm_rng_seed(struct jm_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = jm_splitmix64(&x);
}

static inline uint64_t jm_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t jm_rng_next(struct jm_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = jm_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = jm_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) (n > 0), Lemire's multiply-shift with rejection. */
static inline uint64_t jm_rng_below(struct jm_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)jm_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;
	if (lo < n) {
		uint64_t thresh = -n % n;
		while (lo < thresh) {
			m = (unsigned __int128)jm_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Uniform double in [0, 1). */
static inline double jm_rng_double(struct jm_rng *r)
{
	return (double)(jm_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
