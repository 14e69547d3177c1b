/*
 * archive_history — one test's metric over a target's runs, oldest first:
 * what a history (compare/history.c) draws and looks for change points in.
 * Reads each run's stored summary of the test (test_summaries: the mean
 * and sd over its iterations, as compare uses them), through the runs'
 * target index (migration 18), so 2,000 runs of one target are one index
 * range and as many primary-key lookups. Calls archive_sql.c only.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archive_int.h"

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

int archive_history(struct archive *a, const struct archive_history_q *q,
		    json_t **out)
{
	char sql[1024];
	sqlite3_stmt *st;
	json_t *rows;
	int i, src, rc;

	for (i = 0; i < ARCHIVE_SUM_METRICS &&
		    strcmp(q->metric, archive_sum_metrics[i]);
	     i++)
		;
	if (i == ARCHIVE_SUM_METRICS)
		return -EINVAL;
	/* the metric's name is one of the table's own column prefixes */
	snprintf(sql, sizeof(sql),
		 "SELECT r.id AS run_id, r.started_at, r.hostname,"
		 " r.labels AS labels_json, s.pattern, s.%s_n AS n,"
		 " s.%s_mean AS mean, s.%s_sd AS sd"
		 " FROM runs r JOIN test_summaries s ON s.run_id=r.id"
		 " AND s.test=?3 AND s.rw=?4"
		 " WHERE r.target=?1 AND r.profile=?2 AND r.state='done'"
		 " AND (?5 IS NULL OR r.hostname=?5) AND s.%s_n > 0"
		 " ORDER BY r.started_at, r.id",
		 q->metric, q->metric, q->metric, q->metric);
	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	bind_text(st, 1, q->target);
	bind_text(st, 2, q->profile);
	bind_text(st, 3, q->test);
	bind_text(st, 4, q->rw);
	bind_text(st, 5, q->host);
	rows = json_array();
	while (rows && (src = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *row = archive_row_json(st);
		json_t *sd = json_object_get(row, "sd");
		/* one iteration has no spread: null, not 0 */
		if (json_integer_value(json_object_get(row, "n")) < 2 ||
		    (json_is_real(sd) && !isfinite(json_real_value(sd))))
			json_object_set_new(row, "sd", json_null());
		if (!row || json_array_append_new(rows, row) < 0) {
			json_decref(rows);
			rows = NULL;
		}
	}
	if (!rows) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	if (src != SQLITE_DONE) {
		rc = archive_sql_err(a, src, "reading a history");
		sqlite3_finalize(st);
		json_decref(rows);
		return rc;
	}
	sqlite3_finalize(st);
	*out = rows;
	return 0;
}
