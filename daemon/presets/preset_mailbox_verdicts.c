/*
 * preset_mailbox_verdicts — what mailbox-db adds to a run (preset.summary)
 * and how its rows are read (preset.rows): each thread count of the sweep
 * summed over its iterations (the database reads and writes, the log
 * writes), judged PASS or FAIL against the thresholds of the job's options
 * with the reasons in words, with transactional IOPS and the scaling
 * efficiency against the first thread count; and the metrics compare reads
 * from those rows, the run page's columns and its row names. Pure: reads
 * the run's tests and options, no archive, no I/O.
 */
#include "preset.h"
#include "preset_mailbox.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Totals of one test over its iterations. */
struct totals {
	double ios, bytes, seconds, lat_sum_us, p99_us;
};

static int totals_of(json_t *tests, const char *name, const char *rw,
		     struct totals *t)
{
	size_t i, j;
	json_t *x, *it;

	memset(t, 0, sizeof(*t));
	json_array_foreach(tests, i, x)
	{
		if (strcmp(json_string_value(json_object_get(x, "test")),
			   name) ||
		    strcmp(json_string_value(json_object_get(x, "rw")), rw))
			continue;
		json_array_foreach(json_object_get(x, "iterations"), j, it)
		{
			double n =
				json_number_value(json_object_get(it, "ios"));
			t->ios += n;
			t->bytes +=
				json_number_value(json_object_get(it, "bytes"));
			t->seconds += json_number_value(
				json_object_get(it, "seconds"));
			t->lat_sum_us += n * json_number_value(json_object_get(
						     it, "lat_mean_us"));
		}
		t->p99_us = json_number_value(json_object_get(
			json_object_get(x, "latency_us"), "p99"));
		return 0;
	}
	return -ENOENT;
}

/* A mean or p99 in ms as JSON: null when the direction made no I/O. */
static json_t *ms_or_null(const struct totals *t, double ms)
{
	return t->ios > 0 ? json_real(ms) : json_null();
}

static double mean_ms(const struct totals *t)
{
	return t->ios > 0 ? t->lat_sum_us / t->ios / 1e3 : 0;
}

/* Adds a reason when value is over the threshold key (ms; null: skip). */
static void judge(json_t *reasons, json_t *th, const char *key,
		  const struct totals *t, double value, const char *what)
{
	json_t *v = json_object_get(th, key);
	char text[200];

	if (!json_is_number(v) || t->ios == 0 || value <= json_number_value(v))
		return;
	snprintf(text, sizeof(text), "%s %.3g ms is over the %g ms threshold",
		 what, value, json_number_value(v));
	json_array_append_new(reasons, json_string(text));
}

json_t *preset_mailbox_verdicts(json_t *tests, json_t *opts)
{
	json_t *out = json_array(), *th = json_object_get(opts, "thresholds");
	json_t *tl = json_object_get(opts, "threads"), *v;
	double base_iops = 0, base_threads = 0;
	size_t i;

	json_array_foreach(tl, i, v)
	{
		struct totals r, w, l;
		char name[32];
		double threads = (double)json_integer_value(v), tiops;
		json_t *reasons = json_array(), *row;

		snprintf(name, sizeof(name), "Mailbox T%lld",
			 (long long)json_integer_value(v));
		if (totals_of(tests, name, "db read", &r) < 0 ||
		    totals_of(tests, name, "db write", &w) < 0 ||
		    totals_of(tests, name, "log write", &l) < 0 ||
		    r.seconds <= 0) {
			json_decref(reasons);
			continue; /* not measured (yet) */
		}
		tiops = (r.ios + w.ios) / r.seconds;
		if (base_threads == 0) {
			base_threads = threads;
			base_iops = tiops;
		}
		judge(reasons, th, "db_read_mean_ms", &r, mean_ms(&r),
		      "database read mean latency");
		judge(reasons, th, "db_read_p99_ms", &r, r.p99_us / 1e3,
		      "database read p99 latency");
		judge(reasons, th, "db_write_mean_ms", &w, mean_ms(&w),
		      "database write mean latency");
		judge(reasons, th, "log_write_mean_ms", &l, mean_ms(&l),
		      "log write mean latency");
		judge(reasons, th, "log_write_p99_ms", &l, l.p99_us / 1e3,
		      "log write p99 latency");
		row = json_pack(
			"{s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, "
			"s:f, s:s, s:o}",
			"threads", threads, "transactional_iops", tiops,
			"db_read_iops", r.ios / r.seconds, "db_write_iops",
			w.ios / r.seconds, "db_read_mean_ms",
			ms_or_null(&r, mean_ms(&r)), "db_read_p99_ms",
			ms_or_null(&r, r.p99_us / 1e3), "db_write_mean_ms",
			ms_or_null(&w, mean_ms(&w)), "log_write_mean_ms",
			ms_or_null(&l, mean_ms(&l)), "log_write_p99_ms",
			ms_or_null(&l, l.p99_us / 1e3), "log_mb_s",
			l.seconds > 0 ? l.bytes / l.seconds / 1e6 : 0,
			"verdict", json_array_size(reasons) ? "FAIL" : "PASS",
			"reasons", reasons);
		json_object_set_new(
			row, "efficiency",
			json_real(base_iops > 0
					  ? (tiops / base_iops) /
						    (threads / base_threads)
					  : 0));
		json_array_append_new(out, row);
	}
	return out;
}

/* --- compare and the run page --- */

static void row_name(json_t *row, char *buf, size_t len)
{
	snprintf(buf, len, "Mailbox T%.0f",
		 json_number_value(json_object_get(row, "threads")));
}

static const struct metric metrics[] = {
	{ "transactional_iops", "I/O/s", 1, "more", "fewer",
	  "transactional IOPS", 0 },
	{ "db_read_mean_ms", "ms", 0, "higher", "lower",
	  "ms database read mean latency", 3 },
	{ "db_read_p99_ms", "ms", 0, "higher", "lower",
	  "ms database read p99 latency", 3 },
	{ "db_write_mean_ms", "ms", 0, "higher", "lower",
	  "ms database write mean latency", 3 },
	{ "log_write_mean_ms", "ms", 0, "higher", "lower",
	  "ms log write mean latency", 3 },
	{ "log_write_p99_ms", "ms", 0, "higher", "lower",
	  "ms log write p99 latency", 3 },
};

static const struct preset_column columns[] = {
	{ "threads", "Threads", 0, 0, NULL },
	{ "transactional_iops", "Transactional IOPS", 1, 1, NULL },
	{ "efficiency", "Efficiency", 2, 0, NULL },
	{ "db_read_mean_ms", "DB read mean (ms)", 3, 2,
	  "thresholds.db_read_mean_ms" },
	{ "db_read_p99_ms", "DB read p99 (ms)", 3, 0,
	  "thresholds.db_read_p99_ms" },
	{ "db_write_mean_ms", "DB write mean (ms)", 3, 0,
	  "thresholds.db_write_mean_ms" },
	{ "log_write_mean_ms", "Log write mean (ms)", 3, 2,
	  "thresholds.log_write_mean_ms" },
	{ "log_write_p99_ms", "Log write p99 (ms)", 3, 0,
	  "thresholds.log_write_p99_ms" },
	{ "log_mb_s", "Log MB/s", 2, 0, NULL },
};

const struct preset_rows preset_mailbox_rows = {
	.title = "Mailbox database",
	.x = "threads",
	.y_title = "IOPS",
	.y2_title = "ms",
	.columns = columns,
	.n_columns = FIELDS_N(columns),
	.kind = "mailbox",
	.metrics = metrics,
	.n_metrics = FIELDS_N(metrics),
	.verdict_key = "verdict",
	.reasons_key = "reasons",
	.verdicts_key = "mailbox_verdicts",
	.row_name = row_name,
};
