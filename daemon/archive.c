/*
 * archive — see archive.h for the design.
 *
 * Every statement is prepared, bound and finalised inside the function that
 * uses it; SQLite result codes become negative errnos here and nowhere else
 * (sql_err). Rows become JSON through row_json(), which maps each column by
 * its SQLite type and parses the columns whose name ends in "_json" (stored
 * JSON texts such as labels and probe), dropping that suffix.
 */
#include "archive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "log.h"
#include "utf8.h"

struct archive {
	sqlite3 *db;
};

static const char *const migrations[] = {
	/* 1: queue, runs, results, test files */
	"CREATE TABLE jobs("
	" id INTEGER PRIMARY KEY,"
	" state TEXT NOT NULL CHECK (state IN ('queued','running','done',"
	"  'failed','cancelled','interrupted')),"
	" profile TEXT NOT NULL, target TEXT NOT NULL,"
	" size INTEGER NOT NULL, iterations INTEGER NOT NULL,"
	" duration_s REAL NOT NULL, interval_s REAL NOT NULL,"
	" labels TEXT NOT NULL DEFAULT '[]', notes TEXT NOT NULL DEFAULT '',"
	" created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,"
	" run_id INTEGER, error TEXT);"
	"CREATE INDEX jobs_state ON jobs(state, id);"
	"CREATE TABLE runs("
	" id INTEGER PRIMARY KEY,"
	" job_id INTEGER REFERENCES jobs(id) ON DELETE SET NULL,"
	" state TEXT NOT NULL CHECK (state IN ('running','done','failed',"
	"  'cancelled','interrupted')),"
	" profile TEXT NOT NULL, target TEXT NOT NULL, spec TEXT NOT NULL,"
	" labels TEXT NOT NULL DEFAULT '[]', notes TEXT NOT NULL DEFAULT '',"
	" engine_version TEXT NOT NULL, engine_target TEXT NOT NULL,"
	" direct INTEGER NOT NULL, probe TEXT NOT NULL,"
	" warnings TEXT NOT NULL DEFAULT '[]', hostname TEXT, fs_type TEXT,"
	" started_at TEXT NOT NULL, finished_at TEXT);"
	"CREATE TABLE results("
	" id INTEGER PRIMARY KEY,"
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" test TEXT NOT NULL, rw TEXT NOT NULL, pattern TEXT NOT NULL,"
	" block_size INTEGER NOT NULL, queue_depth INTEGER NOT NULL,"
	" threads INTEGER NOT NULL, iteration INTEGER NOT NULL,"
	" ios INTEGER NOT NULL, bytes INTEGER NOT NULL,"
	" lat_sum_ns INTEGER NOT NULL, window_ns INTEGER NOT NULL,"
	" seconds REAL NOT NULL, mb_s REAL NOT NULL, mib_s REAL NOT NULL,"
	" iops REAL NOT NULL, lat_mean_us REAL NOT NULL,"
	" UNIQUE (run_id, test, rw, iteration));"
	"CREATE TABLE test_files("
	" path TEXT PRIMARY KEY, job_id INTEGER, created_at TEXT NOT NULL);",
	/* 2: latency distribution per iteration, µs, and the process's CPU
	 * time during it, s (NULL for older rows) */
	"ALTER TABLE results ADD COLUMN cpu_user_s REAL;"
	"ALTER TABLE results ADD COLUMN cpu_sys_s REAL;"
	"ALTER TABLE results ADD COLUMN lat_stdev_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_min_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p50_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p90_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p99_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p999_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_p9999_us REAL;"
	"ALTER TABLE results ADD COLUMN lat_max_us REAL;"
	/* per-second counts of each iteration; rates are derived on read */
	"CREATE TABLE samples("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" test TEXT NOT NULL, rw TEXT NOT NULL, iteration INTEGER NOT NULL,"
	" second INTEGER NOT NULL, length_s REAL NOT NULL,"
	" read_ios INTEGER NOT NULL, read_bytes INTEGER NOT NULL,"
	" read_lat_sum_ns INTEGER NOT NULL, write_ios INTEGER NOT NULL,"
	" write_bytes INTEGER NOT NULL, write_lat_sum_ns INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, test, rw, iteration, second));",
	/* 3: a job's tests written out in full (plan.h; NULL for older jobs:
	 * expand the profile), its back-end and direct I/O request; each
	 * iteration's whole latency histogram (hist_encode), so a test's
	 * percentiles over all its iterations are exact merges */
	"ALTER TABLE jobs ADD COLUMN plan TEXT;"
	"ALTER TABLE jobs ADD COLUMN engine TEXT;"
	"ALTER TABLE jobs ADD COLUMN direct INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE results ADD COLUMN lat_hist BLOB;",
	/* 4: a preset's options; the sweep a result is a point of; why a
	 * measurement could not be made (a file-creation method the
	 * filesystem does not support) */
	"ALTER TABLE jobs ADD COLUMN options TEXT;"
	"ALTER TABLE results ADD COLUMN sweep_group TEXT;"
	"ALTER TABLE results ADD COLUMN sweep_field TEXT;"
	"ALTER TABLE results ADD COLUMN sweep_value REAL;"
	"ALTER TABLE results ADD COLUMN error TEXT;"
	"ALTER TABLE results ADD COLUMN allocated_bytes INTEGER;",
	/* 5: an SMB target's session: the credential's name and the
	 * protocol knobs (never a password) */
	"ALTER TABLE jobs ADD COLUMN smb TEXT;",
	/* 6: results imported from other tools (their numbers as printed,
	 * kept in mb_s, iops, lat_mean_us) and the original files */
	"ALTER TABLE results ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE imports("
	" run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	" tool TEXT NOT NULL, version TEXT NOT NULL, format TEXT NOT NULL,"
	" sha256 TEXT NOT NULL UNIQUE, filename TEXT, size INTEGER NOT NULL,"
	" original BLOB NOT NULL, imported_at TEXT NOT NULL);",
};

#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))
_Static_assert(N_MIGRATIONS == ARCHIVE_SCHEMA_VERSION,
	       "ARCHIVE_SCHEMA_VERSION is the number of migrations");

static int sql_err(struct archive *a, int src, const char *what)
{
	log_error("archive: %s: %s (%d)", what, sqlite3_errmsg(a->db), src);
	return src == SQLITE_NOMEM ? -ENOMEM
	       : (src == SQLITE_BUSY || src == SQLITE_LOCKED) ? -EBUSY
							       : -EIO;
}

static int exec(struct archive *a, const char *sql)
{
	char *msg = NULL;
	int src = sqlite3_exec(a->db, sql, NULL, NULL, &msg);

	if (src != SQLITE_OK) {
		log_error("archive: %s", msg ? msg : sqlite3_errstr(src));
		sqlite3_free(msg);
		return src == SQLITE_BUSY ? -EBUSY : -EIO;
	}
	return 0;
}

/* Ends the transaction a BEGIN opened: COMMIT when rc is 0, else ROLLBACK
 * and rc. */
static int tx_end(struct archive *a, int rc)
{
	if (rc < 0) {
		exec(a, "ROLLBACK");
		return rc;
	}
	return exec(a, "COMMIT");
}

static int prep(struct archive *a, const char *sql, sqlite3_stmt **st)
{
	int src = sqlite3_prepare_v2(a->db, sql, -1, st, NULL);

	return src == SQLITE_OK ? 0 : sql_err(a, src, "prepare");
}

/* Steps a statement that returns no rows and finalises it. */
static int step_done(struct archive *a, sqlite3_stmt *st, const char *what)
{
	int src = sqlite3_step(st);
	int rc = src == SQLITE_DONE ? 0 : sql_err(a, src, what);

	sqlite3_finalize(st);
	return rc;
}

/* Runs sql, an UPDATE of runs with two text parameters and the run id. */
static int update_run(struct archive *a, const char *sql, const char *t1,
		      const char *t2, int64_t id, const char *what)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	sqlite3_bind_text(st, 1, t1, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, t2, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, id);
	return step_done(a, st, what);
}

static void now_text(char buf[32])
{
	log_utc_now(buf);
}

void job_spec_clear(struct job_spec *s)
{
	free(s->profile);
	free(s->target);
	free(s->labels_json);
	free(s->notes);
	free(s->plan_json);
	free(s->engine);
	free(s->options_json);
	free(s->smb_json);
	memset(s, 0, sizeof(*s));
}

/*
 * Columns and tables that an earlier build added to migration 2 after it
 * had shipped as version 2 (results.cpu_user_s and cpu_sys_s, the samples
 * table): an archive made by the first version-2 build lacks them at any
 * later version. Adds what is missing; part of the caller's transaction.
 * *n receives how many objects were added.
 */
static int repair_v2(struct archive *a, int *n)
{
	sqlite3_stmt *st;
	int cpu = 1, samples = 1, rc;

	*n = 0;
	if ((rc = prep(a, "SELECT (SELECT count(*) FROM pragma_table_info("
			  "'results') WHERE name='cpu_user_s'),"
			  " (SELECT count(*) FROM sqlite_schema WHERE"
			  " type='table' AND name='samples')",
		       &st)) < 0)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		cpu = sqlite3_column_int(st, 0);
		samples = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (!cpu) {
		if ((rc = exec(a, "ALTER TABLE results ADD COLUMN cpu_user_s REAL;"
				  "ALTER TABLE results ADD COLUMN cpu_sys_s REAL;")) < 0)
			return rc;
		*n += 2;
	}
	if (!samples) {
		if ((rc = exec(a, "CREATE TABLE samples("
				  " run_id INTEGER NOT NULL REFERENCES runs(id)"
				  "  ON DELETE CASCADE,"
				  " test TEXT NOT NULL, rw TEXT NOT NULL,"
				  " iteration INTEGER NOT NULL,"
				  " second INTEGER NOT NULL, length_s REAL NOT NULL,"
				  " read_ios INTEGER NOT NULL,"
				  " read_bytes INTEGER NOT NULL,"
				  " read_lat_sum_ns INTEGER NOT NULL,"
				  " write_ios INTEGER NOT NULL,"
				  " write_bytes INTEGER NOT NULL,"
				  " write_lat_sum_ns INTEGER NOT NULL,"
				  " PRIMARY KEY (run_id, test, rw, iteration,"
				  "  second));")) < 0)
			return rc;
		*n += 1;
	}
	return 0;
}

static int user_version(struct archive *a, int *version)
{
	sqlite3_stmt *st;
	int rc, src;

	*version = 0;
	if ((rc = prep(a, "PRAGMA user_version", &st)) < 0)
		return rc;
	src = sqlite3_step(st);
	if (src == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	else
		rc = sql_err(a, src, "user_version");
	sqlite3_finalize(st);
	return rc;
}

/*
 * Brings the schema from its version to N_MIGRATIONS in one transaction:
 * every step and the new user_version commit together, or (a step fails)
 * nothing does and the file stays at its old version.
 */
static int migrate(struct archive *a, const char *path)
{
	char pragma[64];
	int version, repaired = 0, rc;

	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	/* again inside the transaction: another process may have migrated */
	if ((rc = user_version(a, &version)) < 0)
		goto out;
	if (version > N_MIGRATIONS) {
		rc = -EPROTO;
		goto out;
	}
	for (int v = version; v < N_MIGRATIONS; v++) {
		if ((rc = exec(a, migrations[v])) < 0) {
			log_error("archive %s: migration to version %d failed; "
				  "left at version %d",
				  path, v + 1, version);
			goto out;
		}
	}
	if (version >= 2 && (rc = repair_v2(a, &repaired)) < 0)
		goto out;
	if (repaired)
		log_warn("archive %s: added %d object(s) an early version 2 "
			 "lacked", path, repaired);
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d;",
		 N_MIGRATIONS);
	if (version < N_MIGRATIONS && (rc = exec(a, pragma)) < 0)
		goto out;
	if (version < N_MIGRATIONS && version > 0)
		log_info("archive %s: schema version %d -> %d", path, version,
			 N_MIGRATIONS);
out:
	return tx_end(a, rc);
}

int archive_open(const char *path, struct archive **out)
{
	struct archive *a = calloc(1, sizeof(*a));
	int version = 0, rc = 0, src;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	src = sqlite3_open_v2(path, &a->db,
			      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				      SQLITE_OPEN_NOMUTEX,
			      NULL);
	if (src != SQLITE_OK) {
		rc = a->db ? sql_err(a, src, path) : -ENOMEM;
		goto out;
	}
	sqlite3_busy_timeout(a->db, 5000);
	/* the version first: a newer archive is refused before anything
	 * (journal_mode=WAL rewrites the file header) touches it */
	if ((rc = user_version(a, &version)) < 0)
		goto out;
	if (version > N_MIGRATIONS) {
		log_error("archive %s has schema version %d; this storbench "
			  "knows up to %d", path, version, N_MIGRATIONS);
		rc = -EPROTO;
		goto out;
	}
	/* settings of this connection; WAL (which is the file's) only once
	 * the schema is current, so a failed migration leaves the file as
	 * it was */
	if ((rc = exec(a, "PRAGMA foreign_keys=ON;")) < 0 ||
	    (rc = migrate(a, path)) < 0 ||
	    (rc = exec(a, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")) < 0)
		goto out;
out:
	if (rc < 0) {
		archive_close(a);
		return rc;
	}
	*out = a;
	return 0;
}

void archive_close(struct archive *a)
{
	if (!a)
		return;
	sqlite3_close(a->db);
	free(a);
}

/* --- the queue --- */

int archive_job_insert(struct archive *a, const struct job_spec *s,
		       int64_t *id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = prep(a, "INSERT INTO jobs(state, profile, target, size,"
			  " iterations, duration_s, interval_s, labels, notes,"
			  " created_at, plan, engine, direct, options, smb)"
			  " VALUES ('queued',?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		       &st)) < 0)
		return rc;
	now_text(now);
	sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, s->target, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)s->size);
	sqlite3_bind_int(st, 4, s->iterations);
	sqlite3_bind_double(st, 5, s->duration_s);
	sqlite3_bind_double(st, 6, s->interval_s);
	sqlite3_bind_text(st, 7, s->labels_json ? s->labels_json : "[]", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 8, s->notes ? s->notes : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, s->plan_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, s->engine, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 12, s->direct);
	sqlite3_bind_text(st, 13, s->options_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, s->smb_json, -1, SQLITE_STATIC);
	if ((rc = step_done(a, st, "insert job")) == 0)
		*id = sqlite3_last_insert_rowid(a->db);
	return rc;
}

const char *const archive_job_states[ARCHIVE_N_STATES] = {
	"queued", "running", "done", "failed", "cancelled", "interrupted"};

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

int archive_job_claim_next(struct archive *a, int64_t *id,
			   struct job_spec *s)
{
	return archive_job_claim(a, 0, id, s);
}

int archive_job_claim(struct archive *a, int64_t only, int64_t *id,
		      struct job_spec *s)
{
	sqlite3_stmt *st = NULL;
	char now[32];
	int rc, src;

	memset(s, 0, sizeof(*s));
	if ((rc = prep(a, "UPDATE jobs SET state='running', started_at=?"
			  " WHERE id=(SELECT id FROM jobs WHERE state='queued'"
			  " AND (?2 = 0 OR id = ?2) ORDER BY id LIMIT 1)"
			  " RETURNING id, profile, target, size, iterations,"
			  " duration_s, interval_s, labels, notes, plan,"
			  " engine, direct, options, smb, created_at",
		       &st)) < 0)
		return rc;
	now_text(now);
	sqlite3_bind_text(st, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, only);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		s->profile = col_dup(st, 1);
		s->target = col_dup(st, 2);
		s->size = (uint64_t)sqlite3_column_int64(st, 3);
		s->iterations = sqlite3_column_int(st, 4);
		s->duration_s = sqlite3_column_double(st, 5);
		s->interval_s = sqlite3_column_double(st, 6);
		s->labels_json = col_dup(st, 7);
		s->notes = col_dup(st, 8);
		if (sqlite3_column_type(st, 9) != SQLITE_NULL)
			s->plan_json = col_dup(st, 9);
		if (sqlite3_column_type(st, 10) != SQLITE_NULL)
			s->engine = col_dup(st, 10);
		s->direct = sqlite3_column_int(st, 11);
		if (sqlite3_column_type(st, 12) != SQLITE_NULL)
			s->options_json = col_dup(st, 12);
		if (sqlite3_column_type(st, 13) != SQLITE_NULL)
			s->smb_json = col_dup(st, 13);
		snprintf(s->created_at, sizeof(s->created_at), "%s",
			 (const char *)sqlite3_column_text(st, 14) ?: "");
		rc = (s->profile && s->target && s->labels_json && s->notes)
			     ? 0
			     : -ENOMEM;
		/* step to the end so the UPDATE commits */
		src = sqlite3_step(st);
		if (src != SQLITE_DONE && rc == 0)
			rc = sql_err(a, src, "claim job");
	} else if (src == SQLITE_DONE) {
		rc = -ENOENT;
	} else {
		rc = sql_err(a, src, "claim job");
	}
	sqlite3_finalize(st);
	if (rc < 0)
		job_spec_clear(s);
	return rc;
}

int archive_job_cancel_queued(struct archive *a, int64_t id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = prep(a, "UPDATE jobs SET state='cancelled', finished_at=?,"
			  " error='cancelled by request'"
			  " WHERE id=? AND state='queued'",
		       &st)) < 0)
		return rc;
	now_text(now);
	sqlite3_bind_text(st, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	if ((rc = step_done(a, st, "cancel job")) < 0)
		return rc;
	return sqlite3_changes(a->db) > 0 ? 1 : 0;
}

int archive_job_finish(struct archive *a, int64_t job_id, int64_t run_id,
		       const char *state, const char *error)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	now_text(now);
	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	if ((rc = prep(a, "UPDATE jobs SET state=?, finished_at=?, error=?"
			  " WHERE id=?",
		       &st)) < 0)
		goto out;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (error)
		sqlite3_bind_text(st, 3, error, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, job_id);
	if ((rc = step_done(a, st, "finish job")) < 0)
		goto out;
	if (run_id > 0 &&
	    (rc = update_run(a, "UPDATE runs SET state=?, finished_at=?"
				" WHERE id=?",
			     state, now, run_id, "finish run")) < 0)
		goto out;
out:
	return tx_end(a, rc);
}

int archive_interrupt_running(struct archive *a, int *n)
{
	char sql[512], now[32];
	int rc;

	*n = 0;
	now_text(now);
	snprintf(sql, sizeof(sql),
		 "BEGIN IMMEDIATE;"
		 "UPDATE jobs SET state='interrupted', finished_at='%s',"
		 " error='the daemon stopped while this job ran'"
		 " WHERE state='running';",
		 now);
	if ((rc = exec(a, sql)) < 0)
		return tx_end(a, rc);
	*n = sqlite3_changes(a->db);
	snprintf(sql, sizeof(sql),
		 "UPDATE runs SET state='interrupted', finished_at='%s'"
		 " WHERE state='running';",
		 now);
	return tx_end(a, exec(a, sql));
}

int archive_job_state_counts(struct archive *a, int counts[ARCHIVE_N_STATES])
{
	sqlite3_stmt *st;
	int rc;

	memset(counts, 0, sizeof(int) * ARCHIVE_N_STATES);
	if ((rc = prep(a, "SELECT state, count(*) FROM jobs GROUP BY state",
		       &st)) < 0)
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 0);
		for (int i = 0; i < ARCHIVE_N_STATES; i++)
			if (state && strcmp(state, archive_job_states[i]) == 0)
				counts[i] = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

int archive_queue_counts(struct archive *a, int *queued, int *running)
{
	sqlite3_stmt *st;
	int rc;

	*queued = *running = 0;
	if ((rc = prep(a, "SELECT (SELECT count(*) FROM jobs WHERE"
			  " state='queued'), (SELECT count(*) FROM jobs"
			  " WHERE state='running')",
		       &st)) < 0)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*queued = sqlite3_column_int(st, 0);
		*running = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

/* --- runs --- */

int archive_run_create(struct archive *a, int64_t job_id,
		       const struct job_spec *s, const char *spec_json,
		       const char *probe_json, const char *engine_target,
		       int direct, const char *warnings_json, int64_t *run_id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	now_text(now);
	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	if ((rc = prep(a, "INSERT INTO runs(job_id, state, profile, target,"
			  " spec, labels, notes, engine_version, engine_target,"
			  " direct, probe, warnings, hostname, fs_type,"
			  " started_at) VALUES (?,'running',?,?,?,?,?,?,?,?,?,?,"
			  " json_extract(?10,'$.hostname'),"
			  " json_extract(?10,'$.fs_type'),?)",
		       &st)) < 0)
		goto out;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_text(st, 2, s->profile, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, s->target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, spec_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, s->labels_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, s->notes, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, STORBENCH_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, engine_target, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, direct);
	sqlite3_bind_text(st, 10, probe_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, warnings_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, now, -1, SQLITE_STATIC);
	if ((rc = step_done(a, st, "insert run")) < 0)
		goto out;
	*run_id = sqlite3_last_insert_rowid(a->db);
	if ((rc = prep(a, "UPDATE jobs SET run_id=? WHERE id=?", &st)) < 0)
		goto out;
	sqlite3_bind_int64(st, 1, *run_id);
	sqlite3_bind_int64(st, 2, job_id);
	rc = step_done(a, st, "link run");
out:
	return tx_end(a, rc);
}

int archive_run_warn(struct archive *a, int64_t run_id, const char *text)
{
	sqlite3_stmt *st;
	char *t = strdup(text);
	int rc;

	if (!t)
		return -ENOMEM;
	utf8_sanitize(t); /* it names paths; the warnings are JSON */
	if ((rc = prep(a, "UPDATE runs SET warnings=json_insert(warnings,"
			  " '$[#]', ?) WHERE id=?",
		       &st)) < 0) {
		free(t);
		return rc;
	}
	sqlite3_bind_text(st, 1, t, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, run_id);
	free(t);
	return step_done(a, st, "add warning");
}

int archive_result_insert(struct archive *a, int64_t run_id,
			  const struct workload *t, int iteration,
			  const struct result *r, const struct hist *h)
{
	return archive_result_insert_note(a, run_id, t, iteration, r, h, NULL,
					  -1);
}

int archive_result_insert_note(struct archive *a, int64_t run_id,
			       const struct workload *t, int iteration,
			       const struct result *r, const struct hist *h,
			       const char *error, int64_t allocated_bytes)
{
	sqlite3_stmt *st;
	struct lat_summary ls;
	void *blob = NULL;
	size_t blob_len = 0;
	int rc;

	if (h) {
		hist_summary(h, &ls);
		blob_len = hist_encode(h, NULL, 0);
		if (!(blob = malloc(blob_len)))
			return -ENOMEM;
		hist_encode(h, blob, blob_len);
	}
	if ((rc = prep(a, "INSERT INTO results(run_id, test, rw, pattern,"
			  " block_size, queue_depth, threads, iteration, ios,"
			  " bytes, lat_sum_ns, window_ns, seconds, mb_s, mib_s,"
			  " iops, lat_mean_us, lat_stdev_us, lat_min_us,"
			  " lat_p50_us, lat_p90_us, lat_p99_us, lat_p999_us,"
			  " lat_p9999_us, lat_max_us, cpu_user_s, cpu_sys_s,"
			  " lat_hist, sweep_group, sweep_field, sweep_value,"
			  " error, allocated_bytes)"
			  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			  " ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		       &st)) < 0) {
		free(blob);
		return rc;
	}
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, wl_rw(t), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, wl_pattern_name(t->pattern), -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, t->block_size);
	sqlite3_bind_int(st, 6, (int)t->queue_depth);
	sqlite3_bind_int(st, 7, (int)t->threads);
	sqlite3_bind_int(st, 8, iteration);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)r->ios);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)r->bytes);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)r->lat_sum_ns);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)r->window_ns);
	sqlite3_bind_double(st, 13, r->seconds);
	sqlite3_bind_double(st, 14, r->mb_s);
	sqlite3_bind_double(st, 15, r->mib_s);
	sqlite3_bind_double(st, 16, r->iops);
	sqlite3_bind_double(st, 17, r->lat_mean_us);
	if (h) {
		const double v[] = {ls.stdev, ls.min, ls.p50, ls.p90,
				    ls.p99, ls.p999, ls.p9999, ls.max};
		for (int i = 0; i < 8; i++)
			sqlite3_bind_double(st, 18 + i, v[i]);
		sqlite3_bind_blob(st, 28, blob, (int)blob_len, free);
	}
	sqlite3_bind_double(st, 26, r->cpu_user_s);
	sqlite3_bind_double(st, 27, r->cpu_sys_s);
	if (t->sweep_field[0]) {
		sqlite3_bind_text(st, 29, t->group, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 30, t->sweep_field, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 31, t->sweep_value);
	}
	if (error)
		sqlite3_bind_text(st, 32, error, -1, SQLITE_TRANSIENT);
	if (allocated_bytes >= 0)
		sqlite3_bind_int64(st, 33, allocated_bytes);
	return step_done(a, st, "insert result");
}

/* A second of samples, written over one reported before (the end of an
 * iteration replaces what was streamed while it ran). */
#define SAMPLE_UPSERT                                                          \
	"INSERT INTO samples(run_id, test, rw, iteration, second, length_s,"   \
	" read_ios, read_bytes, read_lat_sum_ns, write_ios, write_bytes,"      \
	" write_lat_sum_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"                  \
	" ON CONFLICT (run_id, test, rw, iteration, second) DO UPDATE SET"     \
	" length_s=excluded.length_s, read_ios=excluded.read_ios,"             \
	" read_bytes=excluded.read_bytes,"                                     \
	" read_lat_sum_ns=excluded.read_lat_sum_ns,"                           \
	" write_ios=excluded.write_ios, write_bytes=excluded.write_bytes,"     \
	" write_lat_sum_ns=excluded.write_lat_sum_ns"

static void bind_sample(sqlite3_stmt *st, int64_t run_id,
			const struct workload *t, int iteration,
			unsigned second, double length_s,
			const struct engine_sample *s)
{
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, wl_rw(t), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, iteration);
	sqlite3_bind_int(st, 5, (int)second);
	sqlite3_bind_double(st, 6, length_s);
	for (int d = 0; d < 2; d++) {
		sqlite3_bind_int64(st, 7 + 3 * d, (sqlite3_int64)s->ios[d]);
		sqlite3_bind_int64(st, 8 + 3 * d, (sqlite3_int64)s->bytes[d]);
		sqlite3_bind_int64(st, 9 + 3 * d, (sqlite3_int64)s->lat_sum_ns[d]);
	}
}

/* Every second of smp, over what was streamed, and none after its last
 * (inside the caller's transaction). */
static int samples_put(struct archive *a, int64_t run_id,
		       const struct workload *t, int iteration,
		       const struct engine_samples *smp)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = prep(a, SAMPLE_UPSERT, &st)) < 0)
		return rc;
	for (unsigned i = 0; i < smp->n && rc == 0; i++) {
		int src;
		sqlite3_reset(st);
		bind_sample(st, run_id, t, iteration, i,
			    i + 1 == smp->n ? smp->last_s : 1.0, &smp->s[i]);
		src = sqlite3_step(st);
		if (src != SQLITE_DONE)
			rc = sql_err(a, src, "insert sample");
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	/* a second streamed that the end folded into the one before */
	if ((rc = prep(a, "DELETE FROM samples WHERE run_id=? AND test=? AND"
			  " rw=? AND iteration=? AND second>=?",
		       &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, wl_rw(t), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, iteration);
	sqlite3_bind_int(st, 5, (int)smp->n);
	return step_done(a, st, "trim samples");
}

int archive_samples_insert(struct archive *a, int64_t run_id,
			   const struct workload *t, int iteration,
			   const struct engine_samples *smp)
{
	int rc;

	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	return tx_end(a, samples_put(a, run_id, t, iteration, smp));
}

int archive_sample_put(struct archive *a, int64_t run_id,
		       const struct workload *t, int iteration,
		       unsigned second, const struct engine_sample *s)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(a, SAMPLE_UPSERT, &st)) < 0)
		return rc;
	bind_sample(st, run_id, t, iteration, second, 1.0, s);
	return step_done(a, st, "insert sample");
}

int archive_iteration_insert(struct archive *a, int64_t run_id,
			     const struct workload *t, int iteration,
			     const struct result *r, const struct hist *h,
			     const struct engine_samples *smp)
{
	int rc;

	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	rc = archive_result_insert(a, run_id, t, iteration, r, h);
	if (rc == 0 && smp)
		rc = samples_put(a, run_id, t, iteration, smp);
	return tx_end(a, rc);
}

/* --- test files --- */

static int path_stmt(struct archive *a, const char *sql, const char *path,
		     int64_t job_id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	now_text(now);
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_bind_parameter_count(st) >= 3) {
		sqlite3_bind_int64(st, 2, job_id);
		sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	}
	return step_done(a, st, "test file");
}

int archive_testfile_add(struct archive *a, const char *path, int64_t job_id)
{
	return path_stmt(a, "INSERT OR REPLACE INTO test_files(path, job_id,"
			    " created_at) VALUES (?,?,?)",
			 path, job_id);
}

int archive_testfile_remove(struct archive *a, const char *path)
{
	return path_stmt(a, "DELETE FROM test_files WHERE path=?", path, 0);
}

int archive_testfile_each(struct archive *a,
			  void (*fn)(void *arg, const char *path), void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(a, "SELECT path FROM test_files", &st)) < 0)
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW)
		fn(arg, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

/* --- reads --- */

/* The current row as a JSON object (see the file comment). */
static json_t *row_json(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int n = sqlite3_column_count(st);

	for (int i = 0; o && i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		size_t len = strlen(name);
		int is_json = len > 5 && strcmp(name + len - 5, "_json") == 0;
		json_t *v = NULL;

		if (is_json)
			len -= 5; /* "probe_json" is served as "probe" */
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v = json_integer(sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			v = json_real(sqlite3_column_double(st, i));
			break;
		case SQLITE_TEXT:
			if (is_json) {
				v = json_loads((const char *)
						       sqlite3_column_text(st, i),
					       JSON_DECODE_ANY, NULL);
			} else {
				v = json_string((const char *)
							sqlite3_column_text(st, i));
			}
			break;
		default:
			v = json_null();
		}
		if (!v)
			v = json_null();
		json_object_setn_new_nocheck(o, name, len, v);
	}
	return o;
}

/* Runs a query with an optional id or limit/offset binding; each row is
 * appended to *out as row_json(). */
static int query_rows(struct archive *a, const char *sql, int64_t p1,
		      int64_t p2, int nparams, json_t **out)
{
	sqlite3_stmt *st;
	json_t *arr;
	int rc, src;

	*out = NULL;
	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	if (nparams >= 1)
		sqlite3_bind_int64(st, 1, p1);
	if (nparams >= 2)
		sqlite3_bind_int64(st, 2, p2);
	arr = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(arr, row_json(st));
	if (src != SQLITE_DONE) {
		rc = sql_err(a, src, "query");
		json_decref(arr);
		arr = NULL;
	}
	sqlite3_finalize(st);
	*out = arr;
	return rc;
}

static int query_one(struct archive *a, const char *sql, int64_t id,
		     json_t **out)
{
	json_t *arr;
	int rc = query_rows(a, sql, id, 0, 1, &arr);

	*out = NULL;
	if (rc < 0)
		return rc;
	if (json_array_size(arr) == 0) {
		json_decref(arr);
		return -ENOENT;
	}
	*out = json_incref(json_array_get(arr, 0));
	json_decref(arr);
	return 0;
}

#define JOB_COLUMNS                                                            \
	"SELECT id, state, profile, target, size, iterations, duration_s,"     \
	" interval_s, labels AS labels_json, notes, created_at, started_at,"   \
	" finished_at, run_id, error, plan AS tests_json, engine,"             \
	" options AS options_json, smb AS smb_json,"                           \
	" json(CASE direct WHEN 0 THEN 'false' ELSE 'true' END) AS direct_json" \
	" FROM jobs"

int archive_job_json(struct archive *a, int64_t id, json_t **out)
{
	return query_one(a, JOB_COLUMNS " WHERE id=?", id, out);
}

int archive_jobs_json(struct archive *a, int limit, int offset, json_t **out)
{
	return query_rows(a, JOB_COLUMNS " ORDER BY id DESC LIMIT ? OFFSET ?",
			  limit, offset, 2, out);
}

/* The merged histogram's summary as the API serves it (µs), or null. */
static json_t *latency_json(const struct hist *h)
{
	struct lat_summary ls;

	if (h->count == 0)
		return json_null();
	hist_summary(h, &ls);
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I}",
			 "mean", ls.mean, "stdev", ls.stdev, "min", ls.min,
			 "p50", ls.p50, "p90", ls.p90, "p99", ls.p99, "p99.9",
			 ls.p999, "p99.99", ls.p9999, "max", ls.max, "ios",
			 (json_int_t)h->count);
}

/* Adds the next row's stored histogram (lockstep with the rows query)
 * into h; rows without one (older versions) add nothing. */
static void merge_next_hist(sqlite3_stmt *st, struct hist *h,
			    struct hist *tmp)
{
	if (!st || sqlite3_step(st) != SQLITE_ROW ||
	    sqlite3_column_type(st, 0) != SQLITE_BLOB)
		return;
	if (hist_decode(tmp, sqlite3_column_blob(st, 0),
			(size_t)sqlite3_column_bytes(st, 0)) == 0)
		hist_merge(h, tmp);
}

/*
 * The tests of a run, in the order they ran, each with every iteration, its
 * best one (result_best: CrystalDiskMark's best of N by MB/s) and, when
 * with_latency, `latency_us`: the distribution over all its iterations,
 * merged from their stored histograms.
 */
static int run_tests_json(struct archive *a, int64_t run_id, int with_latency,
			  json_t **out)
{
	json_t *rows, *tests = json_array();
	sqlite3_stmt *hs = NULL;
	struct hist *h = NULL, *tmp = NULL;
	int rc = query_rows(a,
			    "SELECT test, rw, pattern, block_size, queue_depth,"
			    " threads, iteration, ios, bytes, lat_sum_ns,"
			    " window_ns, CASE WHEN lat_p50_us IS NULL THEN NULL"
			    " ELSE json_object('stdev', lat_stdev_us, 'min',"
			    "  lat_min_us, 'p50', lat_p50_us, 'p90', lat_p90_us,"
			    "  'p99', lat_p99_us, 'p99.9', lat_p999_us, 'p99.99',"
			    "  lat_p9999_us, 'max', lat_max_us) END"
			    " AS latency_us_json, cpu_user_s, cpu_sys_s,"
			    " CASE WHEN sweep_field IS NULL THEN NULL"
			    " ELSE json_object('group', sweep_group, 'field',"
			    "  sweep_field, 'value', sweep_value) END AS sweep_json,"
			    " error, allocated_bytes, imported,"
			    " mb_s AS imp_mb_s, iops AS imp_iops,"
			    " lat_mean_us AS imp_lat_mean_us,"
			    " min(id) OVER (PARTITION BY test, rw) AS grp"
			    " FROM results WHERE run_id=?"
			    " ORDER BY grp, iteration, id",
			    run_id, 0, 1, &rows);
	size_t i, n;

	*out = NULL;
	if (rc < 0) {
		json_decref(tests);
		return rc;
	}
	if (with_latency) {
		h = malloc(sizeof(*h));
		tmp = malloc(sizeof(*tmp));
		if (!h || !tmp ||
		    prep(a, "SELECT lat_hist, min(id) OVER (PARTITION BY test,"
			    " rw) AS grp FROM results WHERE run_id=?"
			    " ORDER BY grp, iteration, id", &hs) < 0) {
			free(h);
			free(tmp);
			json_decref(rows);
			json_decref(tests);
			return -ENOMEM;
		}
		sqlite3_bind_int64(hs, 1, run_id);
	}
	n = json_array_size(rows);
	for (i = 0; i < n;) {
		json_t *first = json_array_get(rows, i), *its, *t;
		const char *name = json_string_value(json_object_get(first, "test"));
		const char *rw = json_string_value(json_object_get(first, "rw"));
		struct result r[256];
		int k = 0, best;

		t = json_pack("{s:s, s:s, s:O, s:O, s:O, s:O}", "test", name,
			      "rw", rw, "pattern",
			      json_object_get(first, "pattern"), "block_size",
			      json_object_get(first, "block_size"),
			      "queue_depth", json_object_get(first, "queue_depth"),
			      "threads", json_object_get(first, "threads"));
		its = json_array();
		if (h)
			hist_init(h);
		for (; i < n; i++) {
			json_t *row = json_array_get(rows, i), *it;
			if (strcmp(json_string_value(json_object_get(row, "test")), name) ||
			    strcmp(json_string_value(json_object_get(row, "rw")), rw))
				break;
			if (h)
				merge_next_hist(hs, h, tmp);
			if (k == 256)
				continue;
			memset(&r[k], 0, sizeof(r[k]));
			r[k].ios = (uint64_t)json_integer_value(json_object_get(row, "ios"));
			r[k].bytes = (uint64_t)json_integer_value(json_object_get(row, "bytes"));
			r[k].lat_sum_ns = (uint64_t)json_integer_value(json_object_get(row, "lat_sum_ns"));
			r[k].window_ns = (uint64_t)json_integer_value(json_object_get(row, "window_ns"));
			result_finish(&r[k]);
			if (json_integer_value(json_object_get(row, "imported"))) {
				/* another tool's numbers, as it printed them */
				r[k].mb_s = json_number_value(json_object_get(row, "imp_mb_s"));
				r[k].mib_s = r[k].mb_s * 1e6 / (1 << 20);
				r[k].iops = json_number_value(json_object_get(row, "imp_iops"));
				r[k].lat_mean_us = json_number_value(
					json_object_get(row, "imp_lat_mean_us"));
			}
			it = json_pack("{s:O, s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:O, s:O, s:O}",
				       "iteration", json_object_get(row, "iteration"),
				       "mb_s", r[k].mb_s, "mib_s", r[k].mib_s,
				       "iops", r[k].iops, "lat_mean_us", r[k].lat_mean_us,
				       "bytes", (json_int_t)r[k].bytes,
				       "ios", (json_int_t)r[k].ios,
				       "seconds", r[k].seconds, "latency_us",
				       json_object_get(row, "latency_us"),
				       "cpu_user_s", json_object_get(row, "cpu_user_s"),
				       "cpu_sys_s", json_object_get(row, "cpu_sys_s"));
			if (json_integer_value(json_object_get(row, "imported"))) {
				if (r[k].lat_mean_us < 0)
					json_object_set_new(it, "lat_mean_us", json_null());
				/* another tool's numbers: no window or I/O counts */
				json_object_set_new(it, "seconds", json_null());
				json_object_set_new(it, "bytes", json_null());
				json_object_set_new(it, "ios", json_null());
			}
			if (json_is_string(json_object_get(row, "error")))
				json_object_set(it, "error", json_object_get(row, "error"));
			if (json_is_integer(json_object_get(row, "allocated_bytes")))
				json_object_set(it, "allocated_bytes",
						json_object_get(row, "allocated_bytes"));
			json_array_append_new(its, it);
			k++;
		}
		best = result_best(r, k);
		json_object_set(t, "best", best >= 0 ? json_array_get(its, (size_t)best)
						     : json_null());
		if (json_is_object(json_object_get(first, "sweep")))
			json_object_set(t, "sweep", json_object_get(first, "sweep"));
		json_object_set_new(t, "iterations", its);
		if (h)
			json_object_set_new(t, "latency_us", latency_json(h));
		json_array_append_new(tests, t);
	}
	sqlite3_finalize(hs);
	free(h);
	free(tmp);
	json_decref(rows);
	*out = tests;
	return 0;
}

#define RUN_COLUMNS                                                            \
	"SELECT id, job_id, state, profile, target, labels AS labels_json,"    \
	" notes, started_at, finished_at, spec AS spec_json,"                  \
	" json_object('version', engine_version, 'target', engine_target,"    \
	"  'direct', json(CASE direct WHEN 0 THEN 'false' ELSE 'true' END))"   \
	"  AS engine_json,"                                                    \
	" warnings AS warnings_json, probe AS probe_json FROM runs"

int archive_run_json(struct archive *a, int64_t id, json_t **out)
{
	json_t *run, *tests;
	int rc = query_one(a, RUN_COLUMNS " WHERE id=?", id, &run);

	*out = NULL;
	if (rc < 0)
		return rc;
	if ((rc = run_tests_json(a, id, 1, &tests)) < 0) {
		json_decref(run);
		return rc;
	}
	json_object_set_new(run, "units",
			    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
				      "mb_s", "10^6 B/s", "mib_s", "2^20 B/s",
				      "iops", "I/O/s", "lat_mean_us", "µs",
				      "bytes", "B", "seconds", "s",
				      "block_size", "B"));
	json_object_set_new(run, "tests", tests);
	{
		/* a run another tool measured: where from, and its file */
		json_t *imp = NULL;
		if (query_one(a,
			      "SELECT tool, version, format, sha256, filename, size,"
			      " imported_at FROM imports WHERE run_id=?",
			      id, &imp) == 0)
			json_object_set_new(run, "import", imp);
		else
			json_object_set_new(run, "import", json_null());
	}
	*out = run;
	return 0;
}

int archive_run_update(struct archive *a, int64_t id, const char *labels_json,
		       const char *notes)
{
	int rc = update_run(a, "UPDATE runs SET labels=coalesce(?, labels),"
			       " notes=coalesce(?, notes) WHERE id=?",
			    labels_json, notes, id, "update run");

	if (rc < 0)
		return rc;
	return sqlite3_changes(a->db) ? 0 : -ENOENT;
}


/* Runs sql with one parameter, id. */
static int exec_id(struct archive *a, const char *sql, int64_t id)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	return step_done(a, st, "delete run");
}

static const char *const sort_cols[] = {"id", "started_at", "profile",
					 "fs_type", "target", "hostname"};

int archive_sort_ok(const char *sort)
{
	const char *c = sort && sort[0] == '-' ? sort + 1 : sort;

	for (size_t i = 0; c && i < sizeof(sort_cols) / sizeof(sort_cols[0]); i++)
		if (strcmp(c, sort_cols[i]) == 0)
			return 1;
	return 0;
}

int archive_run_delete(struct archive *a, int64_t id)
{
	json_t *rows = NULL;
	const char *state;
	int rc;

	/* the state is read inside the transaction that deletes */
	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	if ((rc = query_rows(a, "SELECT state FROM runs WHERE id=?", id, 0, 1,
			     &rows)) < 0)
		goto out;
	state = json_string_value(json_object_get(json_array_get(rows, 0), "state"));
	rc = !state ? -ENOENT : strcmp(state, "running") == 0 ? -EBUSY : 0;
	if (rc < 0)
		goto out;
	/* results and samples go with the run (ON DELETE CASCADE) */
	if ((rc = exec_id(a, "UPDATE jobs SET run_id=NULL WHERE run_id=?", id)) < 0)
		goto out;
	rc = exec_id(a, "DELETE FROM runs WHERE id=?", id);
out:
	json_decref(rows);
	return tx_end(a, rc);
}

/* The WHERE clause of f, its parameters in order into v[0..*n). */
static void filter_sql(const struct run_filter *f, char *sql, size_t len,
		       const char **v, int *n)
{
	const struct {
		const char *val, *clause;
		int uses; /* how many times the clause takes the value */
	} c[] = {
		{f->profile, "profile=?", 1},
		{f->fs_type, "fs_type=?", 1},
		{f->target, "target=?", 1},
		{f->state, "state=?", 1},
		{f->label, "EXISTS (SELECT 1 FROM json_each(runs.labels)"
			   " WHERE value=?)", 1},
		{f->server, "coalesce(json_extract(probe, '$.smb.server'),"
			    " hostname)=?", 1},
		{f->cluster_size, "CAST(json_extract(probe, '$.fs_block_size')"
				  " AS TEXT)=?", 1},
		{f->from, "started_at>=?", 1},
		/* a prefix: to=2026-11-30 takes the whole day */
		{f->to, "substr(started_at, 1, length(?))<=?", 2},
	};
	size_t k = 0;

	*n = 0;
	sql[0] = '\0';
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]) && k < len; i++) {
		if (!c[i].val)
			continue;
		for (int u = 0; u < c[i].uses; u++)
			v[(*n)++] = c[i].val;
		k += (size_t)snprintf(sql + k, len - k, "%s%s",
				      k ? " AND " : " WHERE ", c[i].clause);
	}
}

int archive_runs_json(struct archive *a, const struct run_filter *f,
		      int limit, int offset, json_t **out, int64_t *total)
{
	static const struct run_filter none = {0};
	json_t *runs, *run;
	const char *v[16];
	char where[2048], sql[4096], order[64];
	sqlite3_stmt *st;
	size_t i;
	int rc, n, src, desc;

	*out = NULL;
	if (!f)
		f = &none;
	if (f->sort && !archive_sort_ok(f->sort))
		return -EINVAL;
	desc = !f->sort || f->sort[0] == '-';
	filter_sql(f, where, sizeof(where), v, &n);
	snprintf(order, sizeof(order), "%s %s, id %s",
		 f->sort ? f->sort + (f->sort[0] == '-') : "id",
		 desc ? "DESC" : "ASC", desc ? "DESC" : "ASC");
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs%s", where);
	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	for (int k = 0; k < n; k++)
		sqlite3_bind_text(st, k + 1, v[k], -1, SQLITE_STATIC);
	*total = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql),
		 "SELECT id, job_id, state, profile, target,"
		 " labels AS labels_json, hostname, fs_type,"
		 " json_extract(probe, '$.fs_block_size') AS cluster_size,"
		 " coalesce(json_extract(probe, '$.smb.server'), hostname)"
		 "  AS server, started_at, finished_at FROM runs%s"
		 " ORDER BY %s LIMIT %d OFFSET %d",
		 where, order, limit, offset);
	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	for (int k = 0; k < n; k++)
		sqlite3_bind_text(st, k + 1, v[k], -1, SQLITE_STATIC);
	runs = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(runs, row_json(st));
	sqlite3_finalize(st);
	if (src != SQLITE_DONE) {
		json_decref(runs);
		return sql_err(a, src, "list runs");
	}
	json_array_foreach(runs, i, run)
	{
		json_t *tests, *t, *head = json_array();
		size_t j;
		rc = run_tests_json(
			a, json_integer_value(json_object_get(run, "id")), 0,
			&tests);
		if (rc < 0) {
			json_decref(head);
			json_decref(runs);
			return rc;
		}
		json_array_foreach(tests, j, t)
		{
			json_t *b = json_object_get(t, "best");
			json_array_append_new(
				head, json_pack("{s:O, s:O, s:O, s:O}", "test",
						json_object_get(t, "test"), "rw",
						json_object_get(t, "rw"), "mb_s",
						json_object_get(b, "mb_s"), "iops",
						json_object_get(b, "iops")));
		}
		json_decref(tests);
		json_object_set_new(run, "headline", head);
	}
	*out = runs;
	return 0;
}

int archive_runs_index(struct archive *a, const struct run_filter *f,
		       json_t **out)
{
	struct run_filter g = f ? *f : (struct run_filter){0};
	const char *v[16];
	char where[2048], sql[3072];
	sqlite3_stmt *st;
	int rc, n, src;

	g.state = "done";
	filter_sql(&g, where, sizeof(where), v, &n);
	snprintf(sql, sizeof(sql),
		 "SELECT id, profile, target, labels AS labels_json,"
		 " hostname, fs_type,"
		 " json_extract(probe, '$.fs_block_size') AS cluster_size,"
		 " coalesce(json_extract(probe, '$.smb.server'), hostname)"
		 "  AS server, started_at FROM runs%s ORDER BY id",
		 where);
	*out = NULL;
	if ((rc = prep(a, sql, &st)) < 0)
		return rc;
	for (int k = 0; k < n; k++)
		sqlite3_bind_text(st, k + 1, v[k], -1, SQLITE_STATIC);
	*out = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(*out, row_json(st));
	sqlite3_finalize(st);
	if (src != SQLITE_DONE) {
		json_decref(*out);
		*out = NULL;
		return sql_err(a, src, "index runs");
	}
	return 0;
}

int archive_samples_json(struct archive *a, int64_t run_id, json_t **out)
{
	json_t *run = NULL;
	int rc = query_one(a, "SELECT id FROM runs WHERE id=?", run_id, &run);

	*out = NULL;
	if (rc < 0)
		return rc;
	json_decref(run);
	/* rates from counts: per second, per direction; latency null when no
	 * I/O of that direction completed in that second */
	return query_rows(
		a,
		"SELECT test, rw, iteration, second AS t_s, length_s,"
		" json_object('iops', read_ios / length_s,"
		"  'mb_s', read_bytes / length_s / 1e6,"
		"  'lat_mean_us', CASE read_ios WHEN 0 THEN NULL"
		"   ELSE read_lat_sum_ns / 1e3 / read_ios END) AS read_json,"
		" json_object('iops', write_ios / length_s,"
		"  'mb_s', write_bytes / length_s / 1e6,"
		"  'lat_mean_us', CASE write_ios WHEN 0 THEN NULL"
		"   ELSE write_lat_sum_ns / 1e3 / write_ios END) AS write_json"
		" FROM samples WHERE run_id=? ORDER BY rowid",
		run_id, 0, 1, out);
}

int archive_import(struct archive *a, const struct archive_import_in *in,
		   int64_t *run_id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	*run_id = 0;
	now_text(now);
	if ((rc = exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	/* the same file twice is the same run (asked inside the transaction:
	 * two imports of one file at once make one run) */
	if ((rc = prep(a, "SELECT run_id FROM imports WHERE sha256=?", &st)) < 0)
		goto out;
	sqlite3_bind_text(st, 1, in->sha256, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (*run_id) {
		exec(a, "ROLLBACK");
		return -EEXIST;
	}
	if ((rc = prep(a, "INSERT INTO runs(job_id, state, profile, target,"
			  " spec, labels, notes, engine_version, engine_target,"
			  " direct, probe, warnings, hostname, fs_type,"
			  " started_at, finished_at) VALUES (NULL,'done',?,?,?,?,"
			  " ?,?,?,1,?,'[]',json_extract(?8,'$.hostname'),"
			  " json_extract(?8,'$.fs_type'),?,?)",
		       &st)) < 0)
		goto out;
	sqlite3_bind_text(st, 1, in->profile, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, in->target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, in->spec_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, in->labels_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, in->notes, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, in->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, in->tool, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, in->probe_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, in->started_at[0] ? in->started_at : now, -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 10, in->started_at[0] ? in->started_at : now, -1,
			  SQLITE_STATIC);
	if ((rc = step_done(a, st, "insert imported run")) < 0)
		goto out;
	*run_id = sqlite3_last_insert_rowid(a->db);
	for (size_t i = 0; i < in->n && rc == 0; i++) {
		const struct archive_import_result *t = &in->results[i];
		if ((rc = prep(a, "INSERT INTO results(run_id, test, rw, pattern,"
				  " block_size, queue_depth, threads, iteration, ios,"
				  " bytes, lat_sum_ns, window_ns, seconds, mb_s, mib_s,"
				  " iops, lat_mean_us, imported)"
				  " VALUES (?,?,?,?,?,?,?,1,0,0,0,0,0,?,?,?,?,1)",
			       &st)) < 0)
			break;
		sqlite3_bind_int64(st, 1, *run_id);
		sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, t->rw, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, t->pattern, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)t->block_size);
		sqlite3_bind_int(st, 6, t->queue_depth);
		sqlite3_bind_int(st, 7, t->threads);
		sqlite3_bind_double(st, 8, t->mb_s);
		sqlite3_bind_double(st, 9, t->mb_s * 1e6 / (1 << 20));
		/* IOPS not printed: it is the bytes per second over the block
		 * size, as the tool computes it; a latency not printed is
		 * stored as -1 and read back as null */
		sqlite3_bind_double(st, 10, t->iops >= 0 ? t->iops
				    : t->block_size ? t->mb_s * 1e6 / (double)t->block_size
						    : 0);
		sqlite3_bind_double(st, 11, t->lat_mean_us >= 0 ? t->lat_mean_us : -1);
		rc = step_done(a, st, "insert imported result");
	}
	if (rc < 0)
		goto out;
	if ((rc = prep(a, "INSERT INTO imports(run_id, tool, version, format,"
			  " sha256, filename, size, original, imported_at)"
			  " VALUES (?,?,?,?,?,?,?,?,?)",
		       &st)) < 0)
		goto out;
	sqlite3_bind_int64(st, 1, *run_id);
	sqlite3_bind_text(st, 2, in->tool, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, in->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, in->format, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, in->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, in->filename, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)in->len);
	sqlite3_bind_blob(st, 8, in->original, (int)in->len, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, now, -1, SQLITE_STATIC);
	rc = step_done(a, st, "insert import");
out:
	if ((rc = tx_end(a, rc)) < 0)
		*run_id = 0; /* rolled back */
	return rc;
}

int archive_import_original(struct archive *a, int64_t run_id, void **data,
			    size_t *len, char *filename, size_t fn_len)
{
	sqlite3_stmt *st;
	int rc;

	*data = NULL;
	if ((rc = prep(a, "SELECT original, filename FROM imports WHERE run_id=?",
		       &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	rc = -ENOENT;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		const unsigned char *f = sqlite3_column_text(st, 1);
		*len = (size_t)sqlite3_column_bytes(st, 0);
		snprintf(filename, fn_len, "%s", f ? (const char *)f : "original");
		rc = (*data = malloc(*len ? *len : 1)) ? 0 : -ENOMEM;
		if (rc == 0)
			memcpy(*data, b, *len);
	}
	sqlite3_finalize(st);
	return rc;
}
