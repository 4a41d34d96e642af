// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-rng.c: the only source of randomness of mklayout: xoshiro256**
 * seeded through splitmix64 from (seed, stream), never rand() or time.
 */
#include <stdio.h>

#include "mklayout.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Independent streams of one seed: the images and the command line. */
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Rejection sampling: no modulo bias. */
unsigned int rng_below(struct rng *r, unsigned int n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = rng_next(r);
	while (x >= limit);
	return (unsigned int)(x % n);
}

bool rng_chance(struct rng *r, unsigned int num, unsigned int den)
{
	return rng_below(r, den) < num;
}

void rng_uuid(struct rng *r, char out[ID_LEN])
{
	uint64_t hi = rng_next(r), lo = rng_next(r);

	hi = (hi & ~0xf000ULL) | 0x4000ULL;		/* version 4 */
	lo = (lo & ~(3ULL << 62)) | (2ULL << 62);	/* variant 10 */
	snprintf(out, ID_LEN, "%08x-%04x-%04x-%04x-%012llx",
		 (unsigned int)(hi >> 32), (unsigned int)(hi >> 16) & 0xffff,
		 (unsigned int)hi & 0xffff, (unsigned int)(lo >> 48),
		 (unsigned long long)(lo & 0xffffffffffffULL));
}

/* Fisher-Yates. */
void rng_shuffle(struct rng *r, unsigned int *v, unsigned int n)
{
	unsigned int i, j, t;

	for (i = n; i > 1; i--) {
		j = rng_below(r, i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}
