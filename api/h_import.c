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

#include <nettle/sha2.h>

#include "archive.h"
#include "import.h"

/* Does buf hold word, as UTF-8 or as UTF-16LE text? */
static int holds(const char *buf, size_t len, const char *word)
{
	size_t w = strlen(word);

	if (memmem(buf, len, word, w))
		return 1;
	for (size_t i = 0; i + 2 * w <= len; i++) {
		size_t k = 0;
		while (k < w && buf[i + 2 * k] == word[k] && buf[i + 2 * k + 1] == 0)
			k++;
		if (k == w)
			return 1;
	}
	return 0;
}

/* The format of buf: "cdm", "fio", "diskspd", or NULL. */
static const char *detect(const char *buf, size_t len)
{
	/* fio first: a fio run may name CrystalDiskMark in a path */
	if (holds(buf, len, "\"fio version\""))
		return "fio";
	if (holds(buf, len, "CrystalDiskMark"))
		return "cdm";
	if (holds(buf, len, "<Results>") || holds(buf, len, "DiskSpd") ||
	    holds(buf, len, "diskspd"))
		return "diskspd";
	return NULL;
}

static void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&c);
	sha256_update(&c, len, data);
	sha256_digest(&c, sizeof(d), d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The run's labels: "imported", the tool, what the file says (filesystem,
 * cluster, cache), and the caller's; as a JSON array text. */
static char *labels_for(const struct import_run *r, const char *extra)
{
	char buf[64], *out;
	json_t *l;

	for (size_t i = 0; i < sizeof(buf) - 1 && (buf[i] = (char)tolower(
				   (unsigned char)r->tool[i])); i++)
		;
	buf[sizeof(buf) - 1] = '\0';
	l = json_pack("[s, s]", "imported", buf);

	if (r->fs_type[0])
		json_array_append_new(l, json_string(r->fs_type));
	if (r->cluster > 0) {
		snprintf(buf, sizeof(buf), "cluster-%lld", (long long)r->cluster);
		json_array_append_new(l, json_string(buf));
	}
	if (r->write_cache[0]) {
		snprintf(buf, sizeof(buf), "cache-%s", r->write_cache);
		json_array_append_new(l, json_string(buf));
	}
	if (extra) {
		char copy[1024], *save = NULL, *tok;
		snprintf(copy, sizeof(copy), "%s", extra);
		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if (*tok && json_array_size(l) < 32)
				json_array_append_new(l, json_string(tok));
	}
	out = json_dumps(l, JSON_COMPACT);
	json_decref(l);
	return out;
}

/* Stores the parsed result r (of format) and answers with its run. */
static void store_run(struct api_req *req, struct api_resp *resp,
		      const struct import_run *r, const char *format,
		      const char *sha, const char *filename)
{
	struct archive_import_result res[IMPORT_MAX_TESTS];
	struct archive_import_in in = {0};
	char target[256], *labels = NULL, *spec = NULL, *probe = NULL;
	json_t *run;
	int64_t id;
	int rc;

	for (size_t i = 0; i < r->n; i++)
		res[i] = (struct archive_import_result){
			.name = r->t[i].name, .rw = r->t[i].rw,
			.pattern = r->t[i].pattern, .block_size = r->t[i].block_size,
			.queue_depth = r->t[i].queue_depth, .threads = r->t[i].threads,
			.mb_s = r->t[i].mb_s, .iops = r->t[i].iops,
			.lat_mean_us = r->t[i].lat_mean_us};
	/* what was tested: CrystalDiskMark's drive, fio's file or device */
	snprintf(target, sizeof(target), "%s",
		 r->drive[0] ? r->drive : r->comment[0] ? r->comment : "(unknown)");
	labels = labels_for(r, api_query_str(req, "labels"));
	{
		json_t *p = json_pack("{s:n, s:s?, s:s?, s:o, s:s?, s:s, s:s?}",
				      "hostname", "os", r->os[0] ? r->os : NULL,
				      "fs_type", r->fs_type[0] ? r->fs_type : NULL,
				      "fs_block_size",
				      r->cluster > 0 ? json_integer(r->cluster) : json_null(),
				      "write_cache",
				      r->write_cache[0] ? r->write_cache : NULL,
				      "device", target, "comment",
				      r->comment[0] ? r->comment : NULL);
		json_t *sp = json_pack("{s:{s:s, s:s, s:s, s:s?, s:I, s:i, s:s?}}",
				       "imported", "tool", r->tool, "version",
				       r->version, "format", format, "profile",
				       r->profile[0] ? r->profile : NULL, "test_size",
				       (json_int_t)r->test_size, "best_of",
				       r->iterations, "date",
				       r->date[0] ? r->date : NULL);
		probe = p ? json_dumps(p, JSON_COMPACT) : NULL;
		spec = sp ? json_dumps(sp, JSON_COMPACT) : NULL;
		json_decref(p);
		json_decref(sp);
	}
	if (!labels || !probe || !spec) {
		api_fail(resp, 500, NULL, "out of memory");
		goto out;
	}
	in = (struct archive_import_in){
		.tool = r->tool, .version = r->version, .format = format,
		.profile = strcmp(format, "cdm") == 0 ? "crystaldiskmark" : format,
		.target = target, .notes = r->comment,
		.spec_json = spec, .labels_json = labels, .probe_json = probe,
		.started_at = r->date, .sha256 = sha, .filename = filename,
		.original = req->body, .len = req->body_len, .results = res,
		.n = r->n};
	rc = archive_import(req->ctx->a, &in, &id);
	if (rc < 0 && rc != -EEXIST) {
		api_fail(resp, 500, NULL, "the archive could not store the import");
		goto out;
	}
	if (archive_run_json(req->ctx->a, id, &run) < 0) {
		api_fail(resp, 500, NULL, "the archive could not read run %lld",
			 (long long)id);
		goto out;
	}
	/* the same file again: the run it made the first time */
	json_object_set_new(run, "duplicate", json_boolean(rc == -EEXIST));
	snprintf(resp->location, sizeof(resp->location), "/api/v1/runs/%lld",
		 (long long)id);
	api_send_json(resp, rc == -EEXIST ? 200 : 201, run);
out:
	free(labels);
	free(spec);
	free(probe);
}

void h_import(struct api_req *req, struct api_resp *resp)
{
	const char *format = api_query_str(req, "format");
	const char *filename = api_query_str(req, "filename");
	struct import_run *r;
	char sha[65], err[256];
	int line = 0, rc;

	if (!req->body || req->body_len == 0) {
		api_fail(resp, 400, "body", "body: send the result file as the "
					    "request body (curl --data-binary @FILE)");
		return;
	}
	if (filename && (strlen(filename) > 255 || strchr(filename, '/'))) {
		api_fail(resp, 400, "filename", "filename: a file name, at most 255 "
						"bytes, no '/'");
		return;
	}
	if (!format)
		format = detect(req->body, req->body_len);
	if (!format || (strcmp(format, "cdm") && strcmp(format, "fio") &&
			strcmp(format, "diskspd"))) {
		api_fail(resp, format ? 400 : 422, "format",
			 format ? "format: cdm, fio or diskspd"
				: "format: not recognised (a CrystalDiskMark text "
				  "result has its banner; name it with ?format=)");
		return;
	}
	if (strcmp(format, "diskspd") == 0) {
		api_fail(resp, 422, "format",
			 "format: DiskSpd results cannot be imported by this "
			 "version yet (CrystalDiskMark text and fio JSON can)");
		return;
	}
	sha256_hex(req->body, req->body_len, sha);
	if (!(r = calloc(1, sizeof(*r)))) {
		api_fail(resp, 500, NULL, "out of memory");
		return;
	}
	rc = strcmp(format, "fio") == 0
		     ? import_fio(req->body, req->body_len, r, err, sizeof(err), &line)
		     : import_cdm(req->body, req->body_len, r, err, sizeof(err), &line);
	if (rc == -ENOMEM)
		api_fail(resp, 500, NULL, "out of memory");
	else if (rc < 0)
		api_fail(resp, 422, "body", "body: %s", err);
	else
		store_run(req, resp, r, format, sha, filename ? filename : "");
	free(r);
}

void h_runs_original(struct api_req *req, struct api_resp *resp)
{
	void *data;
	size_t len;
	char name[256];
	int rc = archive_import_original(req->ctx->a, req->id, &data, &len, name,
					 sizeof(name));

	if (rc < 0) {
		api_fail(resp, rc == -ENOENT ? 404 : 500, NULL,
			 rc == -ENOENT ? "run %lld was not imported: it has no "
					 "original file"
				       : "archive error reading run %lld",
			 (long long)req->id);
		return;
	}
	free(resp->body);
	resp->body = data;
	resp->len = len;
	resp->status = 200;
	resp->content_type = "application/octet-stream";
	snprintf(resp->filename, sizeof(resp->filename), "%.80s",
		 name[0] ? name : "original.txt");
}
