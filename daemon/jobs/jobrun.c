/*
 * jobrun — the run of a job and its live progress (see jobrun.h); the job's
 * files are jobfiles.c.
 */
#include "jobrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "os/os.h"
#include "targets/target.h"

/* --- progress --- */

#define PUBLISH_NS 500000000ULL /* progress events at most every 500 ms */

json_t *jobrun_progress_json(const struct jobq_progress *p)
{
	return json_pack(
		"{s:I, s:s, s:s?, s:s?, s:i, s:i, s:i, s:i, s:f, s:f, "
		"s:o, s:f, s:f, s:o}",
		"job_id", (json_int_t)p->job_id, "phase", p->phase, "test",
		p->test[0] ? p->test : NULL, "rw", p->rw[0] ? p->rw : NULL,
		"iteration", p->iteration, "iterations", p->iterations,
		"tests_done", p->tests_done, "tests_total", p->tests_total,
		"fraction", p->fraction, "elapsed_s", p->elapsed_s,
		"remaining_s",
		p->remaining_s >= 0 ? json_real(p->remaining_s) : json_null(),
		"live_mb_s", p->live_mb_s, "live_iops", p->live_iops, "gate",
		p->gate >= 0 ? json_integer(p->gate) : json_null());
}

void jobrun_live_init(struct jobrun_live *l)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->mu, NULL);
	l->steps_total = 1;
	l->prog.gate = l->go_gate = -1;
}

void jobrun_live_destroy(struct jobrun_live *l)
{
	pthread_mutex_destroy(&l->mu);
}

void jobrun_live_begin(struct jobrun_live *l, int64_t id)
{
	pthread_mutex_lock(&l->mu);
	memset(&l->prog, 0, sizeof(l->prog));
	l->prog.job_id = id;
	l->prog.gate = l->go_gate = -1;
	l->current = id;
	l->started_ns = os_now_ns();
	l->published_ns = 0;
	l->steps_done = 0;
	l->steps_total = 1;
	pthread_mutex_unlock(&l->mu);
}

void jobrun_live_end(struct jobrun_live *l)
{
	pthread_mutex_lock(&l->mu);
	l->current = 0;
	l->started_ns = 0;
	pthread_mutex_unlock(&l->mu);
}

/* Fills p's elapsed and remaining times; the caller holds l->mu. */
static void progress_times(const struct jobrun_live *l, struct jobq_progress *p)
{
	p->elapsed_s =
		l->started_ns ? (double)(os_now_ns() - l->started_ns) / 1e9 : 0;
	/* a straight-line guess once a little of the job is done */
	p->remaining_s =
		p->fraction >= 0.02 && p->fraction < 1
			? p->elapsed_s * (1 - p->fraction) / p->fraction
			: -1;
}

int jobrun_live_get(struct jobrun_live *l, int64_t id, struct jobq_progress *p)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&l->mu);
	if (l->current == id && id > 0) {
		*p = l->prog;
		progress_times(l, p);
		rc = 0;
	}
	pthread_mutex_unlock(&l->mu);
	return rc;
}

void jobrun_live_publish(struct jobrun_live *l, int force)
{
	struct jobq_progress p;
	uint64_t now = os_now_ns();

	pthread_mutex_lock(&l->mu);
	if (!l->current || (!force && now - l->published_ns < PUBLISH_NS)) {
		pthread_mutex_unlock(&l->mu);
		return;
	}
	l->published_ns = now;
	p = l->prog;
	progress_times(l, &p);
	pthread_mutex_unlock(&l->mu);
	events_publish("progress", jobrun_progress_json(&p));
}

void job_phase(struct job_run *jr, const char *phase, const char *test,
	       const char *rw, int iteration)
{
	struct jobrun_live *l = jr->live;

	pthread_mutex_lock(&l->mu);
	snprintf(l->prog.phase, sizeof(l->prog.phase), "%s", phase);
	if (test) {
		snprintf(l->prog.test, sizeof(l->prog.test), "%s", test);
		snprintf(l->prog.rw, sizeof(l->prog.rw), "%s", rw ? rw : "");
		l->prog.iteration = iteration;
	}
	/* never back: an interleaved test's sides enter their phases in turn
	 * while the job is inside the test (planrun_file_slice) */
	if ((double)l->steps_done / l->steps_total > l->prog.fraction)
		l->prog.fraction = (double)l->steps_done / l->steps_total;
	l->prog.live_mb_s = l->prog.live_iops = 0;
	pthread_mutex_unlock(&l->mu);
	jobrun_live_publish(l, 1);
}

void job_step(struct job_run *jr)
{
	jr->live->steps_done++;
}

void job_set_steps(struct job_run *jr, int total, int tests_total)
{
	struct jobrun_live *l = jr->live;

	l->steps_total = total > 0 ? total : 1;
	pthread_mutex_lock(&l->mu);
	l->prog.iterations = jr->s->iterations;
	l->prog.tests_total = tests_total;
	pthread_mutex_unlock(&l->mu);
}

void job_set_iterations(struct job_run *jr, int n)
{
	pthread_mutex_lock(&jr->live->mu);
	jr->live->prog.iterations = n;
	pthread_mutex_unlock(&jr->live->mu);
}

void job_tests_done(struct job_run *jr, int n)
{
	pthread_mutex_lock(&jr->live->mu);
	jr->live->prog.tests_done = n;
	pthread_mutex_unlock(&jr->live->mu);
}

/* engine_opts.progress: the engine's report, folded into the job's. */
static void on_progress(void *arg, const struct engine_progress *p)
{
	struct jobrun_live *l = arg;

	pthread_mutex_lock(&l->mu);
	/* writing a test file reports progress too, but is no measurement */
	if (strcmp(l->prog.phase, "preparing") != 0)
		snprintf(l->prog.phase, sizeof(l->prog.phase), "%s",
			 p->ramping ? "ramp" : "measuring");
	l->prog.fraction = (l->steps_done + p->fraction) / l->steps_total;
	l->prog.live_mb_s = p->live_mb_s;
	l->prog.live_iops = p->live_iops;
	pthread_mutex_unlock(&l->mu);
	jobrun_live_publish(l, 0);
}

struct engine_opts job_engine_opts(struct job_run *jr, const char *path)
{
	struct engine_opts o = {
		.ops = jr->ops,
		.session = jr->session,
		.path = path,
		.device = jr->device,
		.direct = jr->s->direct,
		.cancel = jr->cancel,
		.progress = on_progress,
		.progress_arg = jr->live,
		.error = jr->error,
		.error_len = sizeof(jr->error),
	};
	return o;
}

int job_stored(struct job_run *jr, int rc)
{
	if (rc < 0)
		snprintf(jr->error, sizeof(jr->error),
			 "storing a result in the archive failed: %s",
			 rc == -ENOSPC ? "the archive's disk is full"
				       : strerror(-rc));
	return rc;
}

/* --- the run --- */

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *int_or_null(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* The probe as the run stores it (JSON text; caller frees). */
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

	/* members only some systems fill: absent, not null, elsewhere */
	const struct {
		const char *name, *value;
	} extra[] = {
		{ "mount_type", p->mount_type },
		{ "bus_type", p->bus_type },
		{ "volume_label", p->volume_label },
		{ "fs_features", p->fs_features },
		{ "firmware_rev", p->firmware_rev },
		{ "scheduler", p->scheduler },
	};
	for (size_t i = 0; o && i < sizeof(extra) / sizeof(extra[0]); i++)
		if (extra[i].value[0])
			json_object_set_new(o, extra[i].name,
					    json_string(extra[i].value));
	if (o && p->smb_server[0])
		json_object_set_new(
			o, "smb",
			json_pack("{s:s, s:o, s:s, s:o, s:o, s:o}", "server",
				  p->smb_server, "port",
				  p->smb_port ? json_integer(p->smb_port)
					      : json_null(),
				  "share", p->smb_share, "dialect",
				  str_or_null(p->smb_dialect), "signing",
				  p->smb_signing < 0
					  ? json_null()
					  : json_boolean(p->smb_signing),
				  "encryption",
				  p->smb_encryption < 0
					  ? json_null()
					  : json_boolean(p->smb_encryption)));
	else if (o)
		json_object_set_new(o, "smb", json_null());
	/* known on Windows only: absent, not null, elsewhere */
	if (o && p->smb_server[0] && p->smb_ca >= 0)
		json_object_set_new(json_object_get(o, "smb"),
				    "continuous_availability",
				    json_boolean(p->smb_ca));
	s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

static void add_warnings(json_t *warnings, int asked, int direct, uint64_t size,
			 const struct probe *pr)
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

/* The job's parameters as stored on the run (JSON text; caller frees). */
static char *dump_spec(const struct job_spec *s, const struct plan *p,
		       json_t *options, json_t *interleave)
{
	struct plan none = { 0 };
	json_t *o = json_pack(
		"{s:s, s:I, s:i, s:f, s:f, s:b, s:s, s:o}", "profile",
		s->profile, "size", (json_int_t)s->size, "iterations",
		s->iterations, "duration_s", s->duration_s, "interval_s",
		s->interval_s, "direct_requested", s->direct,
		"engine_requested", s->engine ? s->engine : "default", "tests",
		plan_json(p ? p : &none));
	char *t;

	if (o && options)
		json_object_set(o, "options", options);
	if (o && interleave)
		json_object_set(o, "interleave", interleave);
	if (o && s->smb_json)
		json_object_set_new(o, "smb", json_loads(s->smb_json, 0, NULL));
	t = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return t;
}

int job_run_create(struct job_run *jr, int direct, uint64_t buffered_size)
{
	json_t *warnings = json_array();
	char *pj = NULL, *spec = NULL, *warn = NULL;
	int rc;

	add_warnings(warnings, jr->s->direct, direct, buffered_size, &jr->pr);
	job_cow_warn(jr, warnings);
	pj = probe_json(&jr->pr);
	spec = dump_spec(jr->s, jr->plan, jr->options, jr->interleave);
	warn = json_dumps(warnings, JSON_COMPACT);
	rc = !pj || !spec || !warn
		     ? -ENOMEM
		     : archive_run_create(jr->a, jr->id, jr->s, spec, pj,
					  jr->ops->name, direct, warn,
					  &jr->run_id);
	if (rc == 0 && jr->wire) {
		char *w = json_dumps(jr->wire, JSON_COMPACT);
		rc = w ? archive_run_wire(jr->a, jr->run_id, w) : -ENOMEM;
		free(w);
	}
	if (rc < 0)
		snprintf(jr->error, sizeof(jr->error), "archive unavailable");
	json_decref(warnings);
	free(pj);
	free(spec);
	free(warn);
	return rc;
}
