/*
 * h_runs — /api/v1/runs: the archive of measured runs.
 */
#include "api.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "compare/runview.h"
#include "os/os.h"
#include "queue/jobq.h"

/* The query parameters each route takes. */
static const char *const none[] = { NULL };
static const char *const list_args[] = { "limit",	 "offset",   "profile",
					 "fs_type",	 "target",   "label",
					 "state",	 "server",   "host",
					 "cluster_size", "from",     "to",
					 "sort",	 "group_by", NULL };
static const char *const get_args[] = { "format", NULL };

/* Is v a prefix of an ISO 8601 UTC time as runs store it,
 * "2026-11-30T07:00:00Z": a year, month, day, hour, minute or second? */
static int iso_prefix_ok(const char *v)
{
	static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t n = strlen(v);

	if (n < 4 || n > sizeof(form) - 1)
		return 0;
	/* whole fields only: 2026, 2026-11, 2026-11-30, …T07, …:00, …Z */
	if (n != 4 && n != 7 && n != 10 && n != 13 && n != 16 && n != 19 &&
	    n != 20)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (form[i] == 'd' ? !isdigit((unsigned char)v[i])
				   : v[i] != form[i])
			return 0;
	return 1;
}

int api_run_filter(struct api_req *req, struct api_resp *resp,
		   struct run_filter *f)
{
	static const char *const states[] = { "running", "done", "failed",
					      "cancelled", "interrupted" };
	const char *dates[2];
	size_t i;

	*f = (struct run_filter){
		.profile = api_query_str(req, "profile"),
		.fs_type = api_query_str(req, "fs_type"),
		.target = api_query_str(req, "target"),
		.label = api_query_str(req, "label"),
		.state = api_query_str(req, "state"),
		.server = api_query_str(req, "server"),
		.host = api_query_str(req, "host"),
		.cluster_size = api_query_str(req, "cluster_size"),
		.from = api_query_str(req, "from"),
		.to = api_query_str(req, "to"),
		.sort = api_query_str(req, "sort"),
	};
	dates[0] = f->from;
	dates[1] = f->to;
	for (i = 0; i < 2; i++)
		if (dates[i] && !iso_prefix_ok(dates[i])) {
			api_fail(resp, 400, i ? "to" : "from",
				 "%s: a UTC date or time as runs store it, "
				 "whole "
				 "fields: 2026, 2026-11, 2026-11-30, "
				 "2026-11-30T07:00, 2026-11-30T07:00:00Z (no "
				 "offsets: times are UTC)",
				 i ? "to" : "from");
			return -EINVAL;
		}
	/* compared as the text the archive holds: no leading zeros */
	if (f->cluster_size &&
	    (f->cluster_size[0] < '1' || f->cluster_size[0] > '9' ||
	     strspn(f->cluster_size, "0123456789") != strlen(f->cluster_size) ||
	     strlen(f->cluster_size) > 10 ||
	     strtoull(f->cluster_size, NULL, 10) > (1ULL << 30))) {
		api_fail(resp, 400, "cluster_size",
			 "cluster_size: bytes, a whole number from 1 to "
			 "1073741824 without leading zeros (65536)");
		return -EINVAL;
	}
	for (i = 0; f->state && i < 5 && strcmp(f->state, states[i]); i++)
		;
	if (f->state && i == 5) {
		api_fail(resp, 400, "state",
			 "state: running, done, failed, cancelled or "
			 "interrupted");
		return -EINVAL;
	}
	if (f->sort && !archive_sort_ok(f->sort)) {
		api_fail(resp, 400, "sort",
			 "sort: id, started_at, profile, fs_type, target or "
			 "hostname, with a leading - for descending");
		return -EINVAL;
	}
	return 0;
}

/* GET /api/v1/runs: made once per archive generation and query, then
 * served as kept bytes with an ETag (listcache.c). */
void h_runs_list(struct api_req *req, struct api_resp *resp)
{
	long long limit, offset;
	int64_t total = 0;
	json_t *runs = NULL, *run, *groups = NULL, *out;
	const char *group;
	size_t i;
	int rc, key_ok;
	struct run_filter f;
	char key[512];
	uint64_t gen;

	if (api_query_known(req, resp, list_args) < 0 ||
	    api_run_filter(req, resp, &f) < 0)
		return;
	if (api_query_int(req, resp, "limit", 100, 1, 1000, &limit) < 0 ||
	    api_query_int(req, resp, "offset", 0, 0, INT_MAX, &offset) < 0)
		return;
	group = api_query_str(req, "group_by");
	if (group && strcmp(group, "host") != 0) {
		api_fail(resp, 400, "group_by",
			 "group_by: host (the machine that measured: the "
			 "runs' hostname)");
		return;
	}
	key_ok = api_list_key(req, "runs", list_args, key, sizeof(key)) == 0;
	gen = key_ok ? api_list_gen(req) : 0;
	if (api_list_get(req, key, gen, resp))
		return;
	if ((rc = archive_runs_json(req->ctx->a, &f, (int)limit, (int)offset,
				    &runs, &total)) < 0 ||
	    (group &&
	     (rc = archive_runs_hosts(req->ctx->a, &f, &groups)) < 0)) {
		json_decref(runs);
		api_fail(resp, api_status_from_errno(rc), NULL,
			 "archive error listing runs");
		return;
	}
	json_array_foreach(runs, i, run) jobq_overlay(req->ctx->q, run, 1);
	out = json_pack("{s:o, s:I}", "runs", runs, "total", (json_int_t)total);
	/* every run the filters let through, not the page's only */
	if (groups)
		json_object_set_new(out, "groups", groups);
	api_send_json(resp, 200, out);
	api_list_put(req, key, gen, 1, resp);
}

/* The problem for a failed read of run id. */
static void run_failed(struct api_resp *resp, int rc, int64_t id)
{
	api_fail(resp, api_status_from_errno(rc), NULL,
		 rc == -ENOENT ? "no run %lld"
			       : "archive error reading run %lld",
		 (long long)id);
}

/* An answer about run req->id: kept when the run had ended before it was
 * read, else marked as not to be stored. */
static void keep(struct api_req *req, struct api_resp *resp, int ended,
		 uint64_t epoch, const char *variant)
{
	if (ended == 1)
		api_cache_put(req->id, variant, epoch, resp);
	else if (resp->status == 200)
		resp->cache_control = API_CACHE_LIVE;
}

void h_runs_samples(struct api_req *req, struct api_resp *resp)
{
	json_t *samples;
	uint64_t epoch;
	int rc, ended;

	if (api_query_known(req, resp, none) < 0 ||
	    api_cache_get(req->id, "samples", resp))
		return;
	/* whether it has ended is asked first: a run that had ended before
	 * its samples were read has them all */
	epoch = api_cache_epoch();
	ended = archive_run_ended(req->ctx->a, req->id);
	if ((rc = ended < 0 ? ended
			    : archive_samples_json(req->ctx->a, req->id,
						   &samples)) < 0) {
		run_failed(resp, rc, req->id);
		return;
	}
	api_send_json(resp, 200,
		      json_pack("{s:I, s:{s:s, s:s, s:s, s:s}, s:o}", "run_id",
				(json_int_t)req->id, "units", "t_s",
				"s from the iteration's start", "iops", "I/O/s",
				"mb_s", "10^6 B/s", "lat_mean_us", "µs",
				"samples", samples));
	keep(req, resp, ended, epoch, "samples");
}

/* A run as CSV: a row per test and iteration. */
static void send_run_csv(struct api_resp *resp, json_t *run)
{
	static const char *const cols[] = {
		"run_id",      "profile",    "target",	     "fs_type",
		"test",	       "rw",	     "pattern",	     "block_size",
		"queue_depth", "threads",    "iteration",    "mb_s",
		"mib_s",       "iops",	     "lat_mean_us",  "lat_p50_us",
		"lat_p90_us",  "lat_p99_us", "lat_p99.9_us", "lat_p99.99_us",
		"lat_max_us",  "bytes",	     "ios",	     "seconds",
		"cpu_user_s",  "cpu_sys_s",  "error"
	};
	static const char *const pct[] = { "p50",   "p90",    "p99",
					   "p99.9", "p99.99", "max" };
	json_t *rows = json_array(), *t, *it;
	char name[64];
	size_t i, j;

	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		json_array_foreach(json_object_get(t, "iterations"), j, it)
		{
			json_t *lat = json_object_get(it, "latency_us");
			json_t *row = json_pack(
				"[O?, O?, O?, O?, O?, O?, O?, O?, O?, O?, O?, "
				"O?, O?, O?, O?]",
				json_object_get(run, "id"),
				json_object_get(run, "profile"),
				json_object_get(run, "target"),
				json_object_get(json_object_get(run, "probe"),
						"fs_type"),
				json_object_get(t, "test"),
				json_object_get(t, "rw"),
				json_object_get(t, "pattern"),
				json_object_get(t, "block_size"),
				json_object_get(t, "queue_depth"),
				json_object_get(t, "threads"),
				json_object_get(it, "iteration"),
				json_object_get(it, "mb_s"),
				json_object_get(it, "mib_s"),
				json_object_get(it, "iops"),
				json_object_get(it, "lat_mean_us"));
			static const char *const more[] = {
				"bytes",      "ios",	   "seconds",
				"cpu_user_s", "cpu_sys_s", "error"
			};
			for (size_t k = 0; k < 6; k++)
				json_array_append_new(
					row,
					json_pack("O?", json_object_get(
								lat, pct[k])));
			for (size_t k = 0; k < 6; k++)
				json_array_append_new(
					row,
					json_pack("O?", json_object_get(
								it, more[k])));
			json_array_append_new(rows, row);
		}
	}
	snprintf(name, sizeof(name), "storbench-run-%lld.csv",
		 (long long)json_integer_value(json_object_get(run, "id")));
	api_send_csv(resp, cols, sizeof(cols) / sizeof(cols[0]), rows, name);
	json_decref(run);
}

/* "1MiB", "128KiB", "4KiB" — CrystalDiskMark's way of writing a block. */
static void cdm_block(uint64_t b, char *buf, size_t len)
{
	if (b >= (1 << 20) && b % (1 << 20) == 0)
		snprintf(buf, len, "%lluMiB", (unsigned long long)(b >> 20));
	else if (b % 1024 == 0)
		snprintf(buf, len, "%lluKiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)b);
}

/*
 * The footer of an imported run: from CrystalDiskMark text, the original's
 * lines as it printed them (spec.imported's profile, test_line and mode;
 * the OS and comment lines kept in the probe), in CrystalDiskMark 8's
 * layout. A line the original did not have (CrystalDiskMark 3 has no
 * Profile or Mode; fio and DiskSpd neither, nor an OS line) is left out. A
 * run imported before test_line was kept gets its test size and count; one
 * from a tool that states no test size, the tool and its version.
 */
static void cdm_footer_imported(FILE *f, json_t *run, const char *date,
				const char *eol)
{
	json_t *imp = json_object_get(json_object_get(run, "spec"), "imported"),
	       *probe = json_object_get(run, "probe");
	const char *profile =
			   json_string_value(json_object_get(imp, "profile")),
		   *test = json_string_value(json_object_get(imp, "test_line")),
		   *mode = json_string_value(json_object_get(imp, "mode")),
		   *os = json_string_value(json_object_get(probe, "os")),
		   *comment =
			   json_string_value(json_object_get(probe, "comment"));
	double size = json_number_value(json_object_get(imp, "test_size"));
	long long n = json_integer_value(json_object_get(imp, "best_of"));

	fputs(eol, f);
	if (profile)
		fprintf(f, "Profile: %s%s", profile, eol);
	if (test)
		fprintf(f, "   Test: %s%s", test, eol);
	else if (size >= 1 << 20)
		fprintf(f, "   Test: %.0f MiB (x%lld)%s", size / (1 << 20), n,
			eol);
	else /* a tool that does not say its file's size (fio, DiskSpd) */
		fprintf(f, "   Test: %s %s (x%lld)%s",
			json_string_value(json_object_get(imp, "tool")) ?: "",
			json_string_value(json_object_get(imp, "version"))
				?: "",
			n, eol);
	if (mode)
		fprintf(f, "   Mode: %s%s", mode, eol);
	if (json_string_value(json_object_get(run, "started_at")))
		fprintf(f, "   Date: %s%s", date, eol);
	if (os)
		fprintf(f, "     OS: %s%s", os, eol);
	if (comment)
		fprintf(f, "Comment: %s%s", comment, eol);
}

/* The steady-state tests' windows, one line each after the footer:
 * "Steady: RND4K Q32T16 write: rounds 4-8 of 8 averaged, steady". Returns
 * the most rounds a test ran (0: no steady-state test). */
static long long cdm_steady(FILE *f, json_t *tests, const char *eol)
{
	long long most = 0;
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t)
	{
		json_t *ss = json_object_get(t, "steady_state"),
		       *m = json_object_get(ss, "measurement");
		long long n = json_integer_value(json_object_get(ss, "rounds"));
		if (!json_is_object(m))
			continue;
		if (f)
			fprintf(f,
				" Steady: %s %s: rounds %lld-%lld of %lld "
				"averaged, %s%s",
				json_string_value(json_object_get(t, "test"))
					?: "",
				json_string_value(json_object_get(t, "rw"))
					?: "",
				json_integer_value(json_object_get(m, "first")),
				json_integer_value(json_object_get(m, "last")),
				n,
				json_is_true(json_object_get(ss, "reached"))
					? "steady"
					: "not steady",
				eol);
		most = n > most ? n : most;
	}
	return most;
}

int api_run_cdm_text(json_t *run, const char *eol, char **out, size_t *out_len)
{
	static const char *const sections[][2] = { { "read", "[Read]" },
						   { "write", "[Write]" },
						   { "mix", "[Mix]" } };
	json_t *spec = json_object_get(run, "spec"),
	       *probe = json_object_get(run, "probe");
	char *buf = NULL;
	size_t len = 0;
	struct os_memstream ms;
	FILE *f = os_memstream_open(&ms, &buf, &len);
	json_t *t;
	size_t i;
	const char *started =
		json_string_value(json_object_get(run, "started_at"));
	const char *rule = "---------------------------------------------------"
			   "---------------------------";
	int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
	long long rounds = cdm_steady(NULL, json_object_get(run, "tests"), eol);
	char date[48];

	if (!f)
		return -ENOMEM;
	fprintf(f,
		"%s%sCrystalDiskMark 8 layout, written by storbench %s%s"
		"                                  storbench run %lld, "
		"exported%s"
		"%s%s* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 "
		"bytes/s]%s"
		"* KB = 1000 bytes, KiB = 1024 bytes%s",
		rule, eol, STORBENCH_VERSION, eol,
		(long long)json_integer_value(json_object_get(run, "id")), eol,
		rule, eol, eol, eol);
	for (size_t sct = 0; sct < 3; sct++) {
		int head = 0;
		json_array_foreach(json_object_get(run, "tests"), i, t)
		{
			json_t *b = json_object_get(t, "best");
			char blk[32];
			uint64_t bs = (uint64_t)json_integer_value(
				json_object_get(t, "block_size"));
			const char *rw =
				json_string_value(json_object_get(t, "rw"));
			const char *pat = json_string_value(
				json_object_get(t, "pattern"));
			if (!rw || strcmp(rw, sections[sct][0]) ||
			    !json_is_object(b) || !bs || bs % 1024)
				continue;
			if (!head++)
				fprintf(f, "%s%s%s", eol, sections[sct][1],
					eol);
			cdm_block(bs, blk, sizeof(blk));
			fprintf(f,
				"  %s %6s (Q=%3lld, T=%2lld): %9.3f MB/s "
				"[%9.1f IOPS]",
				pat && strcmp(pat, "sequential") == 0 ? "SEQ"
								      : "RND",
				blk,
				(long long)json_integer_value(
					json_object_get(t, "queue_depth")),
				(long long)json_integer_value(
					json_object_get(t, "threads")),
				json_number_value(json_object_get(b, "mb_s")),
				json_number_value(json_object_get(b, "iops")));
			if (json_is_number(json_object_get(b, "lat_mean_us")))
				fprintf(f, " <%9.2f us>",
					json_number_value(json_object_get(
						b, "lat_mean_us")));
			fputs(eol, f);
		}
	}
	if (started)
		sscanf(started, "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &se);
	snprintf(date, sizeof(date), "%04d/%02d/%02d %d:%02d:%02d", y, mo, d, h,
		 mi, se);
	if (json_is_object(json_object_get(spec, "imported")))
		cdm_footer_imported(f, run, date, eol);
	else
		fprintf(f,
			"%sProfile: %s%s   Test: %.0f MiB (x%lld)%s%s"
			"   Date: %s%s     OS: %s %s%s"
			"Comment: %s%s%s%s",
			eol,
			json_string_value(json_object_get(run, "profile"))
				?: "",
			eol,
			json_number_value(json_object_get(spec, "size")) /
				(1 << 20),
			rounds ? rounds
			       : (long long)json_integer_value(
					 json_object_get(spec, "iterations")),
			rounds ? " [steady state: rounds, each result its "
				 "window's average]"
			       : "",
			eol, date, eol,
			json_string_value(json_object_get(probe, "hostname"))
				?: "",
			json_string_value(json_object_get(probe, "kernel"))
				?: "",
			eol,
			json_string_value(json_object_get(probe, "fs_type"))
				?: "",
			json_string_value(json_object_get(run, "target"))
				? " on "
				: "",
			json_string_value(json_object_get(run, "target")) ?: "",
			eol);
	cdm_steady(f, json_object_get(run, "tests"), eol);
	if (os_memstream_close(&ms) < 0) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

/* A run as CrystalDiskMark text (CRLF, as CrystalDiskMark saves it), an
 * attachment. */
static void send_run_cdm(struct api_resp *resp, json_t *run)
{
	char *buf = NULL, name[64];
	size_t len = 0;

	if (api_run_cdm_text(run, "\r\n", &buf, &len) < 0) {
		json_decref(run);
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	snprintf(name, sizeof(name), "storbench-run-%lld-cdm.txt",
		 (long long)json_integer_value(json_object_get(run, "id")));
	api_send_file(resp, buf, len, "text/plain; charset=utf-8", name);
	json_decref(run);
}

void h_runs_get(struct api_req *req, struct api_resp *resp)
{
	json_t *run;
	const char *fmt = api_query_str(req, "format");
	int cdm = fmt && strcmp(fmt, "cdm") == 0;
	int csv = fmt && strcmp(fmt, "csv") == 0, rc, ended;
	int doc = fmt && strcmp(fmt, "storbench") == 0;
	int html = fmt && strcmp(fmt, "html") == 0;
	uint64_t epoch;

	if (api_query_known(req, resp, get_args) < 0)
		return;
	if (fmt && !cdm && !csv && !doc && !html && strcmp(fmt, "json") != 0) {
		api_fail(resp, 400, "format",
			 "format: json, csv, cdm, storbench or html");
		return;
	}
	if (api_cache_get(req->id, fmt ? fmt : "json", resp))
		return;
	epoch = api_cache_epoch();
	ended = archive_run_ended(req->ctx->a, req->id);
	if ((rc = ended < 0 ? ended
		  : doc	    ? api_run_document(req->ctx->a, req->id, &run)
			    : api_run_json(req->ctx->a, req->id, &run)) < 0) {
		run_failed(resp, rc, req->id);
		return;
	}
	jobq_overlay(req->ctx->q, run, 1);
	if (cdm)
		send_run_cdm(resp, run);
	else if (html)
		api_send_run_html(resp, run);
	else if (csv)
		send_run_csv(resp, run);
	else
		api_send_json(resp, 200, run);
	keep(req, resp, ended, epoch, fmt ? fmt : "json");
}

/* An imported run: where its original file is. */
static void original_url(json_t *run, int64_t id)
{
	json_t *imp = json_object_get(run, "import");
	char url[64];

	snprintf(url, sizeof(url), "/api/v1/runs/%lld/original", (long long)id);
	if (json_is_object(imp))
		json_object_set_new(imp, "original", json_string(url));
}

int api_run_document(struct archive *a, int64_t id, json_t **out)
{
	int rc = runview_document(a, id, out);

	if (rc == 0)
		original_url(*out, id);
	return rc;
}

int api_run_json(struct archive *a, int64_t id, json_t **out)
{
	int rc = runview_json(a, id, out);

	if (rc == 0)
		original_url(*out, id);
	return rc;
}

/* PATCH /api/v1/runs/{id} {"labels": [...], "notes": "..."}: either or
 * both; answers the run as GET does. A label pair like before/after is
 * what a group_by=label comparison needs. */
void h_runs_patch(struct api_req *req, struct api_resp *resp)
{
	struct api_problem p = { 0 };
	json_t *root, *v, *labels, *notes;
	const char *key;
	char *lj = NULL;
	int rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (!(root = api_body_object(req, resp, "{\"labels\", \"notes\"}")))
		return;
	json_object_foreach(root, key, v)
	{
		if (strcmp(key, "labels") && strcmp(key, "notes")) {
			api_fail(resp, 400, key,
				 "unknown field \"%.64s\" (known: labels, "
				 "notes)",
				 key);
			json_decref(root);
			return;
		}
	}
	labels = json_object_get(root, "labels");
	notes = json_object_get(root, "notes");
	if ((labels && jobspec_labels(labels, &lj, &p) < 0) ||
	    (notes && jobspec_notes(notes, &p) < 0)) {
		api_send_problem(resp, &p);
		free(lj);
		json_decref(root);
		return;
	}
	rc = archive_run_update(req->ctx->a, req->id, lj,
				notes ? json_string_value(notes) : NULL);
	api_cache_forget(req->id);
	free(lj);
	json_decref(root);
	if (rc == -ENOSPC) {
		char what[64];
		snprintf(what, sizeof(what), "run %lld was not changed",
			 (long long)req->id);
		api_fail_store(resp, rc, what);
		return;
	}
	if (rc < 0) {
		run_failed(resp, rc, req->id);
		return;
	}
	h_runs_get(req, resp);
}

/* DELETE /api/v1/runs/{id}: the run, its results and samples. */
void h_runs_delete(struct api_req *req, struct api_resp *resp)
{
	int rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	rc = archive_run_delete(req->ctx->a, req->id);
	api_cache_forget(req->id);
	/* while a job's end waits to be written no other job runs: a
	 * running run is that job's */
	if (rc == -EBUSY && jobq_unwritten(req->ctx->q, NULL))
		api_fail(resp, 409, NULL,
			 "run %lld cannot be deleted yet: its job has ended, "
			 "but the end is not in the archive (its disk is "
			 "full; it is retried); delete the run once there is "
			 "room",
			 (long long)req->id);
	else if (rc == -EBUSY)
		api_fail(resp, 409, NULL,
			 "run %lld is still running; cancel its job "
			 "first",
			 (long long)req->id);
	else if (rc == -ENOSPC)
		api_fail_store(resp, rc, "the run was not deleted");
	else if (rc < 0)
		run_failed(resp, rc, req->id);
	else
		resp->status = 204;
}
