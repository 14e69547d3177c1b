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
 * (block_from_numbers), else it is unknown (0, served as null, a warning
 * names the tests); the rest are fio's defaults (a warning says so), and
 * the file or device is unknown — never the job's name. With
 * --status-interval the file holds a report per interval and the final
 * one last: the final one is the run (import_fio_report.c; a warning counts the
 * interim ones skipped).
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

/* What a run's jobs leave to be said once all are read. */
struct tally {
	size_t jobs, no_options, unknown_bs;
	int differ;	  /* the sum of clients whose jobs' options differ */
	char unknown[96]; /* the first test of unknown block size */
};

/* Job j, entry i of list (g: the global options that apply, or NULL), into
 * tests of r. 0, or -EINVAL with err. */
static int add_job(json_t *g, json_t *j, const char *list, size_t i,
		   struct import_run *r, struct tally *ty, char *err,
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

/* A new run at the end of out with the report's tool, version and date;
 * NULL when out is full. */
static struct import_run *new_run(json_t *root, const char *ver,
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

/* r's closing check and warnings. 0, or -EINVAL with err. */
static int finish(struct import_run *r, const struct tally *ty, int interim,
		  char *err, size_t err_len)
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

#define ALL_CLIENTS "All clients" /* fio's name for the clients' sum */

/* Whether client_stats entry e is fio's sum of the clients. */
static int is_sum(json_t *e)
{
	const char *name = json_string_value(json_object_get(e, "jobname"));

	return name && strcmp(name, ALL_CLIENTS) == 0;
}

/* The host of client_stats entry e; NULL for the sum (or none named,
 * which the first pass refuses). */
static const char *client_host(json_t *e)
{
	return is_sum(e) ? NULL
			 : json_string_value(json_object_get(e, "hostname"));
}
/* The client of client_stats entry e (not the sum) as the file tells
 * them apart, into name: its host, and where another client has the same
 * host (two fio servers on one machine), its port too ("host:port"). */
static void client_name(json_t *clients, json_t *e, char *name, size_t len)
{
	const char *h = client_host(e);
	json_int_t port = json_integer_value(json_object_get(e, "port"));
	json_t *c;
	size_t i;

	snprintf(name, len, "%s", h);
	json_array_foreach(clients, i, c)
	{
		const char *o = client_host(c);
		char p[24];
		if (o && strcmp(o, h) == 0 &&
		    json_integer_value(json_object_get(c, "port")) != port) {
			/* a label is at most 64 bytes: the host cut */
			snprintf(p, sizeof(p), "%lld", (long long)port);
			snprintf(name, len, "%.*s:%s",
				 (int)(len - 2 - strlen(p)), h, p);
			return;
		}
	}
}

/* The run of client name among out->v[from …], or out->n. */
static size_t client_run(const struct import_runs *out, size_t from,
			 const char *name)
{
	while (from < out->n && strcmp(out->v[from].label, name))
		from++;
	return from;
}

/* The options a client's job e ran with: g's (its "global options") under
 * its own "job options"; a new reference, or NULL when it has neither. */
static json_t *options_of(json_t *g, json_t *e)
{
	json_t *o = json_object_get(e, "job options"), *all;

	if (!g && !o)
		return NULL;
	if (!(all = g ? json_deep_copy(g) : json_object()))
		return NULL;
	if (o)
		json_object_update(all, o);
	return all;
}

/*
 * The "All clients" entry e as a job: fio prints it without options; when
 * every client's job ran with the same options (opts[k], its global ones
 * under its own), they are the sum's too (else it has fio's defaults, and
 * a warning says so). A new reference, or NULL.
 */
static json_t *sum_entry(json_t *const *opts, size_t n, json_t *e,
			 struct tally *ty)
{
	json_t *out;

	for (size_t k = 0; k < n; k++)
		if (!opts[k] || !json_equal(opts[0], opts[k])) {
			ty->differ = 1;
			return json_copy(e);
		}
	if (!(out = json_copy(e)))
		return NULL;
	if (n)
		json_object_set(out, "job options", opts[0]);
	return out;
}

/*
 * fio --client host1 --client host2 --output-format=json: "client_stats"
 * holds each host's jobs (with "hostname") and, with more than one host,
 * an "All clients" entry that sums them (its "hostname" is just the last
 * host's). A run per client, in the order the clients first appear, named
 * and labelled by the host (host:port for two fio servers on one host,
 * client_name), then the sum as a run labelled "all-clients". With
 * several hosts "global options" is an object (fio 3.33) or an array of one
 * object per host in the order above (fio's client.c today, which adds a
 * host's with its first entry); an array of another count is not guessed
 * at: the jobs then have their own options only.
 */
static int client_runs(json_t *root, const char *ver, json_t *clients,
		       int interim, struct import_runs *out, char *err,
		       size_t err_len)
{
	json_t *gl = json_object_get(root, "global options"), *e, *port;
	json_t **opts;
	struct tally ty[IMPORT_MAX_RUNS] = { 0 };
	size_t first = out->n, hosts = 0, jobs = 0, i, k;
	char name[sizeof(out->v[0].label)];
	struct import_run *r;
	int rc = 0;

	json_array_foreach(clients, i, e)
	{
		const char *h = client_host(e);
		if (is_sum(e))
			continue; /* the sum: after the hosts */
		if (!h || !*h || utf8_has_control(h) || strlen(h) > 63) {
			snprintf(err, err_len,
				 "client_stats[%zu]: \"hostname\" must name "
				 "the host in 1 … 63 bytes without control "
				 "characters",
				 i);
			return -EINVAL;
		}
		port = json_object_get(e, "port");
		if (port &&
		    (!json_is_integer(port) || json_integer_value(port) < 1 ||
		     json_integer_value(port) > 65535)) {
			snprintf(err, err_len,
				 "client_stats[%zu]: \"port\" must be a "
				 "whole number 1 … 65535",
				 i);
			return -EINVAL;
		}
		client_name(clients, e, name, sizeof(name));
		if (client_run(out, first, name) < out->n)
			continue;
		if (out->n + 2 > IMPORT_MAX_RUNS ||
		    !(r = new_run(root, ver, out))) {
			snprintf(err, err_len,
				 "more than %d fio clients in one file",
				 IMPORT_MAX_RUNS - 1);
			return -EINVAL;
		}
		snprintf(r->host, sizeof(r->host), "%s", h);
		snprintf(r->label, sizeof(r->label), "%s", name);
		hosts++;
	}
	if (!(opts = calloc(json_array_size(clients) + 1, sizeof(*opts))))
		return -ENOMEM;
	json_array_foreach(clients, i, e)
	{
		json_t *g = json_is_object(gl) ? gl : NULL;
		if (!is_sum(e)) {
			client_name(clients, e, name, sizeof(name));
			k = client_run(out, first, name);
			if (json_is_array(gl) && json_array_size(gl) == hosts)
				g = json_array_get(gl, k - first);
			opts[jobs++] = options_of(g, e);
		} else if (!(r = new_run(root, ver, out))) {
			snprintf(err, err_len, "more than %d runs in one file",
				 IMPORT_MAX_RUNS);
			rc = -EINVAL;
			break;
		} else {
			k = out->n - 1; /* the sum: a run of its own, last */
			g = NULL;	/* its options are the clients' */
			snprintf(r->label, sizeof(r->label), "all-clients");
			snprintf(r->comment, sizeof(r->comment),
				 "the sum of %zu fio clients", hosts);
		}
		e = is_sum(e) ? sum_entry(opts, jobs, e, &ty[k - first])
			      : json_incref(e);
		rc = e ? add_job(g, e, "client_stats", i, &out->v[k],
				 &ty[k - first], err, err_len)
		       : -ENOMEM;
		json_decref(e);
		if (rc < 0)
			break;
	}
	for (k = 0; k < jobs; k++)
		json_decref(opts[k]);
	free(opts);
	for (k = first; k < out->n && rc == 0; k++)
		rc = finish(&out->v[k], &ty[k - first], interim, err, err_len);
	return rc;
}

int import_fio_runs(const char *buf, size_t len, struct import_runs *out,
		    char *err, size_t err_len, int *line)
{
	json_t *root, *jobs, *clients, *j, *g;
	struct tally ty = { 0 };
	struct import_run *r;
	const char *ver;
	size_t i;
	int rc, interim;

	*line = 0;
	if ((rc = import_fio_last_report(buf, len, &root, &interim, err,
					 err_len, line)) < 0)
		return rc;
	ver = json_string_value(json_object_get(root, "fio version"));
	jobs = json_object_get(root, "jobs");
	clients = json_object_get(root, "client_stats");
	g = json_object_get(root, "global options");
	if (!ver || strncmp(ver, "fio-", 4) != 0 ||
	    (!json_is_array(jobs) && !json_is_array(clients))) {
		snprintf(err, err_len,
			 "not fio JSON output: no \"fio version\" and "
			 "\"jobs\" (or \"client_stats\")");
		rc = -EINVAL;
	} else if (!json_is_array(jobs)) {
		rc = client_runs(root, ver, clients, interim, out, err,
				 err_len);
	} else if (!(r = new_run(root, ver, out))) {
		rc = -ENOMEM;
	} else {
		json_array_foreach(jobs, i, j)
		{
			if ((rc = add_job(json_is_object(g) ? g : NULL, j,
					  "jobs", i, r, &ty, err, err_len)) < 0)
				break;
		}
		if (rc == 0)
			rc = finish(r, &ty, interim, err, err_len);
	}
	json_decref(root);
	return rc;
}

int import_fio_sniff(const char *buf, size_t len)
{
	return import_holds(buf, len, "\"fio version\"");
}
