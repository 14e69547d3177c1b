/*
 * engine_rng — the engine's random numbers: offsets of random I/O, the
 * read/write choice of a mix, and the data written.
 *
 * Design: xoshiro256** (its step, engine_rng_next, is inline in
 * engine_int.h), seeded from the OS and mixed with a per-thread salt through
 * splitmix64, so no two threads of a run share a stream. A data pattern is
 * random bytes, zeros, or one fixed 4 KiB block repeated; the fixed block
 * comes from a constant seed, so it is the same in every thread and run.
 * Calls nothing else of the engine.
 */
#include <string.h>

#include "engine_int.h"

/* XORs splitmix64 of salt into the state: distinct salts, distinct streams,
 * and a well-mixed state even from all-zero bytes. */
static void rng_mix(struct engine_rng *g, uint64_t salt)
{
	uint64_t x;

	for (int i = 0; i < 4; i++) {
		x = (salt += 0x9e3779b97f4a7c15ULL);
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		g->s[i] ^= x ^ (x >> 31);
	}
}

void engine_rng_seed(struct engine_rng *g, uint64_t salt)
{
	if (os_random(g->s, sizeof(g->s)) != 0)
		memset(g->s, 0, sizeof(g->s));
	rng_mix(g, salt); /* so threads never share a stream */
}

void engine_rng_fill(struct engine_rng *g, void *buf, size_t len)
{
	uint64_t *p = buf;

	for (size_t i = 0; i < len / sizeof(*p); i++)
		p[i] = engine_rng_next(g);
}

/*
 * Fills a buffer with a data pattern: random bytes from g, zeros (a fresh
 * anonymous mapping already is), or one 4 KiB block from a fixed seed
 * repeated, the same block in every thread and every run.
 */
void engine_fill_pattern(void *buf, size_t len, enum wl_data data,
			 struct engine_rng *g)
{
	if (data == WL_DATA_RANDOM) {
		engine_rng_fill(g, buf, len);
	} else if (data == WL_DATA_ZEROS) {
		memset(buf, 0, len);
	} else {
		struct engine_rng fixed = { { 0 } };
		uint64_t block[512];

		rng_mix(&fixed, 0x73746f7262656e63ULL); /* "storbenc" */
		engine_rng_fill(&fixed, block, sizeof(block));
		for (size_t off = 0; off < len; off += sizeof(block))
			memcpy((char *)buf + off, block,
			       len - off < sizeof(block) ? len - off
							 : sizeof(block));
	}
}
