/*
 * h_import — POST /api/v1/import: a result file another tool wrote, as the
 * raw body, becomes a run in the archive (daemon/import/import.h parses it;
 * archive_import stores it with the original file). GET
 * /api/v1/runs/{id}/original gives the file back, byte for byte.
 *
 * Query: format (default: detected), filename (kept with the file),
 * labels (comma list, added to the ones the file gives).
 */
#include "api.h"
#include "os/os.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "fleet/hubsync.h"
#include "import/import.h"

static const char *const none[] = { NULL };
static const char *const import_args[] = { "format", "filename", "labels",
					   NULL };

/* The answer's list of the file's runs: [{id, duplicate, tests, tool,
 * location}]. */
static json_t *runs_list(const struct import_done *d, size_t n)
{
	json_t *l = json_array();

	for (size_t i = 0; i < n; i++) {
		char loc[48];
		snprintf(loc, sizeof(loc), "/api/v1/runs/%lld",
			 (long long)d[i].id);
		json_array_append_new(
			l, json_pack("{s:I, s:b, s:I, s:s, s:s}", "id",
				     (json_int_t)d[i].id, "duplicate",
				     d[i].duplicate, "tests",
				     (json_int_t)d[i].tests, "tool", d[i].tool,
				     "location", loc));
	}
	return l;
}

void h_import(struct api_req *req, struct api_resp *resp)
{
	const char *format = api_query_str(req, "format");
	const char *filename = api_query_str(req, "filename");
	struct import_done done[IMPORT_MAX_RUNS];
	char err[256];
	json_t *run;
	size_t n = 0, fresh = 0;
	int rc;

	if (api_query_known(req, resp, import_args) < 0)
		return;
	if (!req->body || req->body_len == 0) {
		api_fail(resp, 400, "body",
			 "body: send the result file as the "
			 "request body (curl --data-binary @FILE)");
		return;
	}
	if (import_check_args(api_query_str(req, "labels"), filename, err,
			      sizeof(err)) < 0) {
		api_fail(resp, 400,
			 strncmp(err, "labels", 6) == 0 ? "labels" : "filename",
			 "%s", err);
		return;
	}
	if (format && !import_format_find(format) &&
	    strcmp(format, "storbench") != 0) {
		import_formats_text(err, sizeof(err));
		api_fail(resp, 400, "format", "format: %s", err);
		return;
	}
	rc = import_file(req->ctx->a, format, req->body, req->body_len,
			 filename, api_query_str(req, "labels"), done, &n, err,
			 sizeof(err));
	if (rc == -ENOMEM)
		api_fail(resp, 500, NULL, "out of memory");
	else if (rc == -EPROTO)
		api_fail(resp, 422, "format",
			 "format: %s (name it with ?format=)", err);
	else if (rc == -EOPNOTSUPP)
		api_fail(resp, 422, "format", "format: %s", err);
	else if (rc == -EINVAL)
		api_fail(resp, 422, "body", "body: %s", err);
	else if (rc == -ENOTUNIQ)
		api_fail(resp, 409, "body", "body: %s", err);
	else if (rc < 0)
		api_fail_store(resp, rc,
			       "the archive could not store the import");
	else if (api_run_json(req->ctx->a, done[0].id, &run) < 0)
		api_fail(resp, 500, NULL, "the archive could not read run %lld",
			 (long long)done[0].id);
	else {
		/* the answer is the file's first run, as GET shows it, with
		 * every run the file held in "runs" */
		for (size_t i = 0; i < n; i++)
			fresh += !done[i].duplicate;
		json_object_set_new(run, "duplicate",
				    json_boolean(done[0].duplicate));
		json_object_set_new(run, "runs", runs_list(done, n));
		snprintf(resp->location, sizeof(resp->location),
			 "/api/v1/runs/%lld", (long long)done[0].id);
		api_send_json(resp, fresh ? 201 : 200, run);
		if (fresh) /* a new ended run: to the hub, if there is one */
			hubsync_kick(req->ctx->hub);
	}
}

void h_runs_original(struct api_req *req, struct api_resp *resp)
{
	void *data;
	size_t len;
	char name[256];
	int rc;

	if (api_query_known(req, resp, none) < 0)
		return;
	rc = archive_import_original(req->ctx->a, req->id, &data, &len, name,
				     sizeof(name));
	if (rc < 0) {
		api_fail(resp, rc == -ENOENT ? 404 : 500, NULL,
			 rc == -ENOENT ? "run %lld was not imported: it has no "
					 "original file"
				       : "archive error reading run %lld",
			 (long long)req->id);
		return;
	}
	api_send_file(resp, data, len, "application/octet-stream",
		      name[0] ? name : "original.txt");
}
