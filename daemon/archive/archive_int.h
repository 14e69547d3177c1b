/*
 * archive_int — what the files of the archive share; nothing outside
 * daemon/archive*.c includes it. archive.h has the design and the API.
 *
 * The files, and which way the calls go (never back up):
 *
 *   archive.c          open (schema check and migration) and close;
 *                      job_spec_clear
 *     -> archive_schema.c  the migrations, the repairs, user_version
 *   archive_queue.c    the durable job queue: insert, claim, cancel,
 *                      finish, interrupt, counts (-> archive.c for
 *                      job_spec_clear)
 *   archive_runs.c     runs, results, samples, test files: the writes of a
 *                      running job; a run's labels and notes; deleting one
 *   archive_read.c     the JSON views the API serves: jobs, runs (list,
 *                      index, filters, sort, hosts), a run, its samples
 *   archive_hub.c      what a hub (serve --hub) has of the runs
 *   archive_import.c   runs other tools measured, and their files
 *                      (-> archive_sums.c for the new run's summaries)
 *   archive_steady.c   a test's preconditioning and steady state
 *                      (test_conditions; -> archive_sums.c)
 *   archive_gen.c      the generation: a count of the archive's writes
 *                      (a WAL hook per connection; another process's
 *                      through a watcher's data_version)
 *   archive_sums.c     each test of a run summed up (test_summaries):
 *                      written with every result (archive_runs.c) and
 *                      import, filled by migration 8 (archive_schema.c);
 *                      the reader compare uses
 *   archive_history.c  a target's history: one test's metric per run,
 *                      from test_summaries
 *     (every one of them) -> archive_sql.c  the connection's helpers
 *
 * The helpers take the connection (one thread at a time, archive.h); those
 * that return an int return 0 or a negative errno, and log an SQLite
 * failure with SQLite's message where it happens (archive_sql_err,
 * archive_exec), so their callers only pass the errno on.
 */
#ifndef STORBENCH_ARCHIVE_INT_H
#define STORBENCH_ARCHIVE_INT_H

#include <jansson.h>
#include <stdint.h>

#include <sqlite3.h>

#include "archive.h"

struct archive {
	sqlite3 *db;
	int batch;   /* inside archive_batch_begin: archive_begin and
			archive_tx_end leave the transaction to the batch */
	int watched; /* counted by archive_gen_watch (archive_gen.c) */
};

/* A new run's identity (runs.uuid): a random UUID (version 4), as SQL. */
#define ARCHIVE_NEW_UUID                                                       \
	"lower(hex(randomblob(4)))||'-'||lower(hex(randomblob(2)))||'-4'||"    \
	"substr(lower(hex(randomblob(2))),2)||'-'||"                           \
	"substr('89ab',1+(abs(random())%4),1)||"                               \
	"substr(lower(hex(randomblob(2))),2)||'-'||lower(hex(randomblob(6)))"

/* A result row, every column a measured iteration or a restored one has
 * (?1 … ?34: run_id … allocated_bytes, imported). */
#define ARCHIVE_RESULT_INSERT                                                  \
	"INSERT INTO results(run_id, test, rw, pattern,"                       \
	" block_size, queue_depth, threads, iteration, ios,"                   \
	" bytes, lat_sum_ns, window_ns, seconds, mb_s, mib_s,"                 \
	" iops, lat_mean_us, lat_stdev_us, lat_min_us,"                        \
	" lat_p50_us, lat_p90_us, lat_p99_us, lat_p999_us,"                    \
	" lat_p9999_us, lat_max_us, cpu_user_s, cpu_sys_s,"                    \
	" lat_hist, sweep_group, sweep_field, sweep_value,"                    \
	" error, allocated_bytes, imported, start_unix_ns)"                    \
	" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"                          \
	" ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"

/* --- archive_gen.c --- */

/* Counts a's commits in the generation (archive_open, once WAL is on). */
void archive_gen_watch(struct archive *a);
/* A connection that archive_gen_watch counted closes (archive_close,
 * before it does): the watcher closes with the last. */
void archive_gen_unwatch(void);

/* --- archive_sql.c --- */

/* Logs what failed with SQLite's message and maps src (an SQLite result
 * code) to -ENOMEM, -EBUSY or -EIO. */
int archive_sql_err(struct archive *a, int src, const char *what);
/* Runs one or more statements without parameters or rows (sqlite3_exec).
 * Returns 0, -EBUSY or -EIO (logged). */
int archive_exec(struct archive *a, const char *sql);
/* Ends the transaction a BEGIN opened: COMMIT when rc is 0, else ROLLBACK
 * and rc. */
int archive_tx_end(struct archive *a, int rc);
/* Prepares sql into *st (the caller finalises it). */
int archive_prep(struct archive *a, const char *sql, sqlite3_stmt **st);
/* Steps a statement that returns no rows and finalises it; what names it
 * in the log. */
int archive_step_done(struct archive *a, sqlite3_stmt *st, const char *what);
/* Runs sql, an UPDATE of runs with two text parameters (t1, t2: NULL binds
 * NULL) and the run id. */
int archive_run_set(struct archive *a, const char *sql, const char *t1,
		    const char *t2, int64_t id, const char *what);
/* Now, UTC, ISO 8601 (log_utc_now): what every *_at column holds. */
void archive_now_text(char buf[32]);
/* BEGIN IMMEDIATE with the time it began (UTC, ISO 8601) into now, the
 * opening of every write of more than one statement. 0 or a negative
 * errno (nothing begun). */
int archive_begin(struct archive *a, char now[32]);
/* The current row of st as a new JSON object (the caller owns it): each
 * column by its SQLite type; a column named *_json is parsed as JSON and
 * served without the suffix. */
json_t *archive_row_json(sqlite3_stmt *st);
/* Runs sql with nparams (0 … 2) int64 parameters p1, p2; *out = a new array
 * of every row as archive_row_json (NULL on failure). */
int archive_query_rows(struct archive *a, const char *sql, int64_t p1,
		       int64_t p2, int nparams, json_t **out);
/* The first row of sql with parameter id as a new object in *out, or
 * -ENOENT when there is none. */
int archive_query_one(struct archive *a, const char *sql, int64_t id,
		      json_t **out);

/* --- archive_import.c --- */

/* The imports row of run run_id: in's tool, version, format, SHA-256,
 * part, file name and original, imported at now. */
int archive_import_row(struct archive *a, int64_t run_id,
		       const struct archive_import_in *in, const char *now);

/* Keeps stated (JSON text: what an imported file states beside its rates,
 * {bytes, ios, seconds, latency_us}; NULL: nothing) on result row id and
 * fills the columns it gives (ios, bytes, window_ns, seconds, the
 * latency's): a latency level it does not state is NULL, never derived.
 * archive_import.c. 0 or a negative errno. */
int archive_stated_put(struct archive *a, int64_t id, const char *stated);

/* --- archive_schema.c --- */

/* *version = the file's PRAGMA user_version. */
int archive_user_version(struct archive *a, int *version);
/* Brings the schema to ARCHIVE_SCHEMA_VERSION (and repairs an early
 * version 2) in one transaction, foreign keys off during it and checked
 * before it commits, on after it; path names the file in the log. Called
 * outside a transaction (else -EINVAL). -EPROTO for a newer schema, -EIO
 * for a row whose parent is not there. */
int archive_migrate(struct archive *a, const char *path);

/* --- archive_steady.c --- */

/* The test_conditions row of archive_condition_put (archive.h), without
 * summing the test again: the caller's transaction, which sums. */
int archive_condition_row(struct archive *a, int64_t run_id, const char *test,
			  const char *rw, int window_first, int window_last,
			  json_t *record);

/* --- archive_sums.c --- */

/* Rewrites the summary of test (test, rw) of run run_id from its results;
 * part of the caller's transaction. 0 or a negative errno. */
int archive_sums_test(struct archive *a, int64_t run_id, const char *test,
		      const char *rw);
/* The same for every test of run run_id. */
int archive_sums_run(struct archive *a, int64_t run_id);
/* The same for every test of every run (migration 8). */
int archive_sums_fill(struct archive *a);

#endif
