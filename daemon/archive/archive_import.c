/*
 * archive_import — runs another tool measured (CrystalDiskMark, fio,
 * DiskSpd; daemon/import/import.h parses them), stored as done runs without a
 * job, one iteration per printed result, with the original file.
 *
 * The numbers are kept as the tool printed them (results.imported = 1: MB/s,
 * IOPS and mean latency, -1 for one it did not print). What the file
 * states beside them (bytes, I/Os, the test's time, latency percentiles at
 * the levels it printed) is results.stated, JSON as the API serves it, and
 * fills the counts and latency columns it gives (archive_stated_put), so
 * summaries and compare read an imported p99 as a measured one; a count
 * the file does not state is 0 there and null in the API. A file
 * is known by its SHA-256: importing it again, even from two requests at
 * once, finds the first run (the check is inside the transaction that
 * writes). Calls archive_sql.c and archive_sums.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

int archive_import_row(struct archive *a, int64_t run_id,
		       const struct archive_import_in *in, const char *now)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(
		     a,
		     "INSERT INTO imports(run_id, tool, version, format,"
		     " sha256, filename, size, original, imported_at, part)"
		     " VALUES (?,?,?,?,?,?,?,?,?,?)",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, in->tool, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, in->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, in->format, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, in->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, in->filename, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)in->len);
	sqlite3_bind_blob(st, 8, in->original, (int)in->len, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, now, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 10, in->part);
	return archive_step_done(a, st, "insert import");
}

int archive_stated_put(struct archive *a, int64_t id, const char *stated)
{
	sqlite3_stmt *st;
	int rc;

	if (!stated)
		return 0;
	if ((rc = archive_prep(
		     a,
		     "UPDATE results SET stated=json(?2),"
		     " ios=coalesce(json_extract(?2,'$.ios'),0),"
		     " bytes=coalesce(json_extract(?2,'$.bytes'),0),"
		     " seconds=coalesce(json_extract(?2,'$.seconds'),0),"
		     " window_ns=coalesce(CAST(round(1e9*"
		     "  json_extract(?2,'$.seconds')) AS INTEGER),0),"
		     " lat_stdev_us=json_extract(?2,'$.latency_us.stdev'),"
		     " lat_min_us=json_extract(?2,'$.latency_us.min'),"
		     " lat_p50_us=json_extract(?2,'$.latency_us.p50'),"
		     " lat_p90_us=json_extract(?2,'$.latency_us.p90'),"
		     " lat_p99_us=json_extract(?2,'$.latency_us.p99'),"
		     " lat_p999_us=json_extract(?2,'$.latency_us.\"p99.9\"'),"
		     " lat_p9999_us="
		     "  json_extract(?2,'$.latency_us.\"p99.99\"'),"
		     " lat_max_us=json_extract(?2,'$.latency_us.max')"
		     " WHERE id=?1",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, stated, -1, SQLITE_STATIC);
	return archive_step_done(a, st, "store what an import states");
}

int archive_import(struct archive *a, const struct archive_import_in *in,
		   int64_t *run_id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	*run_id = 0;
	if ((rc = archive_begin(a, now)) < 0)
		return rc;
	/* the same file twice is the same run (asked inside the transaction:
	 * two imports of one file at once make one run) */
	if ((rc = archive_prep(
		     a, "SELECT run_id FROM imports WHERE sha256=? AND part=?",
		     &st)) < 0)
		goto out;
	sqlite3_bind_text(st, 1, in->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, in->part);
	if (sqlite3_step(st) == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (*run_id)
		return archive_tx_end(a, -EEXIST);
	if ((rc = archive_prep(
		     a,
		     "INSERT INTO runs(job_id, state, profile, target,"
		     " spec, labels, notes, engine_version, engine_target,"
		     " direct, probe, warnings, hostname, fs_type,"
		     " started_at, finished_at, uuid) VALUES (NULL,'done',"
		     " ?,?,?,?,?,?,?,1,?,?11,json_extract(?8,'$.hostname'),"
		     " json_extract(?8,'$.fs_type'),?9,?10," ARCHIVE_NEW_UUID
		     ")",
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
	sqlite3_bind_text(st, 11, in->warnings_json ? in->warnings_json : "[]",
			  -1, SQLITE_STATIC);
	if ((rc = archive_step_done(a, st, "insert imported run")) < 0)
		goto out;
	*run_id = sqlite3_last_insert_rowid(a->db);
	for (size_t i = 0; i < in->n && rc == 0; i++) {
		const struct archive_import_result *t = &in->results[i];
		if ((rc = archive_prep(
			     a,
			     "INSERT INTO results(run_id, test, rw, pattern,"
			     " block_size, queue_depth, threads, iteration, "
			     "ios,"
			     " bytes, lat_sum_ns, window_ns, seconds, mb_s, "
			     "mib_s,"
			     " iops, lat_mean_us, lat_hist, imported)"
			     " VALUES (?,?,?,?,?,?,?,1,0,0,0,0,0,?,?,?,?,?,1)",
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
		sqlite3_bind_double(
			st, 10,
			t->iops >= 0	? t->iops
			: t->block_size ? t->mb_s * 1e6 / (double)t->block_size
					: 0);
		sqlite3_bind_double(st, 11,
				    t->lat_mean_us >= 0 ? t->lat_mean_us : -1);
		if (t->hist)
			sqlite3_bind_blob(st, 12, t->hist, (int)t->hist_len,
					  SQLITE_STATIC);
		if ((rc = archive_step_done(a, st, "insert imported result")) ==
		    0)
			rc = archive_stated_put(
				a, sqlite3_last_insert_rowid(a->db), t->stated);
	}
	if (rc < 0 || (rc = archive_sums_run(a, *run_id)) < 0)
		goto out;
	rc = archive_import_row(a, *run_id, in, now);
out:
	if ((rc = archive_tx_end(a, rc)) < 0)
		*run_id = 0; /* rolled back */
	return rc;
}

int archive_import_original(struct archive *a, int64_t run_id, void **data,
			    size_t *len, char *filename, size_t fn_len)
{
	sqlite3_stmt *st;
	int rc;

	*data = NULL;
	if ((rc = archive_prep(
		     a, "SELECT original, filename FROM imports WHERE run_id=?",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	rc = -ENOENT;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		const unsigned char *f = sqlite3_column_text(st, 1);
		*len = (size_t)sqlite3_column_bytes(st, 0);
		snprintf(filename, fn_len, "%s",
			 f ? (const char *)f : "original");
		rc = (*data = malloc(*len ? *len : 1)) ? 0 : -ENOMEM;
		if (rc == 0)
			memcpy(*data, b, *len);
	}
	sqlite3_finalize(st);
	return rc;
}
