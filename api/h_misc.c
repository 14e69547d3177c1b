/*
 * h_misc — the small resources: /healthz, /api/v1/profiles, the API's
 * OpenAPI document (/api/v1/openapi.json) and the embedded dashboard (/ and
 * /static/...). The document and the dashboard are compiled into the binary
 * (web_assets.h): nothing here reads a file at run time.
 */
#include "api.h"

#include <string.h>

#include "archive.h"
#include "profiles.h"
#include "web_assets.h"

void h_health(struct api_req *req, struct api_resp *resp)
{
	int queued = 0, running = 0;
	int rc = archive_queue_counts(req->ctx->a, &queued, &running);

	if (rc < 0) {
		api_fail(resp, 503, NULL, "the archive does not answer");
		return;
	}
	api_send_json(resp, 200,
		      json_pack("{s:s, s:s, s:{s:i, s:i}}", "status", "ok",
				"version", STORBENCH_VERSION, "queue", "queued",
				queued, "running", running));
}

/* What each kind of preset takes besides the job's fields. */
static json_t *profile_fields(const struct profile *p)
{
	switch (p->kind) {
	case PROFILE_CUSTOM:
		return json_pack(
			"{s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
			"s:s, s:s}}",
			"test_fields", "name", "string, default from the fields",
			"pattern", "sequential | random (random)", "read_pct",
			"0 … 100 (100)", "block_size",
			"bytes or \"4KiB\", multiple of 512, ≤ 64 MiB (4KiB)",
			"queue_depth", "1 … 1024 per thread (1)", "threads",
			"1 … 256 (1)", "duration_s", "0.5 … 3600 s (the job's)",
			"io_size", "bytes: size-based when > 0 (0)", "ramp_s",
			"0 … 3600 s, time-based only (the job's)", "sync",
			"none | dsync | fdatasync (none)", "sync_every",
			"1 … 1000000 writes per fdatasync (1)", "data",
			"random | zeros | repeat (the job's)");
	case PROFILE_SEQ_SWEEP:
		return json_pack("{s:{s:s, s:s, s:s}}", "options", "block_sizes",
				 "list of sizes (4KiB, 8KiB … 4MiB)", "queue_depth",
				 "1 … 1024 (8)", "threads", "1 … 256 (1)");
	case PROFILE_MAILBOX:
		return json_pack(
			"{s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}}",
			"options", "database_paths", "directories ([target])",
			"log_paths", "directories ([target])", "databases",
			"1 … 16 (one per database path)", "database_size",
			"per database file (the job's size)", "log_size",
			"per log file (64MiB)", "threads", "list (4, 8, 12)",
			"db_block_size", "32KiB", "db_read_pct", "0 … 100 (60)",
			"log_block_size", "8KiB", "thresholds",
			"ms: db_read_mean_ms (20), log_write_mean_ms (10), "
			"db_read_p99_ms, db_write_mean_ms, log_write_p99_ms "
			"(null: not checked)");
	case PROFILE_FILE_CREATE:
		return json_pack("{s:{s:s}}", "options", "sizes",
				 "list of sizes (1GiB, 4GiB, 16GiB; those that fit "
				 "twice in free space)");
	default:
		return json_object();
	}
}

void h_profiles(struct api_req *req, struct api_resp *resp)
{
	static const char *const kinds[] = {"tests", "custom", "seq-sweep",
					    "mailbox-db", "file-create"};
	static const char *const none[] = {NULL};
	json_t *list;
	const struct profile *p;

	if (api_query_known(req, resp, none) < 0)
		return;
	list = json_array();
	for (size_t i = 0; (p = profile_at(i)) != NULL; i++) {
		json_t *tests = json_array(), *e;
		for (size_t j = 0; j < p->n_tests; j++) {
			const struct profile_test *t = &p->tests[j];
			json_array_append_new(
				tests,
				json_pack("{s:s, s:s, s:s, s:i, s:i, s:i}",
					  "test", t->name, "rw",
					  wl_rw_name(t->read_pct), "pattern",
					  wl_pattern_name(t->pattern),
					  "block_size", (int)t->block_size,
					  "queue_depth", (int)t->queue_depth,
					  "threads", (int)t->threads));
		}
		e = json_pack("{s:s, s:s, s:s, s:{s:I, s:i, s:f, s:f}, s:o}",
			      "name", p->name, "kind", kinds[p->kind], "title",
			      p->title, "defaults", "size", (json_int_t)p->size,
			      "iterations", p->iterations, "duration_s",
			      p->duration_s, "interval_s", p->interval_s,
			      "tests", tests);
		json_t *extra = profile_fields(p);
		json_object_update(e, extra);
		json_decref(extra);
		json_array_append_new(list, e);
	}
	api_send_json(resp, 200, json_pack("{s:o}", "profiles", list));
}

/* GET /api/v1/openapi.json: api/openapi.json as it was at build time. */
void h_openapi(struct api_req *req, struct api_resp *resp)
{
	static const char *const none[] = {NULL};

	if (api_query_known(req, resp, none) < 0)
		return;
	resp->status = 200;
	resp->content_type = api_openapi_doc.content_type;
	resp->static_body = api_openapi_doc.data;
	resp->len = api_openapi_doc.size;
}

void h_static(struct api_req *req, struct api_resp *resp)
{
	const char *want = req->rest ? req->rest : "index.html";

	for (const struct web_asset *a = web_assets; a->path; a++) {
		if (strcmp(a->path, want) != 0)
			continue;
		resp->status = 200;
		resp->content_type = a->content_type;
		resp->static_body = a->data;
		resp->len = a->size;
		return;
	}
	api_fail(resp, 404, NULL, "no such file: %s", req->path);
}
