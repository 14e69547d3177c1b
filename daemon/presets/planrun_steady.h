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
 * result, and a window that did not settle is said on the run. The end of
 * such rounds — the window's means in the record, the warning's words — is
 * planrun_steady_record and planrun_steady_warn, which the snia-iops preset
 * uses for each cell of its matrix too.
 */
#ifndef STORBENCH_PLANRUN_STEADY_H
#define STORBENCH_PLANRUN_STEADY_H

#include <stddef.h>

#include <jansson.h>

#include "engine/workload.h"

struct job_run;
struct planrun_file;
struct steady_window;

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

/*
 * A test's steady_state record (steady_record_json: s's settings, window w
 * as judged, rounds run, reached, and the means of w's rounds of each
 * metric) set as rec's "steady_state" member, after those rec has. y holds
 * the test's rounds, metric m (enum steady_metric order: IOPS, MB/s, mean
 * latency) at y[m × stride …], 1-based rounds as steady_judge. 0, or
 * -ENOMEM (rec unchanged).
 */
int planrun_steady_record(json_t *rec, const struct wl_steady *s,
			  const double *y, size_t stride,
			  const struct steady_window *w, size_t rounds,
			  int reached);

/*
 * Says on jr's run that window w did not settle after rounds rounds:
 * "WHO: " (who: "SEQ1M Q8T1 write"), why the rounds ended early when rc
 * says so (-ECANCELED: cancelled, another negative errno: an error), then
 * steady_words' sentence.
 */
void planrun_steady_warn(struct job_run *jr, const char *who,
			 const struct wl_steady *s,
			 const struct steady_window *w, size_t rounds, int rc);

#endif
