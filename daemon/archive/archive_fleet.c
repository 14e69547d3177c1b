/*
 * archive_fleet — where the hosts' jobs of a multi-host job are
 * (fleet_members, migration 17): written by the coordinator as it posts
 * each host's job, read again by a coordinator started after a crash to
 * cancel what its hosts still run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

int archive_fleet_member_put(struct archive *a, int64_t job_id,
			     const char *host, const char *url,
			     int64_t member_job)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(a,
			       "INSERT OR REPLACE INTO fleet_members(job_id,"
			       " host, url, member_job) VALUES (?,?,?,?)",
			       &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, url, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, member_job);
	return archive_step_done(a, st, "record a host's job");
}

int archive_fleet_unsettled(struct archive *a, json_t **out)
{
	return archive_query_rows(
		a,
		"SELECT m.job_id, m.host, m.url, m.member_job"
		" FROM fleet_members m JOIN jobs j ON j.id = m.job_id"
		" WHERE m.settled = 0 AND j.state NOT IN ('queued', 'running')"
		" ORDER BY m.job_id, m.host",
		0, 0, 0, out);
}

int archive_fleet_settle(struct archive *a, int64_t job_id, const char *host)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(
		     a,
		     "UPDATE fleet_members SET settled = 1"
		     " WHERE job_id = ? AND (?2 IS NULL OR host = ?2)",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	if (host)
		sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
	return archive_step_done(a, st, "settle a host's job");
}

int archive_run_set_job(struct archive *a, int64_t run_id, int64_t job_id)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(a, "UPDATE runs SET job_id = ? WHERE id = ?",
			       &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, run_id);
	return archive_step_done(a, st, "link a host's run to its job");
}

int archive_job_set_run(struct archive *a, int64_t job_id, int64_t run_id)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = archive_prep(a, "UPDATE jobs SET run_id = ? WHERE id = ?",
			       &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, job_id);
	return archive_step_done(a, st, "name a job's run");
}

void archive_windows_free(struct archive_window *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++) {
		free(w[i].test);
		free(w[i].rw);
		free(w[i].pattern);
		free(w[i].hist);
		free(w[i].smp.s);
		free(w[i].smp.len_s);
	}
	free(w);
}

static char *text_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return strdup(t ? (const char *)t : "");
}

/* The seconds of window w (its test, rw and iteration of run_id). */
static int window_samples(struct archive *a, int64_t run_id,
			  struct archive_window *w)
{
	sqlite3_stmt *st;
	unsigned cap = 16;
	int rc, src;

	if ((rc = archive_prep(
		     a,
		     "SELECT length_s, read_ios, read_bytes, read_lat_sum_ns,"
		     " write_ios, write_bytes, write_lat_sum_ns FROM samples"
		     " WHERE run_id=? AND test=? AND rw=? AND iteration=?"
		     " ORDER BY second",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, w->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, w->rw, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, w->iteration);
	w->smp.s = calloc(cap, sizeof(*w->smp.s));
	w->smp.len_s = calloc(cap, sizeof(double));
	w->smp.cap = cap;
	while (w->smp.s && w->smp.len_s &&
	       (src = sqlite3_step(st)) == SQLITE_ROW) {
		struct engine_sample *e;
		if (w->smp.n == w->smp.cap) {
			unsigned c2 = w->smp.cap * 2;
			void *s2 = realloc(w->smp.s, c2 * sizeof(*w->smp.s));
			void *l2 =
				s2 ? realloc(w->smp.len_s, c2 * sizeof(double))
				   : NULL;
			if (s2)
				w->smp.s = s2;
			if (!l2) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			w->smp.len_s = l2;
			w->smp.cap = c2;
		}
		e = &w->smp.s[w->smp.n];
		w->smp.len_s[w->smp.n] = sqlite3_column_double(st, 0);
		for (int d = 0; d < 2; d++) {
			e->ios[d] =
				(uint64_t)sqlite3_column_int64(st, 1 + 3 * d);
			e->bytes[d] =
				(uint64_t)sqlite3_column_int64(st, 2 + 3 * d);
			e->lat_sum_ns[d] =
				(uint64_t)sqlite3_column_int64(st, 3 + 3 * d);
		}
		w->smp.n++;
	}
	sqlite3_finalize(st);
	if (!w->smp.s || !w->smp.len_s)
		return -ENOMEM;
	if (w->smp.n)
		w->smp.last_s = w->smp.len_s[w->smp.n - 1];
	return 0;
}

int archive_run_windows(struct archive *a, int64_t run_id,
			struct archive_window **out, size_t *n)
{
	struct archive_window *w = NULL;
	sqlite3_stmt *st;
	size_t cap = 0, k = 0;
	int rc, src;

	*out = NULL;
	*n = 0;
	if ((rc = archive_prep(
		     a,
		     "SELECT test, rw, pattern, block_size, queue_depth,"
		     " threads, iteration, start_unix_ns, window_ns, ios,"
		     " bytes, lat_sum_ns, lat_hist FROM results"
		     " WHERE run_id=? AND error IS NULL ORDER BY id",
		     &st)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		struct archive_window *x;
		const void *h = sqlite3_column_blob(st, 12);
		int hl = sqlite3_column_bytes(st, 12);
		if (k == cap) {
			void *p = realloc(w, (cap = cap ? 2 * cap : 16) *
						     sizeof(*w));
			if (!p) {
				rc = -ENOMEM;
				break;
			}
			w = p;
		}
		x = &w[k++];
		memset(x, 0, sizeof(*x));
		x->test = text_dup(st, 0);
		x->rw = text_dup(st, 1);
		x->pattern = text_dup(st, 2);
		x->block_size = sqlite3_column_int64(st, 3);
		x->queue_depth = sqlite3_column_int(st, 4);
		x->threads = sqlite3_column_int(st, 5);
		x->iteration = sqlite3_column_int(st, 6);
		x->start_unix_ns = sqlite3_column_int64(st, 7);
		x->window_ns = (uint64_t)sqlite3_column_int64(st, 8);
		x->ios = (uint64_t)sqlite3_column_int64(st, 9);
		x->bytes = (uint64_t)sqlite3_column_int64(st, 10);
		x->lat_sum_ns = (uint64_t)sqlite3_column_int64(st, 11);
		if (h && hl > 0 && (x->hist = malloc((size_t)hl))) {
			memcpy(x->hist, h, (size_t)hl);
			x->hist_len = (size_t)hl;
		}
		if (!x->test || !x->rw || !x->pattern) {
			rc = -ENOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0; rc == 0 && i < k; i++)
		rc = window_samples(a, run_id, &w[i]);
	if (rc < 0) {
		archive_windows_free(w, k);
		return rc;
	}
	*out = w;
	*n = k;
	return 0;
}
