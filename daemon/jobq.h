/*
 * jobq — the durable job queue's worker: takes queued jobs from the archive
 * one at a time and runs them with the engine.
 *
 * Design: one worker thread with its own archive connection. The HTTP side
 * inserts a job with its own connection and calls jobq_kick(); cancelling goes
 * through jobq_cancel(). One mutex guards the worker's "current job" and its
 * progress, and one condition variable wakes it. The benchmark threads never
 * touch SQLite: each finished second of the running iteration, and then the
 * finished iteration with its result, comes back to the worker, which stores
 * it at once, so a crash keeps every iteration and every second measured
 * before it.
 *
 * A job: probe the target → create the run → create and fill the test file
 * (recorded in the archive first, so a crash can clean it up) → for every test
 * of the profile, `iterations` timed iterations, `interval_s` apart → remove
 * the file → finish the job and run as done, failed, cancelled or (when the
 * daemon is stopping) interrupted.
 */
#ifndef STORBENCH_JOBQ_H
#define STORBENCH_JOBQ_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct jobq;
struct archive;

/* Live state of the running job, for the API. */
struct jobq_progress {
	int64_t job_id;
	char phase[16];   /* preparing, measuring, interval, cleanup */
	char test[32];    /* "SEQ1M Q8T1" */
	char rw[8];       /* read, write */
	int iteration;    /* 1-based */
	int iterations;
	int tests_done;
	int tests_total;
	double fraction;  /* of the whole job, 0 … 1 */
	double live_mb_s; /* 10^6 B/s over the last ~250 ms */
	double live_iops;
	double elapsed_s;   /* since the job started, s */
	double remaining_s; /* a straight-line estimate, s; -1 unknown */
};

/* p as the JSON object of a job's "progress" and of the "progress" event
 * (events.h): the fields above plus job_id; remaining_s null when unknown. */
json_t *jobq_progress_json(const struct jobq_progress *p);

/* Publishes a "job" event: {id, state, run_id (null before the run),
 * error (null unless failed, cancelled or interrupted)}. */
void jobq_publish_job(int64_t id, const char *state, int64_t run_id,
		      const char *error);

/* How many jobs this process ended (published as ended), by state, in the
 * order of archive_job_states (archive.h); queued and running stay 0. */
void jobq_finished_counts(unsigned long long counts[6]);

/*
 * Opens the archive at db_path for the worker, marks jobs left running as
 * interrupted, removes test files a crash left behind, and starts the worker.
 * *out is freed by jobq_stop(). Returns 0 or a negative errno.
 */
int jobq_start(const char *db_path, struct jobq **out);

/* The same for `storbench run`: the worker runs job only (queued by the
 * caller) and stops; jobq_done() is then 1. Nothing else queued runs. */
int jobq_start_one(const char *db_path, int64_t only, struct jobq **out);
int jobq_done(struct jobq *q);

/* Stops the running test promptly (its job becomes interrupted), waits for
 * the worker to clean up and exit, closes everything. NULL is fine. */
void jobq_stop(struct jobq *q);

/*
 * The calls below also take q NULL: no worker (the API fuzzer and tests
 * drive the HTTP side without one). Jobs are then queued and never run:
 * jobq_kick does nothing, jobq_progress finds no running job, and
 * jobq_cancel cancels a queued job and answers -EALREADY for any other.
 */

/* Tells the worker a job was queued. */
void jobq_kick(struct jobq *q);

/*
 * Cancels job id, whose state the caller read as queued or running; a is the
 * caller's archive connection. Returns 0 when cancelled (a running job stops
 * within ~100 ms), -EALREADY when the job has already ended.
 */
int jobq_cancel(struct jobq *q, struct archive *a, int64_t id);

/*
 * The path of job id's test file number n (0: the first) in dir, as the
 * worker creates it: DIR/storbench-ID-TAG.tmp (then -TAG-N.tmp), TAG from
 * the job's id and created_at (archive), so the name is known from the moment
 * the job is queued — GET /api/v1/jobs/{id} shows it as test_file — and
 * differs between archives. Returns 0 or -ENAMETOOLONG.
 */
int jobq_test_file(const char *dir, int64_t id, const char *created_at,
		   size_t n, char *buf, size_t len);

/* Copies the progress of job id into *p. Returns 0, or -ENOENT when job id
 * is not the one running. */
int jobq_progress(struct jobq *q, int64_t id, struct jobq_progress *p);

#endif
