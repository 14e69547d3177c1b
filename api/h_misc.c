/*
 * h_misc — the small resources: /healthz, /api/v1/profiles and the embedded
 * dashboard (/ and /static/...).
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

void h_profiles(struct api_req *req, struct api_resp *resp)
{
	json_t *list = json_array();
	const struct profile *p;

	(void)req;
	for (size_t i = 0; (p = profile_at(i)) != NULL; i++) {
		json_t *tests = json_array();
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
		json_array_append_new(
			list,
			json_pack("{s:s, s:s, s:{s:I, s:i, s:f, s:f}, s:o}",
				  "name", p->name, "title", p->title,
				  "defaults", "size", (json_int_t)p->size,
				  "iterations", p->iterations, "duration_s",
				  p->duration_s, "interval_s", p->interval_s,
				  "tests", tests));
	}
	/* custom: the job brings its own tests (plan.h) */
	json_array_append_new(
		list,
		json_pack("{s:s, s:s, s:{s:I, s:i, s:f, s:f}, s:[], s:{s:s, "
			  "s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
			  "s:s}}",
			  "name", "custom", "title",
			  "Custom: the job's own tests array", "defaults",
			  "size", (json_int_t)(1LL << 30), "iterations", 5,
			  "duration_s", 5.0, "interval_s", 0.0, "tests",
			  "test_fields", "name", "string, default from the fields",
			  "pattern", "sequential | random (random)",
			  "read_pct", "0 … 100 (100)",
			  "block_size", "bytes or \"4KiB\", multiple of 512, ≤ 64 MiB (4KiB)",
			  "queue_depth", "1 … 1024 per thread (1)",
			  "threads", "1 … 256 (1)",
			  "duration_s", "0.5 … 3600 s (the job's)",
			  "io_size", "bytes: size-based when > 0 (0)",
			  "ramp_s", "0 … 3600 s, time-based only (the job's)",
			  "sync", "none | dsync | fdatasync (none)",
			  "sync_every", "1 … 1000000 writes per fdatasync (1)",
			  "data", "random | zeros | repeat (the job's)"));
	api_send_json(resp, 200, json_pack("{s:o}", "profiles", list));
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
