/*
 * jobrun — what a preset's runner gets while one job runs: the job, its
 * back-end and session, its files, its run in the archive, and its live
 * progress. The queue's worker (jobq.c) sets a job_run up and calls the
 * preset's run(); the runners (planrun.c, preset_*.c) call the functions
 * below and never the worker.
 *
 * Every file a job creates goes through job_file_make() or job_file_name()
 * (jobfiles.c): it is recorded in the archive before it exists (so a crash
 * leaves nothing the next start does not remove), created with
 * O_CREAT|O_EXCL|O_NOFOLLOW under a name the job owns, inside a directory
 * the job holds a handle on, and removed by job_files_remove() however the
 * job ends.
 *
 * Progress: one struct jobrun_live per queue, shared between the worker
 * (which writes it) and the API (which reads it), under its own mutex.
 */
#ifndef STORBENCH_JOBRUN_H
#define STORBENCH_JOBRUN_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "archive/archive.h"
#include "engine/engine.h"
#include "plan.h"
#include "probe/probe.h"

#define JOB_MAX_FILES 80
#define JOB_MAX_DIRS 40

struct preset;
struct jobsession_conn;

/* Live state of the running job, for the API. */
struct jobq_progress {
	int64_t job_id;
	char phase[16]; /* preparing, measuring, ramp, interval, cleanup */
	char test[32];	/* "SEQ1M Q8T1" */
	char rw[16];	/* read, write, db+log, or a file-create method */
	int iteration;	/* 1-based */
	int iterations;
	int tests_done;
	int tests_total;
	double fraction;  /* of the whole job, 0 … 1 */
	double live_mb_s; /* 10^6 B/s over the last ~250 ms */
	double live_iops;
	double elapsed_s;   /* since the job started, s */
	double remaining_s; /* a straight-line estimate, s; -1 unknown */
	int gate;	    /* a member of a multi-host job waiting for the
			       coordinator's start of its window number gate (0, 1 …;
			       jobgate.c); -1 when not waiting */
};

/* p as the JSON object of a job's "progress" and of the "progress" event
 * (events.h): the fields above plus job_id; remaining_s null when unknown,
 * gate null when not waiting. */
json_t *jobrun_progress_json(const struct jobq_progress *p);

/* The live progress of a queue's running job. */
struct jobrun_live {
	pthread_mutex_t mu;
	struct jobq_progress prog; /* under mu */
	int64_t current;	   /* the running job, 0 when none; under mu */
	uint64_t started_ns;	   /* its start (os_now_ns); under mu */
	uint64_t published_ns;	   /* the last progress event; under mu */
	int steps_done, steps_total; /* the worker's only */
	/* the start a multi-host job's coordinator gave (jobgate.c): for
	 * window go_gate (-1: none yet) at go_at_ns on the wall clock */
	int go_gate;	  /* under mu */
	int64_t go_at_ns; /* under mu */
};

void jobrun_live_init(struct jobrun_live *l);
void jobrun_live_destroy(struct jobrun_live *l);
/* Job id starts (progress zeroed) / ends (no job runs). */
void jobrun_live_begin(struct jobrun_live *l, int64_t id);
void jobrun_live_end(struct jobrun_live *l);
/* Copies the progress of job id into *p. 0, or -ENOENT when job id is not
 * the one running. */
int jobrun_live_get(struct jobrun_live *l, int64_t id, struct jobq_progress *p);
/* Publishes the progress as an event: forced at a change of phase, else at
 * most every 500 ms. */
void jobrun_live_publish(struct jobrun_live *l, int force);
/* The coordinator's start of window gate of job id, a member of a
 * multi-host job, at at_ns on the wall clock (jobgate.c). 0; -ENOENT when
 * job id is not the one running; -EAGAIN when it is not waiting at that
 * gate (*waiting receives the gate it waits at, -1 none). */
int jobrun_live_go(struct jobrun_live *l, int64_t id, int gate, int64_t at_ns,
		   int *waiting);

struct job_run {
	struct archive *a; /* the worker's connection */
	struct jobrun_live *live;
	int64_t id;
	int64_t run_id; /* 0 until the run exists */
	const struct job_spec *s;
	const struct preset *preset;
	const struct tgt_ops *ops;    /* the target's back-end */
	const void *session;	      /* its own arguments (smb), or NULL */
	struct jobsession_conn *conn; /* its share connected under its
					 credential (Windows), or NULL */
	const atomic_int *cancel;
	int device;	   /* the target is a raw block device */
	intptr_t device_h; /* held while the job runs, or -1 */
	char error[256];
	char files[JOB_MAX_FILES][PATH_MAX]; /* as the job opens them: local
						files through their directory's
						handle (sys_dir_child) */
	char real[JOB_MAX_FILES][PATH_MAX];  /* where each is: archive, logs */
	size_t n_files;
	struct {
		char path[PATH_MAX]; /* as the job names it */
		char real[PATH_MAX]; /* where it was when opened */
		intptr_t h;	     /* held for the job (sys.h) */
	} dirs[JOB_MAX_DIRS];
	size_t n_dirs;
	struct probe pr;	 /* of the job's target */
	const struct plan *plan; /* its tests, set by a runner of tests
				    (stored with the run), or NULL */
	json_t *options;	 /* its preset's options, or NULL */
	json_t *interleave;	 /* in an interleaved job: {job, targets,
				    position, rounds}, stored in the run's
				    spec; else NULL */
	size_t file_base;	 /* the number of its first test file's name
				    (job_file_path's n): targets of one
				    interleaved job must not share names */
	json_t *wire;		 /* the wire baseline measured before its
				    tests (wire.h), stored with its run; or
				    NULL */
	int gates;		 /* windows started behind the coordinator's
				    gate (a member of a multi-host job) */
	json_t *member;		 /* its spec's fleet, parsed (jobgate.c),
				    or NULL */
	int cow;		 /* enum probe_cow of its first test file
				    (jobcow.c); PROBE_COW_NONE before */
	const char *cow_fs;	 /* probe_file_cow's filesystem, or NULL */
};

/* --- the run (jobrun.c) --- */

/*
 * Creates the job's run once its files are ready: probe, spec, warnings
 * (direct: whether direct I/O was in effect; buffered_size: the bytes a
 * buffered run would read, for the page-cache warning). Fills jr->run_id.
 */
int job_run_create(struct job_run *jr, int direct, uint64_t buffered_size);

/* Engine options for this job on path (back-end, session, progress,
 * cancel, error wired). */
struct engine_opts job_engine_opts(struct job_run *jr, const char *path);

/* rc of an archive write; a failure says so on the job. */
int job_stored(struct job_run *jr, int rc);

/* The job's phase and current test, for GET /jobs/{id} (published). */
void job_phase(struct job_run *jr, const char *phase, const char *test,
	       const char *rw, int iteration);

/* One step of the job's progress is done (fraction = steps / total). */
void job_step(struct job_run *jr);
void job_set_steps(struct job_run *jr, int total, int tests_total);
/* tests_done of the progress. */
void job_tests_done(struct job_run *jr, int n);
/* The progress's `iterations` from now on: the job's iterations, or a
 * steady-state test's max_rounds (its iterations are rounds). */
void job_set_iterations(struct job_run *jr, int n);

/* --- a member of a multi-host job (jobgate.c) --- */

/* The host name of a member of a multi-host job (its spec's fleet.host,
 * which its test files carry), or NULL for a job of one host. Borrowed
 * from jr (valid while the job runs). */
const char *job_member_host(struct job_run *jr);

/*
 * Before each measured window of a member of a multi-host job: waits at
 * the job's next gate (numbered from 0; GET /api/v1/jobs/{id} shows it as
 * progress.gate) until the coordinator gives its start (POST
 * /api/v1/jobs/{id}/go: jobrun_live_go), and puts that wall-clock time in
 * *start_at_ns (engine_opts.start_at_ns). A job of one host returns 0 at
 * once with *start_at_ns 0. Returns 0, -ECANCELED, or -ETIMEDOUT when no
 * start came within the member's gate_timeout_s (its coordinator is gone:
 * the job stops itself, jr->error says so).
 */
int job_gate(struct job_run *jr, int64_t *start_at_ns);

/* --- copy-on-write test files (jobcow.c) --- */

/* Asks whether the job's test file at path (just made) copies on write,
 * into jr->cow and jr->cow_fs and the probe's fs_features ("cow",
 * "nocow"): for a local file before the run exists; else nothing. */
void job_cow_file(struct job_run *jr, const char *path);

/* Appends to warnings (a JSON array) the warning of a run whose test file
 * copies on write and whose plan (jr->plan) writes randomly: the tests,
 * what fragments and how to turn it off; nothing otherwise. */
void job_cow_warn(const struct job_run *jr, json_t *warnings);

/* --- the job's files (jobfiles.c) --- */

/* Do need more bytes fit in dir now, with the reserve? 0, or -ENOSPC with
 * jr->error set ("refused at start: …"). */
int job_room(struct job_run *jr, const char *dir, uint64_t need);

/*
 * A new file path for this job in dir, recorded in the archive
 * (*path receives it; the file is not created). Returns 0 or a negative
 * errno with jr->error filled.
 */
int job_file_name(struct job_run *jr, const char *dir, const char **path);

/* job_file_name, then the file created and filled (engine_prepare_file);
 * on a raw device, the device held and its first size bytes written. A
 * file that could not be made is gone and forgotten: *path is NULL then. */
int job_file_make(struct job_run *jr, const char *dir, uint64_t size,
		  enum wl_data data, int *direct, const char **path);

/* Where file path (one of jr->files) really is, for the archive and for
 * sentences; path itself when it is not one of them. */
const char *job_file_real(const struct job_run *jr, const char *path);

/* Drops path (one of jr->files, not created by the job: it existed) from
 * the job and the archive without touching it. */
void job_file_forget(struct job_run *jr, const char *path);

/* Removes (and forgets) one of the job's files; a missing one is fine. */
void job_file_remove(struct job_run *jr, const char *path);

/* Removes every file the job still has, lets go of its directories and
 * device. */
void job_files_remove(struct job_run *jr);

/*
 * The path of job id's test file number n (0: the first) in dir:
 * DIR/storbench-ID-TAG.tmp (then -TAG-N.tmp), TAG from the job's id and
 * created_at, so the name is known from the moment the job is queued —
 * GET /api/v1/jobs/{id} shows it as test_file — and differs between
 * archives; a member of a multi-host job puts its host's name (host, else
 * NULL) first, storbench-HOST-ID-TAG.tmp, so the hosts of one shared
 * directory never write one file. Returns 0 or -ENAMETOOLONG.
 */
int job_file_path(const char *dir, int64_t id, const char *created_at,
		  const char *host, size_t n, char *buf, size_t len);

/* At the start of a job on a remote back-end, or on a share through the
 * system's own client (Windows): removes the test files earlier jobs left
 * on the same volume (the server was gone when they ended, a crash), with
 * this job's session or credential. */
void job_files_remove_remote_leftovers(struct job_run *jr);

/* At start-up: removes the local test files a crash left behind (the
 * archive lists them; each is checked to be a storbench-*.tmp name inside
 * the allowed roots first). */
void job_files_remove_leftovers(struct archive *a);

#endif
