/*
 * h_runs — /api/v1/runs: the archive of measured runs.
 */
#include "api.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"

void h_runs_list(struct api_req *req, struct api_resp *resp)
{
	long long limit, offset;
	int64_t total = 0;
	json_t *runs;
	int rc;

	if (api_query_int(req, resp, "limit", 100, 1, 1000, &limit) < 0 ||
	    api_query_int(req, resp, "offset", 0, 0, 1LL << 40, &offset) < 0)
		return;
	if ((rc = archive_runs_json(req->ctx->a, (int)limit, (int)offset, &runs,
				    &total)) < 0) {
		api_fail(resp, api_status_from_errno(rc), NULL,
			 "archive error listing runs");
		return;
	}
	api_send_json(resp, 200,
		      json_pack("{s:o, s:I}", "runs", runs, "total",
				(json_int_t)total));
}

/* The problem for a failed read of run id. */
static void run_failed(struct api_resp *resp, int rc, int64_t id)
{
	api_fail(resp, api_status_from_errno(rc), NULL,
		 rc == -ENOENT ? "no run %lld" : "archive error reading run %lld",
		 (long long)id);
}

void h_runs_samples(struct api_req *req, struct api_resp *resp)
{
	json_t *samples;
	int rc = archive_samples_json(req->ctx->a, req->id, &samples);

	if (rc < 0) {
		run_failed(resp, rc, req->id);
		return;
	}
	api_send_json(resp, 200,
		      json_pack("{s:I, s:{s:s, s:s, s:s, s:s}, s:o}", "run_id",
				(json_int_t)req->id, "units", "t_s",
				"s from the iteration's start", "iops", "I/O/s",
				"mb_s", "10^6 B/s", "lat_mean_us", "µs",
				"samples", samples));
}

void h_runs_get(struct api_req *req, struct api_resp *resp)
{
	json_t *run;
	int rc = archive_run_json(req->ctx->a, req->id, &run);

	if (rc < 0) {
		run_failed(resp, rc, req->id);
		return;
	}
	api_send_json(resp, 200, run);
}

/* PATCH /api/v1/runs/{id} {"labels": [...], "notes": "..."}: either or
 * both; answers the run as GET does. A label pair like before/after is
 * what a group_by=label comparison needs. */
void h_runs_patch(struct api_req *req, struct api_resp *resp)
{
	struct api_problem p = {0};
	json_error_t jerr;
	json_t *root, *v, *labels, *notes;
	const char *key;
	char *lj = NULL;
	int rc;

	root = req->body ? json_loadb(req->body, req->body_len,
				      JSON_REJECT_DUPLICATES, &jerr)
			 : NULL;
	if (!root || !json_is_object(root)) {
		if (req->body && req->body_len && !root)
			api_fail(resp, 400, NULL, "malformed JSON at line %d column %d: %s",
				 jerr.line, jerr.column, jerr.text);
		else
			api_fail(resp, 400, NULL, "the body must be a JSON object "
						  "{\"labels\", \"notes\"}");
		json_decref(root);
		return;
	}
	json_object_foreach(root, key, v)
	{
		if (strcmp(key, "labels") && strcmp(key, "notes")) {
			api_fail(resp, 400, key,
				 "unknown field \"%.64s\" (known: labels, notes)", key);
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
	free(lj);
	json_decref(root);
	if (rc < 0) {
		run_failed(resp, rc, req->id);
		return;
	}
	h_runs_get(req, resp);
}
