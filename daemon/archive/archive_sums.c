/*
 * archive_sums — each test of a run summed up once, stored beside its
 * results (table test_summaries, schema version 8), so that the list of
 * runs, /metrics and compare over groups of runs read one row per test
 * instead of every iteration of every run.
 *
 * A summary holds what a run's test shows through archive_run_json,
 * worked out the same way (result_finish on the stored counts, another
 * tool's numbers as it printed them): the test's shape (pattern, block
 * size, QD, T, sweep), its best iteration's MB/s and IOPS (result_best,
 * the list's headline), and for each compared metric (MB/s, IOPS, mean
 * latency, p99 latency) n, mean and sample sd over the iterations that
 * have it, plus the iterations' values themselves in order, so a side
 * pooled from many runs gets exactly the figures its iterations give.
 *
 * Invariant: a run's summaries are its results summed up. Every write of a
 * result rewrites its test's summary in the same transaction
 * (archive_sums_test); an import sums its run before it commits
 * (archive_sums_run); migration 8 sums every run already stored
 * (archive_sums_fill); deleting a run cascades. A test with a SNIA PTS
 * steady-state window (test_conditions) is summed over the window's
 * rounds only: its result is the window's. Calls archive_sql.c only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archive_int.h"

const char *const archive_sum_metrics[ARCHIVE_SUM_METRICS] = { "mb_s", "iops",
							       "lat_mean_us",
							       "lat_p99_us" };

/* The columns a summary is made of, in the order run_tests_json reads a
 * test's rows; the latency and sweep objects as SQLite writes them (the
 * API serves them parsed from that text, so compare must too). */
#define SUM_ROWS_OF(STEADY_COL)                                                \
	"SELECT run_id, test, rw, pattern, block_size, queue_depth, threads,"  \
	" ios, bytes, lat_sum_ns, window_ns, imported, mb_s, iops,"            \
	" lat_mean_us, CASE WHEN lat_p99_us IS NULL THEN NULL"                 \
	"  ELSE json_object('p99', lat_p99_us) END,"                           \
	" CASE WHEN sweep_field IS NULL THEN NULL"                             \
	"  ELSE json_object('group', sweep_group, 'field', sweep_field,"       \
	"  'value', sweep_value) END, error IS NOT NULL, id, " STEADY_COL      \
	" FROM results"
/* Migration 8's fill (before test_conditions exists): no windows. */
#define SUM_ROWS SUM_ROWS_OF("0")
/* The rows with, last, whether their test has a steady-state window: its
 * headline (best_mb_s, best_iops) is then the window's average, as the
 * run's `best` (archive_steady.c), not its best round. */
#define SUM_ROWS_STEADY                                                        \
	SUM_ROWS_OF("EXISTS (SELECT 1 FROM test_conditions c"                  \
		    " WHERE c.run_id=results.run_id AND c.test=results.test"   \
		    " AND c.rw=results.rw AND c.window_first IS NOT NULL)")

enum {
	C_RUN,
	C_TEST,
	C_RW,
	C_PATTERN,
	C_BS,
	C_QD,
	C_T,
	C_IOS,
	C_BYTES,
	C_LAT_SUM,
	C_WINDOW,
	C_IMPORTED,
	C_MB_S,
	C_IOPS,
	C_LAT_MEAN,
	C_LAT_JSON,
	C_SWEEP,
	C_ERROR,
	C_ID,
	C_STEADY
};

#define BEST_MAX 256 /* run_tests_json picks the best of the first 256 */

/* One test being summed: its first row's fields, every row's values. */
struct acc {
	int64_t run_id, seq;
	char *test, *rw, *pattern, *sweep;
	int64_t bs, qd, threads;
	int iterations, errors, best, steady;
	double best_mb_s, best_iops;
	double *vals; /* iterations × ARCHIVE_SUM_METRICS, NAN: none */
	size_t cap;
};

static void acc_clear(struct acc *c)
{
	free(c->test);
	free(c->rw);
	free(c->pattern);
	free(c->sweep);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? strdup((const char *)t) : NULL;
}

/* Does st's row belong to the test c is summing? */
static int acc_same(const struct acc *c, sqlite3_stmt *st)
{
	const char *t = (const char *)sqlite3_column_text(st, C_TEST);
	const char *rw = (const char *)sqlite3_column_text(st, C_RW);

	return c->test && sqlite3_column_int64(st, C_RUN) == c->run_id && t &&
	       rw && strcmp(t, c->test) == 0 && strcmp(rw, c->rw) == 0;
}

/* The p99 of a row's latency object (NAN: none), parsed from SQLite's
 * text as the API parses it. */
static double p99_of(sqlite3_stmt *st)
{
	const char *t = (const char *)sqlite3_column_text(st, C_LAT_JSON);
	json_t *o, *v;
	double p = NAN;

	if (!t || !(o = json_loads(t, JSON_DECODE_ANY, NULL)))
		return NAN;
	v = json_object_get(o, "p99");
	if (json_is_number(v))
		p = json_number_value(v);
	json_decref(o);
	return p;
}

/* Adds st's row to c (the first row of a test starts it). 0 or -ENOMEM. */
static int acc_add(struct acc *c, sqlite3_stmt *st)
{
	struct result r = { 0 };
	double *v;

	if (!c->test) {
		c->run_id = sqlite3_column_int64(st, C_RUN);
		c->seq = sqlite3_column_int64(st, C_ID);
		c->test = col_dup(st, C_TEST);
		c->rw = col_dup(st, C_RW);
		c->pattern = col_dup(st, C_PATTERN);
		c->sweep = col_dup(st, C_SWEEP);
		c->bs = sqlite3_column_int64(st, C_BS);
		c->qd = sqlite3_column_int64(st, C_QD);
		c->threads = sqlite3_column_int64(st, C_T);
		c->best = -1;
		c->steady = sqlite3_column_int(st, C_STEADY);
		if (!c->test || !c->rw || !c->pattern ||
		    (!c->sweep &&
		     sqlite3_column_type(st, C_SWEEP) != SQLITE_NULL))
			return -ENOMEM;
	}
	if (sqlite3_column_int64(st, C_ID) < c->seq)
		c->seq = sqlite3_column_int64(st, C_ID);
	if ((size_t)c->iterations == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		v = realloc(c->vals,
			    cap * ARCHIVE_SUM_METRICS * sizeof(*c->vals));
		if (!v)
			return -ENOMEM;
		c->vals = v;
		c->cap = cap;
	}
	/* the iteration as run_tests_json makes it */
	r.ios = (uint64_t)sqlite3_column_int64(st, C_IOS);
	r.bytes = (uint64_t)sqlite3_column_int64(st, C_BYTES);
	r.lat_sum_ns = (uint64_t)sqlite3_column_int64(st, C_LAT_SUM);
	r.window_ns = (uint64_t)sqlite3_column_int64(st, C_WINDOW);
	result_finish(&r);
	if (sqlite3_column_int(st, C_IMPORTED)) {
		r.mb_s = sqlite3_column_double(st, C_MB_S);
		r.iops = sqlite3_column_double(st, C_IOPS);
		r.lat_mean_us = sqlite3_column_double(st, C_LAT_MEAN);
		if (r.lat_mean_us < 0)
			r.lat_mean_us = NAN; /* not printed: null */
	}
	if (c->iterations < BEST_MAX &&
	    (c->best < 0 || r.mb_s > c->best_mb_s)) {
		c->best = c->iterations;
		c->best_mb_s = r.mb_s;
		c->best_iops = r.iops;
	}
	v = &c->vals[(size_t)c->iterations * ARCHIVE_SUM_METRICS];
	v[0] = r.mb_s;
	v[1] = r.iops;
	v[2] = r.lat_mean_us;
	v[3] = p99_of(st);
	if (sqlite3_column_int(st, C_ERROR)) {
		/* not measured: compare lists the error, not the values */
		c->errors++;
		for (int m = 0; m < ARCHIVE_SUM_METRICS; m++)
			v[m] = NAN;
	}
	c->iterations++;
	return 0;
}

/* n, mean and sample sd of metric m over c's iterations that have it, as
 * stats_summarize works them out (sum in order, then the squares). */
static void acc_metric(const struct acc *c, int m, int *n, double *mean,
		       double *sd)
{
	double sum = 0, ss = 0;

	*n = 0;
	for (int i = 0; i < c->iterations; i++) {
		double x = c->vals[(size_t)i * ARCHIVE_SUM_METRICS + m];
		if (!isnan(x)) {
			sum += x;
			(*n)++;
		}
	}
	*mean = *n ? sum / *n : NAN;
	*sd = NAN;
	if (*n < 2)
		return;
	for (int i = 0; i < c->iterations; i++) {
		double x = c->vals[(size_t)i * ARCHIVE_SUM_METRICS + m];
		if (!isnan(x))
			ss += (x - *mean) * (x - *mean);
	}
	*sd = sqrt(ss / (*n - 1));
}

/* The values as stored: each a little-endian IEEE 754 double. */
static void put_le(unsigned char *p, double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

static double get_le(const unsigned char *p)
{
	uint64_t u = 0;
	double x;

	for (int i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	memcpy(&x, &u, sizeof(x));
	return x;
}

#define SUM_INSERT                                                             \
	"INSERT OR REPLACE INTO test_summaries(run_id, seq, test, rw,"         \
	" pattern, block_size, queue_depth, threads, sweep, iterations,"       \
	" errors, best_mb_s, best_iops, mb_s_n, mb_s_mean, mb_s_sd, iops_n,"   \
	" iops_mean, iops_sd, lat_mean_us_n, lat_mean_us_mean,"                \
	" lat_mean_us_sd, lat_p99_us_n, lat_p99_us_mean, lat_p99_us_sd, vals)" \
	" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"

/* Writes c's summary with ins (SUM_INSERT, reset here). */
static int acc_write(struct archive *a, sqlite3_stmt *ins, const struct acc *c)
{
	size_t len = (size_t)c->iterations * ARCHIVE_SUM_METRICS * 8;
	unsigned char *blob = malloc(len ? len : 1);
	double best[2];
	int src, k = 1;

	if (!blob)
		return -ENOMEM;
	for (size_t i = 0; i < (size_t)c->iterations * ARCHIVE_SUM_METRICS; i++)
		put_le(blob + 8 * i, c->vals[i]);
	sqlite3_reset(ins);
	sqlite3_clear_bindings(ins);
	sqlite3_bind_int64(ins, k++, c->run_id);
	sqlite3_bind_int64(ins, k++, c->seq);
	sqlite3_bind_text(ins, k++, c->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, k++, c->rw, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, k++, c->pattern, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, k++, c->bs);
	sqlite3_bind_int64(ins, k++, c->qd);
	sqlite3_bind_int64(ins, k++, c->threads);
	if (c->sweep)
		sqlite3_bind_text(ins, k, c->sweep, -1, SQLITE_STATIC);
	k++;
	sqlite3_bind_int(ins, k++, c->iterations);
	sqlite3_bind_int(ins, k++, c->errors);
	best[0] = c->best_mb_s;
	best[1] = c->best_iops;
	for (int m = 0; c->steady && m < 2; m++) {
		/* a steady-state window's headline is its average */
		int n;
		double mean, sd;
		acc_metric(c, m, &n, &mean, &sd);
		if (n)
			best[m] = mean;
	}
	sqlite3_bind_double(ins, k++, best[0]);
	sqlite3_bind_double(ins, k++, best[1]);
	for (int m = 0; m < ARCHIVE_SUM_METRICS; m++) {
		int n;
		double mean, sd;
		acc_metric(c, m, &n, &mean, &sd);
		sqlite3_bind_int(ins, k++, n);
		if (n)
			sqlite3_bind_double(ins, k, mean);
		k++;
		if (n >= 2)
			sqlite3_bind_double(ins, k, sd);
		k++;
	}
	sqlite3_bind_blob(ins, k, blob, (int)len, free);
	src = sqlite3_step(ins);
	sqlite3_reset(ins);
	sqlite3_clear_bindings(ins);
	return src == SQLITE_DONE ? 0
				  : archive_sql_err(a, src, "store summary");
}

/* Sums every test of q's rows (ordered by run, test, rw, then as the API
 * orders a test's iterations) into test_summaries. */
static int sum_rows(struct archive *a, sqlite3_stmt *q)
{
	sqlite3_stmt *ins = NULL;
	struct acc c = { 0 };
	int rc, src;

	if ((rc = archive_prep(a, SUM_INSERT, &ins)) < 0)
		return rc;
	while ((src = sqlite3_step(q)) == SQLITE_ROW) {
		if (c.test && !acc_same(&c, q)) {
			if ((rc = acc_write(a, ins, &c)) < 0)
				goto out;
			acc_clear(&c);
		}
		if ((rc = acc_add(&c, q)) < 0)
			goto out;
	}
	if (src != SQLITE_DONE) {
		rc = archive_sql_err(a, src, "sum results");
		goto out;
	}
	if (c.test)
		rc = acc_write(a, ins, &c);
out:
	acc_clear(&c);
	sqlite3_finalize(ins);
	return rc;
}

/* A result row inside its test's steady-state window, or of a test
 * without one (archive_steady.c; not for migration 8's fill, which runs
 * before the table exists). */
#define IN_WINDOW                                                              \
	"NOT EXISTS (SELECT 1 FROM test_conditions c"                          \
	" WHERE c.run_id=results.run_id AND c.test=results.test"               \
	" AND c.rw=results.rw AND (results.iteration<c.window_first"           \
	" OR results.iteration>c.window_last))"

/* Sums run_id's tests up: test and rw's only, or (test NULL) every one;
 * a test with a steady-state window over the window's rounds. */
static int sum_run(struct archive *a, int64_t run_id, const char *test,
		   const char *rw)
{
	sqlite3_stmt *q;
	int rc;

	if ((rc = archive_prep(
		     a,
		     test ? SUM_ROWS_STEADY
			     " WHERE run_id=?1 AND test=?2 AND rw=?3"
			     " AND " IN_WINDOW " ORDER BY iteration, id"
			  : SUM_ROWS_STEADY " WHERE run_id=?1 AND " IN_WINDOW
					    " ORDER BY test, rw, iteration, id",
		     &q)) < 0)
		return rc;
	sqlite3_bind_int64(q, 1, run_id);
	if (test) {
		sqlite3_bind_text(q, 2, test, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, rw, -1, SQLITE_STATIC);
	}
	rc = sum_rows(a, q);
	sqlite3_finalize(q);
	return rc;
}

int archive_sums_test(struct archive *a, int64_t run_id, const char *test,
		      const char *rw)
{
	return sum_run(a, run_id, test, rw);
}

int archive_sums_run(struct archive *a, int64_t run_id)
{
	return sum_run(a, run_id, NULL, NULL);
}

int archive_sums_fill(struct archive *a)
{
	sqlite3_stmt *q;
	int rc;

	if ((rc = archive_prep(
		     a, SUM_ROWS " ORDER BY run_id, test, rw, iteration, id",
		     &q)) < 0)
		return rc;
	rc = sum_rows(a, q);
	sqlite3_finalize(q);
	return rc;
}

/* --- the reader compare uses --- */

struct archive_reader {
	struct archive *a;
	sqlite3_stmt *run, *tests;
	struct archive_test_sum *t; /* the last run's tests */
	size_t *off;		    /* where each one's values start */
	size_t n, cap;
	double *vals; /* their values, t[i].vals point in */
	size_t nv, cap_v;
	int tx; /* the reader began a read transaction (ended at close) */
};

int archive_reader_open(struct archive *a, struct archive_reader **out)
{
	struct archive_reader *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->a = a;
	/* one read transaction for all the runs: one snapshot of the archive
	 * (a run deleted meanwhile is not half read), and the file's locks
	 * taken once rather than twice a run */
	if (sqlite3_get_autocommit(a->db) && archive_exec(a, "BEGIN") == 0)
		r->tx = 1;
	if ((rc = archive_prep(
		     a,
		     "SELECT id, state, profile, target, labels,"
		     " json_extract(spec, '$.size', '$.iterations',"
		     "  '$.duration_s', '$.direct_requested', '$.interleave',"
		     "  '$.imported', '$.hosts'),"
		     " json_extract(probe, '$.fs_type', '$.write_cache'),"
		     " engine_target, engine_version, direct,"
		     " EXISTS (SELECT 1 FROM imports WHERE run_id=runs.id"
		     "  AND format <> 'storbench'),"
		     " json_type(spec, '$.interleave') IS NOT NULL"
		     " FROM runs WHERE id=?",
		     &r->run)) < 0 ||
	    (rc = archive_prep(
		     a,
		     "SELECT test, rw, pattern, block_size, queue_depth,"
		     " threads, sweep, iterations, errors, best_mb_s,"
		     " best_iops, vals FROM test_summaries WHERE run_id=?"
		     " ORDER BY seq",
		     &r->tests)) < 0) {
		archive_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* The tests the last archive_reader_tests gave: their strings freed. */
static void reader_drop(struct archive_reader *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free((char *)r->t[i].test);
		free((char *)r->t[i].rw);
		free((char *)r->t[i].pattern);
		free((char *)r->t[i].sweep_json);
	}
	r->n = 0;
	r->nv = 0;
}

void archive_reader_close(struct archive_reader *r)
{
	if (!r)
		return;
	reader_drop(r);
	sqlite3_finalize(r->run);
	sqlite3_finalize(r->tests);
	if (r->tx)
		archive_exec(r->a, "COMMIT");
	free(r->t);
	free(r->off);
	free(r->vals);
	free(r);
}

/* Sets key of o to the i-th member of the JSON array text arr when it is
 * not null. */
static void set_from(json_t *o, const char *key, json_t *arr, size_t i)
{
	json_t *v = json_array_get(arr, i);

	if (v && !json_is_null(v))
		json_object_set(o, key, v);
}

int archive_reader_run(struct archive_reader *r, int64_t id, json_t **out)
{
	static const char *const spec_keys[] = {
		"size",	      "iterations", "duration_s", "direct_requested",
		"interleave", "imported",   "hosts"
	};
	sqlite3_stmt *st = r->run;
	json_t *run = NULL, *spec, *probe, *sv = NULL, *pv = NULL;
	const char *t;
	int src, rc = 0;

	*out = NULL;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	if ((src = sqlite3_step(st)) != SQLITE_ROW) {
		rc = src == SQLITE_DONE
			     ? -ENOENT
			     : archive_sql_err(r->a, src, "read run");
		goto out;
	}
	t = (const char *)sqlite3_column_text(st, 5);
	sv = t ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL;
	t = (const char *)sqlite3_column_text(st, 6);
	pv = t ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL;
	t = (const char *)sqlite3_column_text(st, 4);
	run = json_pack(
		"{s:I, s:s?, s:s?, s:s?, s:o?, s:{}, s:{}, s:{s:s?, s:s?, "
		"s:b}, s:b, s:b}",
		"id", (json_int_t)sqlite3_column_int64(st, 0), "state",
		(const char *)sqlite3_column_text(st, 1), "profile",
		(const char *)sqlite3_column_text(st, 2), "target",
		(const char *)sqlite3_column_text(st, 3), "labels",
		t ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL, "spec",
		"probe", "engine", "target",
		(const char *)sqlite3_column_text(st, 7), "version",
		(const char *)sqlite3_column_text(st, 8), "direct",
		sqlite3_column_int(st, 9) != 0, "imported",
		sqlite3_column_int(st, 10) != 0, "interleaved",
		sqlite3_column_int(st, 11) != 0);
	if (!run) {
		rc = -ENOMEM;
		goto out;
	}
	spec = json_object_get(run, "spec");
	probe = json_object_get(run, "probe");
	for (size_t i = 0; i < sizeof(spec_keys) / sizeof(spec_keys[0]); i++)
		set_from(spec, spec_keys[i], sv, i);
	set_from(probe, "fs_type", pv, 0);
	set_from(probe, "write_cache", pv, 1);
	*out = run;
out:
	json_decref(sv);
	json_decref(pv);
	sqlite3_reset(st);
	return rc;
}

int archive_reader_tests(struct archive_reader *r, int64_t id,
			 const struct archive_test_sum **tests, size_t *n)
{
	sqlite3_stmt *st = r->tests;
	int src, rc = 0;

	reader_drop(r);
	*tests = NULL;
	*n = 0;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		struct archive_test_sum *t;
		const unsigned char *blob = sqlite3_column_blob(st, 11);
		size_t nv = (size_t)sqlite3_column_bytes(st, 11) / 8;
		if (r->n == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 16;
			void *p = realloc(r->t, cap * sizeof(*r->t));
			void *o = p ? realloc(r->off, cap * sizeof(*r->off))
				    : NULL;
			if (p)
				r->t = p;
			if (!o) {
				rc = -ENOMEM;
				goto out;
			}
			r->off = o;
			r->cap = cap;
		}
		if (r->nv + nv > r->cap_v) {
			size_t cap = 2 * (r->nv + nv) + 64;
			void *p = realloc(r->vals, cap * sizeof(*r->vals));
			if (!p) {
				rc = -ENOMEM;
				goto out;
			}
			r->vals = p;
			r->cap_v = cap;
		}
		t = &r->t[r->n];
		memset(t, 0, sizeof(*t));
		/* an offset for now: the values array may move as it grows */
		r->off[r->n] = r->nv;
		t->test = col_dup(st, 0);
		t->rw = col_dup(st, 1);
		t->pattern = col_dup(st, 2);
		t->sweep_json = col_dup(st, 6);
		r->n++;
		if (!t->test || !t->rw || !t->pattern) {
			rc = -ENOMEM;
			goto out;
		}
		t->block_size = sqlite3_column_int64(st, 3);
		t->queue_depth = sqlite3_column_int64(st, 4);
		t->threads = sqlite3_column_int64(st, 5);
		t->iterations = sqlite3_column_int(st, 7);
		t->errors = sqlite3_column_int(st, 8);
		t->best_mb_s = sqlite3_column_double(st, 9);
		t->best_iops = sqlite3_column_double(st, 10);
		for (size_t i = 0; i < nv; i++)
			r->vals[r->nv + i] = get_le(blob + 8 * i);
		t->n_vals = nv / ARCHIVE_SUM_METRICS;
		r->nv += nv;
	}
	if (src != SQLITE_DONE)
		rc = archive_sql_err(r->a, src, "read summaries");
out:
	sqlite3_reset(st);
	for (size_t i = 0; i < r->n; i++)
		r->t[i].vals = r->vals ? r->vals + r->off[i] : NULL;
	if (rc < 0) {
		reader_drop(r);
		return rc;
	}
	*tests = r->t;
	*n = r->n;
	return 0;
}
