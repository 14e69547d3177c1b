/*
 * jobq — see jobq.h for the design.
 */
#include "jobq.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "archive.h"
#include "confine.h"
#include "creds.h"
#include "events.h"
#include "engine.h"
#include "jobrun.h"
#include "log.h"
#include "plan.h"
#include "probe.h"
#include "profiles.h"
#include "smb.h"

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
	int64_t only;            /* run this job only, then stop (0: all) */
	uint64_t started_ns;     /* the running job's start; under mu */
	uint64_t published_ns;   /* last progress event; under mu */
	/* worker-only: where the job stands, for the overall fraction */
	int steps_done, steps_total;
};

/* --- progress --- */

/* Fills p's elapsed and remaining times; the caller holds q->mu. */
static void progress_times(const struct jobq *q, struct jobq_progress *p)
{
	p->elapsed_s = q->started_ns
			       ? (double)(engine_now_ns() - q->started_ns) / 1e9
			       : 0;
	/* a straight-line guess once a little of the job is done */
	p->remaining_s = p->fraction >= 0.02 && p->fraction < 1
				 ? p->elapsed_s * (1 - p->fraction) / p->fraction
				 : -1;
}

int jobq_done(struct jobq *q)
{
	int done;

	pthread_mutex_lock(&q->mu);
	done = q->only && q->stopping && q->current == 0;
	pthread_mutex_unlock(&q->mu);
	return done;
}

json_t *jobq_progress_json(const struct jobq_progress *p)
{
	return json_pack("{s:I, s:s, s:s?, s:s?, s:i, s:i, s:i, s:i, s:f, s:f, "
			 "s:o, s:f, s:f}",
			 "job_id", (json_int_t)p->job_id, "phase", p->phase,
			 "test", p->test[0] ? p->test : NULL, "rw",
			 p->rw[0] ? p->rw : NULL, "iteration", p->iteration,
			 "iterations", p->iterations, "tests_done", p->tests_done,
			 "tests_total", p->tests_total, "fraction", p->fraction,
			 "elapsed_s", p->elapsed_s, "remaining_s",
			 p->remaining_s >= 0 ? json_real(p->remaining_s)
					     : json_null(),
			 "live_mb_s", p->live_mb_s, "live_iops", p->live_iops);
}

/* Publishes the running job's progress (event "progress"): at every change
 * of phase (force), else at most every 500 ms — the engine reports every
 * 250 ms, so a measuring job gives two a second. */
static void publish_progress(struct jobq *q, int force)
{
	struct jobq_progress p;
	uint64_t now = engine_now_ns();

	pthread_mutex_lock(&q->mu);
	if (!q->current || (!force && now - q->published_ns < 500000000ULL)) {
		pthread_mutex_unlock(&q->mu);
		return;
	}
	q->published_ns = now;
	p = q->prog;
	progress_times(q, &p);
	pthread_mutex_unlock(&q->mu);
	events_publish("progress", jobq_progress_json(&p));
}

/* Jobs this process ended, by state (archive_job_states' order). */
static atomic_ullong finished[ARCHIVE_N_STATES];

void jobq_finished_counts(unsigned long long counts[ARCHIVE_N_STATES])
{
	for (int i = 0; i < ARCHIVE_N_STATES; i++)
		counts[i] = atomic_load(&finished[i]);
}

void jobq_publish_job(int64_t id, const char *state, int64_t run_id,
		      const char *error)
{
	for (int i = 2; i < ARCHIVE_N_STATES; i++) /* the end states */
		if (strcmp(state, archive_job_states[i]) == 0)
			atomic_fetch_add(&finished[i], 1);
	events_publish("job", json_pack("{s:I, s:s, s:o, s:s?}", "id",
					(json_int_t)id, "state", state, "run_id",
					run_id ? json_integer(run_id)
					       : json_null(),
					"error", error && error[0] ? error : NULL));
}

/* The worker's phase (and test, when test is given), published at once. */
static void phase_to(struct jobq *q, const char *phase, const char *test,
		     const char *rw, int iteration)
{
	pthread_mutex_lock(&q->mu);
	snprintf(q->prog.phase, sizeof(q->prog.phase), "%s", phase);
	if (test) {
		snprintf(q->prog.test, sizeof(q->prog.test), "%s", test);
		snprintf(q->prog.rw, sizeof(q->prog.rw), "%s", rw ? rw : "");
		q->prog.iteration = iteration;
	}
	q->prog.fraction = (double)q->steps_done / q->steps_total;
	q->prog.live_mb_s = q->prog.live_iops = 0;
	pthread_mutex_unlock(&q->mu);
	publish_progress(q, 1);
}

static void set_phase(struct jobq *q, const char *phase,
		      const struct workload *t, int iteration)
{
	phase_to(q, phase, t ? t->name : NULL, t ? wl_rw_name(t->read_pct) : NULL,
		 iteration);
}

static void on_progress(void *arg, const struct engine_progress *p)
{
	struct jobq *q = arg;

	pthread_mutex_lock(&q->mu);
	/* writing a test file reports progress too, but is no measurement */
	if (strcmp(q->prog.phase, "preparing") != 0)
		snprintf(q->prog.phase, sizeof(q->prog.phase), "%s",
			 p->ramping ? "ramp" : "measuring");
	q->prog.fraction = (q->steps_done + p->fraction) / q->steps_total;
	q->prog.live_mb_s = p->live_mb_s;
	q->prog.live_iops = p->live_iops;
	pthread_mutex_unlock(&q->mu);
	publish_progress(q, 0);
}

int jobq_progress(struct jobq *q, int64_t id, struct jobq_progress *p)
{
	int rc = -ENOENT;

	if (!q)
		return rc;
	pthread_mutex_lock(&q->mu);
	if (q->current == id && id > 0) {
		*p = q->prog;
		progress_times(q, p);
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
	char *s;

	if (o && p->mount_type[0])
		json_object_set_new(o, "mount_type", json_string(p->mount_type));
	if (o && p->smb_server[0])
		json_object_set_new(
			o, "smb",
			json_pack("{s:s, s:o, s:s, s:o, s:o, s:o}", "server",
				  p->smb_server, "port",
				  p->smb_port ? json_integer(p->smb_port)
					      : json_null(),
				  "share", p->smb_share, "dialect",
				  str_or_null(p->smb_dialect), "signing",
				  p->smb_signing < 0 ? json_null()
						     : json_boolean(p->smb_signing),
				  "encryption",
				  p->smb_encryption < 0
					  ? json_null()
					  : json_boolean(p->smb_encryption)));
	else if (o)
		json_object_set_new(o, "smb", json_null());
	s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

/* The SMB session of job s (smb_json and its stored credential) into
 * *sess; error in words. Returns 0 or a negative errno. */
static int job_smb_session(const struct job_spec *s, struct smb_session *sess,
			   char *error, size_t len)
{
	json_t *o = s->smb_json ? json_loads(s->smb_json, 0, NULL) : NULL;
	const char *name = json_string_value(json_object_get(o, "credential"));
	const char *v;
	int rc = 0;

	memset(sess, 0, sizeof(*sess));
	if (!name) {
		snprintf(error, len, "the job has no SMB credential");
		rc = -EINVAL;
	} else if ((rc = creds_get(name, sess)) < 0) {
		snprintf(error, len,
			 rc == -ENOENT ? "credential \"%s\" was deleted after the "
					 "job was queued"
				       : "credential \"%s\": the store failed",
			 name);
	} else {
		if ((v = json_string_value(json_object_get(o, "min_protocol"))))
			snprintf(sess->min_protocol, sizeof(sess->min_protocol),
				 "%s", v);
		if ((v = json_string_value(json_object_get(o, "max_protocol"))))
			snprintf(sess->max_protocol, sizeof(sess->max_protocol),
				 "%s", v);
		sess->require_signing =
			json_is_true(json_object_get(o, "require_signing"));
		sess->require_encryption =
			json_is_true(json_object_get(o, "require_encryption"));
	}
	json_decref(o);
	return rc;
}

/* Sleeps seconds in 100 ms steps; returns early on cancel. */
static void pause_between_tests(struct jobq *q, double seconds)
{
	uint64_t end = engine_now_ns() + (uint64_t)(seconds * 1e9);

	while (!atomic_load(&q->cancel) && engine_now_ns() < end) {
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
		publish_progress(q, 0); /* the stream hears of a long pause */
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

/* Where the seconds of the iteration running go as they finish. */
struct sample_sink {
	struct jobq *q;
	int64_t job_id;
	int64_t run_id;
	const struct workload *w;
	int iteration;
	int failed;         /* logged once per iteration */
	unsigned published; /* seconds of this iteration sent as events */
};

/* Publishes a "sample" event: second's counts over length_s seconds as
 * rates (1 s but for the last, ragged one of a window). */
static void publish_sample(const struct sample_sink *k, unsigned second,
			   const struct engine_sample *s, double length_s)
{
	double l = length_s > 0 ? length_s : 1;

	events_publish("sample",
		       json_pack("{s:I, s:I, s:s, s:s, s:i, s:i, s:f, s:{s:f, s:f}, "
				 "s:{s:f, s:f}}",
				 "job_id", (json_int_t)k->job_id, "run_id",
				 (json_int_t)k->run_id, "test", k->w->name, "rw",
				 wl_rw_name(k->w->read_pct), "iteration",
				 k->iteration, "second", (int)second, "length_s", l,
				 "read", "iops", (double)s->ios[0] / l, "mb_s",
				 (double)s->bytes[0] / 1e6 / l, "write", "iops",
				 (double)s->ios[1] / l, "mb_s",
				 (double)s->bytes[1] / 1e6 / l));
}

/* engine_opts.sample_done: each finished second is stored at once, so a
 * kill keeps every second measured before it (the end of the iteration
 * stores all of them again, in one transaction with its result). */
static void on_sample(void *arg, unsigned second, const struct engine_sample *s)
{
	struct sample_sink *k = arg;

	if (archive_sample_put(k->q->a, k->run_id, k->w, k->iteration, second,
			       s) < 0 &&
	    !k->failed++)
		log_warn("run %lld: storing a second of samples failed; the "
			 "iteration's samples are stored when it ends",
			 (long long)k->run_id);
	publish_sample(k, second, s, 1.0);
	k->published = second + 1;
}
/* Runs every test of the plan, each second stored through sink; returns 0,
 * -ECANCELED or the engine's error. */
static int run_tests_into(struct jobq *q, const struct plan *p,
			  const struct job_spec *s, int64_t run_id,
			  struct engine_opts *o, struct sample_sink *k)
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
			k->w = w;
			k->iteration = it;
			k->failed = 0;
			k->published = 0;
			rc = engine_run(o, w, &r);
			/* a failed or stopped iteration is no result, but the
			 * seconds it measured before are kept */
			if (rc < 0 && o->samples && r.window_ns > 0)
				archive_samples_insert(q->a, run_id, w, it,
						       o->samples);
			if (rc < 0)
				return rc;
			if (!warned)
				warned = check_little(q, run_id, w, &r);
			/* the result and its seconds: both or neither */
			rc = archive_iteration_insert(q->a, run_id, w, it, &r,
						      o->hist, o->samples);
			if (rc < 0) {
				snprintf(o->error, o->error_len,
					 "storing a result in the archive failed");
				return rc;
			}
			/* the ragged end the engine keeps for its result */
			for (unsigned sec = k->published; o->samples &&
							  sec < o->samples->n; sec++)
				publish_sample(k, sec, &o->samples->s[sec],
					       sec + 1 == o->samples->n
						       ? o->samples->last_s
						       : 1.0);
			q->steps_done++;
		}
		pthread_mutex_lock(&q->mu);
		q->prog.tests_done = (int)i + 1;
		pthread_mutex_unlock(&q->mu);
	}
	return 0;
}

/* run_tests_into with this job's sink; the engine options keep no pointer
 * to it afterwards. */
static int run_tests(struct jobq *q, const struct plan *p,
		     const struct job_spec *s, int64_t run_id,
		     struct engine_opts *o)
{
	struct sample_sink sink = {.q = q, .job_id = q->prog.job_id,
				   .run_id = run_id};
	int rc;

	o->sample_done = on_sample;
	o->sample_arg = &sink;
	rc = run_tests_into(q, p, s, run_id, o, &sink);
	o->sample_done = NULL;
	o->sample_arg = NULL;
	return rc;
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
static char *dump_spec(const struct job_spec *s, const struct plan *p,
		       json_t *options)
{
	json_t *o = json_pack("{s:s, s:I, s:i, s:f, s:f, s:b, s:s, s:o}",
			      "profile", s->profile, "size",
			      (json_int_t)s->size, "iterations", s->iterations,
			      "duration_s", s->duration_s, "interval_s",
			      s->interval_s, "direct_requested", s->direct,
			      "engine_requested",
			      s->engine ? s->engine : "default", "tests",
			      plan_json(p));
	char *t;

	if (o && options)
		json_object_set(o, "options", options);
	if (o && s->smb_json)
		json_object_set_new(o, "smb", json_loads(s->smb_json, 0, NULL));
	t = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return t;
}

/* --- what the runners share (jobrun.h) --- */

struct engine_opts job_engine_opts(struct job_run *jr, const char *path)
{
	struct engine_opts o = {
		.ops = jr->ops, .path = path, .device = jr->device,
		.direct = jr->s->direct,
		.cancel = jr->cancel, .progress = on_progress,
		.progress_arg = jr->q, .error = jr->error,
		.error_len = sizeof(jr->error),
	};
	return o;
}

int jobq_test_file(const char *dir, int64_t id, const char *created_at,
		   size_t n, char *buf, size_t len)
{
	uint32_t tag = 2166136261u; /* FNV-1a of "ID created_at" */
	char key[64];
	int w;

	snprintf(key, sizeof(key), "%lld %s", (long long)id, created_at);
	for (const char *c = key; *c; c++)
		tag = (tag ^ (unsigned char)*c) * 16777619u;
	if (n == 0)
		w = snprintf(buf, len, "%s/storbench-%lld-%08x.tmp", dir,
			     (long long)id, tag);
	else
		w = snprintf(buf, len, "%s/storbench-%lld-%08x-%zu.tmp", dir,
			     (long long)id, tag, n);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

/*
 * A handle on local directory dir for this job's files, opened once per job
 * (O_PATH) and checked where it really is (the kernel's name for the open
 * directory) against the allowed roots. The files are then named through
 * it — "/proc/self/fd/N/storbench-….tmp" — so every create, open and
 * unlink lands in that very directory, whatever is renamed or swapped for a
 * symlink on the way to it in the meantime. *fd_out and real (the
 * directory's path now). 0, or -EACCES / -errno with jr->error set.
 */
static int job_dir(struct job_run *jr, const char *dir, int *fd_out,
		   char real[PATH_MAX])
{
	char why[sizeof(jr->error) - 16], link[64], ok[PATH_MAX];
	ssize_t n;
	int fd;

	for (size_t i = 0; i < jr->n_dirs; i++)
		if (strcmp(jr->dirs[i].path, dir) == 0) {
			*fd_out = jr->dirs[i].fd;
			snprintf(real, PATH_MAX, "%s", jr->dirs[i].real);
			return 0;
		}
	if (jr->n_dirs == JOB_MAX_DIRS) {
		snprintf(jr->error, sizeof(jr->error), "too many directories");
		return -EMFILE;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(jr->error, sizeof(jr->error), "%.100s: %s", dir,
			 strerror(e));
		return -e;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, PATH_MAX - 1);
	real[n > 0 ? n : 0] = '\0';
	if (n <= 0 || n >= PATH_MAX - 1 || real[0] != '/' ||
	    confine_dir(real, NULL, ok, why, sizeof(why)) < 0 ||
	    strcmp(ok, real) != 0) {
		if (n <= 0 || real[0] != '/')
			snprintf(why, sizeof(why), "%.100s: cannot tell where "
						   "it is", dir);
		snprintf(jr->error, sizeof(jr->error), "refused: %s", why);
		close(fd);
		return -EACCES;
	}
	snprintf(jr->dirs[jr->n_dirs].path, PATH_MAX, "%s", dir);
	snprintf(jr->dirs[jr->n_dirs].real, PATH_MAX, "%s", real);
	jr->dirs[jr->n_dirs].fd = fd;
	jr->n_dirs++;
	*fd_out = fd;
	return 0;
}

int job_file_name(struct job_run *jr, const char *dir, const char **path)
{
	char realdir[PATH_MAX], why[sizeof(jr->error) - 16];
	char *p, *real;
	int rc, fd = -1;

	if (jr->n_files == JOB_MAX_FILES) {
		snprintf(jr->error, sizeof(jr->error), "too many test files");
		return -EMFILE;
	}
	p = jr->files[jr->n_files];
	real = jr->real[jr->n_files];
	if (smb_is_url(dir)) {
		if (confine_smb(dir, why, sizeof(why)) < 0) {
			snprintf(jr->error, sizeof(jr->error), "refused: %s", why);
			return -EACCES;
		}
		snprintf(realdir, sizeof(realdir), "%s", dir);
	} else if ((rc = job_dir(jr, dir, &fd, realdir)) < 0) {
		return rc;
	}
	if (jobq_test_file(realdir, jr->id, jr->s->created_at, jr->n_files,
			   real, PATH_MAX) < 0) {
		snprintf(jr->error, sizeof(jr->error), "path too long in %.100s",
			 dir);
		return -ENAMETOOLONG;
	}
	if (fd < 0)
		memcpy(p, real, strlen(real) + 1); /* both PATH_MAX */
	else
		snprintf(p, PATH_MAX, "/proc/self/fd/%d%s", fd,
			 strrchr(real, '/'));
	if ((rc = archive_testfile_add(jr->a, real, jr->id)) < 0) {
		snprintf(jr->error, sizeof(jr->error), "archive unavailable");
		return rc;
	}
	jr->n_files++;
	*path = p;
	return 0;
}

/* Where file path (one of jr->files) really is, for the archive and for
 * sentences; path itself when it is not one of them. */
static const char *real_of(const struct job_run *jr, const char *path)
{
	for (size_t i = 0; i < jr->n_files; i++)
		if (strcmp(jr->files[i], path) == 0)
			return jr->real[i];
	return path;
}

/*
 * Does need more bytes fit in the local directory dir now, leaving the
 * reserve free? Checked again when each file is made, since the job was
 * queued long ago perhaps. 0, or -ENOSPC with jr->error ("refused: …").
 */
int job_room(struct job_run *jr, const char *dir, uint64_t need)
{
	int64_t free_bytes = 0, total = 0;
	char why[sizeof(jr->error) - 24];

	if (smb_is_url(dir) || probe_space(dir, &free_bytes, &total) < 0)
		return 0; /* cannot tell: the file's writes will */
	if (confine_room(dir, free_bytes, total, need, why, sizeof(why)))
		return 0;
	snprintf(jr->error, sizeof(jr->error), "refused at start: %s", why);
	return -ENOSPC;
}

int job_file_make(struct job_run *jr, const char *dir, uint64_t size,
		  enum wl_data data, int *direct, const char **path)
{
	struct engine_opts o;
	int rc;

	if (jr->device) {
		/* a raw device the admin allowed: written in place, never
		 * created or removed; free now, and held (O_EXCL) for the
		 * whole job so that nothing mounts or claims it meanwhile */
		char real[PATH_MAX], why[sizeof(jr->error) - 16];
		uint64_t bytes = 0;
		if ((rc = confine_device(dir, real, &bytes, why, sizeof(why))) < 0) {
			snprintf(jr->error, sizeof(jr->error), "refused: %s", why);
			return rc == -ENOTBLK ? -ENODEV : rc;
		}
		if (size > bytes) {
			snprintf(jr->error, sizeof(jr->error),
				 "refused: %.100s holds %llu bytes now, fewer "
				 "than the job's %llu",
				 dir, (unsigned long long)bytes,
				 (unsigned long long)size);
			return -EINVAL;
		}
		if (jr->device_fd < 0 &&
		    (jr->device_fd = open(real, O_RDONLY | O_EXCL | O_CLOEXEC)) < 0) {
			rc = -errno;
			snprintf(jr->error, sizeof(jr->error),
				 "refused: %.100s: %s (claimed by something "
				 "else just now)",
				 dir, strerror(-rc));
			return rc;
		}
		*path = jr->s->target;
		o = job_engine_opts(jr, *path);
		log_info("job %lld: writing the first %llu bytes of device %s",
			 (long long)jr->id, (unsigned long long)size, *path);
		return engine_prepare_file(&o, size, data, direct);
	}
	if ((rc = job_room(jr, dir, size)) < 0)
		return rc;
	if ((rc = job_file_name(jr, dir, path)) < 0)
		return rc;
	o = job_engine_opts(jr, *path);
	log_info("job %lld: writing test file %s (%llu bytes)",
		 (long long)jr->id, real_of(jr, *path), (unsigned long long)size);
	rc = engine_prepare_file(&o, size, data, direct);
	if (rc == -EEXIST)
		snprintf(jr->error, sizeof(jr->error),
			 "refused: %.110s exists and is not this job's; "
			 "storbench writes only files it creates (O_EXCL) "
			 "and left it untouched",
			 real_of(jr, *path));
	if (rc < 0) {
		/* the engine removed what it created; an existing file
		 * (-EEXIST) is not ours and must stay */
		archive_testfile_remove(jr->a, real_of(jr, *path));
		jr->files[jr->n_files - 1][0] = '\0';
	}
	return rc;
}

void job_file_forget(struct job_run *jr, const char *path)
{
	archive_testfile_remove(jr->a, real_of(jr, path));
	for (size_t i = 0; i < jr->n_files; i++)
		if (strcmp(jr->files[i], path) == 0)
			jr->files[i][0] = '\0';
}

void job_file_remove(struct job_run *jr, const char *path)
{
	/* path may be one of jr->files, cleared below */
	char p[PATH_MAX], real[PATH_MAX];
	int urc;

	snprintf(p, sizeof(p), "%s", path);
	snprintf(real, sizeof(real), "%s", real_of(jr, path));
	urc = tgt_unlink(jr->ops, p);
	if (urc < 0 && urc != -ENOENT && smb_is_url(p)) {
		/* the server is gone or refuses: the archive keeps the name,
		 * and the next job on that share removes the file */
		log_warn("job %lld: could not remove %s (%s); the next job on "
			 "this share will",
			 (long long)jr->id, p, strerror(-urc));
		for (size_t i = 0; i < jr->n_files; i++)
			if (strcmp(jr->files[i], p) == 0)
				jr->files[i][0] = '\0';
		return;
	}
	if (urc == -ENOENT && jr->ops != &tgt_null_ops)
		log_warn("job %lld: test file %s was not there to remove "
			 "(was it removed by someone else during the job?)",
			 (long long)jr->id, real);
	else if (urc < 0 && urc != -ENOENT)
		log_warn("job %lld: could not remove %s: %s",
			 (long long)jr->id, real, strerror(-urc));
	archive_testfile_remove(jr->a, real);
	for (size_t i = 0; i < jr->n_files; i++)
		if (strcmp(jr->files[i], p) == 0)
			jr->files[i][0] = '\0';
}

void job_files_remove(struct job_run *jr)
{
	if (jr->n_files)
		job_phase(jr, "cleanup", NULL, NULL, 0);
	for (size_t i = 0; i < jr->n_files; i++)
		if (jr->files[i][0]) {
			job_file_remove(jr, jr->files[i]);
			jr->files[i][0] = '\0';
		}
	for (size_t i = 0; i < jr->n_dirs; i++)
		close(jr->dirs[i].fd);
	jr->n_dirs = 0;
	if (jr->device_fd >= 0)
		close(jr->device_fd);
	jr->device_fd = -1;
}

void job_phase(struct job_run *jr, const char *phase, const char *test,
	       const char *rw, int iteration)
{
	phase_to(jr->q, phase, test, rw, iteration);
}

void job_step(struct job_run *jr)
{
	jr->q->steps_done++;
}

void job_set_steps(struct job_run *jr, int total, int tests_total)
{
	struct jobq *q = jr->q;

	q->steps_total = total > 0 ? total : 1;
	pthread_mutex_lock(&q->mu);
	q->prog.iterations = jr->s->iterations;
	q->prog.tests_total = tests_total;
	pthread_mutex_unlock(&q->mu);
}

int job_run_create(struct job_run *jr, int direct, uint64_t buffered_size)
{
	json_t *warnings = json_array();
	char *pj = NULL, *spec = NULL, *warn = NULL;
	int rc;

	add_warnings(warnings, jr->s->direct, direct, buffered_size, &jr->pr);
	pj = probe_json(&jr->pr);
	spec = dump_spec(jr->s, jr->plan, jr->options);
	warn = json_dumps(warnings, JSON_COMPACT);
	rc = !pj || !spec || !warn ? -ENOMEM
				   : archive_run_create(jr->a, jr->id, jr->s,
							spec, pj, jr->ops->name,
							direct, warn,
							&jr->run_id);
	if (rc < 0)
		snprintf(jr->error, sizeof(jr->error), "archive unavailable");
	json_decref(warnings);
	free(pj);
	free(spec);
	free(warn);
	return rc;
}

/* A plan of tests on one test file of the job's size. */
static int run_plan(struct job_run *jr, const struct plan *p)
{
	struct engine_samples samples = {.cap = samples_cap(p)};
	struct engine_opts o;
	const char *path;
	int direct = 0, rc;

	job_set_steps(jr, 1 + (int)p->n * jr->s->iterations, (int)p->n);
	job_phase(jr, "preparing", NULL, NULL, 0);
	/* the file carries the first test's data pattern (CrystalDiskMark
	 * fills it with zeros in its 0Fill mode) */
	if ((rc = job_file_make(jr, jr->s->target, jr->s->size, p->w[0].data,
				&direct, &path)) < 0)
		return rc;
	job_step(jr);
	if ((rc = job_run_create(jr, direct, jr->s->size)) < 0)
		return rc;
	o = job_engine_opts(jr, path);
	o.hist = malloc(sizeof(struct hist)); /* 32 KiB: not the stack */
	o.samples = &samples;
	samples.s = calloc(samples.cap, sizeof(*samples.s));
	rc = o.hist && samples.s ? run_tests(jr->q, p, jr->s, jr->run_id, &o)
				 : -ENOMEM;
	free(o.hist);
	free(samples.s);
	return rc;
}

static void remove_smb_leftovers(struct job_run *jr);

/* Is rc what an I/O gets when the connection under it is gone? */
static int lost_connection(int rc)
{
	return rc == -ECONNRESET || rc == -ENETRESET || rc == -ECONNABORTED ||
	       rc == -EPIPE || rc == -ECONNREFUSED || rc == -ETIMEDOUT ||
	       rc == -ENOTCONN || rc == -EHOSTUNREACH || rc == -ENETUNREACH;
}

static void run_job(struct jobq *q, int64_t id, const struct job_spec *s)
{
	struct job_run *jr = calloc(1, sizeof(*jr)); /* ~1 MiB of paths */
	struct plan p = {0};
	struct smb_session sess;
	struct stat st;
	const struct profile *prof = profile_find(s->profile);
	char error[256] = "";
	int stopping, rc;
	const char *state;

	if (!jr) {
		rc = -ENOMEM;
		goto out;
	}
	jr->q = q;
	jr->a = q->a;
	jr->id = id;
	jr->device_fd = -1;
	jr->s = s;
	jr->cancel = &q->cancel;
	jr->plan = &p;
	jr->ops = smb_is_url(s->target) ? &tgt_smb_ops
		  : s->engine		? tgt_find(s->engine)
					: q->ops;
	q->steps_done = 0;
	q->steps_total = 1;
	if (!jr->ops) {
		rc = -EINVAL;
		snprintf(jr->error, sizeof(jr->error), "unknown engine %s",
			 s->engine);
		goto out;
	}
	if (s->options_json &&
	    !(jr->options = json_loads(s->options_json, 0, NULL))) {
		rc = -EINVAL;
		snprintf(jr->error, sizeof(jr->error),
			 "the stored options are not JSON");
		goto out;
	}
	if (jr->ops == &tgt_smb_ops) {
		if ((rc = job_smb_session(s, &sess, jr->error,
					  sizeof(jr->error))) < 0)
			goto out;
		smb_set_session(&sess);
		rc = probe_smb(s->target, &sess, &jr->pr);
		if (rc == -EACCES || rc == -EPERM)
			snprintf(jr->error, sizeof(jr->error),
				 "%.120s refused the logon of user \"%.40s\" "
				 "(was the credential changed after the job "
				 "was queued?)",
				 s->target, sess.user);
		explicit_bzero(&sess, sizeof(sess));
		if (rc == 0)
			remove_smb_leftovers(jr);
	} else if (stat(s->target, &st) == 0 && S_ISBLK(st.st_mode)) {
		/* a raw device: its disk, not the /dev it sits in */
		jr->device = 1;
		if ((rc = probe_path("/", &jr->pr)) == 0) {
			snprintf(jr->pr.fs_type, sizeof(jr->pr.fs_type), "raw");
			snprintf(jr->pr.mount_point, sizeof(jr->pr.mount_point),
				 "%s", s->target);
			snprintf(jr->pr.device, sizeof(jr->pr.device), "%s",
				 s->target);
			jr->pr.mount_options[0] = jr->pr.disk[0] = '\0';
			jr->pr.device_model[0] = jr->pr.write_cache[0] = '\0';
			jr->pr.rotational = -1;
			jr->pr.mount_type[0] = '\0';
			jr->pr.free_bytes = 0;
			jr->pr.total_bytes = 0;
		}
	} else {
		rc = probe_path(s->target, &jr->pr);
	}
	if (rc < 0) {
		if (!jr->error[0])
			snprintf(jr->error, sizeof(jr->error), "target %s: %s",
				 s->target, strerror(-rc));
		goto out;
	}
	if (prof && prof->kind == PROFILE_MAILBOX) {
		rc = run_mailbox(jr, jr->options);
	} else if (prof && prof->kind == PROFILE_FILE_CREATE) {
		rc = run_file_create(jr, jr->options);
	} else if ((rc = job_plan(s, &p, jr->error, sizeof(jr->error))) == 0) {
		rc = run_plan(jr, &p);
	}
out:
	if (jr && jr->ops == &tgt_smb_ops && lost_connection(rc)) {
		char was[sizeof(jr->error)];
		snprintf(was, sizeof(was), "%s", jr->error);
		snprintf(jr->error, sizeof(jr->error),
			 "SMB server of %.60s went away mid-run (%.100s)%s",
			 s->target, was,
			 jr->run_id ? "; samples measured before it are kept "
				      "on the run"
				    : "");
	}
	if (jr && rc == -ENOSPC && strncmp(jr->error, "refused", 7) != 0) {
		char was[sizeof(jr->error)];
		snprintf(was, sizeof(was), "%s", jr->error);
		snprintf(jr->error, sizeof(jr->error),
			 "%.80s ran out of space during the job (%.100s)%s",
			 s->target, was[0] ? was : "ENOSPC",
			 jr->device ? "" : "; its test files are removed");
	}
	if (jr) {
		job_files_remove(jr);
		if (jr->ops == &tgt_smb_ops)
			smb_set_session(NULL);
		snprintf(error, sizeof(error), "%s", jr->error);
	}
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
	/* JSON holds only UTF-8: a path that is not, or a %.Ns cut through a
	 * character, must not cost the job its sentence */
	utf8_sanitize(error);
	archive_job_finish(q->a, id, jr ? jr->run_id : 0, state,
			   rc == 0 ? NULL : error);
	jobq_publish_job(id, state, jr ? jr->run_id : 0, rc == 0 ? NULL : error);
	log_info("job %lld: %s%s%s", (long long)id, state, rc ? ": " : "",
		 rc ? error : "");
	plan_free(&p);
	if (jr)
		json_decref(jr->options);
	free(jr);
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
		rc = archive_job_claim(q->a, q->only, &id, &s);
		if (rc < 0 && q->only) {
			q->stopping = 1; /* its one job is not queued */
			break;
		}
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
		q->started_ns = engine_now_ns();
		q->published_ns = 0;
		pthread_mutex_unlock(&q->mu);
		log_info("job %lld: %s on %s", (long long)id, s.profile,
			 s.target);
		jobq_publish_job(id, "running", 0, NULL);
		run_job(q, id, &s);
		job_spec_clear(&s);
		pthread_mutex_lock(&q->mu);
		q->current = 0;
		q->started_ns = 0;
		if (q->only)
			q->stopping = 1;
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

/* "smb://server[:port]/share/" of url into root; 0, or -EINVAL. */
static int share_prefix(const char *url, char *root, size_t len)
{
	struct smb_url u;
	char err[160];

	if (smb_url_parse(url, &u, err, sizeof(err)) < 0)
		return -EINVAL;
	if (u.port)
		snprintf(root, len, "smb://%s:%d/%s/", u.server, u.port, u.share);
	else
		snprintf(root, len, "smb://%s/%s/", u.server, u.share);
	return 0;
}

/* Removes the test files earlier jobs left on the share of jr's target
 * (the server was gone when they ended), with jr's session. */
static void remove_smb_leftovers(struct job_run *jr)
{
	struct paths p = {0};
	char root[800];

	if (share_prefix(jr->s->target, root, sizeof(root)) < 0)
		return;
	archive_testfile_each(jr->a, collect_path, &p);
	for (size_t i = 0; i < p.n; i++) {
		if (strncmp(p.v[i], root, strlen(root)) == 0) {
			int rc = tgt_unlink(&tgt_smb_ops, p.v[i]);
			if (rc == 0)
				log_info("job %lld: removed test file %s left "
					 "by an earlier job",
					 (long long)jr->id, p.v[i]);
			if (rc == 0 || rc == -ENOENT)
				archive_testfile_remove(jr->a, p.v[i]);
		}
		free(p.v[i]);
	}
	free(p.v);
}

/* Could path be one of our test files: a storbench-*.tmp name in a
 * directory inside the allowed roots? (The archive's list is trusted only
 * that far: a copied or edited archive must not make us remove anything
 * else.) */
static int ours(const char *path)
{
	const char *base = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX], why[256];
	size_t n;

	if (!base || base == path || (size_t)(base - path) >= sizeof(dir))
		return 0;
	n = strlen(base + 1);
	if (strncmp(base + 1, "storbench-", 10) != 0 || n < 14 ||
	    strcmp(base + 1 + n - 4, ".tmp") != 0)
		return 0;
	memcpy(dir, path, (size_t)(base - path));
	dir[base - path] = '\0';
	return confine_dir(dir, NULL, real, why, sizeof(why)) == 0;
}

/* Removes the test files a crash left behind (the archive lists them; the
 * engine created each with O_EXCL, so each is ours). */
static void remove_leftovers(struct jobq *q)
{
	struct paths p = {0};

	archive_testfile_each(q->a, collect_path, &p);
	for (size_t i = 0; i < p.n; i++) {
		if (smb_is_url(p.v[i])) {
			/* no credential at hand here: the next job on that
			 * share removes it */
			log_warn("test file %s, on an SMB share, was left by a "
				 "crash; the next job on that share removes it",
				 p.v[i]);
			free(p.v[i]);
			continue;
		}
		if (!ours(p.v[i])) {
			/* kept on the list: a start that allows its folder
			 * again removes it */
			log_warn("not removing %s, listed as a test file: not a "
				 "storbench-*.tmp name inside the allowed roots",
				 p.v[i]);
			free(p.v[i]);
			continue;
		}
		if (tgt_unlink(q->ops, p.v[i]) == 0)
			log_info("removed test file %s left by a crash", p.v[i]);
		archive_testfile_remove(q->a, p.v[i]);
		free(p.v[i]);
	}
	free(p.v);
}

int jobq_start(const char *db_path, struct jobq **out)
{
	return jobq_start_one(db_path, 0, out);
}

int jobq_start_one(const char *db_path, int64_t only, struct jobq **out)
{
	struct jobq *q = calloc(1, sizeof(*q));
	int rc, n = 0;

	*out = NULL;
	if (!q)
		return -ENOMEM;
	q->only = only;
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
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->kicked = 1;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

int jobq_cancel(struct jobq *q, struct archive *a, int64_t id)
{
	int rc;

	if (!q) { /* no worker: nothing runs, a queued job just ends */
		rc = archive_job_cancel_queued(a, id);
		if (rc == 1)
			jobq_publish_job(id, "cancelled", 0, "cancelled by request");
		return rc == 1 ? 0 : rc == 0 ? -EALREADY : rc;
	}
	pthread_mutex_lock(&q->mu);
	rc = archive_job_cancel_queued(a, id);
	if (rc == 1) {
		rc = 0;
		jobq_publish_job(id, "cancelled", 0, "cancelled by request");
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
