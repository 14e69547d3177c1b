/*
 * import_fio — fio's JSON output (--output-format=json or json+), fio 2.x
 * and 3.x, into struct import_run (import.h).
 *
 * What varies: text before the JSON (fio prints warnings first); 3.x keys
 * in nanoseconds (lat_ns, bw_bytes) against 2.x microseconds and KiB/s
 * (lat, bw); "job options" against "global options"; group_reporting (a
 * "jobs" entry then stands for numjobs processes); a key given twice
 * ("filename"). Each job and direction that moved data is one test, named
 * by the job (plus "read"/"write" in rw); its block size, queue depth,
 * numjobs and read share come from the options.
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

/* An option of job j, else of the global options, else NULL. */
static const char *option(json_t *root, json_t *j, const char *key)
{
	json_t *v = json_object_get(json_object_get(j, "job options"), key);

	if (!v)
		v = json_object_get(json_object_get(root, "global options"),
				    key);
	return json_string_value(v);
}

/* "256k", "4K", "1m", "4096" → bytes (the first of "4k,8k"); 0 if none. */
static uint64_t bytes_opt(const char *s)
{
	char *end;
	double v;

	if (!s)
		return 0;
	v = strtod(s, &end);
	switch (tolower((unsigned char)*end)) {
	case 'k':
		v *= 1024;
		break;
	case 'm':
		v *= 1 << 20;
		break;
	case 'g':
		v *= 1 << 30;
		break;
	default:
		break;
	}
	return v > 0 && v < 1e15 ? (uint64_t)v : 0;
}

/* A count option ("64"): clamped to 0 … 1000000 (atoi's overflow is
 * undefined); def when absent. */
static int count_opt(const char *s, int def)
{
	long v;

	if (!s)
		return def;
	v = strtol(s, NULL, 10);
	return v < 0 ? 0 : v > 1000000 ? 1000000 : (int)v;
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* o[key] as a measurement: a JSON number, finite, 0 … max; -1 otherwise
 * (absent: -2). */
static double measure(json_t *o, const char *key, double max)
{
	json_t *v = json_object_get(o, key);
	double x;

	if (!v)
		return -2;
	x = json_number_value(v);
	return json_is_number(v) && x >= 0 && x <= max ? x : -1;
}

int import_fio(const char *buf, size_t len, struct import_run *r, char *err,
	       size_t err_len, int *line)
{
	const char *start = memchr(buf, '{', len);
	json_error_t je;
	json_t *root, *jobs, *j;
	size_t i;
	const char *ver;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	*line = 0;
	if (!start) {
		snprintf(err, err_len, "no JSON object in the file");
		return -EINVAL;
	}
	/* fio may print warnings before its JSON; duplicate keys (a second
	 * "filename") keep the last */
	root = json_loadb(start, len - (size_t)(start - buf),
			  JSON_DISABLE_EOF_CHECK, &je);
	if (!root) {
		for (const char *p = buf; p < start; p++)
			if (*p == '\n')
				je.line++;
		*line = je.line;
		snprintf(err, err_len, "line %d: not JSON: %s", je.line,
			 je.text);
		return -EINVAL;
	}
	ver = json_string_value(json_object_get(root, "fio version"));
	jobs = json_object_get(root, "jobs");
	if (!ver || strncmp(ver, "fio-", 4) != 0 || !json_is_array(jobs)) {
		snprintf(err, err_len,
			 "not fio JSON output: no \"fio version\" and "
			 "\"jobs\"");
		rc = -EINVAL;
		goto out;
	}
	snprintf(r->tool, sizeof(r->tool), "fio");
	snprintf(r->version, sizeof(r->version), "%s", ver + 4);
	if (json_is_integer(json_object_get(root, "timestamp")) &&
	    json_integer_value(json_object_get(root, "timestamp")) > 0 &&
	    json_integer_value(json_object_get(root, "timestamp")) <
		    4102444800LL) {
		time_t t = (time_t)json_integer_value(
			json_object_get(root, "timestamp"));
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(r->date, sizeof(r->date), "%Y-%m-%dT%H:%M:%SZ",
				 &tm);
	}
	r->iterations = 1;
	json_array_foreach(jobs, i, j)
	{
		static const char *const dirs[] = { "read", "write" };
		const char *name =
			json_string_value(json_object_get(j, "jobname"));
		const char *rw = option(root, j, "rw")
					 ? option(root, j, "rw")
					 : option(root, j, "readwrite");
		const char *fn = option(root, j, "filename");
		uint64_t bs = bytes_opt(option(root, j, "bs"));
		int qd = count_opt(option(root, j, "iodepth"), 1);
		int nj = count_opt(option(root, j, "numjobs"), 1);
		int mix = count_opt(option(root, j, "rwmixread"), -1);

		if (!name) {
			snprintf(err, err_len, "jobs[%zu]: no \"jobname\"", i);
			rc = -EINVAL;
			goto out;
		}
		if ((option(root, j, "bs") && !bs) || qd < 1 || qd >= 1000000 ||
		    nj < 1 || nj >= 1000000 || mix > 100) {
			snprintf(err, err_len,
				 "jobs[%zu] (%.64s): bs, iodepth, numjobs or "
				 "rwmixread "
				 "is not a size or count fio takes",
				 i, name);
			rc = -EINVAL;
			goto out;
		}
		/* the file or device; without one, fio names the file
		 * after the job */
		if (!r->comment[0])
			snprintf(r->comment, sizeof(r->comment), "%s",
				 fn ? fn : name);
		for (int d = 0; d < 2; d++) {
			json_t *s = json_object_get(j, dirs[d]);
			struct import_test *t;
			json_t *lat;
			double ios = num(s, "total_ios");
			if (!json_is_object(s))
				continue;
			if (ios <= 0 && num(s, "io_bytes") <= 0 &&
			    num(s, "io_kbytes") <= 0)
				continue; /* this direction did nothing */
			if (r->n == IMPORT_MAX_TESTS) {
				snprintf(err, err_len,
					 "more than %d job directions",
					 IMPORT_MAX_TESTS);
				rc = -EINVAL;
				goto out;
			}
			t = &r->t[r->n++];
			memset(t, 0, sizeof(*t));
			snprintf(t->name, sizeof(t->name), "%.63s", name);
			snprintf(t->rw, sizeof(t->rw), "%s", dirs[d]);
			snprintf(t->pattern, sizeof(t->pattern), "%s",
				 rw && strstr(rw, "rand") ? "random"
							  : "sequential");
			t->block_size = bs;
			t->queue_depth = qd > 0 ? qd : 1;
			t->threads = nj > 0 ? nj : 1;
			t->read_pct = mix >= 0 && rw && strstr(rw, "rw") ? mix
				      : d == 0				 ? 100
									 : 0;
			t->iops = measure(s, "iops", 1e10);
			/* 3.x: bw_bytes in B/s; 2.x: bw in KiB/s */
			t->mb_s = json_object_get(s, "bw_bytes")
					  ? measure(s, "bw_bytes", 1e14)
					  : measure(s, "bw", 1e11);
			if (t->mb_s >= 0)
				t->mb_s = json_object_get(s, "bw_bytes")
						  ? t->mb_s / 1e6
						  : t->mb_s * 1024 / 1e6;
			if ((lat = json_object_get(s, "lat_ns")))
				t->lat_mean_us =
					measure(lat, "mean", 1e15) / 1e3;
			else if ((lat = json_object_get(s, "lat")))
				t->lat_mean_us = measure(lat, "mean", 1e12);
			else
				t->lat_mean_us = -1;
			if (t->mb_s < 0 || t->iops < 0 ||
			    ((lat = json_object_get(s, "lat_ns")
					    ?: json_object_get(s, "lat")) &&
			     t->lat_mean_us < 0)) {
				snprintf(err, err_len,
					 "jobs[%zu].%s: iops, bandwidth and "
					 "mean latency "
					 "must be numbers from 0 (a string, a "
					 "negative or "
					 "an absurd value is not a result)",
					 i, dirs[d]);
				rc = -EINVAL;
				goto out;
			}
		}
	}
	if (r->n == 0) {
		snprintf(err, err_len, "no job moved any data");
		rc = -EINVAL;
	}
out:
	json_decref(root);
	return rc;
}
