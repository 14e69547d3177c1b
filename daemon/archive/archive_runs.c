/*
 * archive_runs — the writes of a running job: its run, each iteration's
 * result (with its whole latency histogram), the per-second samples, and
 * the test files it made; then a run's labels and notes, and deleting one.
 *
 * Samples are streamed while an iteration runs (archive_sample_put, one
 * second a statement) and replaced at its end by the final seconds, whose
 * last may fold in the ragged end (engine.h): a second streamed beyond
 * the final ones is deleted, so an iteration ends with exactly its
 * samples. A result, its test's summary (archive_sums.c) and its samples
 * go in one transaction. Test files are
 * recorded before the engine creates them, so a crash leaves a list to
 * clean up. Calls archive_sql.c and archive_sums.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"
#include "platform/utf8.h"

int archive_run_create(struct archive *a, int64_t job_id,
		       const struct job_spec *s, const char *spec_json,
		       const char *probe_json, const char *engine_target,
		       int direct, const char *warnings_json, int64_t *run_id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = archive_begin(a, now)) < 0)
		return rc;
	if ((rc = archive_prep(
		     a,
		     "INSERT INTO runs(job_id, state, profile, target,"
		     " spec, labels, notes, engine_version, engine_target,"
		     " direct, probe, warnings, hostname, fs_type,"
		     " started_at, uuid) VALUES (?,'running',?,?,?,?,?,?,?,?,"
		     " ?,?,json_extract(?10,'$.hostname'),"
		     " json_extract(?10,'$.fs_type'),?," ARCHIVE_NEW_UUID ")",
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
	if ((rc = archive_step_done(a, st, "insert run")) < 0)
		goto out;
	*run_id = sqlite3_last_insert_rowid(a->db);
	/* an interleaved job's first run is its run_id */
	if ((rc = archive_prep(a,
			       "UPDATE jobs SET run_id=? WHERE id=?"
			       " AND run_id IS NULL",
			       &st)) < 0)
		goto out;
	sqlite3_bind_int64(st, 1, *run_id);
	sqlite3_bind_int64(st, 2, job_id);
	rc = archive_step_done(a, st, "link run");
out:
	return archive_tx_end(a, rc);
}

int archive_run_wire(struct archive *a, int64_t run_id, const char *wire_json)
{
	sqlite3_stmt *st;
	int rc =
		archive_prep(a, "UPDATE runs SET wire=json(?) WHERE id=?", &st);

	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, wire_json, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, run_id);
	return archive_step_done(a, st, "run wire");
}

int archive_run_warn(struct archive *a, int64_t run_id, const char *text)
{
	sqlite3_stmt *st;
	char *t = strdup(text);
	int rc;

	if (!t)
		return -ENOMEM;
	utf8_sanitize(t); /* it names paths; the warnings are JSON */
	if ((rc = archive_prep(a,
			       "UPDATE runs SET warnings=json_insert(warnings,"
			       " '$[#]', ?) WHERE id=?",
			       &st)) < 0) {
		free(t);
		return rc;
	}
	sqlite3_bind_text(st, 1, t, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, run_id);
	free(t);
	return archive_step_done(a, st, "add warning");
}

int archive_result_insert(struct archive *a, int64_t run_id,
			  const struct workload *t, int iteration,
			  const struct result *r, const struct hist *h)
{
	return archive_result_insert_note(a, run_id, t, iteration, r, h, NULL,
					  -1);
}

/* Inserts one result row (result_insert_note's statement). */
static int result_row(struct archive *a, int64_t run_id,
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
	if ((rc = archive_prep(a, ARCHIVE_RESULT_INSERT, &st)) < 0) {
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
		const double v[] = { ls.stdev, ls.min,	ls.p50,	  ls.p90,
				     ls.p99,   ls.p999, ls.p9999, ls.max };
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
	sqlite3_bind_int(st, 34, 0); /* measured here */
	if (r->start_unix_ns)
		sqlite3_bind_int64(st, 35, r->start_unix_ns);
	return archive_step_done(a, st, "insert result");
}

/* The result and its test's summary rewritten (archive_sums.c) go
 * together: in the caller's transaction, or in one of their own. */
int archive_result_insert_note(struct archive *a, int64_t run_id,
			       const struct workload *t, int iteration,
			       const struct result *r, const struct hist *h,
			       const char *error, int64_t allocated_bytes)
{
	int own = sqlite3_get_autocommit(a->db), rc;

	if (own && (rc = archive_exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	rc = result_row(a, run_id, t, iteration, r, h, error, allocated_bytes);
	if (rc == 0)
		rc = archive_sums_test(a, run_id, t->name, wl_rw(t));
	return own ? archive_tx_end(a, rc) : rc;
}

/* A second of samples, written over one reported before (the end of an
 * iteration replaces what was streamed while it ran). */
#define SAMPLE_UPSERT                                                          \
	"INSERT INTO samples(run_id, test, rw, iteration, second, length_s,"   \
	" read_ios, read_bytes, read_lat_sum_ns, write_ios, write_bytes,"      \
	" write_lat_sum_ns, host, device)"                                     \
	" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"                                \
	" ON CONFLICT (run_id, test, rw, iteration, second) DO UPDATE SET"     \
	" length_s=excluded.length_s, read_ios=excluded.read_ios,"             \
	" read_bytes=excluded.read_bytes,"                                     \
	" read_lat_sum_ns=excluded.read_lat_sum_ns,"                           \
	" write_ios=excluded.write_ios, write_bytes=excluded.write_bytes,"     \
	" write_lat_sum_ns=excluded.write_lat_sum_ns, host=excluded.host,"     \
	" device=excluded.device"

/* Binds JSON object o (stolen; NULL binds NULL) as text to column i. */
static void bind_json(sqlite3_stmt *st, int i, json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	if (text)
		sqlite3_bind_text(st, i, text, -1, free);
	else
		sqlite3_bind_null(st, i);
}

static void bind_sample(sqlite3_stmt *st, int64_t run_id,
			const struct workload *t, int iteration,
			unsigned second, double length_s,
			const struct engine_sample *s,
			const struct hostctr_sample *c)
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
		sqlite3_bind_int64(st, 9 + 3 * d,
				   (sqlite3_int64)s->lat_sum_ns[d]);
	}
	bind_json(st, 13, archive_ctr_host(c));
	bind_json(st, 14, archive_ctr_device(c, length_s));
}

/* Every second of smp, over what was streamed, and none after its last
 * (inside the caller's transaction). */
static int samples_put(struct archive *a, int64_t run_id,
		       const struct workload *t, int iteration,
		       const struct engine_samples *smp)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = archive_prep(a, SAMPLE_UPSERT, &st)) < 0)
		return rc;
	for (unsigned i = 0; i < smp->n && rc == 0; i++) {
		int src;
		sqlite3_reset(st);
		bind_sample(st, run_id, t, iteration, i,
			    engine_second_len(smp, i), &smp->s[i],
			    smp->ctr ? &smp->ctr[i] : NULL);
		src = sqlite3_step(st);
		if (src != SQLITE_DONE)
			rc = archive_sql_err(a, src, "insert sample");
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	/* a second streamed that the end folded into the one before */
	if ((rc = archive_prep(
		     a,
		     "DELETE FROM samples WHERE run_id=? AND test=? AND"
		     " rw=? AND iteration=? AND second>=?",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, wl_rw(t), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, iteration);
	sqlite3_bind_int(st, 5, (int)smp->n);
	return archive_step_done(a, st, "trim samples");
}

int archive_samples_insert(struct archive *a, int64_t run_id,
			   const struct workload *t, int iteration,
			   const struct engine_samples *smp)
{
	int rc;

	if ((rc = archive_exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	return archive_tx_end(a, samples_put(a, run_id, t, iteration, smp));
}

int archive_sample_put(struct archive *a, int64_t run_id,
		       const struct workload *t, int iteration, unsigned second,
		       const struct engine_sample *s,
		       const struct hostctr_sample *c)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(a, SAMPLE_UPSERT, &st)) < 0)
		return rc;
	bind_sample(st, run_id, t, iteration, second, 1.0, s, c);
	return archive_step_done(a, st, "insert sample");
}

int archive_iteration_insert(struct archive *a, int64_t run_id,
			     const struct workload *t, int iteration,
			     const struct result *r, const struct hist *h,
			     const struct engine_samples *smp)
{
	int rc;

	if ((rc = archive_exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	rc = archive_result_insert(a, run_id, t, iteration, r, h);
	if (rc == 0 && smp)
		rc = samples_put(a, run_id, t, iteration, smp);
	return archive_tx_end(a, rc);
}

/* --- test files --- */

static int path_stmt(struct archive *a, const char *sql, const char *path,
		     int64_t job_id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	archive_now_text(now);
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (sqlite3_bind_parameter_count(st) >= 3) {
		sqlite3_bind_int64(st, 2, job_id);
		sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	}
	return archive_step_done(a, st, "test file");
}

int archive_testfile_add(struct archive *a, const char *path, int64_t job_id)
{
	return path_stmt(a,
			 "INSERT OR REPLACE INTO test_files(path, job_id,"
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

	if ((rc = archive_prep(a, "SELECT path FROM test_files", &st)) < 0)
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW)
		fn(arg, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

int archive_run_update(struct archive *a, int64_t id, const char *labels_json,
		       const char *notes)
{
	int rc = archive_run_set(a,
				 "UPDATE runs SET labels=coalesce(?, labels),"
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

	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	return archive_step_done(a, st, "delete run");
}

int archive_run_delete(struct archive *a, int64_t id)
{
	json_t *rows = NULL;
	const char *state;
	int rc;

	/* the state is read inside the transaction that deletes */
	if ((rc = archive_exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	if ((rc = archive_query_rows(a, "SELECT state FROM runs WHERE id=?", id,
				     0, 1, &rows)) < 0)
		goto out;
	state = json_string_value(
		json_object_get(json_array_get(rows, 0), "state"));
	rc = !state ? -ENOENT : strcmp(state, "running") == 0 ? -EBUSY : 0;
	if (rc < 0)
		goto out;
	/* results and samples go with the run (ON DELETE CASCADE) */
	if ((rc = exec_id(a, "UPDATE jobs SET run_id=NULL WHERE run_id=?",
			  id)) < 0)
		goto out;
	rc = exec_id(a, "DELETE FROM runs WHERE id=?", id);
out:
	json_decref(rows);
	return archive_tx_end(a, rc);
}
