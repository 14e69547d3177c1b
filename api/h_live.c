/*
 * h_live — what monitoring tools read: GET /api/v1/events (server-sent
 * events; the stream itself is server.c's, this only accepts the request)
 * and GET /metrics (Prometheus text exposition, format 0.0.4).
 *
 * Metric names follow Prometheus's conventions: a storbench_ prefix, base
 * units in the name (_bytes_per_second, _seconds), _total on counters, and
 * labels for what varies (target, profile, host, test, rw, state). The
 * last run's figures are gauges per target and host (the run's hostname,
 * the machine that measured it: a hub holds the runs of many): the newest
 * done run of each target of each host (at most METRICS_TARGETS of them,
 * newest first, among the newest 1000 done runs), its headline tests.
 */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive/archive.h"
#include "os/os.h"
#include "queue/jobq.h"

#define METRICS_TARGETS 256

void h_events(struct api_req *req, struct api_resp *resp)
{
	static const char *const none[] = { NULL };

	if (api_query_known(req, resp, none) < 0)
		return;
	resp->stream = 1;
}

/* A label value as the exposition format wants it: \ " and newline
 * escaped. */
static void label(FILE *f, const char *v)
{
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* "2026-11-30T14:33:11Z" as Unix seconds, or 0. */
static double unix_time(const char *iso)
{
	struct tm tm = { 0 };
	int n = 0;

	/* UTC only: a time without its zone (an import's local time) is 0 */
	if (!iso ||
	    sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 ||
	    iso[n] != 'Z')
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm);
}

/* target="…",profile="…",host="…" of run (host "" when it names
 * none). */
static void run_labels(FILE *f, json_t *run)
{
	fputs("target=\"", f);
	label(f, json_string_value(json_object_get(run, "target")));
	fputs("\",profile=\"", f);
	label(f, json_string_value(json_object_get(run, "profile")));
	fputs("\",host=\"", f);
	label(f, json_string_value(json_object_get(run, "hostname")));
	fputc('"', f);
}

/* Do runs a and b have the same target and hostname (both none alike)? */
static int same_series(json_t *a, json_t *b)
{
	const char *ha = json_string_value(json_object_get(a, "hostname"));
	const char *hb = json_string_value(json_object_get(b, "hostname"));

	return strcmp(json_string_value(json_object_get(a, "target")),
		      json_string_value(json_object_get(b, "target"))) == 0 &&
	       strcmp(ha ? ha : "", hb ? hb : "") == 0;
}

/*
 * The newest done run of each target of each host: its headline figures.
 * The exposition format wants each metric family in one block, so the
 * runs are picked first, then each family is written over all of them.
 */
static int last_runs(FILE *f, struct archive *a)
{
	static const struct {
		const char *name, *type, *help, *key;
		double scale;
	} fam[] = {
		{ "storbench_last_run_timestamp_seconds", "gauge",
		  "When the newest done run of a target of a host started, "
		  "Unix time.",
		  NULL, 0 },
		{ "storbench_last_run_id", "gauge",
		  "The archive id of the newest done run of a target of a "
		  "host.",
		  NULL, 0 },
		{ "storbench_last_run_bytes_per_second", "gauge",
		  "Throughput of the newest done run per target, host and test "
		  "(its best iteration), bytes/s (MB/s x 10^6).",
		  "mb_s", 1e6 },
		{ "storbench_last_run_iops", "gauge",
		  "I/O operations per second of the newest done run per "
		  "target, host and test (its best iteration).",
		  "iops", 1 },
	};
	struct run_filter flt = { .state = "done", .sort = "-started_at" };
	json_t *runs = NULL, *run, *pick[METRICS_TARGETS];
	size_t n = 0, i, k;
	int64_t total = 0;
	int rc = archive_runs_json(a, &flt, 1000, 0, &runs, &total);

	if (rc < 0)
		return rc;
	json_array_foreach(runs, i, run)
	{
		const char *target =
			json_string_value(json_object_get(run, "target"));
		int dup = 0;
		for (k = 0; k < n && target; k++)
			dup |= same_series(pick[k], run);
		if (target && !dup && n < METRICS_TARGETS)
			pick[n++] = run;
	}
	for (size_t m = 0; m < sizeof(fam) / sizeof(fam[0]); m++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam[m].name,
			fam[m].help, fam[m].name, fam[m].type);
		for (k = 0; k < n; k++) {
			json_t *h;
			if (!fam[m].key) {
				fprintf(f, "%s{", fam[m].name);
				run_labels(f, pick[k]);
				if (m == 0)
					fprintf(f, "} %.0f\n",
						unix_time(json_string_value(
							json_object_get(
								pick[k],
								"started_"
								"at"))));
				else
					fprintf(f, "} %lld\n",
						(long long)json_integer_value(
							json_object_get(pick[k],
									"id")));
				continue;
			}
			json_array_foreach(json_object_get(pick[k], "headline"),
					   i, h)
			{
				json_t *v = json_object_get(h, fam[m].key);
				if (!json_is_number(v))
					continue;
				fprintf(f, "%s{", fam[m].name);
				run_labels(f, pick[k]);
				fputs(",test=\"", f);
				label(f, json_string_value(
						 json_object_get(h, "test")));
				fputs("\",rw=\"", f);
				label(f, json_string_value(
						 json_object_get(h, "rw")));
				fprintf(f, "\"} %.3f\n",
					json_number_value(v) * fam[m].scale);
			}
		}
	}
	json_decref(runs);
	return 0;
}

/* The archive's part of /metrics: the jobs by state, the count of runs
 * and the last runs' figures (their text), made once per archive
 * generation (archive_generation) and kept; the rest (the queue's unwritten
 * end, the counters of this process, the HTTP metrics) is read for each
 * request. Under mu, which is held only to take or swap the kept text's
 * holder (no copy, no allocation under it). */
static struct {
	pthread_mutex_t mu;
	uint64_t gen; /* 0: none kept */
	int counts[ARCHIVE_N_STATES];
	int64_t runs;
	struct api_bytes *last; /* last_runs' text */
} kept = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Fills counts, runs and *last (held: the caller lets go of it,
 * api_bytes_unref) from the kept copy of generation gen, or else from the
 * archive, keeping that when nothing was written meanwhile. 0, -ENOMEM,
 * or -EIO: the archive does not answer. */
static int archive_part(struct archive *a, uint64_t gen, int *counts,
			int64_t *runs, struct api_bytes **last)
{
	struct run_filter all = { 0 };
	struct os_memstream ms;
	json_t *one = NULL;
	char *text = NULL;
	size_t len = 0;
	struct api_bytes *old = NULL;
	FILE *f;
	int rc;

	*last = NULL;
	pthread_mutex_lock(&kept.mu);
	if (kept.gen == gen && kept.last) {
		memcpy(counts, kept.counts, sizeof(kept.counts));
		*runs = kept.runs;
		*last = api_bytes_ref(kept.last);
	}
	pthread_mutex_unlock(&kept.mu);
	if (*last)
		return 0;
	if (archive_job_state_counts(a, counts) < 0 ||
	    archive_runs_json(a, &all, 1, 0, &one, runs) < 0)
		return -EIO;
	json_decref(one);
	if (!(f = os_memstream_open(&ms, &text, &len)))
		return -ENOMEM;
	rc = last_runs(f, a);
	if (os_memstream_close(&ms) < 0 || rc < 0) {
		free(text);
		return -EIO;
	}
	*last = api_bytes_new(text, len);
	free(text);
	if (!*last)
		return -ENOMEM;
	pthread_mutex_lock(&kept.mu);
	if (archive_generation(NULL) == gen) {
		old = kept.last;
		kept.last = api_bytes_ref(*last);
		memcpy(kept.counts, counts, sizeof(kept.counts));
		kept.runs = *runs;
		kept.gen = gen;
	}
	pthread_mutex_unlock(&kept.mu);
	api_bytes_unref(old);
	return 0;
}

void h_metrics(struct api_req *req, struct api_resp *resp)
{
	static const char *const none[] = { NULL };
	int counts[ARCHIVE_N_STATES], rc;
	int64_t runs = 0;
	char *buf = NULL, end_state[16];
	struct api_bytes *last = NULL;
	int unwritten;
	size_t len = 0;
	FILE *f;
	struct os_memstream ms;

	if (api_query_known(req, resp, none) < 0)
		return;
	rc = archive_part(req->ctx->a, archive_generation(req->ctx->a), counts,
			  &runs, &last);
	if (rc == -ENOMEM) {
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	if (rc < 0) {
		api_fail(resp, 503, NULL, "the archive does not answer");
		return;
	}
	/* a job whose end waits to be written has ended */
	unwritten = jobq_unwritten(req->ctx->q, end_state);
	for (int i = 0; unwritten && i < ARCHIVE_N_STATES; i++) {
		if (strcmp(archive_job_states[i], "running") == 0)
			counts[i]--;
		else if (strcmp(archive_job_states[i], end_state) == 0)
			counts[i]++;
	}
	if (!(f = os_memstream_open(&ms, &buf, &len))) {
		api_bytes_unref(last);
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	fprintf(f,
		"# HELP storbench_build_info The running storbench's version.\n"
		"# TYPE storbench_build_info gauge\n"
		"storbench_build_info{version=\"%s\"} 1\n"
		"# HELP storbench_queue_length Jobs waiting in the queue.\n"
		"# TYPE storbench_queue_length gauge\n"
		"storbench_queue_length %d\n"
		"# HELP storbench_jobs Jobs in the archive, by state.\n"
		"# TYPE storbench_jobs gauge\n",
		STORBENCH_VERSION, counts[0]);
	for (int i = 0; i < ARCHIVE_N_STATES; i++)
		fprintf(f, "storbench_jobs{state=\"%s\"} %d\n",
			archive_job_states[i], counts[i]);
	fprintf(f,
		"# HELP storbench_runs Runs in the archive (measured and "
		"imported; deleting a run lowers it).\n"
		"# TYPE storbench_runs gauge\n"
		"storbench_runs %lld\n"
		"# HELP storbench_jobs_finished_total Jobs this daemon ended "
		"since it started, by end state.\n"
		"# TYPE storbench_jobs_finished_total counter\n",
		(long long)runs);
	{
		unsigned long long ended[ARCHIVE_N_STATES];
		jobq_finished_counts(ended);
		for (int i = 2; i < ARCHIVE_N_STATES; i++)
			fprintf(f,
				"storbench_jobs_finished_total{state=\"%s\"} "
				"%llu\n",
				archive_job_states[i], ended[i]);
	}
	fwrite(last->data, 1, last->len, f);
	api_bytes_unref(last);
	api_http_metrics(f);
	if (os_memstream_close(&ms) < 0) {
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	resp->status = 200;
	resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
	resp->body = buf;
	resp->len = len;
}
