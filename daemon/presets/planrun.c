/*
 * planrun — see planrun.h.
 */
#include "planrun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/ctrwarn.h"
#include "jobs/events.h"
#include "jobs/jobrun.h"
#include "os/os.h"
#include "platform/log.h"
#include "preset.h"

/* Sleeps seconds in 100 ms steps; returns early on cancel. */
static void pause_between_tests(struct job_run *jr, double seconds)
{
	uint64_t end = os_now_ns() + (uint64_t)(seconds * 1e9);

	while (!atomic_load(jr->cancel) && os_now_ns() < end) {
		os_sleep_ns(100000000ULL);
		/* the stream hears of a long pause */
		jobrun_live_publish(jr->live, 0);
	}
}

/*
 * Little's law says IOPS × mean latency = queue depth × threads while every
 * slot is busy. Every I/O issued before the deadline counts (engine.h), so
 * what breaks it is a window short against what fills the slots: engine
 * threads the scheduler starts late (a busy CPU), or a first I/O slow
 * against the window. Says so on the run, once per test.
 */
static int check_little(struct job_run *jr, const struct workload *w,
			const struct result *r)
{
	double slots = (double)w->queue_depth * w->threads;
	double busy = r->iops * r->lat_mean_us / 1e6;
	char text[400];

	if (w->io_bytes || r->ios == 0 || fabs(busy / slots - 1) <= 0.1)
		return 0;
	snprintf(text, sizeof(text),
		 "%s %s: IOPS × mean latency is %.0f, not the %.0f I/Os "
		 "queue depth × threads keep in flight: the %.3g s window is "
		 "short against the I/O latency (%.0f µs mean) and the time "
		 "the engine threads took to start (a busy CPU), so its "
		 "slots were not all busy for all of it; use a longer "
		 "duration, a ramp, or a lower queue depth",
		 w->name, wl_rw_name(w->read_pct), busy, slots,
		 (double)r->window_ns / 1e9, r->lat_mean_us);
	archive_run_warn(jr->a, jr->run_id, text);
	return 1;
}

/* Where the seconds of the iteration running go as they finish. */
struct sample_sink {
	struct job_run *jr;
	const struct workload *w;
	int iteration;
	int failed;	    /* logged once per iteration */
	unsigned published; /* seconds of this iteration sent as events */
	const struct engine_samples *smp; /* the seconds, with counters */
	int direct;			  /* direct I/O in effect */
	/* the job's progress callback, and the turn running of the test's
	 * slices on every side: (turn + the slice's fraction) / slices
	 * steps of the job */
	engine_progress_fn progress;
	void *progress_arg;
	int turn, slices;
};

/* engine_opts.progress of a slice: its fraction as the test's on every
 * side. */
static void on_slice_progress(void *arg, const struct engine_progress *p)
{
	const struct sample_sink *k = arg;
	struct engine_progress q = *p;

	q.fraction = (k->turn + p->fraction) / k->slices;
	k->progress(k->progress_arg, &q);
}

/* The host and device counters of second i of k's iteration, or NULL. */
static const struct hostctr_sample *ctr_of(const struct sample_sink *k,
					   unsigned i)
{
	return k->smp && k->smp->ctr && i < k->smp->cap ? &k->smp->ctr[i]
							: NULL;
}

/* Publishes a "sample" event: second's counts over length_s seconds as
 * rates (1 s but for the last, ragged one of a window), with its host and
 * device counters (null when none). */
static void publish_sample(const struct sample_sink *k, unsigned second,
			   const struct engine_sample *s,
			   const struct hostctr_sample *c, double length_s)
{
	double l = length_s > 0 ? length_s : 1;
	json_t *host = archive_ctr_host(c), *dev = archive_ctr_device(c, l);

	events_publish(
		"sample",
		json_pack("{s:I, s:I, s:s, s:s, s:i, s:i, s:f, s:{s:f, s:f}, "
			  "s:{s:f, s:f}, s:o, s:o}",
			  "job_id", (json_int_t)k->jr->id, "run_id",
			  (json_int_t)k->jr->run_id, "test", k->w->name, "rw",
			  wl_rw_name(k->w->read_pct), "iteration", k->iteration,
			  "second", (int)second, "length_s", l, "read", "iops",
			  (double)s->ios[0] / l, "mb_s",
			  (double)s->bytes[0] / 1e6 / l, "write", "iops",
			  (double)s->ios[1] / l, "mb_s",
			  (double)s->bytes[1] / 1e6 / l, "host",
			  host ? host : json_null(), "device",
			  dev ? dev : json_null()));
}

/* engine_opts.sample_done: each finished second is stored at once, so a
 * kill keeps every second measured before it (the end of the iteration
 * stores all of them again, in one transaction with its result). */
static void on_sample(void *arg, unsigned second, const struct engine_sample *s)
{
	struct sample_sink *k = arg;

	if (archive_sample_put(k->jr->a, k->jr->run_id, k->w, k->iteration,
			       second, s, ctr_of(k, second)) < 0 &&
	    !k->failed++)
		log_warn("run %lld: storing a second of samples failed; the "
			 "iteration's samples are stored when it ends",
			 (long long)k->jr->run_id);
	publish_sample(k, second, s, ctr_of(k, second), 1.0);
	k->published = second + 1;
}
/* An iteration measured so far, slice by slice (planrun_file_slice; a
 * plain iteration is one slice): the sum of its slices' counts, their
 * windows end to end, their latencies and their seconds in order, stored
 * when the last slice ends. */
struct slices {
	struct result r;
	struct hist *hist;
	struct engine_samples smp;
	uint64_t seq_pos[WL_MAX_THREADS]; /* where each thread reads on */
};

/* Slice r (engine_run's result, histogram h, seconds smp) added to a. */
static void slices_add(struct slices *a, const struct result *r,
		       const struct hist *h, const struct engine_samples *smp)
{
	uint64_t window = a->r.window_ns + r->window_ns;

	result_add(&a->r, r);
	a->r.window_ns = window;
	if (h)
		hist_merge(a->hist, h);
	if (smp)
		engine_samples_append(&a->smp, smp);
}

/* Publishes a's seconds that k has not published yet. */
static void publish_rest(struct sample_sink *k, const struct engine_samples *a)
{
	for (unsigned sec = k->published; sec < a->n; sec++)
		publish_sample(k, sec, &a->s[sec], a->ctr ? &a->ctr[sec] : NULL,
			       engine_second_len(a, sec));
	k->published = a->n;
}

/* The slice s of k of test w's iteration it: the window duration_s / k
 * (whole seconds, the last slice takes the rest), the ramp on the first
 * slice only, sequential streams going on where the slice before stopped. */
static struct workload slice_of(const struct workload *w, int s, int k,
				int turn, struct engine_opts *o,
				struct sample_sink *sk, struct slices *a)
{
	struct workload ws = *w;

	if (k <= 1)
		return ws;
	ws.duration_s = s + 1 < k ? 1.0 : w->duration_s - (k - 1);
	if (s > 0)
		ws.ramp_s = 0;
	o->seq_pos = a->seq_pos;
	o->sample_done = NULL; /* its seconds are stored as it ends */
	if (!o->progress)
		return ws;
	sk->progress = o->progress;
	sk->progress_arg = o->progress_arg;
	sk->turn = turn;
	sk->slices = k;
	o->progress = on_slice_progress;
	o->progress_arg = sk;
	return ws;
}

/* o as it was before slice_of. */
static void slice_done(struct engine_opts *o, struct sample_sink *sk)
{
	o->seq_pos = NULL;
	if (o->progress == on_slice_progress) {
		o->progress = sk->progress;
		o->progress_arg = sk->progress_arg;
	}
}

/* Slice s of k of iteration it of test w on o (k = 1: the whole window,
 * and the job's step; turn: planrun_file_slice's), its seconds through sk:
 * measured, added to a; the last slice's iteration stored with its result
 * in one transaction, published, and into *out (NULL: not wanted);
 * *warned: the test's warnings given. 0, -ECANCELED or the engine's
 * error. */
static int run_slice(struct job_run *jr, const struct workload *w, int it,
		     int s, int k, int turn, struct engine_opts *o,
		     struct sample_sink *sk, struct slices *a,
		     unsigned char *warned, struct result *out)
{
	struct workload ws;
	struct result r;
	int rc;

	if (atomic_load(jr->cancel))
		return -ECANCELED;
	if (s == 0) {
		job_phase(jr, "measuring", w->name, wl_rw_name(w->read_pct),
			  it);
		sk->w = w;
		sk->iteration = it;
		sk->failed = 0;
		sk->published = 0;
		memset(&a->r, 0, sizeof(a->r));
		memset(a->seq_pos, 0, sizeof(a->seq_pos));
		hist_init(a->hist);
		a->smp.n = 0;
	}
	/* a member of a multi-host job starts each window when its
	 * coordinator says, with every other host */
	if (s == 0 && (rc = job_gate(jr, &o->start_at_ns)) < 0)
		return rc;
	ws = slice_of(w, s, k, turn, o, sk, a);
	rc = engine_run(o, &ws, &r);
	o->start_at_ns = 0;
	slice_done(o, sk);
	if (rc == 0 || r.window_ns > 0)
		slices_add(a, &r, rc == 0 ? o->hist : NULL, o->samples);
	/* a failed or stopped iteration is no result, but the seconds it
	 * measured before are kept; a slice's seconds are kept as it ends */
	if ((rc < 0 || s + 1 < k) && a->smp.n > 0) {
		archive_samples_insert(jr->a, jr->run_id, w, it, &a->smp);
		publish_rest(sk, &a->smp);
	}
	if (rc < 0 || s + 1 < k)
		return rc;
	result_finish(&a->r);
	if (!(*warned & 1))
		*warned |= (unsigned char)check_little(jr, w, &a->r);
	*warned |= (unsigned char)ctrwarn_check(jr->a, jr->run_id, w,
						sk->direct, &a->smp, *warned);
	/* the result and its seconds: both or neither */
	rc = archive_iteration_insert(jr->a, jr->run_id, w, it, &a->r, a->hist,
				      &a->smp);
	if (rc < 0) {
		snprintf(o->error, o->error_len,
			 "storing a result in the archive failed: %s",
			 rc == -ENOSPC ? "the archive's disk is full"
				       : strerror(-rc));
		return rc;
	}
	if (out)
		*out = a->r;
	/* the ragged end the engine keeps for its result */
	publish_rest(sk, &a->smp);
	if (k == 1)
		job_step(jr);
	return 0;
}

/*
 * The job's plan: its stored tests, or for a job queued by a version that
 * did not store them, its preset's fixed tests. Fills error on failure.
 */
int planrun_plan(const struct job_run *jr, struct plan *p, char *error,
		 size_t error_len)
{
	const struct job_spec *s = jr->s;
	struct workload def = { .file_size = s->size,
				.duration_s = s->duration_s };
	struct field_error pe;
	json_t *tests;
	int rc;

	if (!s->plan_json)
		return plan_from_tests(jr->preset->tests, jr->preset->n_tests,
				       &def, p);
	if (!(tests = json_loads(s->plan_json, 0, NULL))) {
		snprintf(error, error_len, "the stored plan is not JSON");
		return -EINVAL;
	}
	rc = plan_parse_stored(tests, &def, p, &pe);
	json_decref(tests);
	if (rc == -EINVAL)
		snprintf(error, error_len, "stored plan: %.200s", pe.detail);
	return rc;
}

/* Seconds of samples an iteration can need: its window, plus one for the
 * ragged end; an hour for a size-based test (later seconds are folded). */
static unsigned samples_cap(const struct plan *p)
{
	double longest = 0;

	for (size_t i = 0; i < p->n; i++) {
		double d = p->w[i].io_bytes ? 3600 : p->w[i].duration_s;
		if (d > longest)
			longest = d;
	}
	return (unsigned)ceil(longest) + 1;
}

struct planrun_file {
	struct job_run *jr;
	const struct plan *p;
	const char *path; /* one of jr->files */
	struct engine_opts o;
	struct engine_samples samples; /* one engine_run's (a slice's) */
	struct slices acc;	       /* the iteration's */
	struct sample_sink sink;
	unsigned char *warned; /* per test: its warnings given (bit 0
				  Little's law, CTRWARN_* the counters') */
	int one_warned;	       /* PLANRUN_ONE_WARNED: warned[0] for all */
	struct hostctr *ctr;   /* the host's and the device's counters */
	int direct;	       /* direct I/O in effect on the file */
};

void planrun_file_close(struct planrun_file *f, int remove)
{
	if (!f)
		return;
	if (remove && f->path)
		job_file_remove(f->jr, f->path);
	free(f->o.hist);
	free(f->samples.s);
	free(f->samples.ctr);
	free(f->acc.hist);
	free(f->acc.smp.s);
	free(f->acc.smp.ctr);
	free(f->acc.smp.len_s);
	hostctr_close(f->ctr);
	free(f);
}

int planrun_file_open(struct job_run *jr, const struct plan *p,
		      unsigned char *warned, unsigned flags,
		      struct planrun_file **out)
{
	struct planrun_file *f = calloc(1, sizeof(*f));
	int rc;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->jr = jr;
	f->p = p;
	f->warned = warned;
	f->one_warned = (flags & PLANRUN_ONE_WARNED) != 0;
	job_phase(jr, "preparing", NULL, NULL, 0);
	/* the file carries the first test's data pattern (CrystalDiskMark
	 * fills it with zeros in its 0Fill mode) */
	if ((rc = job_file_make(jr, jr->s->target, jr->s->size, p->w[0].data,
				&f->direct, &f->path)) < 0)
		goto fail;
	job_step(jr);
	f->o = job_engine_opts(jr, f->path);
	f->o.hist = malloc(sizeof(struct hist)); /* 32 KiB: not the stack */
	f->samples.cap = samples_cap(p);
	f->samples.s = calloc(f->samples.cap, sizeof(*f->samples.s));
	f->o.samples = &f->samples;
	f->sink.jr = jr;
	f->sink.smp = &f->samples;
	f->sink.direct = f->direct;
	/* counters of the device under a local file system (or raw
	 * device); none for a share or the null back-end */
	f->samples.ctr = calloc(f->samples.cap, sizeof(*f->samples.ctr));
	if (hostctr_open((jr->ops->caps & TGT_CAP_FILES) &&
					 !(jr->ops->caps & TGT_CAP_REMOTE)
				 ? jr->pr.disk
				 : NULL,
			 &f->ctr) == 0)
		f->o.counters = f->ctr;
	/* a window in 1 s slices: a slice's drain can make a second of
	 * its own */
	f->acc.hist = malloc(sizeof(struct hist));
	f->acc.smp.cap = 2 * f->samples.cap;
	f->acc.smp.s = calloc(f->acc.smp.cap, sizeof(*f->acc.smp.s));
	f->acc.smp.ctr = calloc(f->acc.smp.cap, sizeof(*f->acc.smp.ctr));
	f->acc.smp.len_s = calloc(f->acc.smp.cap, sizeof(double));
	if (!f->o.hist || !f->samples.s || !f->samples.ctr || !f->acc.hist ||
	    !f->acc.smp.s || !f->acc.smp.ctr || !f->acc.smp.len_s) {
		rc = -ENOMEM;
		goto fail;
	}
	*out = f;
	return 0;
fail:
	planrun_file_close(f, 1);
	return rc;
}

int planrun_file_begin(struct planrun_file *f, struct engine_opts *o)
{
	struct job_run *jr = f->jr;
	int rc = 0;

	/* the run exists from its first measurement: a job whose files could
	 * not all be made (an interleaved job's later target) leaves none */
	if (!jr->run_id) {
		jr->plan = f->p;
		rc = job_run_create(jr, f->direct, jr->s->size);
		jr->plan = NULL;
	}
	if (o) {
		*o = f->o;
		o->hist = NULL;
		o->samples = NULL;
		o->sample_done = NULL;
		o->sample_arg = NULL;
	}
	return rc;
}

int planrun_file_slice(struct planrun_file *f, size_t i, int iteration,
		       int slice, int slices, int turn, struct result *out)
{
	int rc;

	if ((rc = planrun_file_begin(f, NULL)) < 0)
		return rc;
	/* the sink lives in f; the engine keeps no pointer to it after */
	f->o.sample_done = on_sample;
	f->o.sample_arg = &f->sink;
	rc = run_slice(f->jr, &f->p->w[i], iteration, slice, slices, turn,
		       &f->o, &f->sink, &f->acc,
		       &f->warned[f->one_warned ? 0 : i], out);
	f->o.sample_done = NULL;
	f->o.sample_arg = NULL;
	return rc;
}

int planrun_file_test(struct planrun_file *f, size_t i, int iteration,
		      struct result *out)
{
	return planrun_file_slice(f, i, iteration, 0, 1, 0, out);
}

int planrun_slices(const struct workload *w)
{
	return w->io_bytes || w->duration_s < 2 ? 1 : (int)w->duration_s;
}

int planrun_pause(struct job_run *jr)
{
	if (jr->s->interval_s <= 0)
		return 0;
	job_phase(jr, "interval", NULL, NULL, 0);
	pause_between_tests(jr, jr->s->interval_s);
	return atomic_load(jr->cancel) ? -ECANCELED : 0;
}
