/*
 * archive_queue — the durable job queue, in the archive's jobs table.
 *
 * A job's life is a column: queued -> running (claim) -> done, failed,
 * cancelled or interrupted. Claiming is one UPDATE … RETURNING on the oldest
 * queued job, so two workers never take the same one; a job ends together
 * with its run (archive_job_finish, one transaction), and at start-up every
 * job and run still `running` was cut short by a stop or a crash
 * (archive_interrupt_running). Calls archive_sql.c, and archive.c for
 * job_spec_clear.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

int archive_job_insert(struct archive *a, const struct job_spec *s, int64_t *id)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = archive_prep(
		     a,
		     "INSERT INTO jobs(state, profile, target, size,"
		     " iterations, duration_s, interval_s, labels, notes,"
		     " created_at, plan, engine, direct, options, smb,"
		     " compare_with, hosts, fleet)"
		     " VALUES ('queued',?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		     &st)) < 0)
		return rc;
	archive_now_text(now);
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
	sqlite3_bind_text(st, 15, s->compare_with_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 16, s->hosts_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 17, s->fleet_json, -1, SQLITE_STATIC);
	if ((rc = archive_step_done(a, st, "insert job")) == 0)
		*id = sqlite3_last_insert_rowid(a->db);
	return rc;
}

const char *const archive_job_states[ARCHIVE_N_STATES] = {
	"queued", "running", "done", "failed", "cancelled", "interrupted"
};

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

int archive_job_claim_next(struct archive *a, int64_t *id, struct job_spec *s)
{
	return archive_job_claim(a, 0, id, s);
}

/* The oldest queued job (or job only) of this host (hosts 0) or of
 * several (1) moved to running. */
static int claim(struct archive *a, int64_t only, int hosts, int64_t *id,
		 struct job_spec *s);

int archive_job_claim(struct archive *a, int64_t only, int64_t *id,
		      struct job_spec *s)
{
	return claim(a, only, 0, id, s);
}

int archive_job_claim_hosts(struct archive *a, int64_t *id, struct job_spec *s)
{
	return claim(a, 0, 1, id, s);
}

static int claim(struct archive *a, int64_t only, int hosts, int64_t *id,
		 struct job_spec *s)
{
	sqlite3_stmt *st = NULL;
	char now[32];
	int rc, src;

	memset(s, 0, sizeof(*s));
	if ((rc = archive_prep(
		     a,
		     "UPDATE jobs SET state='running', started_at=?"
		     " WHERE id=(SELECT id FROM jobs WHERE state='queued'"
		     " AND (?2 = 0 OR id = ?2) AND (hosts IS NOT NULL) = ?3"
		     " ORDER BY id LIMIT 1)"
		     " RETURNING id, profile, target, size, iterations,"
		     " duration_s, interval_s, labels, notes, plan,"
		     " engine, direct, options, smb, created_at, compare_with,"
		     " hosts, fleet",
		     &st)) < 0)
		return rc;
	archive_now_text(now);
	sqlite3_bind_text(st, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, only);
	sqlite3_bind_int(st, 3, hosts);
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
		if (sqlite3_column_type(st, 15) != SQLITE_NULL)
			s->compare_with_json = col_dup(st, 15);
		if (sqlite3_column_type(st, 16) != SQLITE_NULL)
			s->hosts_json = col_dup(st, 16);
		if (sqlite3_column_type(st, 17) != SQLITE_NULL)
			s->fleet_json = col_dup(st, 17);
		rc = (s->profile && s->target && s->labels_json && s->notes)
			     ? 0
			     : -ENOMEM;
		/* step to the end so the UPDATE commits */
		src = sqlite3_step(st);
		if (src != SQLITE_DONE && rc == 0)
			rc = archive_sql_err(a, src, "claim job");
	} else if (src == SQLITE_DONE) {
		rc = -ENOENT;
	} else {
		rc = archive_sql_err(a, src, "claim job");
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

	if ((rc = archive_prep(
		     a,
		     "UPDATE jobs SET state='cancelled', finished_at=?,"
		     " error='cancelled by request'"
		     " WHERE id=? AND state='queued'",
		     &st)) < 0)
		return rc;
	archive_now_text(now);
	sqlite3_bind_text(st, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	if ((rc = archive_step_done(a, st, "cancel job")) < 0)
		return rc;
	return sqlite3_changes(a->db) > 0 ? 1 : 0;
}

int archive_job_finish(struct archive *a, int64_t job_id, int64_t run_id,
		       const char *state, const char *error, const char *at)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	if ((rc = archive_begin(a, now)) < 0)
		return rc;
	if (at)
		snprintf(now, sizeof(now), "%s", at);
	if ((rc = archive_prep(a,
			       "UPDATE jobs SET state=?, finished_at=?, error=?"
			       " WHERE id=?",
			       &st)) < 0)
		goto out;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (error)
		sqlite3_bind_text(st, 3, error, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, job_id);
	if ((rc = archive_step_done(a, st, "finish job")) < 0)
		goto out;
	if (run_id > 0 &&
	    (rc = archive_run_set(a,
				  "UPDATE runs SET state=?, finished_at=?"
				  " WHERE id=?",
				  state, now, run_id, "finish run")) < 0)
		goto out;
	/* an interleaved job's other runs */
	if ((rc = archive_run_set(a,
				  "UPDATE runs SET state=?, finished_at=?"
				  " WHERE job_id=? AND state='running'",
				  state, now, job_id, "finish runs")) < 0)
		goto out;
out:
	return archive_tx_end(a, rc);
}

int archive_interrupt_running(struct archive *a, int *n)
{
	char sql[512], now[32];
	int rc;

	*n = 0;
	archive_now_text(now);
	snprintf(sql, sizeof(sql),
		 "BEGIN IMMEDIATE;"
		 "UPDATE jobs SET state='interrupted', finished_at='%s',"
		 " error='the daemon stopped while this job ran'"
		 " WHERE state='running';",
		 now);
	if ((rc = archive_exec(a, sql)) < 0)
		return archive_tx_end(a, rc);
	*n = sqlite3_changes(a->db);
	snprintf(sql, sizeof(sql),
		 "UPDATE runs SET state='interrupted', finished_at='%s'"
		 " WHERE state='running';",
		 now);
	return archive_tx_end(a, archive_exec(a, sql));
}

int archive_job_state_counts(struct archive *a, int counts[ARCHIVE_N_STATES])
{
	sqlite3_stmt *st;
	int rc;

	memset(counts, 0, sizeof(int) * ARCHIVE_N_STATES);
	if ((rc = archive_prep(
		     a, "SELECT state, count(*) FROM jobs GROUP BY state",
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
	if ((rc = archive_prep(a,
			       "SELECT (SELECT count(*) FROM jobs WHERE"
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
