/*
 * archive_read — the archive as the API reads it: jobs, the list of runs
 * (filtered, sorted, paged, with each test's best result as its headline),
 * the index the compare page groups, one run in full, and its samples.
 *
 * Results come back as JSON (owned by the caller). The list's headlines
 * are the stored summaries' (archive_sums.c), one indexed row per test.
 * A run's tests are in the
 * order they ran, each with every iteration and its best by MB/s
 * (result_best, as CrystalDiskMark picks it); rates are computed from the
 * stored counts (result_finish), except for another tool's numbers, which
 * are served as that tool printed them. A test's latency over all its
 * iterations is the merge of their stored histograms. Filters are bound
 * parameters; a sort is one of a fixed list of columns (archive_sort_ok).
 * Calls archive_sql.c only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

#define JOB_COLUMNS                                                            \
	"SELECT id, state, profile, target, size, iterations, duration_s,"     \
	" interval_s, labels AS labels_json, notes, created_at, started_at,"   \
	" finished_at, run_id, error, plan AS tests_json, engine,"             \
	" options AS options_json, smb AS smb_json,"                           \
	" compare_with AS compare_with_json,"                                  \
	" json_extract(hosts, '$.hosts') AS hosts_json, fleet AS fleet_json,"  \
	" (SELECT json_group_array(id) FROM (SELECT id FROM runs"              \
	"  WHERE job_id=jobs.id ORDER BY id)) AS runs_json,"                   \
	" json(CASE direct WHEN 0 THEN 'false' ELSE 'true' END) AS "           \
	"direct_json"                                                          \
	" FROM jobs"

int archive_job_json(struct archive *a, int64_t id, json_t **out)
{
	return archive_query_one(a, JOB_COLUMNS " WHERE id=?", id, out);
}

int archive_jobs_json(struct archive *a, int limit, int offset, json_t **out)
{
	return archive_query_rows(
		a, JOB_COLUMNS " ORDER BY id DESC LIMIT ? OFFSET ?", limit,
		offset, 2, out);
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
static void merge_next_hist(sqlite3_stmt *st, struct hist *h, struct hist *tmp)
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
	int rc = archive_query_rows(
		a,
		"SELECT test, rw, pattern, nullif(block_size, 0) AS block_size,"
		" queue_depth,"
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
		" lat_mean_us AS imp_lat_mean_us, stated AS stated_json,"
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
		    archive_prep(
			    a,
			    "SELECT lat_hist, min(id) OVER (PARTITION BY test,"
			    " rw) AS grp FROM results WHERE run_id=?"
			    " ORDER BY grp, iteration, id",
			    &hs) < 0) {
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
		const char *name =
			json_string_value(json_object_get(first, "test"));
		const char *rw =
			json_string_value(json_object_get(first, "rw"));
		struct result r[256];
		int k = 0, best;

		t = json_pack(
			"{s:s, s:s, s:O, s:O, s:O, s:O}", "test", name, "rw",
			rw, "pattern", json_object_get(first, "pattern"),
			"block_size", json_object_get(first, "block_size"),
			"queue_depth", json_object_get(first, "queue_depth"),
			"threads", json_object_get(first, "threads"));
		its = json_array();
		if (h)
			hist_init(h);
		for (; i < n; i++) {
			json_t *row = json_array_get(rows, i), *it;
			if (strcmp(json_string_value(
					   json_object_get(row, "test")),
				   name) ||
			    strcmp(json_string_value(
					   json_object_get(row, "rw")),
				   rw))
				break;
			if (h)
				merge_next_hist(hs, h, tmp);
			if (k == 256)
				continue;
			memset(&r[k], 0, sizeof(r[k]));
			r[k].ios = (uint64_t)json_integer_value(
				json_object_get(row, "ios"));
			r[k].bytes = (uint64_t)json_integer_value(
				json_object_get(row, "bytes"));
			r[k].lat_sum_ns = (uint64_t)json_integer_value(
				json_object_get(row, "lat_sum_ns"));
			r[k].window_ns = (uint64_t)json_integer_value(
				json_object_get(row, "window_ns"));
			result_finish(&r[k]);
			if (json_integer_value(
				    json_object_get(row, "imported"))) {
				/* another tool's numbers, as it printed them */
				r[k].mb_s = json_number_value(
					json_object_get(row, "imp_mb_s"));
				r[k].mib_s = r[k].mb_s * 1e6 / (1 << 20);
				r[k].iops = json_number_value(
					json_object_get(row, "imp_iops"));
				r[k].lat_mean_us =
					json_number_value(json_object_get(
						row, "imp_lat_mean_us"));
			}
			it = json_pack(
				"{s:O, s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:O, "
				"s:O, s:O}",
				"iteration", json_object_get(row, "iteration"),
				"mb_s", r[k].mb_s, "mib_s", r[k].mib_s, "iops",
				r[k].iops, "lat_mean_us", r[k].lat_mean_us,
				"bytes", (json_int_t)r[k].bytes, "ios",
				(json_int_t)r[k].ios, "seconds", r[k].seconds,
				"latency_us",
				json_object_get(row, "latency_us"),
				"cpu_user_s",
				json_object_get(row, "cpu_user_s"), "cpu_sys_s",
				json_object_get(row, "cpu_sys_s"));
			if (json_integer_value(
				    json_object_get(row, "imported"))) {
				if (r[k].lat_mean_us < 0)
					json_object_set_new(it, "lat_mean_us",
							    json_null());
				/* another tool's numbers: counts, time and
				 * latency only as its file states them */
				json_t *st = json_object_get(row, "stated");
				static const char *const keys[] = {
					"seconds", "bytes", "ios", "latency_us"
				};
				for (size_t q = 0; q < 4; q++) {
					json_t *v =
						json_object_get(st, keys[q]);
					json_object_set(it, keys[q],
							v ? v : json_null());
				}
			}
			if (json_is_string(json_object_get(row, "error")))
				json_object_set(it, "error",
						json_object_get(row, "error"));
			if (json_is_integer(
				    json_object_get(row, "allocated_bytes")))
				json_object_set(
					it, "allocated_bytes",
					json_object_get(row,
							"allocated_bytes"));
			json_array_append_new(its, it);
			k++;
		}
		best = result_best(r, k);
		json_object_set(t, "best",
				best >= 0 ? json_array_get(its, (size_t)best)
					  : json_null());
		if (json_is_object(json_object_get(first, "sweep")))
			json_object_set(t, "sweep",
					json_object_get(first, "sweep"));
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
	"SELECT id, uuid, job_id, state, profile, target,"                     \
	" labels AS labels_json,"                                              \
	" notes, started_at, finished_at, spec AS spec_json,"                  \
	" json_object('version', engine_version, 'target', engine_target,"     \
	"  'direct', json(CASE direct WHEN 0 THEN 'false' ELSE 'true' END))"   \
	"  AS engine_json,"                                                    \
	" warnings AS warnings_json, probe AS probe_json,"                     \
	" wire AS wire_json FROM runs"

int archive_run_json(struct archive *a, int64_t id, json_t **out)
{
	json_t *run, *tests;
	int rc = archive_query_one(a, RUN_COLUMNS " WHERE id=?", id, &run);

	*out = NULL;
	if (rc < 0)
		return rc;
	if ((rc = run_tests_json(a, id, 1, &tests)) < 0 ||
	    (rc = archive_conditions_attach(a, id, tests)) < 0) {
		json_decref(tests);
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
	/* an SMB run's wire baseline, when it has one: absent otherwise */
	if (json_is_null(json_object_get(run, "wire")))
		json_object_del(run, "wire");
	{
		/* a run another tool measured: where from, and its file */
		json_t *imp = NULL;
		if (archive_query_one(
			    a,
			    "SELECT tool, version, format, sha256, filename, "
			    "size,"
			    " imported_at FROM imports WHERE run_id=?",
			    id, &imp) == 0)
			json_object_set_new(run, "import", imp);
		else
			json_object_set_new(run, "import", json_null());
	}
	*out = run;
	return 0;
}

static const char *const sort_cols[] = { "id",	    "started_at", "profile",
					 "fs_type", "target",	  "hostname" };

int archive_sort_ok(const char *sort)
{
	const char *c = sort && sort[0] == '-' ? sort + 1 : sort;

	for (size_t i = 0; c && i < sizeof(sort_cols) / sizeof(sort_cols[0]);
	     i++)
		if (strcmp(c, sort_cols[i]) == 0)
			return 1;
	return 0;
}

/* The WHERE clause of f, its parameters in order into v[0..*n). */
static void filter_sql(const struct run_filter *f, char *sql, size_t len,
		       const char **v, int *n)
{
	const struct {
		const char *val, *clause;
		int uses; /* how many times the clause takes the value */
	} c[] = {
		{ f->profile, "profile=?", 1 },
		{ f->fs_type, "fs_type=?", 1 },
		{ f->target, "target=?", 1 },
		{ f->state, "state=?", 1 },
		{ f->label,
		  "EXISTS (SELECT 1 FROM json_each(runs.labels)"
		  " WHERE value=?)",
		  1 },
		{ f->server,
		  "coalesce(json_extract(probe, '$.smb.server'),"
		  " hostname)=?",
		  1 },
		{ f->host, "hostname=?", 1 },
		{ f->cluster_size,
		  "CAST(json_extract(probe, '$.fs_block_size')"
		  " AS TEXT)=?",
		  1 },
		{ f->from, "started_at>=?", 1 },
		/* a prefix: to=2026-11-30 takes the whole day */
		{ f->to, "substr(started_at, 1, length(?))<=?", 2 },
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

int archive_runs_json(struct archive *a, const struct run_filter *f, int limit,
		      int offset, json_t **out, int64_t *total)
{
	static const struct run_filter none = { 0 };
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
	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	for (int k = 0; k < n; k++)
		sqlite3_bind_text(st, k + 1, v[k], -1, SQLITE_STATIC);
	*total = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0)
						: 0;
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql),
		 "SELECT id, job_id, state, profile, target,"
		 " labels AS labels_json, hostname, fs_type,"
		 " json_extract(probe, '$.fs_block_size') AS cluster_size,"
		 " coalesce(json_extract(probe, '$.smb.server'), hostname)"
		 "  AS server, started_at, finished_at FROM runs%s"
		 " ORDER BY %s LIMIT %d OFFSET %d",
		 where, order, limit, offset);
	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	for (int k = 0; k < n; k++)
		sqlite3_bind_text(st, k + 1, v[k], -1, SQLITE_STATIC);
	runs = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(runs, archive_row_json(st));
	sqlite3_finalize(st);
	if (src != SQLITE_DONE) {
		json_decref(runs);
		return archive_sql_err(a, src, "list runs");
	}
	/* each test's best, as summed up when it was stored */
	if ((rc = archive_prep(a,
			       "SELECT test, rw, best_mb_s AS mb_s,"
			       " best_iops AS iops FROM test_summaries"
			       " WHERE run_id=? ORDER BY seq",
			       &st)) < 0) {
		json_decref(runs);
		return rc;
	}
	json_array_foreach(runs, i, run)
	{
		json_t *head = json_array();
		sqlite3_reset(st);
		sqlite3_bind_int64(
			st, 1, json_integer_value(json_object_get(run, "id")));
		while ((src = sqlite3_step(st)) == SQLITE_ROW)
			json_array_append_new(head, archive_row_json(st));
		json_object_set_new(run, "headline", head);
		if (src != SQLITE_DONE) {
			sqlite3_finalize(st);
			json_decref(runs);
			return archive_sql_err(a, src, "list headlines");
		}
	}
	sqlite3_finalize(st);
	*out = runs;
	return 0;
}

/* The index's columns: name and SQL (over runs). */
static const struct {
	const char *name, *sql;
} index_cols[] = {
	{ "profile", "profile" },
	{ "target", "target" },
	{ "labels", "labels AS labels_json" },
	{ "hostname", "hostname" },
	{ "fs_type", "fs_type" },
	{ "cluster_size", "json_extract(probe, '$.fs_block_size')"
			  " AS cluster_size" },
	{ "server", "coalesce(json_extract(probe, '$.smb.server'), hostname)"
		    " AS server" },
	{ "started_at", "started_at" },
	{ "write_cache", "coalesce(json_extract(probe, '$.write_cache'),"
			 " 'unknown') AS write_cache" },
	{ "direct", "CASE direct WHEN 1 THEN 'direct' ELSE 'buffered' END"
		    " AS direct" },
	{ "size", "coalesce(json_extract(spec, '$.size'),"
		  " json_extract(spec, '$.imported.test_size')) AS size" },
	{ "engine", "engine_target AS engine" },
	{ "version", "engine_version AS version" },
	/* a multi-host job's aggregate: its host count; 1 for any other */
	{ "hosts", "coalesce(json_array_length(spec, '$.hosts'), 1) AS hosts" },
	/* the test file copied on write: "cow" or "nocow" in fs_features
	 * (probe.h), "unknown" when the probe says neither */
	{ "cow", "CASE WHEN ',' || json_extract(probe, '$.fs_features') || ','"
		 " LIKE '%,cow,%' THEN 'cow'"
		 " WHEN ',' || json_extract(probe, '$.fs_features') || ','"
		 " LIKE '%,nocow,%' THEN 'nocow' ELSE 'unknown' END AS cow" },
};

/* Every row of sql, whose parameters are the filter's texts v[0 … n), as
 * archive_row_json objects in a new array *out. 0 or a negative errno
 * (what says which read failed). */
static int filtered_rows(struct archive *a, const char *sql,
			 const char *const *v, int n, const char *what,
			 json_t **out)
{
	sqlite3_stmt *st;
	int rc, src;

	*out = NULL;
	if ((rc = archive_prep(a, sql, &st)) < 0)
		return rc;
	for (int i = 0; i < n; i++)
		sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
	*out = json_array();
	while ((src = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(*out, archive_row_json(st));
	sqlite3_finalize(st);
	if (src != SQLITE_DONE) {
		json_decref(*out);
		*out = NULL;
		return archive_sql_err(a, src, what);
	}
	return 0;
}

int archive_runs_index_of(struct archive *a, const struct run_filter *f,
			  const char *field, json_t **out)
{
	struct run_filter g = f ? *f : (struct run_filter){ 0 };
	const char *v[16];
	char where[2048], sql[4096];
	size_t k = 0;
	int n, found = 0;

	*out = NULL;
	g.state = "done";
	filter_sql(&g, where, sizeof(where), v, &n);
	k += (size_t)snprintf(sql, sizeof(sql), "SELECT id");
	for (size_t i = 0; i < sizeof(index_cols) / sizeof(index_cols[0]); i++)
		if (!field || strcmp(field, index_cols[i].name) == 0) {
			k += (size_t)snprintf(sql + k, sizeof(sql) - k, ", %s",
					      index_cols[i].sql);
			found = 1;
		}
	if (!found)
		return -EINVAL;
	if (k + strlen(where) + 32 >= sizeof(sql))
		return -ENAMETOOLONG;
	snprintf(sql + k, sizeof(sql) - k, " FROM runs%s ORDER BY id", where);
	return filtered_rows(a, sql, v, n, "index runs", out);
}

int archive_runs_index(struct archive *a, const struct run_filter *f,
		       json_t **out)
{
	return archive_runs_index_of(a, f, NULL, out);
}

int archive_runs_hosts(struct archive *a, const struct run_filter *f,
		       json_t **out)
{
	static const struct run_filter none = { 0 };
	const char *v[16];
	char where[2048], sql[4096];
	int n;

	*out = NULL;
	filter_sql(f ? f : &none, where, sizeof(where), v, &n);
	/* each host's newest run: the latest start, then the highest id */
	if (snprintf(sql, sizeof(sql),
		     "SELECT host, runs, latest_run_id, latest_started_at"
		     " FROM (SELECT hostname AS host,"
		     " count(*) OVER (PARTITION BY hostname) AS runs,"
		     " id AS latest_run_id, started_at AS latest_started_at,"
		     " row_number() OVER (PARTITION BY hostname"
		     "  ORDER BY started_at DESC, id DESC) AS nth"
		     " FROM runs%s) WHERE nth=1"
		     " ORDER BY host IS NULL, host",
		     where) >= (int)sizeof(sql))
		return -ENAMETOOLONG;
	return filtered_rows(a, sql, v, n, "group runs by host", out);
}

int archive_samples_json(struct archive *a, int64_t run_id, json_t **out)
{
	json_t *run = NULL;
	int rc = archive_query_one(a, "SELECT id FROM runs WHERE id=?", run_id,
				   &run);

	*out = NULL;
	if (rc < 0)
		return rc;
	json_decref(run);
	/* rates from counts: per second, per direction; latency null when no
	 * I/O of that direction completed in that second */
	return archive_query_rows(
		a,
		"SELECT test, rw, iteration, second AS t_s, length_s,"
		" json_object('iops', read_ios / length_s,"
		"  'mb_s', read_bytes / length_s / 1e6,"
		"  'lat_mean_us', CASE read_ios WHEN 0 THEN NULL"
		"   ELSE read_lat_sum_ns / 1e3 / read_ios END) AS read_json,"
		" json_object('iops', write_ios / length_s,"
		"  'mb_s', write_bytes / length_s / 1e6,"
		"  'lat_mean_us', CASE write_ios WHEN 0 THEN NULL"
		"   ELSE write_lat_sum_ns / 1e3 / write_ios END) AS write_json,"
		" host AS host_json, device AS device_json"
		" FROM samples WHERE run_id=? ORDER BY rowid",
		run_id, 0, 1, out);
}

int archive_run_ended(struct archive *a, int64_t run_id)
{
	json_t *run = NULL;
	const char *state;
	int rc = archive_query_one(a, "SELECT state FROM runs WHERE id=?",
				   run_id, &run);

	if (rc < 0)
		return rc;
	state = json_string_value(json_object_get(run, "state"));
	rc = state && strcmp(state, "running") != 0;
	json_decref(run);
	return rc;
}
