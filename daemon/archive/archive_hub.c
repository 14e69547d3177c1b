/*
 * archive_hub — what a hub (`storbench serve --hub URL`) has of this
 * archive's runs: table hub_pushes (schema version 16), one row per run
 * and hub URL once the hub took the run (state pushed, with the hub's id
 * of it) or refused it (state refused, with the hub's status and detail).
 *
 * Invariant: a run that has ended (done, failed, cancelled, interrupted;
 * measured here or imported) and has no row for a hub is pending for that
 * hub; nothing else is kept, so a daemon that restarts finds its pending
 * runs again, and a new hub URL starts with every ended run pending (the
 * hub's uuid dedupe answers those it has as duplicates). Deleting a run
 * deletes its rows (ON DELETE CASCADE). Calls archive_sql.c only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "archive_int.h"

/* An ended run that hub has no row for (SQL over runs). */
#define PENDING                                                                \
	"state<>'running' AND NOT EXISTS (SELECT 1 FROM hub_pushes h"          \
	" WHERE h.run_id=runs.id AND h.hub=?1)"

int archive_hub_next(struct archive *a, const char *hub, int64_t after,
		     int64_t *run_id)
{
	sqlite3_stmt *st;
	int rc, src;

	*run_id = 0;
	if ((rc = archive_prep(a,
			       "SELECT id FROM runs WHERE id>?2 AND " PENDING
			       " ORDER BY id LIMIT 1",
			       &st)) < 0)
		return rc;
	sqlite3_bind_text(st, 1, hub, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, after);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	else if (src == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = archive_sql_err(a, src, "the hub's next run");
	sqlite3_finalize(st);
	return rc;
}

int archive_hub_mark(struct archive *a, int64_t run_id, const char *hub,
		     int pushed, int64_t hub_run_id, long status,
		     const char *detail)
{
	char now[32];
	sqlite3_stmt *st;
	int rc;

	archive_now_text(now);
	/* a run deleted meanwhile gets no row (and no foreign-key error) */
	if ((rc = archive_prep(
		     a,
		     "INSERT OR REPLACE INTO hub_pushes(run_id, hub, state,"
		     " hub_run_id, status, detail, at)"
		     " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7"
		     " WHERE EXISTS (SELECT 1 FROM runs WHERE id=?1)",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, hub, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, pushed ? "pushed" : "refused", -1,
			  SQLITE_STATIC);
	if (pushed && hub_run_id > 0)
		sqlite3_bind_int64(st, 4, hub_run_id);
	if (status > 0)
		sqlite3_bind_int64(st, 5, status);
	if (detail)
		sqlite3_bind_text(st, 6, detail, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, now, -1, SQLITE_STATIC);
	if ((rc = archive_step_done(a, st, "record a hub's answer")) < 0)
		return rc;
	return sqlite3_changes(a->db) ? 0 : -ENOENT;
}

int archive_hub_json(struct archive *a, const char *hub, int n_refusals,
		     json_t **out)
{
	sqlite3_stmt *st = NULL;
	json_t *o = NULL, *list = NULL;
	int rc, src;

	*out = NULL;
	if ((rc = archive_prep(
		     a,
		     "SELECT (SELECT count(*) FROM hub_pushes WHERE hub=?1"
		     "  AND state='pushed') AS pushed,"
		     " (SELECT count(*) FROM runs WHERE " PENDING
		     ") AS pending,"
		     " (SELECT count(*) FROM hub_pushes WHERE hub=?1"
		     "  AND state='refused') AS refused,"
		     " (SELECT count(*) FROM runs WHERE state='running')"
		     "  AS running",
		     &st)) < 0)
		return rc;
	sqlite3_bind_text(st, 1, hub, -1, SQLITE_STATIC);
	if ((src = sqlite3_step(st)) != SQLITE_ROW) {
		rc = archive_sql_err(a, src, "count a hub's runs");
		goto out;
	}
	o = archive_row_json(st);
	sqlite3_finalize(st);
	if ((rc = archive_prep(a,
			       "SELECT run_id, status, detail, at FROM"
			       " hub_pushes WHERE hub=?1 AND state='refused'"
			       " ORDER BY at DESC, run_id DESC LIMIT ?2",
			       &st)) < 0) {
		st = NULL;
		goto out;
	}
	sqlite3_bind_text(st, 1, hub, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, n_refusals);
	list = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(list, archive_row_json(st));
	if (src != SQLITE_DONE) {
		rc = archive_sql_err(a, src, "list a hub's refusals");
		goto out;
	}
	if (!o || json_object_set_new(o, "refusals", list) < 0)
		rc = -ENOMEM;
	list = NULL;
out:
	sqlite3_finalize(st);
	json_decref(list);
	if (rc < 0)
		json_decref(o);
	else
		*out = o;
	return rc;
}
