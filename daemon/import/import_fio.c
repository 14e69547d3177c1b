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
 * numjobs and read share come from the options. fio 2.x often prints no
 * options: the block size is then derived where the numbers make it exact
 * (block_from_numbers), the rest are fio's defaults (a warning says so),
 * and the file or device is unknown — never the job's name.
 *
 * Every number, read or derived, is checked against its range
 * (import_check); an error names the job and the key
 * ("jobs[2] (randread) read.runtime: …"), JSON having no lines to name.
 */
#include "import.h"
#include "platform/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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

/* Where a number of job i (jobname name) is: dir.key, or the option key
 * when dir is NULL; and the error's buffer. */
struct where {
	size_t i;
	const char *name, *dir;
	char *err;
	size_t len;
};

/* v (key) against f: 0, or -EINVAL with w->err "jobs[i] (name) dir.key:
 * FIELD V out of range (LO … HI)". */
static int check(enum import_field f, double v, const struct where *w,
		 const char *key)
{
	char why[160];

	if (import_check(f, v, 0, why, sizeof(why), NULL) == 0)
		return 0;
	snprintf(w->err, w->len, "jobs[%zu] (%.64s) %s%s%s: %s", w->i, w->name,
		 w->dir ? w->dir : "", w->dir ? "." : "", key, why);
	return -EINVAL;
}

static int not_a_number(const struct where *w, const char *key, const char *s)
{
	snprintf(w->err, w->len,
		 "jobs[%zu] (%.64s) %s: \"%.32s\" is not a size or count fio "
		 "takes",
		 w->i, w->name, key, s);
	return -EINVAL;
}

/* Option key, "256k", "4K", "1m", "4096" (the first of "4k,8k"), into
 * *bytes (0 when absent). 0, or -EINVAL with w->err. */
static int bytes_opt(const char *s, const struct where *w, const char *key,
		     uint64_t *bytes)
{
	const char *end;
	double v;

	*bytes = 0;
	if (!s)
		return 0;
	if (import_number(s, &v, &end) < 0)
		return not_a_number(w, key, s);
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
	if (check(IMPORT_BLOCK_SIZE, v, w, key) < 0)
		return -EINVAL;
	*bytes = (uint64_t)v;
	return 0;
}

/* Option key, a whole count ("64") of field f, into *n; def when absent.
 * 0, or -EINVAL with w->err. */
static int count_opt(const char *s, enum import_field f, int def,
		     const struct where *w, const char *key, int *n)
{
	const char *end;
	double v;

	*n = def;
	if (!s)
		return 0;
	if (import_number(s, &v, &end) < 0 || *end || v != floor(v) ||
	    s[strspn(s, "0123456789")]) /* fio takes no "1e3" */
		return not_a_number(w, key, s);
	if (check(f, v, w, key) < 0)
		return -EINVAL;
	*n = (int)v;
	return 0;
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

/*
 * The block size of direction s when the job names none, in bytes, or 0
 * when the numbers do not give it exactly. "Exact" means one of:
 *   - the bytes moved over the I/Os (io_bytes, in KiB in fio 2.x, over
 *     total_ios) is a whole number of bytes and a multiple of 512: every
 *     I/O was that size;
 *   - else (fio 2.x with ramp_time counts the ramp's bytes but not its
 *     I/Os) B, the multiple of 512 nearest to bw × 1024 / iops, is within
 *     what fio's rounding explains: bw is printed in whole KiB/s (low by
 *     less than 1) and iops to 2 decimals (off by at most 0.005), so
 *     |bw × 1024 / iops − B| ≤ (1024 + 0.005 × B) / iops.
 */
static uint64_t block_from_numbers(json_t *s)
{
	int v3 = json_object_get(s, "bw_bytes") != NULL;
	double io = num(s, "io_bytes") * (v3 ? 1 : 1024);
	double ios = num(s, "total_ios"), bw = num(s, "bw"),
	       iops = num(s, "iops");
	double b, q;

	if (ios >= 1 && io > 0 && io < 1e18) {
		q = io / ios;
		if (q == floor(q) && fmod(q, 512) == 0)
			return (uint64_t)q;
	}
	if (!(bw > 0 && iops > 0))
		return 0;
	q = bw * 1024 / iops;
	b = 512 * floor(q / 512 + 0.5);
	if (b < 512 || b > 4294967296.0 ||
	    fabs(q - b) > (1024 + 0.005 * b) / iops)
		return 0;
	return (uint64_t)b;
}

/* The numbers of direction s of job j into t (the test's name, rw and
 * options set). 0, or -EINVAL with w->err. */
static int direction(json_t *s, struct import_test *t, uint64_t bs,
		     const struct where *w)
{
	int v3 = json_object_get(s, "bw_bytes") != NULL;
	json_t *lat;
	double io = num(s, "io_bytes") * (v3 ? 1 : 1024);

	t->block_size = bs ? bs : block_from_numbers(s);
	if (!t->block_size) {
		snprintf(w->err, w->len,
			 "jobs[%zu] (%.64s) %s: no bs option, and neither "
			 "io_bytes / total_ios nor bw / iops is a whole "
			 "block size: the block size is unknown",
			 w->i, w->name, w->dir);
		return -EINVAL;
	}
	t->iops = measure(s, "iops", 1e10);
	/* 3.x: bw_bytes in B/s; 2.x: bw in KiB/s */
	t->mb_s = v3 ? measure(s, "bw_bytes", 1e14) : measure(s, "bw", 1e11);
	if (t->mb_s >= 0)
		t->mb_s = v3 ? t->mb_s / 1e6 : t->mb_s * 1024 / 1e6;
	if ((lat = json_object_get(s, "lat_ns")))
		t->lat_mean_us = measure(lat, "mean", 1e15) / 1e3;
	else if ((lat = json_object_get(s, "lat")))
		t->lat_mean_us = measure(lat, "mean", 1e12);
	else
		t->lat_mean_us = -1;
	if (t->mb_s < 0 || t->iops < 0 || (lat && t->lat_mean_us < 0)) {
		snprintf(w->err, w->len,
			 "jobs[%zu].%s: iops, bandwidth and mean latency must "
			 "be numbers from 0 (a string, a negative or an absurd "
			 "value is not a result)",
			 w->i, w->dir);
		return -EINVAL;
	}
	if (check(IMPORT_IOPS, t->iops, w, "iops") < 0 ||
	    check(IMPORT_MB_S, t->mb_s, w, v3 ? "bw_bytes" : "bw") < 0 ||
	    (lat && check(IMPORT_LAT_US, t->lat_mean_us, w,
			  json_object_get(s, "lat_ns") ? "lat_ns.mean"
						       : "lat.mean") < 0) ||
	    check(IMPORT_BLOCK_SIZE, (double)t->block_size, w, "bs") < 0 ||
	    check(IMPORT_BYTES, io, w, "io_bytes") < 0 ||
	    (json_object_get(s, "total_ios") &&
	     check(IMPORT_COUNT, num(s, "total_ios"), w, "total_ios") < 0) ||
	    /* runtime: milliseconds */
	    (json_object_get(s, "runtime") &&
	     check(IMPORT_SECONDS, num(s, "runtime") / 1e3, w, "runtime") < 0))
		return -EINVAL;
	/* fio's bandwidth is io_bytes × 1000 / runtime (ms), in whole B/s
	 * (3.x) or KiB/s (2.x): half a percent and a KiB of room */
	if (io > 0 && num(s, "runtime") > 0) {
		double want = io * 1000 / num(s, "runtime") / 1e6;
		if (fabs(t->mb_s - want) > 0.005 * want + 1024 / 1e6) {
			snprintf(
				w->err, w->len,
				"jobs[%zu] (%.64s) %s.%s: %g MB/s is not "
				"io_bytes × 1000 / runtime (%.6f MB/s), as fio "
				"computes it",
				w->i, w->name, w->dir, v3 ? "bw_bytes" : "bw",
				t->mb_s, want);
			return -EINVAL;
		}
	}
	/* fio prints iops as total_ios × 1000 / runtime (ms), to 2 (2.x) or
	 * 6 decimals: a value that is not is none fio printed */
	if (num(s, "total_ios") > 0 && num(s, "runtime") > 0) {
		double want = num(s, "total_ios") * 1000 / num(s, "runtime");
		if (fabs(t->iops - want) > 0.005 + 1e-9 * want) {
			snprintf(w->err, w->len,
				 "jobs[%zu] (%.64s) %s.iops: %g is not "
				 "total_ios × 1000 / runtime (%.6f), as fio "
				 "computes it",
				 w->i, w->name, w->dir, t->iops, want);
			return -EINVAL;
		}
	}
	return 0;
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
		struct where w = { i, name, NULL, err, err_len };
		uint64_t bs;
		int qd, nj, mix;

		if (!name || utf8_has_control(name)) {
			snprintf(err, err_len, "jobs[%zu]: %s", i,
				 name ? "a control character in \"jobname\""
				      : "no \"jobname\"");
			rc = -EINVAL;
			goto out;
		}
		if ((rc = bytes_opt(option(root, j, "bs"), &w, "bs", &bs)) <
			    0 ||
		    (rc = count_opt(option(root, j, "iodepth"), IMPORT_QD, 1,
				    &w, "iodepth", &qd)) < 0 ||
		    (rc = count_opt(option(root, j, "numjobs"), IMPORT_THREADS,
				    1, &w, "numjobs", &nj)) < 0 ||
		    (rc = count_opt(option(root, j, "rwmixread"),
				    IMPORT_PERCENT, -1, &w, "rwmixread",
				    &mix)) < 0)
			goto out;
		if (!json_object_get(j, "job options") &&
		    !json_object_get(root, "global options"))
			import_warn(r,
				    "jobs[%zu] (%.64s): fio printed no job "
				    "options: queue depth 1, 1 thread and a "
				    "sequential pattern are fio's defaults, "
				    "not read from the file",
				    i, name);
		/* the file or device; without one it is unknown (fio names
		 * a file after the job, but the job's name is no device) */
		if (!r->comment[0] && fn)
			snprintf(r->comment, sizeof(r->comment), "%s", fn);
		for (int d = 0; d < 2; d++) {
			json_t *s = json_object_get(j, dirs[d]);
			struct import_test *t;
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
			t->queue_depth = qd;
			t->threads = nj;
			t->read_pct = mix >= 0 && rw && strstr(rw, "rw") ? mix
				      : d == 0				 ? 100
									 : 0;
			w.dir = dirs[d];
			if ((rc = direction(s, t, bs, &w)) < 0)
				goto out;
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

int import_fio_sniff(const char *buf, size_t len)
{
	return import_holds(buf, len, "\"fio version\"");
}
