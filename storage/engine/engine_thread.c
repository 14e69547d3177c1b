/*
 * engine_thread — one engine thread: its target context, its I/O slots and
 * buffers, and the loop that keeps queue_depth I/Os in flight and counts
 * what completes in the measured window (engine.h has the rules).
 *
 * Design: the thread owns everything in its struct engine_thread; what the
 * calling thread reads while it runs is atomic (live_bytes, live_ios,
 * smp_sealed; engine_int.h). It opens its target, reports ready at the
 * shared gate and waits for go; then one clock read per reaped batch stamps
 * latencies, the batch's second of samples and the window's edges. The last
 * thread to open its window, and the last to close it, take the process's
 * CPU time. A failure is recorded once on the thread (rc, error) and stops
 * every thread of the run (sh->stop). The same loop fills a new test file:
 * size-based (io_limit), refilling each write's buffer when the data is
 * random (engine_mode.refresh).
 * Calls engine_rng.c, and nothing else of the engine.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

#define ENGINE_REAP_TIMEOUT_MS 100

void engine_thread_init(struct engine_thread *e, struct engine_shared *sh,
			const struct engine_opts *o, const struct workload *w,
			const struct engine_mode *m, unsigned i, unsigned seed)
{
	uint64_t span =
		w->file_size / w->threads / w->block_size * w->block_size;

	e->sh = sh;
	e->o = o;
	e->w = w;
	e->m = m;
	e->index = i;
	engine_rng_seed(&e->rng, seed);
	/* sequential: a region per thread; random: the whole file */
	if (w->pattern == WL_SEQUENTIAL) {
		e->region_start = span * i;
		e->region_len = span;
		if (o->seq_pos && span)
			e->seq_pos = o->seq_pos[i] % span;
	} else {
		e->region_len = w->file_size / w->block_size * w->block_size;
	}
	if (m->bytes_limit)
		e->io_limit = m->bytes_limit / w->threads / w->block_size *
			      w->block_size;
}

/*
 * The thread's I/O buffers: one allocation of queue_depth blocks, backed by
 * huge pages where the system has them (os_io_alloc): physically contiguous
 * buffers keep one large direct I/O one request to the device.
 */
static int eth_alloc(struct engine_thread *e)
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
	engine_fill_pattern(e->buf, len, w->data, &e->rng);
	return 0;
}

void engine_thread_free(struct engine_thread *e)
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
static void stamp_blocks(struct engine_thread *e, struct tgt_io *io)
{
	for (uint32_t off = 0; off + 16 <= io->len; off += 4096) {
		uint64_t *p = (uint64_t *)((char *)io->buf + off);
		p[0] = engine_rng_next(&e->rng);
		p[1] = ((uint64_t)e->index << 48) ^ e->stamp_seq++;
	}
}

/* Sets up io for the next I/O of this thread. */
static void eth_next(struct engine_thread *e, struct tgt_io *io)
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
		io->offset =
			e->region_start +
			(engine_rng_next(&e->rng) % blocks) * w->block_size;
	}
	io->write = w->read_pct == 100 ? 0
		    : w->read_pct == 0
			    ? 1
			    : (engine_rng_next(&e->rng) % 100) >= w->read_pct;
	if (io->write && w->data == WL_DATA_RANDOM) {
		if (e->m->refresh)
			engine_rng_fill(&e->rng, io->buf, io->len);
		else
			stamp_blocks(e, io);
	}
	e->issued_bytes += io->len;
}

static int eth_fail(struct engine_thread *e, int rc, const char *what)
{
	if (e->rc == 0) {
		e->rc = rc;
		snprintf(e->error, sizeof(e->error), "%s: %s", what,
			 strerror(-rc));
	}
	atomic_store(&e->sh->stop, 1);
	return rc;
}

/* Whether the run was told to stop: a thread failed, or a cancel. */
static int eth_halted(const struct engine_thread *e)
{
	return atomic_load(&e->sh->stop) || (e->o->cancel && *e->o->cancel);
}

/* Time-based: no new I/O from the deadline on (the caller drains what is in
 * flight). Size-based: once every I/O of the limit is issued and has
 * completed (all of them count). */
static int eth_should_stop(struct engine_thread *e, uint64_t now,
			   uint64_t deadline, unsigned inflight)
{
	if (eth_halted(e))
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
 * I/O, or the thread's start): an I/O's latency runs from there to its
 * completion, so it includes waiting for its own submission while the
 * replacements before it in a burst go out — fio's slat + clat. Every slot is
 * then always inside some I/O's latency, and IOPS × mean latency = queue depth
 * (Little's law).
 */
static int eth_submit(struct engine_thread *e, struct tgt_io *io,
		      uint64_t stamp)
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
static void eth_io_failed(struct engine_thread *e, const struct tgt_io *io)
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
static unsigned sample_index(const struct engine_thread *e, uint64_t since)
{
	uint64_t i = since / 1000000000ULL;

	return i < e->smp_cap ? (unsigned)i : e->smp_cap - 1;
}

/* The last thread to open its window, and the last to close it, take the
 * process's CPU time there and then: the CPU figure covers exactly the span
 * in which every window is open. */
static void window_opened(struct engine_thread *e)
{
	if (!e->opened) {
		e->opened = 1;
		if ((unsigned)atomic_fetch_add(&e->sh->opened, 1) + 1 ==
		    e->sh->started)
			e->sh->have_open = os_cpu_times(&e->sh->ru_open) == 0;
	}
}

static void window_closed(struct engine_thread *e)
{
	window_opened(e);
	if (!e->closed) {
		e->closed = 1;
		if ((unsigned)atomic_fetch_add(&e->sh->closed, 1) + 1 ==
		    e->sh->started)
			e->sh->have_close = os_cpu_times(&e->sh->ru_close) == 0;
	}
}

/* The I/O loop: keeps queue_depth in flight until told to stop. */
static void eth_loop(struct engine_thread *e)
{
	const struct workload *w = e->w;
	uint64_t start = os_now_ns(), now = start;
	/* one window for every thread, after the ramp: t0 … deadline */
	uint64_t t0 = engine_open_ns(w, e->sh->start_ns);
	uint64_t deadline = engine_deadline_ns(w, e->sh->start_ns);
	/* when second 0 can be sealed (smp_sealed grows to 1) */
	uint64_t seal_at = t0 + 1000000000ULL + ENGINE_FOLD_NS;
	unsigned depth = w->queue_depth, inflight = 0;
	/* measuring: replacing what completes; draining: past the deadline,
	 * nothing new is issued but every I/O still in flight counts */
	int measuring = 1, draining = 0;

	if (e->io_limit) {
		uint64_t blocks = e->io_limit / w->block_size;
		if (blocks < depth)
			depth = (unsigned)blocks;
	}
	/* the first I/Os' latency runs from this thread's start: a thread
	 * the scheduler starts late leaves its slots empty until then, and
	 * Little's law on the run says so (planrun's check_little) */
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
		counting = (measuring || draining) && now >= t0;
		if (counting)
			window_opened(e);
		/* one reap, one clock read: one second's entry for the batch */
		smp = counting && e->smp ? &e->smp[sample_index(e, now - t0)]
					 : NULL;
		/* once a second: every second that ended a fold's length ago
		 * is complete in this thread and can no more be folded into */
		if (smp && now >= seal_at) {
			uint64_t ended = now - t0 - ENGINE_FOLD_NS;
			atomic_store_explicit(&e->smp_sealed,
					      sample_index(e, ended),
					      memory_order_release);
			seal_at = t0 + ENGINE_FOLD_NS +
				  (ended / 1000000000ULL + 1) * 1000000000ULL;
		}
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
		if (measuring || draining) {
			atomic_fetch_add_explicit(&e->live_bytes, all_bytes,
						  memory_order_relaxed);
			atomic_fetch_add_explicit(&e->live_ios, (uint64_t)n,
						  memory_order_relaxed);
		}
		if (measuring && eth_should_stop(e, now, deadline, inflight)) {
			measuring = 0;
			draining = 1;
		}
		/* the deadline: what is in flight is drained and counted, as
		 * fio counts it; a stop (a failure, a cancel) closes the
		 * window at once and counts nothing more */
		if (draining && (inflight == 0 || eth_halted(e))) {
			draining = 0;
			window_closed(e);
			e->r.window_ns = now > t0 ? now - t0 : 0;
		}
		if (!measuring) {
			/* with a byte limit, the window ends at the last I/O */
			if (e->io_limit && inflight == 0 && now > t0)
				e->r.window_ns = now - t0;
			continue;
		}
		again = (unsigned)n;
		if (e->io_limit) {
			uint64_t left =
				(e->io_limit - e->issued_bytes) / w->block_size;
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
 * filesystem and device say (Linux: statx dio_offset_align; Windows: the
 * volume's sector size; 512 B or 4 KiB); a
 * misaligned O_DIRECT I/O fails with a bare EINVAL, so say why up front.
 */
static void check_dio_align(struct engine_thread *e)
{
	uint32_t off_align, mem_align;
	uint32_t bs = e->w->block_size;

	if (tgt_dio_align(e->o->ops, e->o->path, &off_align, &mem_align) != 0 ||
	    off_align == 0 || bs % off_align == 0)
		return;
	e->rc = -EINVAL;
	snprintf(
		e->error, sizeof(e->error),
		"block size %u B is not a multiple of %u B, the alignment "
		"direct I/O needs on this file (its volume's sector size); use "
		"a multiple of %u B or turn direct I/O off",
		bs, off_align, off_align);
	atomic_store(&e->sh->stop, 1);
}

void *engine_thread_main(void *arg)
{
	struct engine_thread *e = arg;
	struct tgt_open_args a = {
		.path = e->o->path,
		.create = e->m->create && e->index == 0,
		.direct = e->o->direct,
		.dsync = e->w->sync == WL_SYNC_DSYNC,
		.depth = e->w->queue_depth,
		.session = e->o->session,
	};
	int rc;

	os_thread_name("sb-engine");
	if ((rc = eth_alloc(e)) < 0)
		eth_fail(e, rc, "allocating I/O buffers");
	else if ((rc = tgt_open(e->o->ops, &a, &e->t)) < 0)
		eth_fail(e, rc,
			 a.create ? "creating the test file"
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
	/* the calling thread waits on the gate's condition for the last one */
	pthread_mutex_lock(&e->sh->mu);
	atomic_fetch_add(&e->sh->finished, 1);
	pthread_cond_broadcast(&e->sh->cv);
	pthread_mutex_unlock(&e->sh->mu);
	return NULL;
}
