/*
 * jobq — see jobq.h for the design.
 */
#include "jobq.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "archive.h"
#include "engine.h"
#include "log.h"
#include "plan.h"
#include "probe.h"
#include "profiles.h"

struct jobq {
	struct archive *a;       /* the worker's own connection */
	const struct tgt_ops *ops;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;            /* under mu */
	int kicked;              /* under mu */
	int64_t current;         /* running job id or 0; under mu */
	atomic_int cancel;       /* read by the engine threads */
	struct jobq_progress prog; /* under mu */
	/* worker-only: where the job stands, for the overall fraction */
	int steps_done, steps_total;
};

/* --- progress --- */

static void set_phase(struct jobq *q, const char *phase,
		      const struct workload *t, int iteration)
{
	pthread_mutex_lock(&q->mu);
	snprintf(q->prog.phase, sizeof(q->prog.phase), "%s", phase);
	if (t) {
		snprintf(q->prog.test, sizeof(q->prog.test), "%s", t->name);
		snprintf(q->prog.rw, sizeof(q->prog.rw), "%s",
			 wl_rw_name(t->read_pct));
		q->prog.iteration = iteration;
	}
	q->prog.fraction = (double)q->steps_done / q->steps_total;
	q->prog.live_mb_s = q->prog.live_iops = 0;
	pthread_mutex_unlock(&q->mu);
}

static void on_progress(void *arg, const struct engine_progress *p)
{
	struct jobq *q = arg;

	pthread_mutex_lock(&q->mu);
	snprintf(q->prog.phase, sizeof(q->prog.phase), "%s",
		 p->ramping ? "ramp" : "measuring");
	q->prog.fraction = (q->steps_done + p->fraction) / q->steps_total;
	q->prog.live_mb_s = p->live_mb_s;
	q->prog.live_iops = p->live_iops;
	pthread_mutex_unlock(&q->mu);
}

int jobq_progress(struct jobq *q, int64_t id, struct jobq_progress *p)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&q->mu);
	if (q->current == id && id > 0) {
		*p = q->prog;
		rc = 0;
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

/* --- one job --- */

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *int_or_null(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static char *probe_json(const struct probe *p)
{
	json_t *o = json_pack(
		"{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
		" s:o, s:o, s:o, s:o}",
		"hostname", str_or_null(p->hostname), "kernel",
		str_or_null(p->kernel), "fs_type", str_or_null(p->fs_type),
		"fs_block_size", int_or_null(p->fs_block_size), "mount_point",
		str_or_null(p->mount_point), "mount_options",
		str_or_null(p->mount_options), "device", str_or_null(p->device),
		"disk", str_or_null(p->disk), "device_model",
		str_or_null(p->device_model), "rotational",
		p->rotational < 0 ? json_null() : json_boolean(p->rotational),
		"write_cache", str_or_null(p->write_cache), "free_bytes",
		int_or_null(p->free_bytes), "total_bytes",
		int_or_null(p->total_bytes), "cpu_model",
		str_or_null(p->cpu_model), "cpus", int_or_null(p->cpus),
		"memory_bytes", int_or_null(p->memory_bytes));
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return s;
}

/* Sleeps seconds in 100 ms steps; returns early on cancel. */
static void pause_between_tests(struct jobq *q, double seconds)
{
	uint64_t end = engine_now_ns() + (uint64_t)(seconds * 1e9);

	while (!atomic_load(&q->cancel) && engine_now_ns() < end) {
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
	}
}

/*
 * Little's law says IOPS × mean latency = queue depth × threads while every
 * slot is busy. A window that is short against the I/O latency (thousands of
 * I/Os queued on a slow device) breaks it: most I/Os are still in flight
 * when it closes. Says so on the run, once per test.
 */
static int check_little(struct jobq *q, int64_t run_id,
			const struct workload *w, const struct result *r)
{
	double slots = (double)w->queue_depth * w->threads;
	double busy = r->iops * r->lat_mean_us / 1e6;
	char text[400];

	if (w->io_bytes || r->ios == 0 || fabs(busy / slots - 1) <= 0.1)
		return 0;
	snprintf(text, sizeof(text),
		 "%s %s: IOPS × mean latency is %.0f, not the %.0f I/Os "
		 "queue depth × threads keep in flight: the %.1f s window is "
		 "short against the I/O latency (%.0f µs mean) and most I/Os "
		 "were still queued when it closed; use a longer duration, a "
		 "ramp, or a lower queue depth",
		 w->name, wl_rw_name(w->read_pct), busy, slots,
		 (double)r->window_ns / 1e9, r->lat_mean_us);
	archive_run_warn(q->a, run_id, text);
	return 1;
}

/* Runs every test of the plan; returns 0, -ECANCELED or the engine's error. */
static int run_tests(struct jobq *q, const struct plan *p,
		     const struct job_spec *s, int64_t run_id,
		     struct engine_opts *o)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct workload *w = &p->w[i];
		int warned = 0;

		if (i > 0 && s->interval_s > 0) {
			set_phase(q, "interval", NULL, 0);
			pause_between_tests(q, s->interval_s);
		}
		for (int it = 1; it <= s->iterations; it++) {
			struct result r;
			int rc;

			if (atomic_load(&q->cancel))
				return -ECANCELED;
			set_phase(q, "measuring", w, it);
			rc = engine_run(o, w, &r);
			if (rc < 0)
				return rc;
			if (!warned)
				warned = check_little(q, run_id, w, &r);
			rc = archive_result_insert(q->a, run_id, w, it, &r,
						   o->hist);
			if (rc == 0)
				rc = archive_samples_insert(q->a, run_id, w, it,
							    o->samples);
			if (rc < 0) {
				snprintf(o->error, o->error_len,
					 "storing a result in the archive failed");
				return rc;
			}
			q->steps_done++;
		}
		pthread_mutex_lock(&q->mu);
		q->prog.tests_done = (int)i + 1;
		pthread_mutex_unlock(&q->mu);
	}
	return 0;
}

/*
 * The job's plan: its stored tests, or for a job queued by a version that
 * did not store them, its profile's. Fills error on failure.
 */
static int job_plan(const struct job_spec *s, struct plan *p, char *error,
		    size_t error_len)
{
	struct workload def = {.file_size = s->size,
			       .duration_s = s->duration_s};
	struct plan_error pe;
	const struct profile *prof;
	json_t *tests;
	int rc;

	if (!s->plan_json) {
		if (!(prof = profile_find(s->profile))) {
			snprintf(error, error_len, "unknown profile %s",
				 s->profile);
			return -EINVAL;
		}
		return plan_from_profile(prof, &def, p);
	}
	if (!(tests = json_loads(s->plan_json, 0, NULL))) {
		snprintf(error, error_len, "the stored plan is not JSON");
		return -EINVAL;
	}
	rc = plan_parse(tests, &def, p, &pe);
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

static void add_warnings(json_t *warnings, int asked, int direct,
			 uint64_t size, const struct probe *pr)
{
	if (asked && !direct)
		json_array_append_new(
			warnings,
			json_string("the filesystem refused direct I/O "
				    "(O_DIRECT); buffered I/O was measured"));
	if (!direct && pr->memory_bytes > 0 &&
	    size < (uint64_t)pr->memory_bytes)
		json_array_append_new(
			warnings,
			json_string("buffered test file is smaller than RAM: "
				    "reads may come from the page cache"));
}

static int is_stopping(struct jobq *q)
{
	int s;

	pthread_mutex_lock(&q->mu);
	s = q->stopping;
	pthread_mutex_unlock(&q->mu);
	return s;
}

/* The job's parameters as stored on the run (JSON text; caller frees). */
static char *dump_spec(const struct job_spec *s, const struct plan *p)
{
	json_t *o = json_pack("{s:s, s:I, s:i, s:f, s:f, s:b, s:s, s:o}",
			      "profile", s->profile, "size",
			      (json_int_t)s->size, "iterations", s->iterations,
			      "duration_s", s->duration_s, "interval_s",
			      s->interval_s, "direct_requested", s->direct,
			      "engine_requested",
			      s->engine ? s->engine : "default", "tests",
			      plan_json(p));
	char *t = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return t;
}

static void run_job(struct jobq *q, int64_t id, const struct job_spec *s)
{
	struct plan p = {0};
	struct engine_samples samples = {0};
	const struct tgt_ops *ops = s->engine ? tgt_find(s->engine) : q->ops;
	char error[256] = "", path[4200] = "";
	struct engine_opts o = {
		.ops = ops, .path = path, .direct = s->direct,
		.cancel = &q->cancel, .progress = on_progress,
		.progress_arg = q, .error = error, .error_len = sizeof(error),
		.hist = malloc(sizeof(struct hist)), /* 32 KiB: not the stack */
		.samples = &samples,
	};
	struct probe pr;
	char *pj = NULL, *spec = NULL, *warn = NULL;
	json_t *warnings = json_array();
	int64_t run_id = 0;
	int direct = 0, file = 0, stopping, rc;
	uint32_t salt = 0;
	const char *state;

	if (!ops) {
		rc = -EINVAL;
		snprintf(error, sizeof(error), "unknown engine %s", s->engine);
		goto out;
	}
	if ((rc = job_plan(s, &p, error, sizeof(error))) < 0)
		goto out;
	samples.cap = samples_cap(&p);
	samples.s = calloc(samples.cap, sizeof(*samples.s));
	if (!o.hist || !samples.s) {
		rc = -ENOMEM;
		goto out;
	}
	q->steps_done = 0;
	q->steps_total = 1 + (int)p.n * s->iterations;
	pthread_mutex_lock(&q->mu);
	q->prog.iterations = s->iterations;
	q->prog.tests_total = (int)p.n;
	pthread_mutex_unlock(&q->mu);

	if ((rc = probe_path(s->target, &pr)) < 0) {
		snprintf(error, sizeof(error), "target %s: %s", s->target,
			 strerror(-rc));
		goto out;
	}
	if (getrandom(&salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
		salt = (uint32_t)time(NULL);
	snprintf(path, sizeof(path), "%s/storbench-%lld-%08x.tmp", s->target,
		 (long long)id, salt);
	if ((rc = archive_testfile_add(q->a, path, id)) < 0) {
		snprintf(error, sizeof(error), "archive unavailable");
		goto out;
	}
	set_phase(q, "preparing", NULL, 0);
	log_info("job %lld: writing test file %s (%llu bytes)", (long long)id,
		 path, (unsigned long long)s->size);
	/* the file carries the first test's data pattern (CrystalDiskMark
	 * fills it with zeros in its 0Fill mode) */
	rc = engine_prepare_file(&o, s->size, p.w[0].data, &direct);
	if (rc < 0)
		goto out;
	file = 1;
	q->steps_done = 1;
	add_warnings(warnings, s->direct, direct, s->size, &pr);
	pj = probe_json(&pr);
	spec = dump_spec(s, &p);
	warn = json_dumps(warnings, JSON_COMPACT);
	if (!pj || !spec || !warn) {
		rc = -ENOMEM;
		goto out;
	}
	rc = archive_run_create(q->a, id, s, spec, pj, ops->name, direct,
				warn, &run_id);
	if (rc < 0) {
		snprintf(error, sizeof(error), "archive unavailable");
		goto out;
	}
	rc = run_tests(q, &p, s, run_id, &o);
out:
	if (file) {
		int urc;
		set_phase(q, "cleanup", NULL, 0);
		urc = tgt_unlink(ops, path);
		if (urc == -ENOENT)
			log_warn("job %lld: test file %s was not there to remove "
				 "(was the target moved or unmounted during the "
				 "job? the file may remain where it went)",
				 (long long)id, path);
		else if (urc < 0)
			log_warn("job %lld: could not remove %s: %s",
				 (long long)id, path, strerror(-urc));
	}
	if (path[0] != '\0')
		archive_testfile_remove(q->a, path);
	stopping = is_stopping(q);
	if (rc == 0)
		state = "done";
	else if (rc == -ECANCELED && stopping)
		state = "interrupted";
	else if (rc == -ECANCELED)
		state = "cancelled";
	else
		state = "failed";
	if (rc == -ECANCELED)
		snprintf(error, sizeof(error), "%s",
			 stopping ? "the daemon stopped while this job ran"
				     : "cancelled by request");
	else if (rc < 0 && error[0] == '\0')
		snprintf(error, sizeof(error), "%s", strerror(-rc));
	archive_job_finish(q->a, id, run_id, state, rc == 0 ? NULL : error);
	log_info("job %lld: %s%s%s", (long long)id, state, rc ? ": " : "",
		 rc ? error : "");
	json_decref(warnings);
	plan_free(&p);
	free(o.hist);
	free(samples.s);
	free(pj);
	free(spec);
	free(warn);
}

/* --- the worker --- */

static void *worker(void *arg)
{
	struct jobq *q = arg;

	pthread_mutex_lock(&q->mu);
	while (!q->stopping) {
		struct job_spec s;
		int64_t id = 0;
		int rc;

		q->kicked = 0;
		rc = archive_job_claim_next(q->a, &id, &s);
		if (rc < 0) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += rc == -ENOENT ? 5 : 1;
			if (!q->kicked && !q->stopping)
				pthread_cond_timedwait(&q->cv, &q->mu, &until);
			continue;
		}
		q->current = id;
		atomic_store(&q->cancel, 0);
		memset(&q->prog, 0, sizeof(q->prog));
		q->prog.job_id = id;
		pthread_mutex_unlock(&q->mu);
		log_info("job %lld: %s on %s", (long long)id, s.profile,
			 s.target);
		run_job(q, id, &s);
		job_spec_clear(&s);
		pthread_mutex_lock(&q->mu);
		q->current = 0;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct paths {
	char **v;
	size_t n, cap;
};

static void collect_path(void *arg, const char *path)
{
	struct paths *p = arg;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		char **v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return;
		p->v = v;
		p->cap = cap;
	}
	if ((p->v[p->n] = strdup(path)) != NULL)
		p->n++;
}

/* Removes the test files a crash left behind (the archive lists them; the
 * engine created each with O_EXCL, so each is ours). */
static void remove_leftovers(struct jobq *q)
{
	struct paths p = {0};

	archive_testfile_each(q->a, collect_path, &p);
	for (size_t i = 0; i < p.n; i++) {
		if (tgt_unlink(q->ops, p.v[i]) == 0)
			log_info("removed test file %s left by a crash", p.v[i]);
		archive_testfile_remove(q->a, p.v[i]);
		free(p.v[i]);
	}
	free(p.v);
}

int jobq_start(const char *db_path, struct jobq **out)
{
	struct jobq *q = calloc(1, sizeof(*q));
	int rc, n = 0;

	*out = NULL;
	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->ops = tgt_local_default();
	if (q->ops != &tgt_uring_ops)
		log_warn("io_uring cannot be set up here (%s): measuring with "
			 "the psync back-end (pread/pwrite worker threads)",
			 strerror(-tgt_uring_probe()));
	if ((rc = archive_open(db_path, &q->a)) < 0)
		goto fail;
	if ((rc = archive_interrupt_running(q->a, &n)) < 0)
		goto fail;
	if (n)
		log_warn("%d job(s) were running when the daemon stopped; "
			 "marked interrupted", n);
	remove_leftovers(q);
	if (pthread_create(&q->tid, NULL, worker, q) != 0) {
		rc = -EAGAIN;
		goto fail;
	}
	*out = q;
	return 0;
fail:
	archive_close(q->a);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
	return rc;
}

void jobq_kick(struct jobq *q)
{
	pthread_mutex_lock(&q->mu);
	q->kicked = 1;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

int jobq_cancel(struct jobq *q, struct archive *a, int64_t id)
{
	int rc;

	pthread_mutex_lock(&q->mu);
	rc = archive_job_cancel_queued(a, id);
	if (rc == 1) {
		rc = 0;
	} else if (rc == 0 && q->current == id) {
		atomic_store(&q->cancel, 1);
	} else if (rc == 0) {
		rc = -EALREADY;
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

void jobq_stop(struct jobq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stopping = 1;
	atomic_store(&q->cancel, 1);
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->tid, NULL);
	archive_close(q->a);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}
