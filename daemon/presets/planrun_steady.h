/*
 * planrun_steady — a test with preconditioning or SNIA PTS steady state
 * (steady.h), and planrun_run, the loop over a plan's tests that sends
 * such a test here and every other one through its iterations.
 *
 * A fill writes the test file sequentially in 128 KiB writes, twice over
 * (2 × the job's size, QD 32, one thread), measured nowhere; its bytes,
 * seconds and MB/s go on the test's record. A steady-state test runs
 * rounds (iteration 1, 2, … of round_s each, stored as iterations) until
 * steady_check says its last window is steady or max_rounds have run;
 * then its record (archive_condition_put) makes the window the test's
 * result, and a window that did not settle is said on the run.
 */
#ifndef STORBENCH_PLANRUN_STEADY_H
#define STORBENCH_PLANRUN_STEADY_H

#include <stddef.h>

#include <jansson.h>

#include "engine/workload.h"

struct job_run;
struct planrun_file;

/*
 * Preconditions f's test file: sequential 128 KiB writes of twice the
 * job's size carrying data, measured nowhere. *out (new reference) =
 * {"kind": "fill", "bytes", "seconds", "mb_s"}. 0, -ECANCELED or a
 * negative errno with jr->error.
 */
int planrun_fill(struct planrun_file *f, struct job_run *jr, enum wl_data data,
		 json_t **out);

/* The rounds a steady test may take, or the job's iterations. */
int planrun_steps(const struct workload *w, int iterations);

#endif
