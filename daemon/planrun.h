/*
 * planrun — the runner of every preset that is a list of tests (the
 * CrystalDiskMark sets, seq-sweep, custom): the job's plan on one test file
 * of the job's size (or its raw device), made and filled first, then each
 * test for `iterations` timed iterations, `interval_s` apart. Every finished
 * second is stored and published as it ends, every finished iteration with
 * its result and histogram in one transaction.
 */
#ifndef STORBENCH_PLANRUN_H
#define STORBENCH_PLANRUN_H

#include <stddef.h>

struct job_run;

/* preset.run for a plan of tests: the job's stored plan (or, for a job
 * queued before plans were stored, its preset's fixed tests). 0,
 * -ECANCELED, or a negative errno with jr->error. */
int planrun_run(struct job_run *jr);

struct plan;

/* The job's plan: its stored tests, or for a job queued before plans were
 * stored, its preset's fixed tests. 0, or a negative errno with error. */
int planrun_plan(const struct job_run *jr, struct plan *p, char *error,
		 size_t error_len);

/*
 * One round of an interleaved job on jr's target: a fresh test file made
 * (the run created with the first), every test of p once, stored as
 * iteration round, and the file removed. 0, -ECANCELED, or a negative
 * errno with jr->error.
 */
int planrun_round(struct job_run *jr, const struct plan *p, int round);

#endif
