/*
 * test_sums.h — a run's stored test summaries (test_summaries, schema 8)
 * checked against its iterations as archive_run_json serves them: the
 * same tests in the same order and shape, the best iteration's MB/s and
 * IOPS, and per metric the same values in order, with n, mean and sample
 * sd worked out here from those iterations (numbers to 1e-12 relative).
 * For test_archive.c and test_migrate.c.
 */
#ifndef STORBENCH_TEST_SUMS_H
#define STORBENCH_TEST_SUMS_H

#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "archive/archive.h"

static int sums_close(double a, double b)
{
	return a == b || fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* The value of metric m (archive_sum_metrics) in iteration it, or NAN. */
static double sums_value(json_t *it, int m)
{
	json_t *v = m == 3 ? json_object_get(json_object_get(it, "latency_us"),
					     "p99")
			   : json_object_get(it, archive_sum_metrics[m]);

	if (json_is_string(json_object_get(it, "error")))
		return NAN;
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Test t of run_id (row of test_summaries in the file at path) against
 * its iterations; names what differs on stderr. */
static int sums_test_agrees(sqlite3 *h, int64_t run_id, json_t *t,
			    const struct archive_test_sum *s)
{
	json_t *its = json_object_get(t, "iterations"), *best, *it;
	sqlite3_stmt *st = NULL;
	size_t i;
	int ok = 1;

	best = json_object_get(t, "best");
	ok &= strcmp(s->test, json_string_value(json_object_get(t, "test"))) ==
		      0 &&
	      strcmp(s->rw, json_string_value(json_object_get(t, "rw"))) == 0 &&
	      strcmp(s->pattern,
		     json_string_value(json_object_get(t, "pattern"))) == 0 &&
	      s->block_size ==
		      json_integer_value(json_object_get(t, "block_size")) &&
	      s->queue_depth ==
		      json_integer_value(json_object_get(t, "queue_depth")) &&
	      s->threads == json_integer_value(json_object_get(t, "threads")) &&
	      s->n_vals == json_array_size(its) &&
	      s->best_mb_s ==
		      json_number_value(json_object_get(best, "mb_s")) &&
	      s->best_iops == json_number_value(json_object_get(best, "iops"));
	if (!ok) {
		fprintf(stderr, "  run %lld %s %s: shape or best differs\n",
			(long long)run_id, s->test, s->rw);
		return 0;
	}
	if (sqlite3_prepare_v2(
		    h,
		    "SELECT mb_s_n, mb_s_mean, mb_s_sd, iops_n, iops_mean,"
		    " iops_sd, lat_mean_us_n, lat_mean_us_mean, lat_mean_us_sd,"
		    " lat_p99_us_n, lat_p99_us_mean, lat_p99_us_sd"
		    " FROM test_summaries WHERE run_id=? AND test=? AND rw=?",
		    -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, s->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, s->rw, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return 0;
	}
	for (int m = 0; m < ARCHIVE_SUM_METRICS && ok; m++) {
		double sum = 0, ss = 0, mean = NAN, sd = NAN;
		int n = 0;
		json_array_foreach(its, i, it)
		{
			double v = sums_value(it, m);
			double got = s->vals[i * ARCHIVE_SUM_METRICS + m];
			/* the stored value is the served one, bit for bit */
			if (isnan(v) ? !isnan(got) : v != got)
				ok = 0;
			if (!isnan(v)) {
				sum += v;
				n++;
			}
		}
		if (n)
			mean = sum / n;
		json_array_foreach(its, i, it)
		{
			double v = sums_value(it, m);
			if (!isnan(v))
				ss += (v - mean) * (v - mean);
		}
		if (n >= 2)
			sd = sqrt(ss / (n - 1));
		ok &= sqlite3_column_int(st, 3 * m) == n;
		ok &= n ? sums_close(sqlite3_column_double(st, 3 * m + 1), mean)
			: sqlite3_column_type(st, 3 * m + 1) == SQLITE_NULL;
		ok &= n >= 2 ? sums_close(sqlite3_column_double(st, 3 * m + 2),
					  sd)
			     : sqlite3_column_type(st, 3 * m + 2) ==
				       SQLITE_NULL;
		if (!ok)
			fprintf(stderr,
				"  run %lld %s %s %s: stored n %d mean %.17g "
				"sd %.17g, iterations give n %d mean %.17g "
				"sd %.17g\n",
				(long long)run_id, s->test, s->rw,
				archive_sum_metrics[m],
				sqlite3_column_int(st, 3 * m),
				sqlite3_column_double(st, 3 * m + 1),
				sqlite3_column_double(st, 3 * m + 2), n, mean,
				sd);
	}
	sqlite3_finalize(st);
	return ok;
}

/* Every test of run run_id: its summary (through the archive's reader and
 * in the file at path) agrees with its iterations. */
static int sums_agree(struct archive *a, const char *path, int64_t run_id)
{
	struct archive_reader *r = NULL;
	const struct archive_test_sum *ts = NULL;
	json_t *run = NULL, *tests;
	sqlite3 *h = NULL;
	size_t nt = 0;
	int ok = 0;

	if (archive_run_json(a, run_id, &run) < 0 ||
	    archive_reader_open(a, &r) < 0 ||
	    archive_reader_tests(r, run_id, &ts, &nt) < 0 ||
	    sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto out;
	tests = json_object_get(run, "tests");
	if (nt != json_array_size(tests)) {
		fprintf(stderr, "  run %lld: %zu summaries, %zu tests\n",
			(long long)run_id, nt, json_array_size(tests));
		goto out;
	}
	ok = 1;
	for (size_t i = 0; i < nt && ok; i++)
		ok = sums_test_agrees(h, run_id, json_array_get(tests, i),
				      &ts[i]);
out:
	sqlite3_close(h);
	archive_reader_close(r);
	json_decref(run);
	return ok;
}

#endif
