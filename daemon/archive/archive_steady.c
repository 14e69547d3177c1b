/*
 * archive_steady — a test's preconditioning and SNIA PTS steady state
 * (table test_conditions, schema version 10): one row per test that had
 * either, with the measurement window's first and last rounds (iterations)
 * and the record the run shows on the test (JSON text: {"precondition":
 * {…}, "steady_state": {…}}, either may be absent).
 *
 * Invariant: a test with a window is summed up over the window's rounds
 * only (archive_sums.c reads window_first and window_last), so the list's
 * headline, /metrics and compare see the window, as the PTS reports it;
 * writing the row rewrites the test's summary in the same transaction.
 * Calls archive_sql.c and archive_sums.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

int archive_condition_row(struct archive *a, int64_t run_id, const char *test,
			  const char *rw, int window_first, int window_last,
			  json_t *record)
{
	char *text = json_dumps(record, JSON_COMPACT);
	sqlite3_stmt *st = NULL;
	int rc;

	if (!text)
		return -ENOMEM;
	if ((rc = archive_prep(a,
			       "INSERT OR REPLACE INTO test_conditions(run_id,"
			       " test, rw, window_first, window_last, record)"
			       " VALUES (?,?,?,?,?,?)",
			       &st)) == 0) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, test, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, rw, -1, SQLITE_STATIC);
		if (window_first > 0) {
			sqlite3_bind_int(st, 4, window_first);
			sqlite3_bind_int(st, 5, window_last);
		}
		sqlite3_bind_text(st, 6, text, -1, SQLITE_STATIC);
		rc = archive_step_done(a, st, "store steady state");
	}
	free(text);
	return rc;
}

int archive_condition_put(struct archive *a, int64_t run_id, const char *test,
			  const char *rw, int window_first, int window_last,
			  json_t *record)
{
	int own = sqlite3_get_autocommit(a->db), rc;

	if (own && (rc = archive_exec(a, "BEGIN IMMEDIATE")) < 0)
		return rc;
	rc = archive_condition_row(a, run_id, test, rw, window_first,
				   window_last, record);
	if (rc == 0)
		rc = archive_sums_test(a, run_id, test, rw);
	return own ? archive_tx_end(a, rc) : rc;
}

/* A steady-state test's result as its `best`: the window's averages
 * {mb_s, iops, lat_mean_us} with window {first, last} and rounds, so every
 * view that shows a test's best (the CrystalDiskMark text, sweep
 * efficiency, the CLI) shows the window, as the summaries do. */
static void best_of_window(json_t *t)
{
	json_t *ss = json_object_get(t, "steady_state");
	json_t *r = json_object_get(ss, "result"),
	       *m = json_object_get(ss, "measurement");

	if (!json_is_object(r) || !json_is_object(m))
		return;
	json_object_set_new(
		t, "best",
		json_pack("{s:O, s:O, s:O, s:{s:O, s:O}, s:O}", "mb_s",
			  json_object_get(r, "mb_s"), "iops",
			  json_object_get(r, "iops"), "lat_mean_us",
			  json_object_get(r, "lat_mean_us"), "window", "first",
			  json_object_get(m, "first"), "last",
			  json_object_get(m, "last"), "rounds",
			  json_object_get(ss, "rounds")));
}

int archive_conditions_attach(struct archive *a, int64_t run_id, json_t *tests)
{
	json_t *rows;
	int rc = archive_query_rows(a,
				    "SELECT test, rw, record AS record_json"
				    " FROM test_conditions WHERE run_id=?",
				    run_id, 0, 1, &rows);
	size_t i, k;
	json_t *row, *t;

	if (rc < 0)
		return rc;
	json_array_foreach(rows, i, row)
	{
		const char *name =
			json_string_value(json_object_get(row, "test"));
		const char *rw = json_string_value(json_object_get(row, "rw"));
		json_array_foreach(tests, k, t)
		{
			if (strcmp(json_string_value(
					   json_object_get(t, "test")),
				   name) == 0 &&
			    strcmp(json_string_value(json_object_get(t, "rw")),
				   rw) == 0) {
				json_object_update(
					t, json_object_get(row, "record"));
				best_of_window(t);
			}
		}
	}
	json_decref(rows);
	return 0;
}
