/*
 * engine — see engine.h for the contract and the measurement rules.
 *
 * Layout: this file holds the public entry points and the run of a group of
 * threads; the files beside it (engine_int.h says which way they call) hold
 * one engine thread (engine_thread.c), its random numbers (engine_rng.c)
 * and the per-second samples (engine_samples.c). run_members() starts the
 * threads behind a gate, reports progress and streams samples from the
 * calling thread, joins them and sums their counts. The same loop serves
 * both the time-based measurement (engine_run) and the size-based fill of a
 * new test file (engine_prepare_file): a fill is a sequential 1 MiB write
 * "test" that stops after the file's size and refills every buffer with
 * fresh random data before it is written again, so the file holds no
 * repeated block.
 */
#include "engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_int.h"
#include "os/os.h"

#define ENGINE_REPORT_NS 250000000ULL
#define ENGINE_POLL_NS 50000000L /* the calling thread's wake-up, 50 ms */
#define FILL_BLOCK (1U << 20)
#define FILL_DEPTH 4U

static void report(const struct engine_opts *o, struct engine_thread *th,
		   unsigned n, double fraction, int ramping,
		   uint64_t *last_bytes, uint64_t *last_ios, uint64_t *last_ns)
{
	struct engine_progress p = { .fraction = fraction, .ramping = ramping };
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

/* One workload on one file within a run of threads (engine_run_group). */
struct member {
	const struct engine_opts *o;
	const struct workload *w;
	struct result *r;
	int direct;
};

/* Sums member mb's threads (th[0..n)) into its outputs; returns the first
 * thread error (with mb->o->error filled). */
static int member_collect(struct member *mb, struct engine_thread *th,
			  unsigned n, struct engine_marks *marks)
{
	const struct engine_opts *o = mb->o;
	int rc = 0;

	if (o->hist)
		hist_init(o->hist);
	for (int d = 0; d < 2; d++)
		if (o->hist_dir[d])
			hist_init(o->hist_dir[d]);
	if (o->samples)
		engine_samples_begin(o->samples);
	mb->direct = n ? th[0].direct : 0;
	for (unsigned i = 0; i < n; i++) {
		result_add(mb->r, &th[i].r);
		if (o->seq_pos)
			o->seq_pos[i] = th[i].seq_pos;
		for (int d = 0; d < 2; d++) {
			if (!th[i].hd[d])
				continue;
			if (o->hist)
				hist_merge(o->hist, th[i].hd[d]);
			if (o->hist_dir[d])
				hist_merge(o->hist_dir[d], th[i].hd[d]);
		}
		if (o->samples && th[i].smp)
			engine_samples_merge(o->samples, &th[i]);
		if (rc == 0 && th[i].rc != 0) {
			rc = th[i].rc;
			if (o->error)
				snprintf(o->error, o->error_len, "%s",
					 th[i].error);
		}
	}
	if (o->samples) {
		engine_samples_end(o->samples, mb->r->window_ns);
		engine_marks_end(o, marks);
	}
	return rc;
}

/*
 * Waits until the last thread has finished or wait_ns (≤ ENGINE_POLL_NS)
 * has passed, whichever comes first: a run ends when its threads do, not at
 * the next tick (a short fill is timed by its callers to the millisecond).
 */
static void wait_poll(struct engine_shared *sh, unsigned started, long wait_ns)
{
	struct timespec until;

	/* pthread_cond_timedwait's clock (winpthreads' too) */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += wait_ns;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&sh->mu);
	if ((unsigned)atomic_load(&sh->finished) < started)
		pthread_cond_timedwait(&sh->cv, &sh->mu, &until);
	pthread_mutex_unlock(&sh->mu);
}

/*
 * How long the calling thread may sleep: ENGINE_POLL_NS, or less so that it
 * wakes within ~1 ms of the window's next second boundary or its deadline
 * (end_ns, 0 for a size-based test), where the counters (of the first
 * member, whose window is every member's) are marked.
 */
static long poll_ns(const struct engine_opts *o, const struct engine_marks *m,
		    uint64_t open_ns, uint64_t end_ns, int closed)
{
	uint64_t at = UINT64_MAX, now = os_now_ns();

	if (!o->counters || !o->samples || closed)
		return ENGINE_POLL_NS;
	if (m->next < o->samples->cap)
		at = open_ns + (uint64_t)m->next * 1000000000ULL;
	/* the deadline: the close is marked as soon as the threads pass it
	 * (1 ms polls until they do) */
	if (end_ns && end_ns < at)
		at = end_ns;
	if (at <= now)
		return 1000000L;
	return at - now < ENGINE_POLL_NS ? (long)(at - now) + 200000L
					 : ENGINE_POLL_NS;
}

/* Marks the counters of every member at a second's boundary now has
 * passed, or, once every window has closed, the close. */
static void count_marks(struct member *mbs, size_t n,
			struct engine_marks *marks, uint64_t open_ns,
			int closed)
{
	uint64_t now = os_now_ns();

	for (size_t j = 0; j < n && j < ENGINE_MAX_TASKS; j++) {
		if (closed)
			engine_marks_close(mbs[j].o, &marks[j]);
		else
			engine_marks_tick(mbs[j].o, &marks[j], open_ns, now);
	}
}

/*
 * Runs the threads of every member behind one start gate and one window
 * and sums each member's threads into its result. Progress, cancel and the
 * error of a failed start go through the first member's options. The CPU
 * figures (the whole process's, see engine.h) are the same on every member:
 * they cover the run, not a member.
 */
static int run_members(struct member *mbs, size_t n,
		       const struct engine_mode *m)
{
	const struct engine_opts *o0 = mbs[0].o;
	const struct workload *w0 = mbs[0].w;
	struct os_cpu ru0, ru1;
	struct engine_shared sh = { 0 };
	struct engine_thread *th;
	unsigned total = 0, started = 0, i, k;
	unsigned streamed[ENGINE_MAX_TASKS] = { 0 }; /* seconds reported */
	struct engine_marks marks[ENGINE_MAX_TASKS];
	uint64_t open_ns = 0, end_ns = 0; /* the window's opening and
					     deadline (every member's) */
	uint64_t t0 = os_now_ns(), lb = 0, li = 0, ln = t0;
	int64_t wall0 = 0; /* the wall clock at t0 */
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
			engine_thread_init(&th[k0], &sh, mbs[j].o, mbs[j].w, m,
					   i, (unsigned)k0 + 1);
	for (k = 0; k < total; k++) {
		if (pthread_create(&th[k].tid, NULL, engine_thread_main,
				   &th[k]) != 0)
			break;
		started++;
	}
	if (started < total) {
		atomic_store(&sh.stop,
			     1); /* the ones that started stop at once */
		rc = -EAGAIN;
		if (o0->error)
			snprintf(o0->error, o0->error_len,
				 "could not start %u engine threads", total);
	}
	for (size_t j = 0; j < n && j < ENGINE_MAX_TASKS; j++)
		engine_marks_begin(mbs[j].o, &marks[j]);
	/* open the gate once every started thread has its target open */
	pthread_mutex_lock(&sh.mu);
	while (sh.ready < started)
		pthread_cond_wait(&sh.cv, &sh.mu);
	if (o0->start_at_ns && started == total) {
		/* the threads wait on sh.cv for go; the time is the
		 * caller's, told to every host of a multi-host job */
		pthread_mutex_unlock(&sh.mu);
		os_sleep_until_wall_ns(o0->start_at_ns);
		pthread_mutex_lock(&sh.mu);
	}
	wall0 = os_wall_ns();
	sh.start_ns = t0 = ln = os_now_ns();
	open_ns = engine_open_ns(w0, t0);
	end_ns = w0->io_bytes ? 0 : engine_deadline_ns(w0, t0);
	sh.started = started;
	sh.go = 1;
	pthread_cond_broadcast(&sh.cv);
	pthread_mutex_unlock(&sh.mu);
	while ((unsigned)atomic_load(&sh.finished) < started) {
		double frac;
		wait_poll(
			&sh, started,
			poll_ns(o0, &marks[0], open_ns, end_ns,
				(unsigned)atomic_load(&sh.closed) >= started));
		count_marks(mbs, n, marks, open_ns,
			    (unsigned)atomic_load(&sh.closed) >= started);
		for (size_t j = 0, k0 = 0; j < n && j < ENGINE_MAX_TASKS; j++) {
			unsigned nt = mbs[j].w->threads;
			if (k0 < started)
				engine_samples_stream(
					mbs[j].o, &th[k0],
					started - k0 < nt
						? started - (unsigned)k0
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
	count_marks(mbs, n, marks, open_ns, 1);
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
		have = k0 >= started	   ? 0
		       : started - k0 < nt ? started - (unsigned)k0
					   : nt;
		mrc = member_collect(&mbs[j], &th[k0], have,
				     &marks[j < ENGINE_MAX_TASKS ? j : 0]);
		if (rc == 0 && mrc != 0) {
			rc = mrc;
			if (j > 0 && o0->error && mbs[j].o->error)
				snprintf(o0->error, o0->error_len, "%s: %s",
					 mbs[j].w->name, mbs[j].o->error);
		}
		mbs[j].r->cpu_user_s = ru1.user_s - ru0.user_s;
		mbs[j].r->cpu_sys_s = ru1.sys_s - ru0.sys_s;
		/* the window opens open_ns - t0 after the gate (the ramp) */
		mbs[j].r->start_unix_ns = wall0 + (int64_t)(open_ns - t0);
		result_finish(mbs[j].r);
		k0 += nt;
	}
	for (k = 0; k < total; k++)
		engine_thread_free(&th[k]);
	free(th);
	if (rc == 0 && o0->cancel && *o0->cancel)
		rc = -ECANCELED;
	return rc;
}

/* One workload: a group of one. */
static int run_threads(const struct engine_opts *o, const struct workload *w,
		       const struct engine_mode *m, struct result *r,
		       int *direct)
{
	struct member mb = { .o = o, .w = w, .r = r };
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

static int check_workload(const struct engine_opts *o, const struct workload *w)
{
	if (w->block_size == 0 || w->block_size % 512)
		return bad_workload(
			o, "block size must be a multiple of 512 bytes");
	if (w->queue_depth < 1 || w->queue_depth > WL_MAX_QUEUE_DEPTH)
		return bad_workload(o, "queue depth must be 1 … 1024");
	if (w->threads < 1 || w->threads > WL_MAX_THREADS)
		return bad_workload(o, "threads must be 1 … 256");
	if (w->read_pct > 100)
		return bad_workload(o, "read percentage must be 0 … 100");
	if (w->file_size / w->threads < w->block_size)
		return bad_workload(
			o, "file too small for the block size and threads");
	if (!(w->duration_s > 0) && w->io_bytes == 0)
		return bad_workload(o, "duration must be > 0");
	if (w->io_bytes && w->io_bytes / w->threads < w->block_size)
		return bad_workload(
			o, "I/O size must be at least one block per thread");
	if (w->io_bytes && w->ramp_s > 0)
		return bad_workload(o,
				    "a ramp applies to time-based tests only");
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
	struct engine_mode m = { .bytes_limit = w->io_bytes };
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
	struct engine_mode m = { 0 };
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
			return bad_workload(tasks[i].o,
					    "a group runs time-based "
					    "workloads of one ramp "
					    "and duration");
		threads += tasks[i].w->threads;
		mbs[i] = (struct member){ .o = tasks[i].o,
					  .w = tasks[i].w,
					  .r = &tasks[i].r };
	}
	if (threads > 1024)
		return bad_workload(tasks[0].o,
				    "at most 1024 threads in a group");
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
	struct engine_mode m = {
		.create = !o->device,
		.bytes_limit = size,
		.refresh = 1,
		.fsync_at_end = 1,
	};

	w.data = data;
	struct engine_opts fill = *o;
	struct result r;
	int rc;

	if (size == 0 || size % FILL_BLOCK)
		return bad_workload(
			o, "test file size must be a multiple of 1 MiB");
	fill.hist = NULL; /* the fill is not a measurement */
	fill.samples = NULL;
	rc = run_threads(&fill, &w, &m, &r, direct);
	if (rc == -EEXIST) {
		if (o->error)
			snprintf(o->error, o->error_len,
				 "test file %s already exists; refusing to "
				 "touch it",
				 o->path);
	}
	if (rc != 0 && rc != -EEXIST && !o->device)
		tgt_unlink(o->ops, o->path, o->session);
	return rc;
}
