/*
 * import_fio_job — one job of fio's JSON output (an entry of "jobs" or of
 * "client_stats") into tests of a run, a run begun and finished (import.h;
 * what varies between fio's versions: import_fio.c).
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

/* An option of job j, else of the global options g (NULL: none), else
 * NULL. */
static const char *option(json_t *g, json_t *j, const char *key)
{
	json_t *v = json_object_get(json_object_get(j, "job options"), key);

	if (!v)
		v = json_object_get(g, key);
	return json_string_value(v);
}

/* Where a number of job i (jobname name) is: dir.key, or the option key
 * when dir is NULL; and the error's buffer. */
struct where {
	const char *list; /* "jobs", or "client_stats" (fio --client) */
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
	snprintf(w->err, w->len, "%s[%zu] (%.64s) %s%s%s: %s", w->list, w->i,
		 w->name, w->dir ? w->dir : "", w->dir ? "." : "", key, why);
	return -EINVAL;
}

static int not_a_number(const struct where *w, const char *key, const char *s)
{
	snprintf(w->err, w->len,
		 "%s[%zu] (%.64s) %s: \"%.32s\" is not a size or count fio "
		 "takes",
		 w->list, w->i, w->name, key, s);
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
 * The bytes direction s moved. fio printed io_bytes in KiB until 2.21,
 * which corrected it to bytes and added io_kbytes beside it: io_kbytes
 * tells which (the version does not: a 3.1 file has bytes and no
 * bw_bytes, a 2.1 file KiB).
 */
static double io_bytes(json_t *s)
{
	return num(s, "io_bytes") *
	       (json_object_get(s, "io_kbytes") ? 1 : 1024);
}

/*
 * The block size of direction s when the job names none, in bytes, or 0
 * when the numbers do not give it exactly. "Exact" means one of:
 *   - the bytes moved over the I/Os (io_bytes over total_ios) is a whole
 *     number of bytes and a multiple of 512: every I/O was that size;
 *   - else (fio 2.x prints no total_ios, and with ramp_time counts the
 *     ramp's bytes but not its I/Os) B, the multiple of 512 nearest to
 *     bw × 1024 / iops, is the only one within what fio's rounding
 *     explains: bw is printed in whole KiB/s (low by less than 1) and iops
 *     cut to a whole number (fio 2.1: a JSON integer) or to 2 decimals
 *     (low by less than d = 1 or 0.01), so
 *     |bw × 1024 / iops − B| ≤ (1024 + d × B) / iops, and that bound must
 *     be under 256 B, half the step, or two sizes would fit.
 */
static uint64_t block_from_numbers(json_t *s)
{
	double io = io_bytes(s), ios = num(s, "total_ios"), bw = num(s, "bw"),
	       iops = num(s, "iops");
	double d = json_is_integer(json_object_get(s, "iops")) ? 1 : 0.01;
	double b, q, slack;

	if (ios >= 1 && io > 0 && io < 1e18) {
		q = io / ios;
		if (q == floor(q) && fmod(q, 512) == 0)
			return (uint64_t)q;
	}
	if (!(bw > 0 && iops > 0))
		return 0;
	q = bw * 1024 / iops;
	b = 512 * floor(q / 512 + 0.5);
	slack = (1024 + d * b) / iops;
	if (b < 512 || b > 4294967296.0 || slack >= 256 || fabs(q - b) > slack)
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
	double io = io_bytes(s);
	char at[128];

	/* 0: unknown, stored as such (the caller warns) */
	t->block_size = bs ? bs : block_from_numbers(s);
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
			 "%s[%zu].%s: iops, bandwidth and mean latency must "
			 "be numbers from 0 (a string, a negative or an absurd "
			 "value is not a result)",
			 w->list, w->i, w->dir);
		return -EINVAL;
	}
	if (check(IMPORT_IOPS, t->iops, w, "iops") < 0 ||
	    check(IMPORT_MB_S, t->mb_s, w, v3 ? "bw_bytes" : "bw") < 0 ||
	    (lat && check(IMPORT_LAT_US, t->lat_mean_us, w,
			  json_object_get(s, "lat_ns") ? "lat_ns.mean"
						       : "lat.mean") < 0) ||
	    (t->block_size &&
	     check(IMPORT_BLOCK_SIZE, (double)t->block_size, w, "bs") < 0) ||
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
				"%s[%zu] (%.64s) %s.%s: %g MB/s is not "
				"io_bytes × 1000 / runtime (%.6f MB/s), as fio "
				"computes it",
				w->list, w->i, w->name, w->dir,
				v3 ? "bw_bytes" : "bw", t->mb_s, want);
			return -EINVAL;
		}
	}
	/* fio prints iops as total_ios × 1000 / runtime (ms), to 2 (2.x) or
	 * 6 decimals: a value that is not is none fio printed */
	if (num(s, "total_ios") > 0 && num(s, "runtime") > 0) {
		double want = num(s, "total_ios") * 1000 / num(s, "runtime");
		if (fabs(t->iops - want) > 0.005 + 1e-9 * want) {
			snprintf(w->err, w->len,
				 "%s[%zu] (%.64s) %s.iops: %g is not "
				 "total_ios × 1000 / runtime (%.6f), as fio "
				 "computes it",
				 w->list, w->i, w->name, w->dir, t->iops, want);
			return -EINVAL;
		}
	}
	snprintf(at, sizeof(at), "%s[%zu] (%.64s) %s", w->list, w->i, w->name,
		 w->dir);
	return import_fio_stated(s, t, io, at, w->err, w->len);
}

int import_fio_job(json_t *g, json_t *j, const char *list, size_t i,
		   struct import_run *r, struct import_fio_tally *ty, char *err,
		   size_t err_len)
{
	static const char *const dirs[] = { "read", "write" };
	const char *name = json_string_value(json_object_get(j, "jobname"));
	const char *rw = option(g, j, "rw") ? option(g, j, "rw")
					    : option(g, j, "readwrite");
	/* the file or device, else the directory fio made its files in */
	const char *fn = option(g, j, "filename") ? option(g, j, "filename")
						  : option(g, j, "directory");
	struct where w = { list, i, name, NULL, err, err_len };
	uint64_t bs;
	int qd, nj, mix, rc;

	if (!name || utf8_has_control(name)) {
		snprintf(err, err_len, "%s[%zu]: %s", list, i,
			 name ? "a control character in \"jobname\""
			      : "no \"jobname\"");
		return -EINVAL;
	}
	if ((rc = bytes_opt(option(g, j, "bs"), &w, "bs", &bs)) < 0 ||
	    (rc = count_opt(option(g, j, "iodepth"), IMPORT_QD, 1, &w,
			    "iodepth", &qd)) < 0 ||
	    (rc = count_opt(option(g, j, "numjobs"), IMPORT_THREADS, 1, &w,
			    "numjobs", &nj)) < 0 ||
	    (rc = count_opt(option(g, j, "rwmixread"), IMPORT_PERCENT, -1, &w,
			    "rwmixread", &mix)) < 0)
		return rc;
	ty->jobs++;
	if (!json_object_get(j, "job options") && !g)
		ty->no_options++;
	/* the file, device or directory, whole; without one it is unknown
	 * (fio names a file after the job, but the job's name is no device) */
	if (!r->target[0] && fn) {
		if (!*fn || strlen(fn) >= sizeof(r->target) ||
		    utf8_has_control(fn)) {
			snprintf(err, err_len,
				 "%s[%zu] (%s) %s: a path of 1 … %zu bytes "
				 "without control characters",
				 list, i, name,
				 option(g, j, "filename") ? "filename"
							  : "directory",
				 sizeof(r->target) - 1);
			return -EINVAL;
		}
		snprintf(r->target, sizeof(r->target), "%s", fn);
	}
	for (int d = 0; d < 2; d++) {
		json_t *s = json_object_get(j, dirs[d]);
		struct import_test *t;
		if (!json_is_object(s))
			continue;
		if (num(s, "total_ios") <= 0 && num(s, "io_bytes") <= 0 &&
		    num(s, "io_kbytes") <= 0)
			continue; /* this direction did nothing */
		if (r->n == IMPORT_MAX_TESTS) {
			snprintf(err, err_len, "more than %d job directions",
				 IMPORT_MAX_TESTS);
			return -EINVAL;
		}
		t = &r->t[r->n++];
		memset(t, 0, sizeof(*t));
		snprintf(t->name, sizeof(t->name), "%.63s", name);
		snprintf(t->rw, sizeof(t->rw), "%s", dirs[d]);
		snprintf(t->pattern, sizeof(t->pattern), "%s",
			 rw && strstr(rw, "rand") ? "random" : "sequential");
		t->queue_depth = qd;
		t->threads = nj;
		t->read_pct = mix >= 0 && rw && strstr(rw, "rw") ? mix
			      : d == 0				 ? 100
								 : 0;
		w.dir = dirs[d];
		if ((rc = direction(s, t, bs, &w)) < 0)
			return rc;
		if (!t->block_size && ty->unknown_bs++ == 0)
			snprintf(ty->unknown, sizeof(ty->unknown), "%.64s %s",
				 t->name, t->rw);
	}
	return 0;
}

struct import_run *import_fio_new_run(json_t *root, const char *ver,
				      struct import_runs *out)
{
	json_t *ts = json_object_get(root, "timestamp");
	struct import_run *r = import_runs_add(out);

	if (!r)
		return NULL;
	snprintf(r->tool, sizeof(r->tool), "fio");
	snprintf(r->version, sizeof(r->version), "%s", ver + 4);
	if (json_is_integer(ts) && json_integer_value(ts) > 0 &&
	    json_integer_value(ts) < 4102444800LL) {
		time_t t = (time_t)json_integer_value(ts);
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(r->date, sizeof(r->date), "%Y-%m-%dT%H:%M:%SZ",
				 &tm);
	}
	r->iterations = 1;
	return r;
}

int import_fio_finish(struct import_run *r, const struct import_fio_tally *ty,
		      int interim, char *err, size_t err_len)
{
	if (r->n == 0) {
		snprintf(err, err_len, "no job%s%.64s moved any data",
			 r->host[0] ? " of host " : "", r->host);
		return -EINVAL;
	}
	if (interim)
		import_warn(r,
			    "the file holds %d interim report%s "
			    "(--status-interval) before the final one: the "
			    "final report is the run, the interim ones were "
			    "skipped",
			    interim, interim > 1 ? "s" : "");
	if (ty->differ)
		import_warn(r, "fio's clients ran jobs with different options "
			       "(or printed none): the sum's queue depth 1, 1 "
			       "thread and sequential pattern are fio's "
			       "defaults, not read from the file");
	else if (ty->no_options)
		import_warn(
			r,
			"fio printed no job options for %zu of %zu jobs: "
			"their queue depth 1, 1 thread and a sequential "
			"pattern are fio's defaults, not read from the file",
			ty->no_options, ty->jobs);
	if (ty->unknown_bs)
		import_warn(r,
			    "the block size of %zu test%s (%s%s) is unknown: "
			    "no bs option, and neither io_bytes / total_ios "
			    "nor bw / iops gives one exactly; stored as null",
			    ty->unknown_bs, ty->unknown_bs > 1 ? "s" : "",
			    ty->unknown, ty->unknown_bs > 1 ? ", …" : "");
	return 0;
}
