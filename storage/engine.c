/*
 * engine — see engine.h for the contract and the measurement rules.
 *
 * Layout: `struct eth` is one engine thread (its target context, its I/O
 * slots and buffers, its counts). run_threads() starts them behind a gate,
 * reports progress from the calling thread, joins them and sums their counts.
 * The same loop serves both the time-based measurement (engine_run) and the
 * size-based fill of a new test file (engine_prepare_file): a fill is a
 * sequential 1 MiB write "test" that stops after the file's size and refills
 * every buffer with fresh random data before it is written again, so the file
 * holds no repeated block.
 */
#include "engine.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

#define ENGINE_REAP_TIMEOUT_MS 100
#define ENGINE_REPORT_NS 250000000ULL
#define ENGINE_POLL_NS 50000000L /* the calling thread's wake-up, 50 ms */
#define FILL_BLOCK (1U << 20)
#define FILL_DEPTH 4U

/* xoshiro256** — fast, good enough for offsets and incompressible data. */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *g)
{
	uint64_t r = rotl(g->s[1] * 5, 7) * 9, t = g->s[1] << 17;

	g->s[2] ^= g->s[0];
	g->s[3] ^= g->s[1];
	g->s[1] ^= g->s[2];
	g->s[0] ^= g->s[3];
	g->s[2] ^= t;
	g->s[3] = rotl(g->s[3], 45);
	return r;
}

/* XORs splitmix64 of salt into the state: distinct salts, distinct streams,
 * and a well-mixed state even from all-zero bytes. */
static void rng_mix(struct rng *g, uint64_t salt)
{
	uint64_t x;

	for (int i = 0; i < 4; i++) {
		x = (salt += 0x9e3779b97f4a7c15ULL);
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		g->s[i] ^= x ^ (x >> 31);
	}
}

static void rng_seed(struct rng *g, uint64_t salt)
{
	if (os_random(g->s, sizeof(g->s)) != 0)
		memset(g->s, 0, sizeof(g->s));
	rng_mix(g, salt); /* so threads never share a stream */
}

static void rng_fill(struct rng *g, void *buf, size_t len)
{
	uint64_t *p = buf;

	for (size_t i = 0; i < len / sizeof(*p); i++)
		p[i] = rng_next(g);
}

/*
 * Fills a buffer with a data pattern: random bytes from g, zeros (a fresh
 * anonymous mapping already is), or one 4 KiB block from a fixed seed
 * repeated, the same block in every thread and every run.
 */
static void fill_pattern(void *buf, size_t len, enum wl_data data,
			 struct rng *g)
{
	if (data == WL_DATA_RANDOM) {
		rng_fill(g, buf, len);
	} else if (data == WL_DATA_ZEROS) {
		memset(buf, 0, len);
	} else {
		struct rng fixed = {{0}};
		uint64_t block[512];

		rng_mix(&fixed, 0x73746f7262656e63ULL); /* "storbenc" */
		rng_fill(&fixed, block, sizeof(block));
		for (size_t off = 0; off < len; off += sizeof(block))
			memcpy((char *)buf + off, block,
			       len - off < sizeof(block) ? len - off
							 : sizeof(block));
	}
}

/* How a run of threads stops and what it does besides measuring. */
struct run_mode {
	int create;          /* the first open creates the file */
	uint64_t bytes_limit; /* 0: time-based; else stop after this many,
				 over all threads */
	int refresh;         /* refill a write buffer before each submission
				(random data only) */
	int fsync_at_end;
};

struct run_shared {
	/* the start gate: each thread reports ready, then waits for go */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ready;
	int go;
	uint64_t start_ns;     /* when the gate opened (set before go) */
	atomic_int stop;       /* a thread failed: everybody stops */
	atomic_int finished;   /* threads that left their loop */
	atomic_int opened;     /* threads whose measured window is open */
	atomic_int closed;     /* threads whose measured window has closed */
	unsigned started;      /* threads running (set before go) */
	/* the process's CPU time when the last window opened and when the
	 * last one closed, taken by the thread that did it */
	struct os_cpu ru_open, ru_close;
	int have_open, have_close;
};

struct eth {
	struct run_shared *sh;
	const struct engine_opts *o; /* its member's: file, back-end, outputs */
	const struct workload *w;
	const struct run_mode *m;
	unsigned index;        /* within its member */
	struct tgt t;
	struct tgt_io *slots;
	struct tgt_io **done;
	void *buf;             /* every slot's buffer, one mapping */
	size_t buf_len;
	struct rng rng;
	uint64_t region_start, region_len, seq_pos, issued_bytes;
	uint64_t io_limit;     /* size-based: this thread's bytes; else 0 */
	uint64_t stamp_seq;    /* counts stamped 4 KiB blocks (stamp_blocks) */
	uint64_t writes_unsynced; /* completed writes since the last fdatasync */
	_Atomic uint64_t live_bytes, live_ios;
	struct result r;
	struct hist *hd[2];    /* this thread's latencies by direction, when
				  either or all are asked for */
	struct engine_sample *smp; /* this thread's per-second counts */
	unsigned smp_cap;
	/* seconds [0, smp_sealed) of smp are final (released after they are
	 * written; UINT_MAX once the thread counts no more): what the calling
	 * thread may read while the run goes on (stream_samples) */
	_Atomic unsigned smp_sealed;
	int rc;
	int direct;
	int opened, closed;    /* this thread has counted into sh->opened/closed */
	char error[200];
	pthread_t tid;
};

/*
 * The thread's I/O buffers: one allocation of queue_depth blocks, backed by
 * huge pages where the system has them (os_io_alloc): physically contiguous
 * buffers keep one large direct I/O one request to the device.
 */
static int eth_alloc(struct eth *e)
{
	const struct workload *w = e->w;
	size_t len = (size_t)w->queue_depth * w->block_size;

	e->slots = calloc(w->queue_depth, sizeof(*e->slots));
	e->done = calloc(w->queue_depth, sizeof(*e->done));
	if (!e->slots || !e->done)
		return -ENOMEM;
	/* one histogram per direction; the all-I/O one is their merge */
	for (int d = 0; d < 2; d++)
		if (e->o->hist || e->o->hist_dir[d]) {
			if (!(e->hd[d] = malloc(sizeof(*e->hd[d]))))
				return -ENOMEM;
			hist_init(e->hd[d]);
		}
	if (e->o->samples && e->o->samples->cap) {
		e->smp_cap = e->o->samples->cap;
		if (!(e->smp = calloc(e->smp_cap, sizeof(*e->smp))))
			return -ENOMEM;
	}
	e->buf_len = len;
	if (!(e->buf = os_io_alloc(&e->buf_len)))
		return -ENOMEM;
	for (unsigned i = 0; i < w->queue_depth; i++)
		e->slots[i].buf = (char *)e->buf + (size_t)i * w->block_size;
	fill_pattern(e->buf, len, w->data, &e->rng);
	return 0;
}

static void eth_free(struct eth *e)
{
	os_io_free(e->buf, e->buf_len);
	e->buf = NULL;
	for (int d = 0; d < 2; d++) {
		free(e->hd[d]);
		e->hd[d] = NULL;
	}
	free(e->smp);
	e->smp = NULL;
	free(e->slots);
	free(e->done);
	e->slots = NULL;
	e->done = NULL;
}

/*
 * Makes every 4 KiB of a write unique at the cost of two words per 4 KiB: a
 * fresh random word and a per-thread sequence number over the buffer's
 * (already random) content. Without it a slot's buffer would be written again
 * and again unchanged, and a deduplicating device would store it once and
 * report speeds no real data gets. The rest of the block stays random, so it
 * does not compress either.
 */
static void stamp_blocks(struct eth *e, struct tgt_io *io)
{
	for (uint32_t off = 0; off + 16 <= io->len; off += 4096) {
		uint64_t *p = (uint64_t *)((char *)io->buf + off);
		p[0] = rng_next(&e->rng);
		p[1] = ((uint64_t)e->index << 48) ^ e->stamp_seq++;
	}
}

/* Sets up io for the next I/O of this thread. */
static void eth_next(struct eth *e, struct tgt_io *io)
{
	const struct workload *w = e->w;

	io->len = w->block_size;
	if (w->pattern == WL_SEQUENTIAL) {
		if (e->seq_pos + w->block_size > e->region_len)
			e->seq_pos = 0;
		io->offset = e->region_start + e->seq_pos;
		e->seq_pos += w->block_size;
	} else {
		uint64_t blocks = e->region_len / w->block_size;
		io->offset = e->region_start +
			     (rng_next(&e->rng) % blocks) * w->block_size;
	}
	io->write = w->read_pct == 100 ? 0
		    : w->read_pct == 0 ? 1
				       : (rng_next(&e->rng) % 100) >= w->read_pct;
	if (io->write && w->data == WL_DATA_RANDOM) {
		if (e->m->refresh)
			rng_fill(&e->rng, io->buf, io->len);
		else
			stamp_blocks(e, io);
	}
	e->issued_bytes += io->len;
}

static int eth_fail(struct eth *e, int rc, const char *what)
{
	if (e->rc == 0) {
		e->rc = rc;
		snprintf(e->error, sizeof(e->error), "%s: %s", what,
			 strerror(-rc));
	}
	atomic_store(&e->sh->stop, 1);
	return rc;
}

/* Time-based: the window ends at the deadline. Size-based: once every I/O
 * of the limit is issued and has completed (all of them count). */
static int eth_should_stop(struct eth *e, uint64_t now, uint64_t deadline,
			   unsigned inflight)
{
	const struct run_shared *sh = e->sh;

	if (atomic_load(&sh->stop) || (e->o->cancel && *e->o->cancel))
		return 1;
	if (e->io_limit)
		return e->issued_bytes >= e->io_limit && inflight == 0;
	return now >= deadline;
}

/*
 * Queues one fresh I/O in slot io and commits it. One I/O per submission, as
 * fio does by default (iodepth_batch_submit=1): a completion is replaced at
 * once, so the device's queue stays as full as the workload says (batching
 * the replacements measured ~20 % fewer 4 KiB IOPS at QD32 on a virtio disk).
 *
 * stamp is when the slot became free (the reap that returned its previous
 * I/O, or the start): an I/O's latency runs from there to its completion, so
 * it includes waiting for its own submission while the replacements before it
 * in a burst go out — fio's slat + clat. Every slot is then always inside
 * some I/O's latency, and IOPS × mean latency = queue depth (Little's law).
 */
static int eth_submit(struct eth *e, struct tgt_io *io, uint64_t stamp)
{
	int rc;

	eth_next(e, io);
	rc = tgt_queue(&e->t, io);
	if (rc < 0)
		return eth_fail(e, rc, "queueing an I/O");
	io->t_submit_ns = stamp;
	rc = tgt_commit(&e->t);
	return rc < 0 ? eth_fail(e, rc, "submitting I/O") : 0;
}

/*
 * Records a failed or short I/O. A short write is what a full filesystem
 * gives an O_DIRECT writer before it gives ENOSPC, so it is reported as
 * ENOSPC; a short read of a file we wrote ourselves is an I/O error.
 */
static void eth_io_failed(struct eth *e, const struct tgt_io *io)
{
	char what[128];
	int rc = io->res < 0 ? (int)io->res : io->write ? -ENOSPC : -EIO;

	if (io->res >= 0)
		snprintf(what, sizeof(what),
			 "%s of %u bytes at offset %llu moved only %lld bytes",
			 io->write ? "write" : "read", io->len,
			 (unsigned long long)io->offset, (long long)io->res);
	else
		snprintf(what, sizeof(what), "%s of %u bytes at offset %llu",
			 io->write ? "write" : "read", io->len,
			 (unsigned long long)io->offset);
	eth_fail(e, rc, what);
}

/* The second of the window an I/O completing at `since` ns belongs to; the
 * seconds past the array's end are added to its last entry. */
static unsigned sample_index(const struct eth *e, uint64_t since)
{
	uint64_t i = since / 1000000000ULL;

	return i < e->smp_cap ? (unsigned)i : e->smp_cap - 1;
}

/* The last thread to open its window, and the last to close it, take the
 * process's CPU time there and then: the CPU figure covers exactly the span
 * in which every window is open. */
static void window_opened(struct eth *e)
{
	if (!e->opened) {
		e->opened = 1;
		if ((unsigned)atomic_fetch_add(&e->sh->opened, 1) + 1 ==
		    e->sh->started)
			e->sh->have_open =
				os_cpu_times(&e->sh->ru_open) == 0;
	}
}

static void window_closed(struct eth *e)
{
	window_opened(e);
	if (!e->closed) {
		e->closed = 1;
		if ((unsigned)atomic_fetch_add(&e->sh->closed, 1) + 1 ==
		    e->sh->started)
			e->sh->have_close =
				os_cpu_times(&e->sh->ru_close) == 0;
	}
}

/* The I/O loop: keeps queue_depth in flight until told to stop. */
static void eth_loop(struct eth *e)
{
	const struct workload *w = e->w;
	uint64_t start = os_now_ns(), now = start;
	/* one window for every thread, after the ramp: t0 … deadline */
	uint64_t t0 = e->sh->start_ns + (uint64_t)(w->ramp_s * 1e9);
	uint64_t deadline = t0 + (uint64_t)(w->duration_s * 1e9);
	unsigned depth = w->queue_depth, inflight = 0;
	int measuring = 1;

	if (e->io_limit) {
		uint64_t blocks = e->io_limit / w->block_size;
		if (blocks < depth)
			depth = (unsigned)blocks;
	}
	for (unsigned i = 0; i < depth; i++) {
		if (eth_submit(e, &e->slots[i], start) < 0)
			break;
		inflight++;
	}
	if (inflight < depth)
		measuring = 0;
	while (inflight) {
		int n = tgt_reap(&e->t, 1, ENGINE_REAP_TIMEOUT_MS, e->done,
				 w->queue_depth);
		unsigned again = 0;
		uint64_t all_bytes = 0;
		struct engine_sample *smp;
		int counting;

		now = os_now_ns();
		if (n < 0) {
			eth_fail(e, n, "waiting for I/O");
			measuring = 0;
			break;
		}
		/* I/Os that complete in the ramp are done but not counted */
		counting = measuring && now >= t0;
		if (counting)
			window_opened(e);
		/* one reap, one clock read: one second's entry for the batch */
		smp = counting && e->smp ? &e->smp[sample_index(e, now - t0)]
					 : NULL;
		/* every second before this one is complete in this thread */
		if (smp && (unsigned)(smp - e->smp) >
				   atomic_load_explicit(&e->smp_sealed,
							memory_order_relaxed))
			atomic_store_explicit(&e->smp_sealed,
					      (unsigned)(smp - e->smp),
					      memory_order_release);
		for (int i = 0; i < n; i++) {
			struct tgt_io *io = e->done[i];
			if (io->res != (int64_t)io->len) {
				eth_io_failed(e, io);
				continue;
			}
			all_bytes += io->len;
			e->writes_unsynced += io->write;
			if (counting) {
				/* counted once, by direction; the totals are
				 * summed when the loop ends */
				uint64_t lat = now - io->t_submit_ns;
				e->r.dir_ios[io->write]++;
				e->r.dir_bytes[io->write] += io->len;
				e->r.dir_lat_sum_ns[io->write] += lat;
				if (e->hd[io->write])
					hist_add(e->hd[io->write], lat);
				if (smp) {
					smp->ios[io->write]++;
					smp->bytes[io->write] += io->len;
					smp->lat_sum_ns[io->write] += lat;
				}
			}
		}
		inflight -= (unsigned)n;
		if (measuring && w->sync == WL_SYNC_FDATASYNC &&
		    e->writes_unsynced >= w->sync_every) {
			int frc = tgt_fsync(&e->t);
			if (frc < 0) {
				eth_fail(e, frc, "fdatasync of the test file");
				measuring = 0;
			} else if (counting) {
				e->r.syncs++;
			}
			e->writes_unsynced = 0;
		}
		if (measuring) {
			atomic_fetch_add_explicit(&e->live_bytes, all_bytes,
						  memory_order_relaxed);
			atomic_fetch_add_explicit(&e->live_ios, (uint64_t)n,
						  memory_order_relaxed);
			if (eth_should_stop(e, now, deadline, inflight)) {
				measuring = 0;
				window_closed(e);
				e->r.window_ns = now > t0 ? now - t0 : 0;
			}
		}
		if (!measuring) {
			/* with a byte limit, the window ends at the last I/O */
			if (e->io_limit && inflight == 0 && now > t0)
				e->r.window_ns = now - t0;
			continue;
		}
		again = (unsigned)n;
		if (e->io_limit) {
			uint64_t left = (e->io_limit - e->issued_bytes) /
					w->block_size;
			if (left < again)
				again = (unsigned)left;
		}
		for (unsigned k = 0; k < again && measuring; k++) {
			if (eth_submit(e, e->done[k], now) < 0)
				measuring = 0;
			else
				inflight++;
		}
	}
	if (measuring)
		e->r.window_ns = now > t0 ? now - t0 : 0;
	/* a thread that failed measured until it failed: its samples so far
	 * have a window to be read against */
	if (e->rc && e->r.window_ns == 0 && now > t0)
		e->r.window_ns = now - t0;
	window_closed(e);
	e->r.ios = e->r.dir_ios[0] + e->r.dir_ios[1];
	e->r.bytes = e->r.dir_bytes[0] + e->r.dir_bytes[1];
	e->r.lat_sum_ns = e->r.dir_lat_sum_ns[0] + e->r.dir_lat_sum_ns[1];
}

/*
 * Direct I/O needs every offset and length to be a multiple of what the
 * filesystem and device say (statx dio_offset_align: 512 B or 4 KiB); a
 * misaligned O_DIRECT I/O fails with a bare EINVAL, so say why up front.
 */
static void check_dio_align(struct eth *e)
{
	uint32_t off_align, mem_align;
	uint32_t bs = e->w->block_size;

	if (tgt_dio_align(e->o->ops, e->o->path, &off_align, &mem_align) != 0 ||
	    off_align == 0 || bs % off_align == 0)
		return;
	e->rc = -EINVAL;
	snprintf(e->error, sizeof(e->error),
		 "block size %u B is not a multiple of %u B, the alignment "
		 "direct I/O needs on this file (statx dio_offset_align); use "
		 "a multiple of %u B or turn direct I/O off",
		 bs, off_align, off_align);
	atomic_store(&e->sh->stop, 1);
}

static void *eth_main(void *arg)
{
	struct eth *e = arg;
	struct tgt_open_args a = {
		.path = e->o->path,
		.create = e->m->create && e->index == 0,
		.direct = e->o->direct,
		.dsync = e->w->sync == WL_SYNC_DSYNC,
		.depth = e->w->queue_depth,
		.session = e->o->session,
	};
	int rc = eth_alloc(e);

	if (rc < 0)
		eth_fail(e, rc, "allocating I/O buffers");
	else if ((rc = tgt_open(e->o->ops, &a, &e->t)) < 0)
		eth_fail(e, rc, a.create ? "creating the test file"
					 : "opening the test file");
	else if (e->t.direct)
		check_dio_align(e);
	e->direct = e->t.direct;
	pthread_mutex_lock(&e->sh->mu);
	e->sh->ready++;
	pthread_cond_broadcast(&e->sh->cv);
	while (!e->sh->go)
		pthread_cond_wait(&e->sh->cv, &e->sh->mu);
	pthread_mutex_unlock(&e->sh->mu);
	if (e->rc == 0 && !atomic_load(&e->sh->stop))
		eth_loop(e);
	/* nothing more is counted: every second is final */
	atomic_store_explicit(&e->smp_sealed, UINT_MAX, memory_order_release);
	window_closed(e); /* a thread that never measured holds up nobody */
	/* a cancelled fill is removed, not flushed: flushing what a buffered
	 * fill left dirty can take seconds, and a stop must not */
	if (e->rc == 0 && e->m->fsync_at_end && e->t.ops &&
	    !(e->o->cancel && *e->o->cancel)) {
		rc = tgt_fsync(&e->t);
		if (rc < 0)
			eth_fail(e, rc, "fsync of the test file");
	}
	tgt_close(&e->t);
	atomic_fetch_add(&e->sh->finished, 1);
	return NULL;
}

static void report(const struct engine_opts *o, struct eth *th, unsigned n,
		   double fraction, int ramping, uint64_t *last_bytes,
		   uint64_t *last_ios, uint64_t *last_ns)
{
	struct engine_progress p = {.fraction = fraction, .ramping = ramping};
	uint64_t bytes = 0, ios = 0, now = os_now_ns();
	double dt = (double)(now - *last_ns) / 1e9;

	for (unsigned i = 0; i < n; i++) {
		bytes += atomic_load_explicit(&th[i].live_bytes,
					      memory_order_relaxed);
		ios += atomic_load_explicit(&th[i].live_ios,
					    memory_order_relaxed);
	}
	if (dt > 0) {
		p.live_mb_s = (double)(bytes - *last_bytes) / dt / 1e6;
		p.live_iops = (double)(ios - *last_ios) / dt;
	}
	*last_bytes = bytes;
	*last_ios = ios;
	*last_ns = now;
	if (p.fraction > 1.0)
		p.fraction = 1.0;
	if (o->progress)
		o->progress(o->progress_arg, &p);
}

static void samples_begin(struct engine_samples *out)
{
	if (out->cap)
		memset(out->s, 0, out->cap * sizeof(*out->s));
	out->n = 0;
	out->last_s = 0;
}

static void samples_merge(struct engine_samples *out, const struct eth *e)
{
	for (unsigned i = 0; i < e->smp_cap; i++)
		for (int d = 0; d < 2; d++) {
			out->s[i].ios[d] += e->smp[i].ios[d];
			out->s[i].bytes[d] += e->smp[i].bytes[d];
			out->s[i].lat_sum_ns[d] += e->smp[i].lat_sum_ns[d];
		}
}

/*
 * n = the seconds the window spans (capped), and the last one's length. A
 * ragged end shorter than a quarter second is folded into the second before
 * it (one entry of 1.0 … 1.25 s), so a few I/Os in a sliver of time do not
 * show as an absurd rate.
 */
static void samples_end(struct engine_samples *out, uint64_t window_ns)
{
	uint64_t full = window_ns / 1000000000ULL;
	uint64_t rest = window_ns % 1000000000ULL;

	if (!out->cap)
		return;
	out->n = (unsigned)(full + (rest ? 1 : 0));
	if (out->n == 0)
		out->n = 1;
	out->last_s = rest ? (double)rest / 1e9 : 1.0;
	if (out->n > out->cap) {
		out->n = out->cap;
		out->last_s = (double)window_ns / 1e9 - (out->cap - 1);
	}
	if (out->n > 1 && out->last_s < 0.25) {
		struct engine_sample *a = &out->s[out->n - 2];
		const struct engine_sample *b = &out->s[out->n - 1];
		for (int d = 0; d < 2; d++) {
			a->ios[d] += b->ios[d];
			a->bytes[d] += b->bytes[d];
			a->lat_sum_ns[d] += b->lat_sum_ns[d];
		}
		out->n--;
		out->last_s += 1.0;
	}
}

/*
 * Reports the seconds of member mb (threads th[0..n)) that every one of its
 * threads has sealed since the last call (*done: how many are reported).
 * Seconds of a thread that stopped counting are all final; when every
 * thread has stopped, nothing more is reported here: the end of the run
 * (folded) comes in the samples.
 */
static void stream_samples(const struct engine_opts *o, const struct eth *th,
			   unsigned n, unsigned *done)
{
	unsigned upto = UINT_MAX;

	if (!o->sample_done || !o->samples || n == 0)
		return;
	for (unsigned k = 0; k < n; k++) {
		unsigned s = atomic_load_explicit(&th[k].smp_sealed,
						  memory_order_acquire);
		if (s < upto)
			upto = s;
	}
	if (upto == UINT_MAX)
		return;
	for (; *done < upto; (*done)++) {
		struct engine_sample sum;
		memset(&sum, 0, sizeof(sum));
		for (unsigned k = 0; k < n; k++) {
			if (!th[k].smp || *done >= th[k].smp_cap)
				continue;
			for (int d = 0; d < 2; d++) {
				sum.ios[d] += th[k].smp[*done].ios[d];
				sum.bytes[d] += th[k].smp[*done].bytes[d];
				sum.lat_sum_ns[d] += th[k].smp[*done].lat_sum_ns[d];
			}
		}
		o->sample_done(o->sample_arg, *done, &sum);
	}
}

/* One workload on one file within a run of threads (engine_run_group). */
struct member {
	const struct engine_opts *o;
	const struct workload *w;
	struct result *r;
	int direct;
};

/* Sets up thread e of member mb (index i within it). */
static void eth_init(struct eth *e, struct run_shared *sh,
		     const struct member *mb, const struct run_mode *m,
		     unsigned i, unsigned seed)
{
	const struct workload *w = mb->w;
	uint64_t span = w->file_size / w->threads / w->block_size * w->block_size;

	e->sh = sh;
	e->o = mb->o;
	e->w = w;
	e->m = m;
	e->index = i;
	rng_seed(&e->rng, seed);
	/* sequential: a region per thread; random: the whole file */
	if (w->pattern == WL_SEQUENTIAL) {
		e->region_start = span * i;
		e->region_len = span;
	} else {
		e->region_len = w->file_size / w->block_size * w->block_size;
	}
	if (m->bytes_limit)
		e->io_limit = m->bytes_limit / w->threads / w->block_size *
			      w->block_size;
}

/* Sums member mb's threads (th[0..n)) into its outputs; returns the first
 * thread error (with mb->o->error filled). */
static int member_collect(struct member *mb, struct eth *th, unsigned n)
{
	const struct engine_opts *o = mb->o;
	int rc = 0;

	if (o->hist)
		hist_init(o->hist);
	for (int d = 0; d < 2; d++)
		if (o->hist_dir[d])
			hist_init(o->hist_dir[d]);
	if (o->samples)
		samples_begin(o->samples);
	mb->direct = n ? th[0].direct : 0;
	for (unsigned i = 0; i < n; i++) {
		result_add(mb->r, &th[i].r);
		for (int d = 0; d < 2; d++) {
			if (!th[i].hd[d])
				continue;
			if (o->hist)
				hist_merge(o->hist, th[i].hd[d]);
			if (o->hist_dir[d])
				hist_merge(o->hist_dir[d], th[i].hd[d]);
		}
		if (o->samples && th[i].smp)
			samples_merge(o->samples, &th[i]);
		if (rc == 0 && th[i].rc != 0) {
			rc = th[i].rc;
			if (o->error)
				snprintf(o->error, o->error_len, "%s",
					 th[i].error);
		}
	}
	if (o->samples)
		samples_end(o->samples, mb->r->window_ns);
	return rc;
}

/*
 * Runs the threads of every member behind one start gate and one window
 * and sums each member's threads into its result. Progress, cancel and the
 * error of a failed start go through the first member's options. The CPU
 * figures (the whole process's, see engine.h) are the same on every member:
 * they cover the run, not a member.
 */
static int run_members(struct member *mbs, size_t n, const struct run_mode *m)
{
	const struct engine_opts *o0 = mbs[0].o;
	const struct workload *w0 = mbs[0].w;
	struct os_cpu ru0, ru1;
	struct run_shared sh = {0};
	struct eth *th;
	unsigned total = 0, started = 0, i, k;
	unsigned streamed[ENGINE_MAX_TASKS] = {0}; /* seconds reported */
	uint64_t t0 = os_now_ns(), lb = 0, li = 0, ln = t0;
	int rc = 0;

	for (size_t j = 0; j < n; j++) {
		memset(mbs[j].r, 0, sizeof(*mbs[j].r));
		total += mbs[j].w->threads;
	}
	if (!(th = calloc(total, sizeof(*th))))
		return -ENOMEM;
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	for (size_t j = 0, k0 = 0; j < n; j++)
		for (i = 0; i < mbs[j].w->threads; i++, k0++)
			eth_init(&th[k0], &sh, &mbs[j], m, i, (unsigned)k0 + 1);
	for (k = 0; k < total; k++) {
		if (pthread_create(&th[k].tid, NULL, eth_main, &th[k]) != 0)
			break;
		started++;
	}
	if (started < total) {
		atomic_store(&sh.stop, 1); /* the ones that started stop at once */
		rc = -EAGAIN;
		if (o0->error)
			snprintf(o0->error, o0->error_len,
				 "could not start %u engine threads", total);
	}
	/* open the gate once every started thread has its target open */
	pthread_mutex_lock(&sh.mu);
	while (sh.ready < started)
		pthread_cond_wait(&sh.cv, &sh.mu);
	sh.start_ns = t0 = ln = os_now_ns();
	sh.started = started;
	sh.go = 1;
	pthread_cond_broadcast(&sh.cv);
	pthread_mutex_unlock(&sh.mu);
	while ((unsigned)atomic_load(&sh.finished) < started) {
		double frac;
		os_sleep_ns(ENGINE_POLL_NS);
		for (size_t j = 0, k0 = 0; j < n && j < ENGINE_MAX_TASKS; j++) {
			unsigned nt = mbs[j].w->threads;
			if (k0 < started)
				stream_samples(mbs[j].o, &th[k0],
					       started - k0 < nt ? started - (unsigned)k0
								 : nt,
					       &streamed[j]);
			k0 += nt;
		}
		if (os_now_ns() - ln < ENGINE_REPORT_NS)
			continue;
		if (m->bytes_limit) {
			uint64_t b = 0;
			for (k = 0; k < started; k++)
				b += atomic_load(&th[k].live_bytes);
			frac = (double)b / (double)m->bytes_limit;
		} else {
			frac = (double)(os_now_ns() - t0) /
			       ((w0->ramp_s + w0->duration_s) * 1e9);
		}
		report(o0, th, started, frac,
		       os_now_ns() < t0 + (uint64_t)(w0->ramp_s * 1e9), &lb,
		       &li, &ln);
	}
	for (k = 0; k < started; k++)
		pthread_join(th[k].tid, NULL);
	/* the joins order the threads' writes of ru_open/ru_close before us */
	if (sh.have_open && sh.have_close) {
		ru0 = sh.ru_open;
		ru1 = sh.ru_close;
	} else {
		memset(&ru0, 0, sizeof(ru0));
		(void)os_cpu_times(&ru0);
		ru1 = ru0;
	}
	pthread_mutex_destroy(&sh.mu);
	pthread_cond_destroy(&sh.cv);
	for (size_t j = 0, k0 = 0; j < n; j++) {
		unsigned nt = mbs[j].w->threads, have;
		int mrc;
		/* the threads of this member that ran */
		have = k0 >= started ? 0 : started - k0 < nt ? started - (unsigned)k0 : nt;
		mrc = member_collect(&mbs[j], &th[k0], have);
		if (rc == 0 && mrc != 0) {
			rc = mrc;
			if (j > 0 && o0->error && mbs[j].o->error)
				snprintf(o0->error, o0->error_len, "%s: %s",
					 mbs[j].w->name, mbs[j].o->error);
		}
		mbs[j].r->cpu_user_s = ru1.user_s - ru0.user_s;
		mbs[j].r->cpu_sys_s = ru1.sys_s - ru0.sys_s;
		result_finish(mbs[j].r);
		k0 += nt;
	}
	for (k = 0; k < total; k++)
		eth_free(&th[k]);
	free(th);
	if (rc == 0 && o0->cancel && *o0->cancel)
		rc = -ECANCELED;
	return rc;
}

/* One workload: a group of one. */
static int run_threads(const struct engine_opts *o, const struct workload *w,
		       const struct run_mode *m, struct result *r, int *direct)
{
	struct member mb = {.o = o, .w = w, .r = r};
	int rc = run_members(&mb, 1, m);

	if (direct)
		*direct = mb.direct;
	return rc;
}

static int bad_workload(const struct engine_opts *o, const char *why)
{
	if (o->error)
		snprintf(o->error, o->error_len, "invalid workload: %s", why);
	return -EINVAL;
}

static int check_workload(const struct engine_opts *o,
			  const struct workload *w)
{
	if (w->block_size == 0 || w->block_size % 512)
		return bad_workload(o, "block size must be a multiple of 512 bytes");
	if (w->queue_depth < 1 || w->queue_depth > WL_MAX_QUEUE_DEPTH)
		return bad_workload(o, "queue depth must be 1 … 1024");
	if (w->threads < 1 || w->threads > WL_MAX_THREADS)
		return bad_workload(o, "threads must be 1 … 256");
	if (w->read_pct > 100)
		return bad_workload(o, "read percentage must be 0 … 100");
	if (w->file_size / w->threads < w->block_size)
		return bad_workload(o, "file too small for the block size and threads");
	if (!(w->duration_s > 0) && w->io_bytes == 0)
		return bad_workload(o, "duration must be > 0");
	if (w->io_bytes && w->io_bytes / w->threads < w->block_size)
		return bad_workload(o, "I/O size must be at least one block per thread");
	if (w->io_bytes && w->ramp_s > 0)
		return bad_workload(o, "a ramp applies to time-based tests only");
	if (w->data > WL_DATA_REPEAT)
		return bad_workload(o, "unknown data pattern");
	if (!(w->ramp_s >= 0 && w->ramp_s <= 3600))
		return bad_workload(o, "ramp must be 0 … 3600 s");
	if (w->sync == WL_SYNC_FDATASYNC &&
	    (w->sync_every < 1 || w->sync_every > 1000000))
		return bad_workload(o, "fdatasync every 1 … 1000000 writes");
	if (w->sync > WL_SYNC_FDATASYNC)
		return bad_workload(o, "unknown sync mode");
	return 0;
}

int engine_run(const struct engine_opts *o, const struct workload *w,
	       struct result *r)
{
	struct run_mode m = {.bytes_limit = w->io_bytes};
	int rc = check_workload(o, w);

	if (rc < 0) {
		memset(r, 0, sizeof(*r));
		return rc;
	}
	return run_threads(o, w, &m, r, NULL);
}

int engine_run_group(struct engine_task *tasks, size_t n)
{
	struct member mbs[ENGINE_MAX_TASKS];
	struct run_mode m = {0};
	unsigned threads = 0;
	int rc;

	if (n == 0 || n > ENGINE_MAX_TASKS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if ((rc = check_workload(tasks[i].o, tasks[i].w)) < 0)
			return rc;
		if (tasks[i].w->io_bytes ||
		    tasks[i].w->duration_s != tasks[0].w->duration_s ||
		    tasks[i].w->ramp_s != tasks[0].w->ramp_s)
			return bad_workload(tasks[i].o, "a group runs time-based "
							"workloads of one ramp "
							"and duration");
		threads += tasks[i].w->threads;
		mbs[i] = (struct member){.o = tasks[i].o, .w = tasks[i].w,
					 .r = &tasks[i].r};
	}
	if (threads > 1024)
		return bad_workload(tasks[0].o, "at most 1024 threads in a group");
	return run_members(mbs, n, &m);
}

int engine_prepare_file(const struct engine_opts *o, uint64_t size,
			enum wl_data data, int *direct)
{
	struct workload w = {
		.name = "fill",
		.pattern = WL_SEQUENTIAL,
		.read_pct = 0,
		.block_size = FILL_BLOCK,
		.queue_depth = FILL_DEPTH,
		.threads = 1,
		.file_size = size,
		.duration_s = 1,
	};
	struct run_mode m = {
		.create = !o->device, .bytes_limit = size, .refresh = 1,
		.fsync_at_end = 1,
	};

	w.data = data;
	struct engine_opts fill = *o;
	struct result r;
	int rc;

	if (size == 0 || size % FILL_BLOCK)
		return bad_workload(o, "test file size must be a multiple of 1 MiB");
	fill.hist = NULL; /* the fill is not a measurement */
	fill.samples = NULL;
	rc = run_threads(&fill, &w, &m, &r, direct);
	if (rc == -EEXIST) {
		if (o->error)
			snprintf(o->error, o->error_len,
				 "test file %s already exists; refusing to touch it",
				 o->path);
	}
	if (rc != 0 && rc != -EEXIST && !o->device)
		tgt_unlink(o->ops, o->path, o->session);
	return rc;
}
