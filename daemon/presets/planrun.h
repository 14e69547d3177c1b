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
 * queued before plans were stored, its preset's fixed tests); a test with
 * precondition or steady state through planrun_steady.h. 0, -ECANCELED,
 * or a negative errno with jr->error. (planrun_steady.c) */
int planrun_run(struct job_run *jr);

struct plan;

/* The job's plan: its stored tests, or for a job queued before plans were
 * stored, its preset's fixed tests. 0, or a negative errno with error. */
int planrun_plan(const struct job_run *jr, struct plan *p, char *error,
		 size_t error_len);

/* planrun_file_open's flags */
#define PLANRUN_ONE_WARNED 1u /* warned is one slot for every test */

/*
 * A test file of the job's size, made and filled on jr's target, ready for
 * planrun_file_test (which creates the job's run before its first
 * measurement): what one round of
 * an interleaved job (interleave.c) opens on each target, and the whole of
 * a plain job. warned: the warnings given (Little's law, the counters'),
 * kept by the caller across files: p->n slots, one per test, so each kind
 * of warning is given once per test; with flags PLANRUN_ONE_WARNED, one
 * slot for every test, so each kind is given once for all of them, for the
 * first test it applied to (snia-iops: once per run, not per cell). 0 with
 * *out, or a negative errno with jr->error.
 */
struct planrun_file;
int planrun_file_open(struct job_run *jr, const struct plan *p,
		      unsigned char *warned, unsigned flags,
		      struct planrun_file **out);

/* The job's run created, if it is not yet (the first measurement does it
 * too), and, with o, f's engine options without histogram or samples (for
 * I/O that is no measurement: a fill). 0 or a negative errno. */
struct engine_opts;
int planrun_file_begin(struct planrun_file *f, struct engine_opts *o);

/* Test i of the plan once on f, stored as iteration iteration (for an
 * interleaved job: the round), its result also into *out (NULL: not
 * wanted; a steady-state round's figures without reading them back). 0,
 * -ECANCELED or the engine's error. */
struct result;
int planrun_file_test(struct planrun_file *f, size_t i, int iteration,
		      struct result *out);

/*
 * Test i's iteration measured in slices, so that sides taking turns
 * (interleave.c) alternate within it: slice s of n (from 0) is a window of
 * 1 s (the last takes the rest of the test's duration), the ramp on slice 0
 * only, each sequential stream going on where the slice before stopped.
 * The slices' counts, latencies and seconds add up to the iteration, whose
 * windows are their sum; it is stored, into *out, when slice n − 1 ends,
 * and until then each slice's seconds are stored as it ends. Slices of two
 * iterations on one f must not mix. With slices > 1 the job's progress is
 * the test's on every side, turn the slice's place among them (0 … slices
 * × sides − 1: (turn + the slice's own fraction) / slices of the job's
 * steps), and the caller steps the job (job_step) once per side when every
 * side's last slice has ended. planrun_file_test is slice 0 of 1, which
 * steps the job itself. 0, -ECANCELED or the engine's error.
 */
int planrun_file_slice(struct planrun_file *f, size_t i, int iteration,
		       int slice, int slices, int turn, struct result *out);

/* How many slices of 1 s a time-based test of w's duration is measured in
 * (its whole seconds: 5 for 5 s, 1 under 2 s); 1 for a size-based test. */
struct workload;
int planrun_slices(const struct workload *w);

/* Frees f; with remove, its test file is removed (else the job's end
 * does it). NULL is fine. */
void planrun_file_close(struct planrun_file *f, int remove);

/* The job's interval_s pause between two tests. 0 or -ECANCELED. */
int planrun_pause(struct job_run *jr);

#endif
