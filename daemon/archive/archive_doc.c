/*
 * archive_doc — a run as a document that can move to another archive
 * (archive.h: archive_run_raw adds what the API's run does not show;
 * archive_run_restore stores such a run again, identity and all).
 *
 * What the API's run leaves out and a copy needs: each iteration's counts
 * the rates are computed from (window_ns, lat_sum_ns), its latency
 * histogram (hist_encode's bytes, base64: nettle) and whether its numbers
 * are another tool's, and the per-second samples as counts. Restored,
 * the same counts give the same rates, the same histograms the same
 * merged percentiles, byte for byte. Calls archive_sql.c and
 * archive_sums.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/base64.h>

#include "archive_int.h"
#include "os/os.h"

/* bytes as base64 text (a new JSON string), or null. */
static json_t *b64_json(const void *bytes, size_t len)
{
	char *out;
	json_t *s;

	if (!bytes || len == 0)
		return json_null();
	if (!(out = malloc(BASE64_ENCODE_RAW_LENGTH(len) + 1)))
		return NULL;
	base64_encode_raw(out, len, bytes);
	out[BASE64_ENCODE_RAW_LENGTH(len)] = '\0';
	s = json_string(out);
	free(out);
	return s;
}

/* Adds raw to each iteration of run's tests, in the order archive_run_json
 * lists them (the same ORDER BY). */
static int add_raw(struct archive *a, int64_t id, json_t *run)
{
	json_t *tests = json_object_get(run, "tests"), *t, *it;
	sqlite3_stmt *st;
	size_t i, k;
	int rc;

	if ((rc = archive_prep(
		     a,
		     "SELECT window_ns, lat_sum_ns, lat_hist, imported,"
		     " start_unix_ns,"
		     " min(id) OVER (PARTITION BY test, rw) AS grp"
		     " FROM results WHERE run_id=? ORDER BY grp, iteration, id",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	json_array_foreach(tests, i, t)
	{
		json_array_foreach(json_object_get(t, "iterations"), k, it)
		{
			json_t *raw, *h;
			if (sqlite3_step(st) != SQLITE_ROW) {
				rc = -EIO; /* the rows changed under us */
				goto out;
			}
			h = b64_json(sqlite3_column_blob(st, 2),
				     (size_t)sqlite3_column_bytes(st, 2));
			raw = json_pack("{s:I, s:I, s:o, s:b}", "window_ns",
					(json_int_t)sqlite3_column_int64(st, 0),
					"lat_sum_ns",
					(json_int_t)sqlite3_column_int64(st, 1),
					"histogram", h ? h : json_null(),
					"imported", sqlite3_column_int(st, 3));
			if (raw && sqlite3_column_type(st, 4) != SQLITE_NULL)
				json_object_set_new(
					raw, "start_unix_ns",
					json_integer(
						sqlite3_column_int64(st, 4)));
			if (!h || !raw ||
			    json_object_set_new(it, "raw", raw) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
	}
out:
	sqlite3_finalize(st);
	return rc;
}

int archive_run_raw(struct archive *a, int64_t id, json_t *run)
{
	json_t *samples;
	int rc;

	if ((rc = archive_exec(a, "BEGIN")) < 0)
		return rc;
	rc = add_raw(a, id, run);
	if (rc == 0 &&
	    (rc = archive_query_rows(
		     a,
		     "SELECT test, rw, iteration, second, length_s,"
		     " read_ios, read_bytes, read_lat_sum_ns, write_ios,"
		     " write_bytes, write_lat_sum_ns, host AS host_json,"
		     " device AS device_json FROM samples s"
		     " WHERE run_id=?1 AND EXISTS (SELECT 1 FROM results r"
		     "  WHERE r.run_id=?1 AND r.test=s.test AND r.rw=s.rw"
		     "  AND r.iteration=s.iteration) ORDER BY rowid",
		     id, 0, 1, &samples)) == 0)
		json_object_set_new(run, "samples", samples);
	archive_exec(a, "COMMIT"); /* a read: nothing to keep or lose */
	return rc;
}

/* Inserts one restored result row. */
static int restore_row(struct archive *a, int64_t run_id,
		       const struct archive_restore_row *r)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(a, ARCHIVE_RESULT_INSERT, &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, r->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->rw, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->pattern, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->block_size);
	sqlite3_bind_int64(st, 6, r->queue_depth);
	sqlite3_bind_int64(st, 7, r->threads);
	sqlite3_bind_int(st, 8, r->iteration);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)r->res.ios);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)r->res.bytes);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)r->res.lat_sum_ns);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)r->res.window_ns);
	sqlite3_bind_double(st, 13, r->res.seconds);
	sqlite3_bind_double(st, 14, r->res.mb_s);
	sqlite3_bind_double(st, 15, r->res.mib_s);
	sqlite3_bind_double(st, 16, r->res.iops);
	sqlite3_bind_double(st, 17, r->res.lat_mean_us);
	if (r->has_lat) {
		const double v[] = { r->lat.stdev, r->lat.min, r->lat.p50,
				     r->lat.p90,   r->lat.p99, r->lat.p999,
				     r->lat.p9999, r->lat.max };
		for (int i = 0; i < 8; i++)
			sqlite3_bind_double(st, 18 + i, v[i]);
	}
	if (r->has_cpu) {
		sqlite3_bind_double(st, 26, r->res.cpu_user_s);
		sqlite3_bind_double(st, 27, r->res.cpu_sys_s);
	}
	if (r->hist)
		sqlite3_bind_blob(st, 28, r->hist, (int)r->hist_len,
				  SQLITE_STATIC);
	if (r->sweep_field) {
		sqlite3_bind_text(st, 29, r->sweep_group, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 30, r->sweep_field, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 31, r->sweep_value);
	}
	if (r->error)
		sqlite3_bind_text(st, 32, r->error, -1, SQLITE_STATIC);
	if (r->allocated_bytes >= 0)
		sqlite3_bind_int64(st, 33, r->allocated_bytes);
	sqlite3_bind_int(st, 34, r->imported);
	if (r->res.start_unix_ns)
		sqlite3_bind_int64(st, 35, r->res.start_unix_ns);
	if ((rc = archive_step_done(a, st, "restore result")) < 0)
		return rc;
	return archive_stated_put(a, sqlite3_last_insert_rowid(a->db),
				  r->stated);
}

static int restore_sample(struct archive *a, int64_t run_id,
			  const struct archive_restore_sample *s)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(
		     a,
		     "INSERT INTO samples(run_id, test, rw, iteration, second,"
		     " length_s, read_ios, read_bytes, read_lat_sum_ns,"
		     " write_ios, write_bytes, write_lat_sum_ns, host, device)"
		     " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, s->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, s->rw, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, s->iteration);
	sqlite3_bind_int64(st, 5, s->second);
	sqlite3_bind_double(st, 6, s->length_s);
	for (int i = 0; i < 6; i++)
		sqlite3_bind_int64(st, 7 + i, s->counts[i]);
	for (int i = 0; i < 2; i++)
		if (s->ctr[i])
			sqlite3_bind_text(st, 13 + i, s->ctr[i], -1,
					  SQLITE_STATIC);
	return archive_step_done(a, st, "restore sample");
}

/* *run_id = the run that has uuid, or 0. */
static int run_of_uuid(struct archive *a, const char *uuid, int64_t *run_id)
{
	sqlite3_stmt *st;
	int rc = archive_prep(a, "SELECT id FROM runs WHERE uuid=?", &st);

	*run_id = 0;
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* Does run id hold n result rows (the same run as a document of n)? */
static int same_rows(struct archive *a, int64_t id, size_t n)
{
	sqlite3_stmt *st;
	int same = 0;

	if (archive_prep(a, "SELECT count(*) FROM results WHERE run_id=?",
			 &st) < 0)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		same = sqlite3_column_int64(st, 0) == (sqlite3_int64)n;
	sqlite3_finalize(st);
	return same;
}

int archive_run_restore(struct archive *a, const struct archive_restore *in,
			int64_t *run_id)
{
	const struct archive_import_in *im = &in->import;
	sqlite3_stmt *st;
	char now[32];
	int rc;

	*run_id = 0;
	if ((rc = archive_begin(a, now)) < 0)
		return rc;
	/* the same run, by its identity, or the same document (asked
	 * inside the transaction: two imports at once make one run) */
	if ((rc = run_of_uuid(a, in->uuid, run_id)) < 0)
		goto out;
	if (*run_id)
		return archive_tx_end(a, same_rows(a, *run_id, in->n_rows)
						 ? -EEXIST
						 : -ENOTUNIQ);
	if ((rc = archive_prep(
		     a,
		     "INSERT INTO runs(job_id, state, profile, target,"
		     " spec, labels, notes, engine_version, engine_target,"
		     " direct, probe, warnings, hostname, fs_type,"
		     " started_at, finished_at, uuid, wire) VALUES (NULL,?1,"
		     " ?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
		     " json_extract(?10,'$.hostname'),"
		     " json_extract(?10,'$.fs_type'),?12,?13,?14,?15)",
		     &st)) < 0)
		goto out;
	sqlite3_bind_text(st, 1, in->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, im->profile, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, im->target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, im->spec_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, im->labels_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, im->notes, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, in->engine_version, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, in->engine_target, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, in->direct);
	sqlite3_bind_text(st, 10, im->probe_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, im->warnings_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, im->started_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, in->finished_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, in->uuid, -1, SQLITE_STATIC);
	if (in->wire_json)
		sqlite3_bind_text(st, 15, in->wire_json, -1, SQLITE_STATIC);
	if ((rc = archive_step_done(a, st, "restore run")) < 0)
		goto out;
	*run_id = sqlite3_last_insert_rowid(a->db);
	for (size_t i = 0; i < in->n_rows && rc == 0; i++)
		rc = restore_row(a, *run_id, &in->rows[i]);
	for (size_t i = 0; i < in->n_samples && rc == 0; i++)
		rc = restore_sample(a, *run_id, &in->samples[i]);
	/* the run is summed once, below, with its windows */
	for (size_t i = 0; i < in->n_conds && rc == 0; i++)
		rc = archive_condition_row(
			a, *run_id, in->conds[i].test, in->conds[i].rw,
			in->conds[i].window_first, in->conds[i].window_last,
			in->conds[i].record);
	if (rc < 0 || (rc = archive_sums_run(a, *run_id)) < 0)
		goto out;
	rc = archive_import_row(a, *run_id, im, now);
out:
	if ((rc = archive_tx_end(a, rc)) < 0)
		*run_id = 0; /* rolled back */
	return rc;
}
