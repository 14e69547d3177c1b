/*
 * archive_sql — the archive's connection helpers, shared by every
 * archive_*.c file (archive_int.h): errors, statements, transactions, the
 * clock, and rows as JSON.
 *
 * Every statement is prepared, bound and finalised inside the function that
 * uses it; SQLite result codes become negative errnos here and nowhere else
 * (archive_sql_err). Rows become JSON through archive_row_json(), which maps
 * each column by its SQLite type and parses the columns whose name ends in
 * "_json" (stored JSON texts such as labels and probe), dropping that
 * suffix. Calls nothing else of the archive.
 */
#include <errno.h>
#include <string.h>

#include "archive_int.h"
#include "platform/log.h"

int archive_sql_err(struct archive *a, int src, const char *what)
{
	log_error("archive: %s: %s (%d)", what, sqlite3_errmsg(a->db), src);
	return src == SQLITE_NOMEM			      ? -ENOMEM
	       : (src == SQLITE_BUSY || src == SQLITE_LOCKED) ? -EBUSY
	       : (src & 0xff) == SQLITE_FULL		      ? -ENOSPC
							      : -EIO;
}

int archive_exec(struct archive *a, const char *sql)
{
	char *msg = NULL;
	int src = sqlite3_exec(a->db, sql, NULL, NULL, &msg);

	if (src != SQLITE_OK) {
		log_error("archive: %s", msg ? msg : sqlite3_errstr(src));
		sqlite3_free(msg);
		return src == SQLITE_BUSY	     ? -EBUSY
		       : (src & 0xff) == SQLITE_FULL ? -ENOSPC
						     : -EIO;
	}
	return 0;
}

/* Ends the transaction a BEGIN opened: COMMIT when rc is 0, else ROLLBACK
 * and rc. */
int archive_tx_end(struct archive *a, int rc)
{
	if (a->batch)
		return rc; /* the batch ends it */
	if (rc < 0) {
		archive_exec(a, "ROLLBACK");
		return rc;
	}
	return archive_exec(a, "COMMIT");
}

int archive_prep(struct archive *a, const char *sql, sqlite3_stmt **st)
{
	int src = sqlite3_prepare_v2(a->db, sql, -1, st, NULL);

	return src == SQLITE_OK ? 0 : archive_sql_err(a, src, "prepare");
}

/* Steps a statement that returns no rows and finalises it. */
int archive_step_done(struct archive *a, sqlite3_stmt *st, const char *what)
{
	int src = sqlite3_step(st);
	int rc = src == SQLITE_DONE ? 0 : archive_sql_err(a, src, what);

	sqlite3_finalize(st);
	return rc;
}

/* Runs sql, an UPDATE of runs with two text parameters and the run id. */
int archive_run_set(struct archive *a, const char *sql, const char *t1,
		    const char *t2, int64_t id, const char *what)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	sqlite3_bind_text(st, 1, t1, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, t2, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, id);
	return archive_step_done(a, st, what);
}

void archive_now_text(char buf[32])
{
	log_utc_now(buf);
}

int archive_begin(struct archive *a, char now[32])
{
	archive_now_text(now);
	return a->batch ? 0 : archive_exec(a, "BEGIN IMMEDIATE");
}

int archive_batch_begin(struct archive *a)
{
	int rc = archive_exec(a, "BEGIN IMMEDIATE");

	a->batch = rc == 0;
	return rc;
}

int archive_batch_end(struct archive *a, int rc)
{
	a->batch = 0;
	return archive_tx_end(a, rc);
}

/* The current row as a JSON object (see the file comment). */
json_t *archive_row_json(sqlite3_stmt *st)
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
				v = json_loads(
					(const char *)sqlite3_column_text(st,
									  i),
					JSON_DECODE_ANY, NULL);
			} else {
				v = json_string(
					(const char *)sqlite3_column_text(st,
									  i));
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
 * appended to *out as archive_row_json(). */
int archive_query_rows(struct archive *a, const char *sql, int64_t p1,
		       int64_t p2, int nparams, json_t **out)
{
	sqlite3_stmt *st;
	json_t *arr;
	int rc, src;

	*out = NULL;
	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	if (nparams >= 1)
		sqlite3_bind_int64(st, 1, p1);
	if (nparams >= 2)
		sqlite3_bind_int64(st, 2, p2);
	arr = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(arr, archive_row_json(st));
	if (src != SQLITE_DONE) {
		rc = archive_sql_err(a, src, "query");
		json_decref(arr);
		arr = NULL;
	}
	sqlite3_finalize(st);
	*out = arr;
	return rc;
}

int archive_query_one(struct archive *a, const char *sql, int64_t id,
		      json_t **out)
{
	json_t *arr;
	int rc = archive_query_rows(a, sql, id, 0, 1, &arr);

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
