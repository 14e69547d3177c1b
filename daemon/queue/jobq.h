/*
 * jobq — the durable job queue's worker: takes queued jobs from the archive
 * one at a time, sets each up (its back-end, session, probe; jobrun.h) and
 * runs it with its preset's runner (preset.h).
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
 * A job: its back-end and session → probe the target → the preset's runner
 * (which makes its files, recorded in the archive first so a crash can clean
 * them up, creates the run and measures) → remove the files → finish the job
 * and run as done, failed, cancelled or (when the daemon is stopping)
 * interrupted.
 */
#ifndef STORBENCH_JOBQ_H
#define STORBENCH_JOBQ_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "jobs/jobrun.h"

struct jobq;
struct archive;

/* Publishes a "job" event: {id, state, run_id (null before the run),
 * error (null unless failed, cancelled or interrupted)}. */
void jobq_publish_job(int64_t id, const char *state, int64_t run_id,
		      const char *error);

/* How many jobs this process ended (published as ended), by state, in the
 * order of archive_job_states (archive.h); queued and running stay 0. */
void jobq_finished_counts(unsigned long long counts[6]);

/*
 * Opens the archive at db_path for the worker, marks jobs left running as
 * interrupted and removes test files a crash left behind; the worker does
 * not run yet (jobq_run), so a daemon that then fails to start (its port is
 * taken) claims no queued job. *out is freed by jobq_stop(). Returns 0 or a
 * negative errno.
 */
int jobq_open(const char *db_path, struct jobq **out);

/* Starts q's worker: queued jobs run from now on. 0 or a negative errno. */
int jobq_run(struct jobq *q);

/* jobq_open and jobq_run for `storbench run`: the worker runs job only
 * (queued by the caller) and stops; jobq_done() is then 1. Nothing else
 * queued runs. */
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

/*
 * A job (is_run 0) or run (1) object as the archive gave it, made to say
 * how its job ended when the archive could not take that end yet (its disk
 * full: the worker retries after 1, 2, 4 … 30 s): state, finished_at and
 * the job's error as the archive will hold them.
 */
void jobq_overlay(struct jobq *q, json_t *o, int is_run);
/* 1 while such an end waits to be written (it counts as running in the
 * archive; its state into state when not NULL), else 0. */
int jobq_unwritten(struct jobq *q, char state[16]);

/* Tells the worker a job was queued. */
void jobq_kick(struct jobq *q);

/* Has fn(arg) called each time the worker has written a job's end to the
 * archive (its run, if it has one, has ended there), with the worker's
 * lock held: fn must be quick and take no lock of the queue's (the hub
 * pusher's kick, serve --hub). Set before jobq_run. */
void jobq_on_end(struct jobq *q, void (*fn)(void *arg), void *arg);

/*
 * Cancels job id, whose state the caller read as queued or running; a is the
 * caller's archive connection. Returns 0 when cancelled (a running job stops
 * within ~100 ms), -EALREADY when the job has already ended.
 */
int jobq_cancel(struct jobq *q, struct archive *a, int64_t id);

/* Starts window gate of running job id, a host's job of a multi-host
 * job, at at_ns on the wall clock (jobrun_live_go). 0; -ENOENT when job
 * id is not the one running; -EAGAIN when it does not wait at that gate
 * (*waiting: the gate it waits at, -1 none). */
int jobq_go(struct jobq *q, int64_t id, int gate, int64_t at_ns, int *waiting);

/* Copies the progress of job id into *p. Returns 0, or -ENOENT when job id
 * is not the one running. */
int jobq_progress(struct jobq *q, int64_t id, struct jobq_progress *p);

#endif
