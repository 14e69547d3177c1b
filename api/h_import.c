/*
 * h_import — POST /api/v1/import: a result file another tool wrote, as the
 * raw body, becomes a run in the archive (daemon/import.h parses it;
 * archive_import stores it with the original file). GET
 * /api/v1/runs/{id}/original gives the file back, byte for byte.
 *
 * Query: format (default: detected), filename (kept with the file),
 * labels (comma list, added to the ones the file gives).
 */
#include "api.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "import.h"

static const char *const none[] = { NULL };
static const char *const import_args[] = { "format", "filename", "labels",
					   NULL };

void h_import(struct api_req *req, struct api_resp *resp)
{
	const char *format = api_query_str(req, "format");
	const char *filename = api_query_str(req, "filename");
	struct import_run *r;
	char err[256];
	json_t *run;
	int64_t id = 0;
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
	if (!format)
		format = import_detect(req->body, req->body_len);
	if (!format || (strcmp(format, "cdm") && strcmp(format, "fio") &&
			strcmp(format, "diskspd"))) {
		api_fail(resp, format ? 400 : 422, "format",
			 format ? "format: cdm, fio or diskspd"
				: "format: not recognised as CrystalDiskMark "
				  "text, fio "
				  "JSON or DiskSpd XML or text (name it with "
				  "?format=)");
		return;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	rc = import_parse(format, req->body, req->body_len, r, err,
			  sizeof(err));
	if (rc == -ENOMEM) {
		api_fail(resp, 500, NULL, "out of memory");
	} else if (rc == -EOPNOTSUPP) {
		api_fail(resp, 422, "format", "format: %s", err);
	} else if (rc < 0) {
		api_fail(resp, 422, "body", "body: %s", err);
	} else {
		rc = import_store(req->ctx->a, r, format, req->body,
				  req->body_len, filename,
				  api_query_str(req, "labels"), &id);
		if (rc < 0 && rc != -EEXIST)
			api_fail_store(
				resp, rc,
				"the archive could not store the import");
		else if (api_run_json(req->ctx->a, id, &run) < 0)
			api_fail(resp, 500, NULL,
				 "the archive could not read run %lld",
				 (long long)id);
		else {
			/* the same file again: the run it made the first time
			 */
			json_object_set_new(run, "duplicate",
					    json_boolean(rc == -EEXIST));
			snprintf(resp->location, sizeof(resp->location),
				 "/api/v1/runs/%lld", (long long)id);
			api_send_json(resp, rc == -EEXIST ? 200 : 201, run);
		}
	}
	free(r);
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
