/*
 * interleave — see interleave.h.
 */
#include "interleave.h"

#include "jobsetup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobrun.h"
#include "jobs/jobsession.h"
#include "jobs/plan.h"
#include "presets/planrun.h"

struct sides {
	struct job_run *jr[JOB_MAX_SIDES];
	struct job_spec spec[JOB_MAX_SIDES];
	unsigned char warned[JOB_MAX_SIDES][PLAN_MAX_TESTS];
	size_t n;
};

/* Side k (≥ 1) of the job: a job_run of its own on target, sharing the
 * job's archive connection, progress and cancel flag. */
static int side_setup(struct sides *sd, struct job_run *jr, size_t k,
		      const char *target, const struct tgt_ops *def)
{
	struct job_run *x = calloc(1, sizeof(*x)); /* ~1 MiB of paths */

	if (!x)
		return -ENOMEM;
	sd->jr[k] = x;
	sd->spec[k] = *jr->s; /* its strings are the job's: not freed here */
	sd->spec[k].target = (char *)target;
	x->a = jr->a;
	x->live = jr->live;
	x->id = jr->id;
	x->s = &sd->spec[k];
	x->preset = jr->preset;
	x->cancel = jr->cancel;
	x->device_h = -1;
	x->file_base = k * JOB_MAX_FILES;
	return job_setup(x, def);
}

static void sides_free(struct sides *sd)
{
	for (size_t k = 1; k < sd->n; k++) {
		struct job_run *x = sd->jr[k];
		if (!x)
			continue;
		job_files_remove(x);
		json_decref(x->options);
		json_decref(x->interleave);
		jobsession_free((void *)x->session);
		jobsession_disconnect(x->conn);
		free(x);
	}
}

/* Every side's failure is the job's, named by its target. */
static void blame(struct job_run *jr, const struct job_run *x)
{
	char was[sizeof(jr->error)];

	if (!x || x == jr || !x->error[0])
		return;
	snprintf(was, sizeof(was), "%s", x->error);
	if (strstr(was, x->s->target))
		snprintf(jr->error, sizeof(jr->error), "%s", was);
	else
		snprintf(jr->error, sizeof(jr->error), "%.80s: %.160s",
			 x->s->target, was);
}

size_t interleave_turn(size_t n, int r, size_t i, size_t j)
{
	return (r - 1 + i) % 2 ? n - 1 - j : j;
}

size_t interleave_maker(size_t n, int r, size_t j)
{
	return (j + (size_t)(r - 1)) % n;
}

/* Round r: a fresh test file on every side (side interleave_maker(n, r, j)
 * j-th), then each test once on every side, its slices in turn, then the
 * files removed. */
static int one_round(struct sides *sd, const struct plan *p, int r)
{
	struct planrun_file *f[JOB_MAX_SIDES] = { 0 };
	size_t j, k;
	int rc = 0;

	for (j = 0; j < sd->n && rc == 0; j++) {
		k = interleave_maker(sd->n, r, j);
		if ((rc = planrun_file_open(sd->jr[k], p, sd->warned[k], 0,
					    &f[k])) < 0)
			blame(sd->jr[0], sd->jr[k]);
	}
	job_tests_done(sd->jr[0], 0);
	for (size_t i = 0; i < p->n && rc == 0; i++) {
		int slices = planrun_slices(&p->w[i]);
		if (i > 0 || r > 1)
			rc = planrun_pause(sd->jr[0]);
		for (int s = 0; s < slices && rc == 0; s++)
			for (j = 0; j < sd->n && rc == 0; j++) {
				k = interleave_turn(sd->n, r, i + (size_t)s, j);
				if ((rc = planrun_file_slice(
					     f[k], i, r, s, slices,
					     s * (int)sd->n + (int)j, NULL)) <
				    0)
					blame(sd->jr[0], sd->jr[k]);
			}
		for (j = 0; j < sd->n && rc == 0 && slices > 1; j++)
			job_step(sd->jr[0]);
		/* progress: round r (the iteration), test i + 1 of n */
		job_tests_done(sd->jr[0], (int)i + 1);
	}
	for (k = 0; k < sd->n; k++)
		planrun_file_close(f[k], 1);
	return rc;
}

int interleave_run(struct job_run *jr, const struct tgt_ops *def)
{
	json_t *targets = json_loads(jr->s->compare_with_json, 0, NULL), *t;
	struct sides sd = { .n = 1 };
	struct plan p = { 0 };
	int rounds = jr->s->iterations, rc = 0;
	size_t i;

	if (!json_is_array(targets) || json_array_size(targets) == 0 ||
	    json_array_size(targets) >= JOB_MAX_SIDES) {
		snprintf(jr->error, sizeof(jr->error),
			 "the stored compare_with is not a list of targets");
		json_decref(targets);
		return -EINVAL;
	}
	sd.jr[0] = jr;
	json_array_insert_new(targets, 0, json_string(jr->s->target));
	json_array_foreach(targets, i, t)
	{
		if (i == 0)
			continue;
		sd.n = i + 1;
		if ((rc = side_setup(&sd, jr, i, json_string_value(t), def)) <
		    0) {
			blame(jr, sd.jr[i]);
			goto out;
		}
	}
	if ((rc = planrun_plan(jr, &p, jr->error, sizeof(jr->error))) < 0)
		goto out;
	for (i = 0; i < sd.n; i++)
		sd.jr[i]->interleave =
			json_pack("{s:I, s:O, s:i, s:i}", "job",
				  (json_int_t)jr->id, "targets", targets,
				  "position", (int)i, "rounds", rounds);
	job_set_steps(jr, rounds * (int)sd.n * (1 + (int)p.n), (int)p.n);
	for (int r = 1; r <= rounds && rc == 0; r++)
		rc = one_round(&sd, &p, r);
out:
	json_decref(jr->interleave);
	jr->interleave = NULL;
	sides_free(&sd);
	plan_free(&p);
	json_decref(targets);
	return rc;
}
