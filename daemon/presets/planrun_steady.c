/*
 * planrun_steady — see planrun_steady.h.
 */
#include "planrun_steady.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "engine/engine.h"
#include "jobs/jobrun.h"
#include "jobs/plan.h"
#include "jobs/steady.h"
#include "os/os.h"
#include "planrun.h"

#define FILL_BLOCK (128U << 10)
#define FILL_QD 32

int planrun_fill(struct planrun_file *f, struct job_run *jr, enum wl_data data,
		 json_t **out)
{
	struct workload w = { .pattern = WL_SEQUENTIAL,
			      .read_pct = 0,
			      .block_size = FILL_BLOCK,
			      .queue_depth = FILL_QD,
			      .threads = 1,
			      .file_size = jr->s->size,
			      .io_bytes = 2 * jr->s->size,
			      .sync_every = 1,
			      .data = data };
	struct engine_opts o;
	struct result r;
	uint64_t t0;
	double s;
	int rc;

	*out = NULL;
	snprintf(w.name, sizeof(w.name), "fill");
	if ((rc = planrun_file_begin(f, &o)) < 0)
		return rc;
	/* the engine's progress would call it measuring */
	o.progress = NULL;
	job_phase(jr, "preconditioning", NULL, NULL, 0);
	t0 = os_now_ns();
	if ((rc = engine_run(&o, &w, &r)) < 0)
		return rc;
	s = (double)(os_now_ns() - t0) / 1e9;
	*out = json_pack("{s:s, s:I, s:f, s:f}", "kind", "fill", "bytes",
			 (json_int_t)w.io_bytes, "seconds", s, "mb_s",
			 s > 0 ? (double)w.io_bytes / 1e6 / s : 0.0);
	return *out ? 0 : -ENOMEM;
}

int planrun_steady_record(json_t *rec, const struct wl_steady *s,
			  const double *y, size_t stride,
			  const struct steady_window *w, size_t rounds,
			  int reached)
{
	double mean[3];

	for (int m = 0; m < 3; m++)
		mean[m] =
			steady_mean(y + (size_t)m * stride, w->first, w->last);
	return json_object_set_new(
		       rec, "steady_state",
		       steady_record_json(s, w, rounds, reached, mean)) < 0
		       ? -ENOMEM
		       : 0;
}

void planrun_steady_warn(struct job_run *jr, const char *who,
			 const struct wl_steady *s,
			 const struct steady_window *w, size_t rounds, int rc)
{
	char words[400], text[600];

	steady_words(s, w, rounds, words, sizeof(words));
	snprintf(text, sizeof(text), "%s: %s%s", who,
		 rc == -ECANCELED ? "cancelled before steady state; "
		 : rc < 0	  ? "stopped by an error before steady "
				    "state; "
				  : "",
		 words);
	archive_run_warn(jr->a, jr->run_id, text);
}

/* Rounds of w (test i) until steady or max_rounds: its steady_state
 * record into rec, the window into *first, *last. */
static int rounds(struct planrun_file *f, struct job_run *jr,
		  const struct workload *w, size_t i, json_t *rec, int *first,
		  int *last)
{
	const struct wl_steady *s = &w->steady;
	double *y = calloc(3 * (size_t)s->max_rounds, sizeof(double));
	struct steady_window win = { 0 };
	size_t n = 0;
	int reached = 0, rc = 0;

	if (!y)
		return -ENOMEM;
	while (!reached && n < s->max_rounds) {
		struct result r;
		if ((rc = planrun_file_test(f, i, (int)n + 1, &r)) < 0)
			break;
		const double v[3] = { r.iops, r.mb_s, r.lat_mean_us };
		for (int m = 0; m < 3; m++)
			y[(size_t)m * s->max_rounds + n] = v[m];
		n++;
		reached = steady_check(y + (size_t)s->metric * s->max_rounds, n,
				       s, &win);
	}
	/* cancelled or failed: the rounds done are kept and judged (none:
	 * no record) */
	if (n == 0)
		goto out;
	planrun_steady_record(rec, s, y, s->max_rounds, &win, n, reached);
	*first = (int)win.first;
	*last = (int)win.last;
	if (!reached) {
		char who[64];
		snprintf(who, sizeof(who), "%s %s", w->name, wl_rw(w));
		planrun_steady_warn(jr, who, s, &win, n, rc);
	}
out:
	free(y);
	return rc;
}

/* Test i of the plan (w) on f: its precondition, then its steady-state
 * rounds or, without one, the job's iterations; a precondition's or
 * steady state's record stored. 0, -ECANCELED or a negative errno with
 * jr->error. */
static int plan_test(struct planrun_file *f, struct job_run *jr,
		     const struct workload *w, size_t i)
{
	json_t *rec = json_object(), *pre = NULL;
	int rc = 0, first = 0, last = 0;

	if (!rec)
		return -ENOMEM;
	if (w->precondition == WL_PRE_FILL)
		rc = planrun_fill(f, jr, w->data, &pre);
	else if (w->precondition == WL_PRE_WORKLOAD)
		pre = json_pack("{s:s}", "kind", "workload");
	if (pre)
		json_object_set_new(rec, "precondition", pre);
	if (rc == 0 && w->steady.on)
		rc = rounds(f, jr, w, i, rec, &first, &last);
	else
		for (int it = 1; rc == 0 && it <= jr->s->iterations; it++)
			rc = planrun_file_test(f, i, it, NULL);
	/* a cancelled or failed test keeps what it did: its precondition
	 * and the rounds run (rounds() judged them) */
	if (json_object_size(rec) > 0) {
		int put = job_stored(
			jr, archive_condition_put(jr->a, jr->run_id, w->name,
						  wl_rw(w), first, last, rec));
		if (rc == 0)
			rc = put;
	}
	json_decref(rec);
	return rc;
}

int planrun_steps(const struct workload *w, int iterations)
{
	return w->steady.on ? (int)w->steady.max_rounds : iterations;
}

int planrun_run(struct job_run *jr)
{
	struct plan p = { 0 };
	struct planrun_file *f = NULL;
	unsigned char warned[PLAN_MAX_TESTS] = { 0 };
	int rc = planrun_plan(jr, &p, jr->error, sizeof(jr->error)), steps = 1;

	for (size_t i = 0; rc == 0 && i < p.n; i++)
		steps += planrun_steps(&p.w[i], jr->s->iterations);
	if (rc == 0) {
		/* one test file for the whole plan; the job's end removes it */
		job_set_steps(jr, steps, (int)p.n);
		rc = planrun_file_open(jr, &p, warned, 0, &f);
	}
	for (size_t i = 0; rc == 0 && i < p.n; i++) {
		const struct workload *w = &p.w[i];
		if (i > 0)
			rc = planrun_pause(jr);
		job_set_iterations(jr, planrun_steps(w, jr->s->iterations));
		if (rc == 0)
			rc = plan_test(f, jr, w, i);
		if (rc == 0)
			job_tests_done(jr, (int)i + 1);
	}
	planrun_file_close(f, 0);
	plan_free(&p);
	return rc;
}
