/*
 * h_jobs — /api/v1/jobs: queue, list, read and cancel benchmark jobs. A job
 * read here carries the live progress of the queue worker when it runs.
 */
#include "api.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/archive.h"
#include "fleet/fleet.h"
#include "os/os.h"
#include "platform/fields.h"
#include "queue/jobq.h"
#include "targets/target.h"

/* The query parameters of the routes that take none, and of the list. */
static const char *const none[] = { NULL };
static const char *const list_args[] = { "limit", "offset", NULL };

/*
 * Adds "test_file" to a job object — where the worker creates (created) its
 * first test file, or the raw device it writes to — and "progress": the
 * worker's live state, or null.
 */
static void add_progress(struct api_ctx *ctx, json_t *job)
{
	struct jobq_progress p;
	json_int_t id = json_integer_value(json_object_get(job, "id"));
	const char *state = json_string_value(json_object_get(job, "state"));
	const char *target = json_string_value(json_object_get(job, "target"));
	const char *created =
		json_string_value(json_object_get(job, "created_at"));
	char path[PATH_MAX];
	struct stat st;

	jobq_overlay(ctx->q, job, 0);
	state = json_string_value(json_object_get(job, "state"));
	if (target && created && !tgt_for_target(target) &&
	    stat(target, &st) == 0 && S_ISBLK(st.st_mode))
		json_object_set_new(job, "test_file", json_string(target));
	else if (target && created &&
		 job_file_path(target, id, created,
			       json_string_value(json_object_get(
				       json_object_get(job, "fleet"), "host")),
			       0, path, sizeof(path)) == 0)
		json_object_set_new(job, "test_file", json_string(path));

	if (state && strcmp(state, "running") == 0 &&
	    json_is_array(json_object_get(job, "hosts"))) {
		json_t *fp = fleet_progress(ctx->fleet, id);
		json_object_set_new(job, "progress", json_null());
		json_object_set_new(job, "fleet_progress",
				    fp ? fp : json_null());
		return;
	}
	if (!state || strcmp(state, "running") != 0 ||
	    jobq_progress(ctx->q, id, &p) != 0) {
		json_object_set_new(job, "progress", json_null());
		return;
	}
	json_object_set_new(job, "progress", jobrun_progress_json(&p));
	json_object_del(json_object_get(job, "progress"), "job_id");
}

/* Sends job id (with progress) or the archive's error. */
static void send_job(struct api_req *req, struct api_resp *resp,
		     unsigned status, int64_t id)
{
	json_t *job;
	int rc = archive_job_json(req->ctx->a, id, &job);

	if (rc < 0) {
		api_fail(resp, api_status_from_errno(rc), NULL,
			 rc == -ENOENT ? "no job %lld"
				       : "archive error reading job %lld",
			 (long long)id);
		return;
	}
	add_progress(req->ctx, job);
	api_send_json(resp, status, job);
}

void h_jobs_create(struct api_req *req, struct api_resp *resp)
{
	struct job_spec s;
	struct api_problem p;
	int64_t id = 0;
	uint64_t t0;
	int rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	t0 = os_now_ns();
	rc = jobspec_parse(req->body, req->body_len, req->ctx->scratch, &s, &p);
	/* what the answer waited for: an SMB target's checks (its server's
	 * answer, the logon, free space) are most of it; each is bounded */
	snprintf(
		resp->timing, sizeof(resp->timing),
		"checks;dur=%.1f;desc=\"the job's checks (targets, free space; "
		"an SMB server's answer)\"",
		(double)(os_now_ns() - t0) / 1e6);
	if (rc < 0) {
		api_send_problem(resp, &p);
		return;
	}
	rc = archive_job_insert(req->ctx->a, &s, &id);
	if (rc < 0) {
		job_spec_clear(&s);
		api_fail_store(resp, rc, "the archive could not queue the job");
		return;
	}
	jobq_publish_job(id, "queued", 0, NULL);
	if (s.hosts_json)
		fleet_kick(req->ctx->fleet);
	else
		jobq_kick(req->ctx->q);
	job_spec_clear(&s);
	snprintf(resp->location, sizeof(resp->location), "/api/v1/jobs/%lld",
		 (long long)id);
	send_job(req, resp, 202, id);
}

/* GET /api/v1/jobs: made once per archive generation and query, then
 * served as kept bytes with an ETag (listcache.c) — but for a page that
 * shows a running job, whose progress moves without a write: that page is
 * made for each request. */
void h_jobs_list(struct api_req *req, struct api_resp *resp)
{
	long long limit, offset;
	json_t *jobs, *job;
	size_t i;
	int rc, live = 0;
	char key[64];
	uint64_t gen;

	if (api_query_known(req, resp, list_args) < 0 ||
	    api_query_int(req, resp, "limit", 100, 1, 1000, &limit) < 0 ||
	    api_query_int(req, resp, "offset", 0, 0, INT_MAX, &offset) < 0)
		return;
	snprintf(key, sizeof(key), "jobs?%lld&%lld", limit, offset);
	gen = api_list_gen(req);
	if (api_list_get(req, key, gen, resp))
		return;
	if ((rc = archive_jobs_json(req->ctx->a, (int)limit, (int)offset,
				    &jobs)) < 0) {
		api_fail(resp, api_status_from_errno(rc), NULL,
			 "archive error listing jobs");
		return;
	}
	json_array_foreach(jobs, i, job)
	{
		add_progress(req->ctx, job);
		live |= json_is_string(json_object_get(job, "state")) &&
			strcmp(json_string_value(json_object_get(job, "state")),
			       "running") == 0;
	}
	api_send_json(resp, 200, json_pack("{s:o}", "jobs", jobs));
	api_list_put(req, key, gen, !live, resp);
}

void h_jobs_get(struct api_req *req, struct api_resp *resp)
{
	if (api_query_known(req, resp, none) < 0)
		return;
	send_job(req, resp, 200, req->id);
}

void h_jobs_cancel(struct api_req *req, struct api_resp *resp)
{
	json_t *job;
	const char *state;
	int rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	if ((rc = archive_job_json(req->ctx->a, req->id, &job)) < 0) {
		api_fail(resp, api_status_from_errno(rc), NULL,
			 rc == -ENOENT ? "no job %lld"
				       : "archive error reading job %lld",
			 (long long)req->id);
		return;
	}
	jobq_overlay(req->ctx->q, job, 0);
	state = json_string_value(json_object_get(job, "state"));
	if (strcmp(state, "running") == 0 &&
	    json_is_array(json_object_get(job, "hosts")))
		rc = fleet_cancel(req->ctx->fleet, req->id) == 0 ? 0
								 : -EALREADY;
	else
		rc = (strcmp(state, "queued") == 0 ||
		      strcmp(state, "running") == 0)
			     ? jobq_cancel(req->ctx->q, req->ctx->a, req->id)
			     : -EALREADY;
	if (rc == -EALREADY)
		api_fail(resp, 409, NULL, "job %lld has already ended (%s)",
			 (long long)req->id, state);
	else if (rc < 0)
		api_fail(resp, api_status_from_errno(rc), NULL,
			 "could not cancel job %lld", (long long)req->id);
	json_decref(job);
	if (rc == 0)
		send_job(req, resp, 202, req->id);
}

/* POST /api/v1/jobs/{id}/go: the body's fields. */
static const struct field go_fields[] = {
	{ .name = "gate",
	  .type = FIELD_INT,
	  .min = 0,
	  .max = 1000000,
	  .help = "the window the job waits at (its progress.gate)" },
	{ .name = "start_at_ns",
	  .type = FIELD_INT,
	  .unit = "ns",
	  .min = 1,
	  .max = 4.1e18,
	  .help = "when the window's start gate opens, on this host's wall "
		  "clock (ns since 1970 UTC): at most 60 s ahead" },
};

void h_jobs_go(struct api_req *req, struct api_resp *resp)
{
	struct field_error e = { 0 };
	json_t *body = NULL, *norm = NULL;
	int64_t at, now = os_wall_ns();
	int gate, waiting, rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (!(body = api_body_object(req, resp, "{\"gate\", \"start_at_ns\"}")))
		return;
	rc = fields_check_object(go_fields, FIELDS_N(go_fields), body, "", NULL,
				 &norm, &e);
	json_decref(body);
	if (rc == 0 && (!json_object_get(norm, "gate") ||
			!json_object_get(norm, "start_at_ns")))
		rc = field_fail(&e,
				json_object_get(norm, "gate") ? "start_at_ns"
							      : "gate",
				"missing");
	if (rc < 0) {
		json_decref(norm);
		api_fail(resp, 400, e.field[0] ? e.field : NULL, "%s",
			 e.detail);
		return;
	}
	gate = (int)json_integer_value(json_object_get(norm, "gate"));
	at = json_integer_value(json_object_get(norm, "start_at_ns"));
	json_decref(norm);
	if (at > now + 60000000000LL) {
		api_fail(resp, 400, "start_at_ns",
			 "start_at_ns: %.1f s ahead of this host's clock; at "
			 "most 60 s",
			 (double)(at - now) / 1e9);
		return;
	}
	rc = jobq_go(req->ctx->q, req->id, gate, at, &waiting);
	if (rc == -ENOENT)
		api_fail(resp, 404, NULL,
			 "job %lld is not the job running on this host",
			 (long long)req->id);
	else if (rc == -EAGAIN && waiting >= 0)
		api_fail(resp, 409, "gate",
			 "gate: job %lld waits at window %d, not %d",
			 (long long)req->id, waiting, gate);
	else if (rc == -EAGAIN)
		api_fail(resp, 409, "gate",
			 "gate: job %lld does not wait for a start now",
			 (long long)req->id);
	else
		api_send_json(resp, 202,
			      json_pack("{s:I, s:i, s:I, s:f}", "id",
					(json_int_t)req->id, "gate", gate,
					"start_at_ns", (json_int_t)at, "in_ms",
					(double)(at - now) / 1e6));
}
