/*
 * archive — the SQLite archive: the durable job queue and every run with its
 * results, one database file per server (DATA/storbench.db).
 *
 * Design: WAL mode, foreign keys on, busy timeout 5 s, schema version in
 * PRAGMA user_version with forward migrations applied in archive_open(), all
 * of them and the new version in one transaction (a failed step leaves the
 * file as it was, at its old version; tests/fixtures/archive holds an
 * archive of every earlier version). One `struct archive` is one connection
 * and belongs to one thread at a time: the HTTP thread has one, the queue
 * worker has its own. Every write is one transaction — a function that
 * writes more than one row or statement wraps them in BEGIN IMMEDIATE …
 * COMMIT — so a crash leaves either the old or the new state, never a
 * partial run row or half a result.
 *
 * Reads that feed the API come back as Jansson objects (json_t, owned by the
 * caller: json_decref). Errors are negative errnos: -ENOENT for a missing row,
 * -EIO for an SQLite failure (logged with SQLite's message), -ENOMEM.
 *
 * The implementation is archive.c and the archive_*.c files beside it, one
 * per concern (schema, queue, runs, reads, imports); archive_int.h lists
 * them and which way they call.
 */
#ifndef STORBENCH_ARCHIVE_H
#define STORBENCH_ARCHIVE_H

#include <jansson.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/histogram.h"
#include "engine/result.h"

#define ARCHIVE_SCHEMA_VERSION 18

struct archive;

/* A job as queued. Strings are owned by the struct: job_spec_clear(). */
/* The targets one interleaved comparison job may run (compare_with + 1). */
#define JOB_MAX_SIDES 8

struct job_spec {
	char *profile;
	char *target;  /* an absolute directory path, or an
			  smb://server[:port]/share/dir URL */
	uint64_t size; /* bytes */
	int iterations;
	double duration_s;
	double interval_s;
	char *labels_json; /* a JSON array of strings */
	char *notes;
	char *plan_json;	 /* the tests, explicit (plan.h); NULL for a job
				    queued before plans were stored: the
				    preset's fixed tests */
	char *engine;		 /* back-end name (target.h): "io_uring",
				    "psync", "null" */
	int direct;		 /* ask for O_DIRECT */
	char *options_json;	 /* a preset's options, explicit (preset.h),
				    or NULL */
	char *smb_json;		 /* an smb:// target's session, without secrets:
				    {"credential", "min_protocol",
				    "max_protocol", "require_signing",
				    "require_encryption"}; NULL for a local one */
	char *compare_with_json; /* an interleaved comparison job: the other
				    targets, a JSON array of paths or URLs
				    (resolved like target); NULL for a job of
				    one target */
	char *hosts_json;	 /* a multi-host job, run by its coordinator
				    (daemon/fleet): {"hosts": [peer names],
				    "request": the job request without
				    hosts, as each host is sent it, …};
				    NULL for a job of this host */
	char *fleet_json;	 /* a member of a multi-host job: {"host",
				    "coordinator", "job", "gate_timeout_s"}
				    (jobgate.c); NULL for a job of its own */
	char created_at[32];	 /* when queued (UTC, ISO 8601); filled by
				    archive_job_claim_next */
};

void job_spec_clear(struct job_spec *s);

/* Opens (creating and migrating) the archive at path. */
int archive_open(const char *path, struct archive **out);
/* Sets SQLite up for many threads; call first thing in main, before any
 * connection is opened. */
void archive_library_init(void);
void archive_close(struct archive *a);
/* Several writes as one transaction (an import file's runs): the writes
 * between begin and end commit together when rc is 0, else none does.
 * Returns 0 or a negative errno (rolled back). */
int archive_batch_begin(struct archive *a);
int archive_batch_end(struct archive *a, int rc);
/* Rolls back a transaction left open on a (a bug of its last user): 1 if
 * there was one, else 0. A pooled connection is settled before reuse. */
int archive_settle(struct archive *a);

/*
 * The archive's generation: a count that moves with every committed write
 * of this process (any connection) and, when a is not NULL, with any other
 * process's write to a's file seen so far (archive_gen.c). An answer made
 * from reads that began after archive_generation(a) returned g is current
 * while archive_generation(NULL) is still g. Thread-safe; a is the
 * caller's (only its file name is read).
 */
uint64_t archive_generation(struct archive *a);
/* How archive_generation(a) sees another process's commits now: 1 in the
 * wal-index header where SQLite maps it (no lock, no system call), 0
 * through PRAGMA data_version under a lock, or no look made yet. */
int archive_generation_lockfree(void);

/* --- the queue --- */

/* Queues a job; *id receives its id. */
int archive_job_insert(struct archive *a, const struct job_spec *s,
		       int64_t *id);
/* Moves the oldest queued job to running and returns it in *id and *s.
 * -ENOENT when nothing is queued. */
int archive_job_claim_next(struct archive *a, int64_t *id, struct job_spec *s);
/* The same, but only job only when it is queued (0: the oldest). Both
 * take jobs of this host only (hosts_json NULL): a multi-host job is its
 * coordinator's (archive_job_claim_hosts). */
int archive_job_claim(struct archive *a, int64_t only, int64_t *id,
		      struct job_spec *s);
/* The oldest queued multi-host job (hosts_json set) moved to running. */
int archive_job_claim_hosts(struct archive *a, int64_t *id, struct job_spec *s);
/* queued -> cancelled. Returns 1 if it was queued, 0 if not. */
int archive_job_cancel_queued(struct archive *a, int64_t id);
/* Ends a running job and its run with state and error (NULL if none), at
 * time at ("2026-11-30T07:00:00Z", log_utc_now's form; NULL: now). */
int archive_job_finish(struct archive *a, int64_t job_id, int64_t run_id,
		       const char *state, const char *error, const char *at);
/* At start-up: every job and run left `running` becomes `interrupted`.
 * *n receives how many jobs. */
int archive_interrupt_running(struct archive *a, int *n);
int archive_queue_counts(struct archive *a, int *queued, int *running);

/* The jobs in each state, in the order of archive_job_states. */
#define ARCHIVE_N_STATES 6
extern const char *const archive_job_states[ARCHIVE_N_STATES];
int archive_job_state_counts(struct archive *a, int counts[ARCHIVE_N_STATES]);

/* --- multi-host jobs (archive_fleet.c) --- */

/* Records that host (at url) runs job member_job for coordinator job
 * job_id. 0 or a negative errno. */
int archive_fleet_member_put(struct archive *a, int64_t job_id,
			     const char *host, const char *url,
			     int64_t member_job);
/* The hosts' jobs of coordinator jobs that ended (a crash: interrupted)
 * without their hosts' jobs settled: [{job_id, host, url, member_job}]. */
int archive_fleet_unsettled(struct archive *a, json_t **out);
/* Marks host's job (NULL: every host's) of job_id settled. */
int archive_fleet_settle(struct archive *a, int64_t job_id, const char *host);
/* Makes run_id job_id's run (a multi-host job's latest aggregate). */
int archive_job_set_run(struct archive *a, int64_t job_id, int64_t run_id);
/* Links run_id to job_id (a host's run of a multi-host job, imported). */
int archive_run_set_job(struct archive *a, int64_t run_id, int64_t job_id);

/* One stored iteration of a run's test, with what lines windows of several
 * hosts up: its wall-clock opening, counts, histogram and seconds. */
struct archive_window {
	char *test, *rw, *pattern;
	int64_t block_size;
	int queue_depth, threads, iteration;
	int64_t start_unix_ns; /* 0: unknown */
	uint64_t window_ns, ios, bytes, lat_sum_ns;
	void *hist; /* hist_encode's bytes, or NULL */
	size_t hist_len;
	struct engine_samples smp; /* s and len_s (every second's length,
				      s) allocated; n seconds */
};
/* Every measured iteration (no error) of run_id in the order stored.
 * *out is freed with archive_windows_free. 0 or a negative errno. */
int archive_run_windows(struct archive *a, int64_t run_id,
			struct archive_window **out, size_t *n);
void archive_windows_free(struct archive_window *w, size_t n);

/* --- runs --- */

/* Creates the run of a running job (state running) and links the job to it.
 * spec_json, probe_json and warnings_json are JSON texts. */
int archive_run_create(struct archive *a, int64_t job_id,
		       const struct job_spec *s, const char *spec_json,
		       const char *probe_json, const char *engine_target,
		       int direct, const char *warnings_json, int64_t *run_id);
/* Stores the wire baseline measured for run_id (wire.h: the run's "wire"
 * object as JSON text). 0 or a negative errno. */
int archive_run_wire(struct archive *a, int64_t run_id, const char *wire_json);
/* Appends a sentence to a run's warnings. */
int archive_run_warn(struct archive *a, int64_t run_id, const char *text);

/* Stores one iteration of one test; h (may be NULL) is its latency
 * histogram, kept whole (hist_encode) so iterations can be merged on read. */
int archive_result_insert(struct archive *a, int64_t run_id,
			  const struct workload *t, int iteration,
			  const struct result *r, const struct hist *h);
/* The same with a note: error is why the measurement could not be made
 * (NULL: it was), allocated_bytes what the file occupies on disk (-1: not
 * measured). */
int archive_result_insert_note(struct archive *a, int64_t run_id,
			       const struct workload *t, int iteration,
			       const struct result *r, const struct hist *h,
			       const char *error, int64_t allocated_bytes);

/* Stores the per-second counts of one iteration (one transaction), over
 * the seconds archive_sample_put stored while it ran: afterwards the
 * iteration has exactly smp's seconds. */
int archive_samples_insert(struct archive *a, int64_t run_id,
			   const struct workload *t, int iteration,
			   const struct engine_samples *smp);
/* Stores (or replaces) one finished second, 1 s long, of an iteration still
 * running, with its counters c (NULL: none), so a crash keeps it (one
 * statement, one transaction). */
int archive_sample_put(struct archive *a, int64_t run_id,
		       const struct workload *t, int iteration, unsigned second,
		       const struct engine_sample *s,
		       const struct hostctr_sample *c);
/* An iteration's result and its samples (smp may be NULL), as
 * archive_result_insert and archive_samples_insert, in one transaction:
 * both or neither. */
int archive_iteration_insert(struct archive *a, int64_t run_id,
			     const struct workload *t, int iteration,
			     const struct result *r, const struct hist *h,
			     const struct engine_samples *smp);
/* A second's host counters (CPU %, memory bytes) as the object stored and
 * served as a sample's "host" (docs/api.md), or NULL when c has none (the
 * caller owns it). */
json_t *archive_ctr_host(const struct hostctr_sample *c);
/* A second's device counters as a sample's "device": counts, rates over
 * length_s seconds (the engine's second), utilisation, wait and the
 * members; NULL when c has no device. */
json_t *archive_ctr_device(const struct hostctr_sample *c, double length_s);
/* *out = the run's samples in the order they were measured, with rates
 * derived from the counts; -ENOENT when the run does not exist. */
int archive_samples_json(struct archive *a, int64_t run_id, json_t **out);
/* Has run run_id ended (1: done, failed, cancelled or interrupted; its
 * results and samples will not change), is it running (0), or a negative
 * errno (-ENOENT: no such run)? */
int archive_run_ended(struct archive *a, int64_t run_id);

/* --- test files the engine created, for clean-up after a crash --- */
int archive_testfile_add(struct archive *a, const char *path, int64_t job_id);
int archive_testfile_remove(struct archive *a, const char *path);
/* Calls fn for every recorded path (fn may not use the archive). */
int archive_testfile_each(struct archive *a,
			  void (*fn)(void *arg, const char *path), void *arg);

/* --- reads for the API --- */
int archive_job_json(struct archive *a, int64_t id, json_t **out);
int archive_jobs_json(struct archive *a, int limit, int offset, json_t **out);
int archive_run_json(struct archive *a, int64_t id, json_t **out);
/*
 * *out = what run id ran on and under (a new reference), as
 * archive_run_json has it but without the tests: {id, profile, spec, probe,
 * engine: {version, target, direct}, steady: [{test, rw, reached}] (the
 * tests with a steady state, in the order they ran; reached true, false or
 * null)} (archive_facts.c). 0, -ENOENT (no such run) or another negative
 * errno.
 */
int archive_run_facts(struct archive *a, int64_t id, json_t **out);

/* Sets run id's labels (a JSON array text) and/or notes (NULL: unchanged).
 * Returns 0 or -ENOENT. */
int archive_run_update(struct archive *a, int64_t id, const char *labels_json,
		       const char *notes);

/* Which runs a list shows, and in what order; NULL fields do not filter. */
struct run_filter {
	const char *profile, *fs_type, *target, *label, *state;
	const char *server;	  /* the SMB server, else the hostname */
	const char *host;	  /* the hostname: the host that measured */
	const char *cluster_size; /* the probe's fs_block_size, bytes */
	const char *from, *to;	  /* started_at ≥ from, ≤ to (ISO 8601 text;
				     to is a prefix: "2026-11-30" is the day) */
	const char *sort;	  /* id, started_at, profile, fs_type, target,
				     hostname; "-" first for descending;
				     NULL = "-id" */
};

/* Is sort one archive_runs_json takes? */
int archive_sort_ok(const char *sort);

/* One result another tool printed. */
struct archive_import_result {
	const char *name, *rw, *pattern;
	uint64_t block_size;
	int queue_depth, threads;
	double mb_s, iops, lat_mean_us; /* iops, latency < 0: not printed */
	/* what the file states beside them, JSON text ({bytes, ios,
	 * seconds, latency_us}: archive_stated_put), or NULL */
	const char *stated;
	const void *hist; /* hist_encode's bytes (fio json+ bins), or NULL */
	size_t hist_len;
};

/* A run another tool measured, with its original file. */
struct archive_import_in {
	const char *tool, *version,
		*format; /* "CrystalDiskMark", "8.0.4", "cdm" */
	const char *profile, *target, *notes;
	const char *spec_json, *labels_json, *probe_json;
	const char *started_at;	       /* ISO 8601, or "" for now */
	const char *sha256, *filename; /* of the original */
	int part;		       /* the run's place in its file (0: the
					  first; a DiskSpd text file may hold
					  several runs) */
	const char *warnings_json;     /* what the import had to believe */
	const void *original;
	size_t len;
	const struct archive_import_result *results;
	size_t n;
};

/*
 * Stores an imported run (state done, no job, a new uuid) with one
 * iteration per result and the original file, in one transaction. Returns
 * 0 with *run_id, -EEXIST with *run_id the run of the same file (by
 * SHA-256) and part imported before, or another negative errno (nothing
 * written).
 */
int archive_import(struct archive *a, const struct archive_import_in *in,
		   int64_t *run_id);

/* --- a run between archives (archive_doc.c) --- */

/*
 * Adds to run (archive_run_json's object of run id) what a copy of it in
 * another archive needs and the API's run leaves out: each iteration's
 * "raw": {window_ns, lat_sum_ns (integers, ns), histogram (hist_encode's
 * bytes as base64, or null), imported (another tool's printed numbers)},
 * and "samples": every stored second of the run's iterations as counts
 * [{test, rw, iteration, second, length_s, read_ios, read_bytes,
 * read_lat_sum_ns, write_ios, write_bytes, write_lat_sum_ns}] in the order
 * measured. The seconds of an iteration stopped before its end (a cancel,
 * a failure, a kill) have no iteration in the document and stay here.
 */
int archive_run_raw(struct archive *a, int64_t id, json_t *run);

/* One iteration of a restored run, as archive_run_raw gave it. */
struct archive_restore_row {
	const char *test, *rw, *pattern;
	int64_t block_size, queue_depth, threads;
	int iteration;
	struct result res; /* counts, and rates (result_finish, or another
			      tool's printed numbers when imported) */
	int has_lat, has_cpu, imported;
	struct lat_summary lat; /* µs */
	const void *hist;	/* hist_encode's bytes, or NULL */
	size_t hist_len;
	const char *sweep_group, *sweep_field; /* NULL: not a sweep */
	double sweep_value;
	const char *error;	 /* NULL: measured */
	int64_t allocated_bytes; /* -1: not measured */
	const char *stated;	 /* imported: what its file states (JSON text,
				    archive_stated_put), or NULL */
};

struct archive_restore_sample {
	const char *test, *rw;
	int iteration;
	int64_t second;
	double length_s;
	int64_t counts[6];  /* read ios, bytes, lat_sum_ns; write the same */
	const char *ctr[2]; /* host, device: JSON texts as stored, or NULL */
};

/* A test's preconditioning and steady state of a restored run
 * (archive_condition_put's row). */
struct archive_restore_cond {
	const char *test, *rw;
	int window_first, window_last; /* 0: no window */
	json_t *record;
};

/* A run as another archive had it: identity, end, and the import of the
 * document (its tool "storbench", profile, target, notes, spec, labels,
 * probe and warnings as the run had them, started_at, the document's
 * SHA-256 and bytes). */
struct archive_restore {
	const char *uuid, *state, *finished_at;
	const char *engine_version, *engine_target;
	int direct;
	const char *wire_json; /* the run's wire baseline (wire.h), or NULL */
	struct archive_import_in import; /* results and n unused */
	const struct archive_restore_row *rows;
	size_t n_rows;
	const struct archive_restore_sample *samples;
	size_t n_samples;
	const struct archive_restore_cond *conds;
	size_t n_conds;
};

/* Stores a run another archive had, under its own uuid, in one transaction.
 * Returns 0 with *run_id; -EEXIST with *run_id the run of that uuid here
 * already; -ENOTUNIQ with *run_id a run of that uuid here with another
 * number of iterations (not the same run); or another negative errno
 * (nothing written). */
int archive_run_restore(struct archive *a, const struct archive_restore *in,
			int64_t *run_id);

/* The original file of imported run run_id (malloc'd into *data) and its
 * name. Returns 0 or -ENOENT (not an imported run). */
int archive_import_original(struct archive *a, int64_t run_id, void **data,
			    size_t *len, char *filename, size_t fn_len);

/* Deletes run id with its results and samples (its job stays, without a
 * run); the id is never given to another run (AUTOINCREMENT, schema 13).
 * Returns 0, -ENOENT, or -EBUSY for a run still running. */
int archive_run_delete(struct archive *a, int64_t id);

/*
 * Every finished run (state done) that f lets through (NULL: all), oldest
 * first, as the compare group-by reads them: [{id, profile, target, labels,
 * hostname, fs_type, cluster_size (the probe's fs_block_size, bytes), server
 * (the SMB server, else the hostname), started_at, write_cache (the
 * probe's), direct ("direct" | "buffered"), size (the test file's, bytes),
 * engine (back-end or importing tool), version}].
 */
int archive_runs_index(struct archive *a, const struct run_filter *f,
		       json_t **out);
/* The same with only id and field (one of the names above; NULL: all of
 * them), as a group-by reads it. -EINVAL for another field. */
int archive_runs_index_of(struct archive *a, const struct run_filter *f,
			  const char *field, json_t **out);

/*
 * *out = the runs f lets through (NULL: all), limit of them from offset, in
 * f's sort order, each a summary with its headline (every test's best MB/s
 * and IOPS); *total = how many runs f lets through. -EINVAL for a sort
 * archive_sort_ok refuses.
 */
int archive_runs_json(struct archive *a, const struct run_filter *f, int limit,
		      int offset, json_t **out, int64_t *total);

/*
 * The hosts of the runs f lets through (NULL: all; its sort is not
 * used): *out = [{host (the runs' hostname, the machine that measured
 * them; null for runs that name none), runs (how many), latest_run_id,
 * latest_started_at (the newest of them: the latest started_at, the
 * highest id among runs that started at the same time)}], ordered by
 * host, null last.
 */
int archive_runs_hosts(struct archive *a, const struct run_filter *f,
		       json_t **out);

/* --- what a hub has of this archive's runs (archive_hub.c) --- */

/*
 * The next run to send to hub (its URL, as serve --hub names it): the
 * ended run (done, failed, cancelled or interrupted; measured here or
 * imported) with the lowest id above after that hub has no row for (it
 * neither took nor refused it). *run_id, or -ENOENT when there is none.
 */
int archive_hub_next(struct archive *a, const char *hub, int64_t after,
		     int64_t *run_id);
/* Records hub's answer about run run_id: it took the run (pushed 1;
 * hub_run_id: its id there) or refused it (pushed 0; status: the HTTP
 * status, detail: the hub's sentence). Replaces an earlier row. 0,
 * -ENOENT when the run is no longer here, or another negative errno. */
int archive_hub_mark(struct archive *a, int64_t run_id, const char *hub,
		     int pushed, int64_t hub_run_id, long status,
		     const char *detail);
/* *out = {pushed, pending, refused (runs, as above), running (runs not
 * ended yet, pushed when they end), refusals: the newest n_refusals
 * refused runs [{run_id, status, detail, at}]} of hub. */
int archive_hub_json(struct archive *a, const char *hub, int n_refusals,
		     json_t **out);

/* --- a test's preconditioning and steady state (archive_steady.c) --- */

/*
 * Stores test/rw's record of run run_id (a JSON object whose members the
 * run shows on the test: "precondition", "steady_state"; replaced if
 * there) with its measurement window's first and last rounds (iterations;
 * window_first 0: none), and sums the test up again over the window only,
 * in one transaction (or the caller's). 0 or a negative errno.
 */
int archive_condition_put(struct archive *a, int64_t run_id, const char *test,
			  const char *rw, int window_first, int window_last,
			  json_t *record);
/* Adds each stored record's members to its test in tests (the array
 * archive_run_json's run has); a test with a steady-state window gets the
 * window's averages as its best ({mb_s, iops, lat_mean_us, window: {first,
 * last}, rounds}). 0 or a negative errno. */
int archive_conditions_attach(struct archive *a, int64_t run_id, json_t *tests);

/* --- each test of a run summed up (archive_sums.c) --- */

/* The metrics a summary holds, in this order: "mb_s", "iops",
 * "lat_mean_us", "lat_p99_us" (the p99 of the iteration's latency). */
#define ARCHIVE_SUM_METRICS 4
extern const char *const archive_sum_metrics[ARCHIVE_SUM_METRICS];

/* One test of a run as its stored summary has it: what archive_run_json
 * shows of the test, without the iterations' other fields. */
struct archive_test_sum {
	const char *test, *rw, *pattern;
	int64_t block_size, queue_depth, threads;
	const char *sweep_json; /* {"group","field","value"} as the run shows
				   it, or NULL */
	int iterations;		/* rows stored */
	int errors;		/* of them, measurements not made */
	double best_mb_s, best_iops; /* the best iteration's (result_best) */
	const double *vals;	     /* n_vals × ARCHIVE_SUM_METRICS: each
					iteration's values in order, NAN where
					it has none (an error, no p99) */
	size_t n_vals;
};

/*
 * A reader of many runs for compare: a run's identity and conditions, and
 * its tests' summaries, each one indexed lookup (statements prepared once),
 * all in one read transaction (one snapshot) from open to close.
 * Belongs to the archive's thread; close it before the archive.
 */
struct archive_reader;
int archive_reader_open(struct archive *a, struct archive_reader **out);
void archive_reader_close(struct archive_reader *r);
/*
 * *out = run id in brief (new reference): {id, state, profile, target,
 * labels, spec: {size, iterations, duration_s, direct_requested,
 * interleave, imported} (those it has), probe: {fs_type, write_cache}
 * (those it has), engine: {target, version, direct}, imported (an imports
 * row exists), interleaved (the spec has an interleave member)}. -ENOENT
 * when there is no such run.
 */
int archive_reader_run(struct archive_reader *r, int64_t id, json_t **out);
/* *tests = run id's test summaries in the order they ran (*n of them),
 * owned by the reader and valid until its next call. */
int archive_reader_tests(struct archive_reader *r, int64_t id,
			 const struct archive_test_sum **tests, size_t *n);

/* --- a target's history (archive_history.c) --- */

/* Which series a history reads: the done runs of target and profile (and
 * hostname host, when not NULL), test test in direction rw ("read",
 * "write" or "mix"), the metric one of archive_sum_metrics. */
struct archive_history_q {
	const char *target, *profile, *test, *rw, *host, *metric;
};

/*
 * *out = the series q names, oldest first (started_at, then id): [{run_id,
 * started_at, hostname, labels, pattern, n (iterations with the metric),
 * mean, sd (their mean and sample sd, the metric's unit; sd null for n <
 * 2)}] — a run without the metric (an import that states none) is left
 * out. -EINVAL for a metric that is not a summary's.
 */
int archive_history(struct archive *a, const struct archive_history_q *q,
		    json_t **out);

#endif
