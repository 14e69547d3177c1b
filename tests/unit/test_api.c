/*
 * test_api.c — the HTTP API below the server: api_dispatch() with a method,
 * path, query and body, against a real archive and credential store in a
 * temporary directory, without libmicrohttpd (req->conn NULL, the query as
 * req->args) and without a job queue worker (ctx.q NULL: jobs are queued
 * and never run).
 *
 * What it holds the API to: every query parameter a route does not take,
 * gives twice, or gives too long or not as UTF-8 is a 400 naming it; the
 * limits of each route's parameters; unknown body fields are 400s naming
 * them; the static route answers only from the embedded files (no path
 * ever reaches the filesystem); and the fixes the fuzzers led to (import
 * text that is not UTF-8, tests of one name, label lists with empty pieces,
 * compare values, offsets beyond an int). The OpenAPI document is served
 * from the binary, parses, and names this build's version. The URL the
 * daemon reaches itself at follows the address it listens on.
 */
#include "api.h"
#include "archive/archive.h"
#include "conns.h"
#include "platform/confine.h"
#include "platform/creds.h"
#include "platform/log.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 16

static char dir[PATH_MAX], scratch[PATH_MAX + 16];
static struct api_ctx ctx;

/* An answer: status, the parsed body when it is JSON, the problem's field. */
struct answer {
	unsigned status;
	json_t *j;
	const char *field;  /* the problem's "field", or "" */
	const char *detail; /* the problem's "detail", or "" */
	char body[256];	    /* the start of a body that is not JSON */
};

static void answer_free(struct answer *a)
{
	json_decref(a->j);
	memset(a, 0, sizeof(*a));
}

/*
 * Sends method path?query with body (NULL: none) through api_dispatch.
 * query is "a=1&b=2" with the values as the server hands them over
 * (already percent-decoded); a piece without '=' has no value.
 */
static struct answer call(const char *method, const char *path,
			  const char *query, const char *body)
{
	struct api_query_arg args[MAX_ARGS];
	char q[8192], *p = q;
	struct api_req req = { .ctx = &ctx, .method = method, .path = path };
	struct api_resp resp = { 0 };
	struct answer a = { 0 };
	size_t n = 0;

	snprintf(q, sizeof(q), "%s", query ? query : "");
	while (query && p && n < MAX_ARGS) {
		char *amp = strchr(p, '&'), *eq;
		if (amp)
			*amp = '\0';
		if ((eq = strchr(p, '=')))
			*eq = '\0';
		args[n].name = p;
		args[n++].value = eq ? eq + 1 : NULL;
		p = amp ? amp + 1 : NULL;
	}
	req.args = args;
	req.n_args = n;
	req.body = body;
	req.body_len = body ? strlen(body) : 0;
	api_dispatch(&req, &resp);
	a.status = resp.status;
	if (resp.content_type && strstr(resp.content_type, "json") && resp.body)
		a.j = json_loadb(resp.body, resp.len, 0, NULL);
	else if (resp.body || resp.static_body)
		snprintf(a.body, sizeof(a.body), "%.*s",
			 (int)(resp.len < 200 ? resp.len : 200),
			 resp.body ? resp.body
				   : (const char *)resp.static_body);
	a.field = json_string_value(json_object_get(a.j, "field"));
	a.detail = json_string_value(json_object_get(a.j, "detail"));
	if (!a.field)
		a.field = "";
	if (!a.detail)
		a.detail = "";
	free(resp.body);
	return a;
}

/* Expects status and, for a problem, field; prints the answer if not. */
static int expect(const char *method, const char *path, const char *query,
		  const char *body, unsigned status, const char *field)
{
	struct answer a = call(method, path, query, body);
	int ok = a.status == status && (!field || strcmp(a.field, field) == 0);

	if (!ok)
		fprintf(stderr,
			"  %s %s?%s -> %u field \"%s\" detail \"%s\"%s\n",
			method, path, query ? query : "", a.status, a.field,
			a.detail, a.body);
	answer_free(&a);
	return ok;
}

static int rm_tree(const char *path)
{
	char cmd[PATH_MAX + 32];

	/* only ever the directory this test made */
	if (strncmp(path, "/tmp/storbench-test-api.", 24) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	return system(cmd);
}

static void test_setup(void)
{
	char path[PATH_MAX + 32], why[512];

	snprintf(dir, sizeof(dir), "/tmp/storbench-test-api.XXXXXX");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	ASSERT_EQ(mkdir(scratch, 0700), 0);
	snprintf(path, sizeof(path), "%s/storbench.db", dir);
	ASSERT_EQ(archive_open(path, &ctx.a), 0);
	snprintf(path, sizeof(path), "%s/credentials.db", dir);
	ASSERT_EQ(creds_init(path), 0);
	ASSERT_EQ(confine_allow(dir, why, sizeof(why)), 0);
	ctx.q = NULL;
	ctx.scratch = scratch;
}

/* The query: unknown, repeated, too long or non-UTF-8 parameters are 400s
 * naming them, on every route that takes a query and on those that take
 * none. */
static void test_query_checked(void)
{
	char big[API_QUERY_VALUE_MAX + 32];

	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "limit=5&offset=0", NULL, 200,
			   NULL));
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "limt=5", NULL, 400, "limt"));
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "limit=5&limit=1000", NULL,
			   400, "limit"));
	/* names match without regard to case, as libmicrohttpd's do */
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "LIMIT=5", NULL, 200, NULL));
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "limit=5&Limit=6", NULL, 400,
			   "Limit"));
	/* "?&limit=5", "?limit=5&": empty pieces are nothing */
	ASSERT_TRUE(
		expect("GET", "/api/v1/jobs", "&limit=5&", NULL, 200, NULL));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "colour=red", NULL, 400,
			   "colour"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "label=a\xff", NULL, 400,
			   "label"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "label=", 6);
	ASSERT_TRUE(expect("GET", "/api/v1/runs", big, NULL, 400, "label"));
	big[API_QUERY_VALUE_MAX + 6] = '\0'; /* exactly the limit */
	ASSERT_TRUE(expect("GET", "/api/v1/runs", big, NULL, 200, NULL));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "runs=1,2&x=1", NULL, 400,
			   "x"));
	ASSERT_TRUE(expect("POST", "/api/v1/import", "filename=a.txt&fmt=cdm",
			   "x", 400, "fmt"));
	/* routes that take no query refuse one rather than ignore it */
	ASSERT_TRUE(expect("POST", "/api/v1/jobs", "profile=custom", "{}", 400,
			   "profile"));
	ASSERT_TRUE(expect("GET", "/api/v1/jobs/1", "verbose", NULL, 400,
			   "verbose"));
	ASSERT_TRUE(expect("DELETE", "/api/v1/jobs/1", "force=1", NULL, 400,
			   "force"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs/1/samples", "test=x", NULL, 400,
			   "test"));
	ASSERT_TRUE(expect("PATCH", "/api/v1/runs/1", "format=csv",
			   "{\"notes\": \"\"}", 400, "format"));
	ASSERT_TRUE(expect("DELETE", "/api/v1/runs/1", "x=1", NULL, 400, "x"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs/1/original", "x=1", NULL, 400,
			   "x"));
	ASSERT_TRUE(expect("GET", "/api/v1/profiles", "x=1", NULL, 400, "x"));
	ASSERT_TRUE(
		expect("GET", "/api/v1/credentials", "x=1", NULL, 400, "x"));
	ASSERT_TRUE(expect(
		"POST", "/api/v1/credentials", "x=1",
		"{\"name\": \"a\", \"user\": \"u\", \"password\": \"p\"}", 400,
		"x"));
	ASSERT_TRUE(
		expect("GET", "/api/v1/credentials/a", "x=1", NULL, 400, "x"));
}

/* The ranges and shapes of each route's parameters. */
static void test_query_limits(void)
{
	ASSERT_TRUE(
		expect("GET", "/api/v1/jobs", "limit=0", NULL, 400, "limit"));
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "limit=1001", NULL, 400,
			   "limit"));
	ASSERT_TRUE(
		expect("GET", "/api/v1/jobs", "limit= 1", NULL, 400, "limit"));
	/* an offset past an int was cast and wrapped: 2^32 read as 0 */
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "offset=2147483647", NULL,
			   200, NULL));
	ASSERT_TRUE(expect("GET", "/api/v1/jobs", "offset=4294967296", NULL,
			   400, "offset"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "offset=4294967296", NULL,
			   400, "offset"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "cluster_size=4096", NULL,
			   200, NULL));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "cluster_size=04096", NULL,
			   400, "cluster_size"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "cluster_size=0", NULL, 400,
			   "cluster_size"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs",
			   "cluster_size=99999999999999999999", NULL, 400,
			   "cluster_size"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "from=2026-1", NULL, 400,
			   "from"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "state=gone", NULL, 400,
			   "state"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs", "sort=colour", NULL, 400,
			   "sort"));
	ASSERT_TRUE(expect("GET", "/api/v1/runs/1", "format=xml", NULL, 400,
			   "format"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "runs=1,,2", NULL, 400,
			   "runs"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "runs=1, 2", NULL, 400,
			   "runs"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "runs=+1,2", NULL, 400,
			   "runs"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "runs=01,2", NULL, 400,
			   "runs"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare",
			   "runs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
			   NULL, 400, "runs"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "group_by=colour", NULL,
			   400, "group_by"));
	/* every piece of values counts: an empty one was skipped */
	ASSERT_TRUE(expect("GET", "/api/v1/compare",
			   "group_by=label&values=a,,b", NULL, 400, "values"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "group_by=label&values=a,",
			   NULL, 400, "values"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare",
			   "group_by=label&values=a,a", NULL, 400, "values"));
	ASSERT_TRUE(expect("GET", "/api/v1/compare", "runs=1,2&label=x", NULL,
			   400, "label"));
	ASSERT_TRUE(expect("POST", "/api/v1/import", "labels=a,,b", "x", 400,
			   "labels"));
	ASSERT_TRUE(expect("POST", "/api/v1/import", "labels=a,", "x", 400,
			   "labels"));
	ASSERT_TRUE(expect("POST", "/api/v1/import", "filename=caf\xe9.txt",
			   "x", 400, "filename"));
	ASSERT_TRUE(expect("POST", "/api/v1/import", "format=xls", "x", 400,
			   "format"));
	ASSERT_TRUE(expect("POST", "/api/v1/import", NULL, NULL, 400, "body"));
}

/* Unknown body fields are refused naming them; bodies that are not JSON
 * objects are refused. */
static void test_bodies(void)
{
	ASSERT_TRUE(expect("POST", "/api/v1/jobs", NULL, "{\"colour\": 1}", 400,
			   "colour"));
	ASSERT_TRUE(expect("POST", "/api/v1/jobs", NULL, NULL, 400, NULL));
	ASSERT_TRUE(expect("PATCH", "/api/v1/runs/1", NULL,
			   "{\"label\": [\"a\"]}", 400, "label"));
	ASSERT_TRUE(expect("PATCH", "/api/v1/runs/1", NULL, "[]", 400, NULL));
	ASSERT_TRUE(expect("PATCH", "/api/v1/runs/1", NULL,
			   "{\"labels\": [\"a\", \"a\"]}", 400, "labels"));
	ASSERT_TRUE(
		expect("POST", "/api/v1/credentials", NULL,
		       "{\"name\": \"a\", \"user\": \"u\", \"password\": \"p\","
		       " \"realm\": \"x\"}",
		       400, "realm"));
	ASSERT_TRUE(expect(
		"PUT", "/api/v1/credentials/a", NULL,
		"{\"name\": \"a\", \"user\": \"u\", \"password\": \"p\"}", 400,
		"name"));
	ASSERT_TRUE(
		expect("POST", "/api/v1/credentials", NULL,
		       "{\"name\": \"a\", \"user\": \"\", \"password\": \"p\"}",
		       400, "user"));
	ASSERT_TRUE(expect(
		"POST", "/api/v1/credentials", NULL,
		"{\"name\": \"a/b\", \"user\": \"u\", \"password\": \"p\"}",
		400, "name"));
	ASSERT_TRUE(expect("PUT", "/api/v1/credentials/..", NULL,
			   "{\"user\": \"u\", \"password\": \"p\"}", 400,
			   "name"));
}

/* Without a worker (ctx.q NULL) a job is queued, read and cancelled. */
static void test_jobs_without_worker(void)
{
	struct answer a = call("POST", "/api/v1/jobs", NULL,
			       "{\"size\": \"64MiB\", \"engine\": \"null\"}");
	char path[64];

	ASSERT_EQ(a.status, 202);
	ASSERT_STR_EQ(json_string_value(json_object_get(a.j, "state")),
		      "queued");
	ASSERT_TRUE(json_is_null(json_object_get(a.j, "progress")));
	snprintf(path, sizeof(path), "/api/v1/jobs/%lld",
		 (long long)json_integer_value(json_object_get(a.j, "id")));
	answer_free(&a);
	ASSERT_TRUE(expect("GET", path, NULL, NULL, 200, NULL));
	ASSERT_TRUE(expect("DELETE", path, NULL, NULL, 202, NULL));
	ASSERT_TRUE(expect("DELETE", path, NULL, NULL, 409, NULL));
}

/* A CrystalDiskMark result whose OS and comment lines are Latin-1 — once a
 * 500 ("the archive could not store the import"), found by fuzz_api. */
static void test_import_not_utf8(void)
{
	static const char cdm[] =
		"CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo\n"
		"[Read]\n"
		"  SEQ    1MiB (Q=  8, T= 1):   534.383 MB/s [    509.6 IOPS] "
		"< 15662.75 us>\n"
		"Profile: Default\n"
		"   Test: 1 GiB (x5) [C: 98% (109/111GiB)]\n"
		"   Date: 2021/06/22 16:34:54\n"
		"     OS: Windows 10 \xbc\xff Pro\n"
		"Comment: caf\xe9 NTFS\n";
	struct answer a =
		call("POST", "/api/v1/import", "filename=latin1.txt", cdm);

	ASSERT_EQ(a.status, 201);
	ASSERT_STR_EQ(json_string_value(json_object_get(a.j, "notes")),
		      "caf? NTFS");
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_object_get(a.j, "probe"), "os")),
		      "Windows 10 ?? Pro");
	answer_free(&a);
}

/* fio without group_reporting: a job entry per process, all of one name —
 * once a 500 (the archive's unique test names), found by fuzz_api. The
 * repeats become "rand #2", … */
static void test_import_same_names(void)
{
	static const char fio[] = "{\"fio version\": \"fio-3.33\", \"jobs\": ["
				  "{\"jobname\": \"rand\", \"job options\": "
				  "{\"rw\": \"randread\"},"
				  " \"read\": {\"io_bytes\": 4096, "
				  "\"bw_bytes\": 4096, \"iops\": 1,"
				  " \"total_ios\": 1}},"
				  "{\"jobname\": \"rand\", \"job options\": "
				  "{\"rw\": \"randread\"},"
				  " \"read\": {\"io_bytes\": 4096, "
				  "\"bw_bytes\": 4096, \"iops\": 2,"
				  " \"total_ios\": 1}},"
				  "{\"jobname\": \"rand #2\", \"job options\": "
				  "{\"rw\": \"randread\"},"
				  " \"read\": {\"io_bytes\": 4096, "
				  "\"bw_bytes\": 4096, \"iops\": 3,"
				  " \"total_ios\": 1}}]}";
	struct answer a = call("POST", "/api/v1/import", "format=fio", fio);
	json_t *tests = json_object_get(a.j, "tests");

	ASSERT_EQ(a.status, 201);
	ASSERT_EQ(json_array_size(tests), 3);
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_array_get(tests, 0), "test")),
		      "rand");
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_array_get(tests, 1), "test")),
		      "rand #2");
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_array_get(tests, 2), "test")),
		      "rand #2 #2");
	answer_free(&a);
}

/* An import's labels: each once, also against the file's own ("imported"),
 * and all 24 of 64 bytes kept whole (a 1 KiB copy cut the last). */
static void test_import_labels(void)
{
	static const char cdm[] =
		"CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo\n"
		"[Read]\n"
		"  SEQ    1MiB (Q=  8, T= 1):   100.000 MB/s [     95.4 IOPS] "
		"< 1.00 us>\n"
		"Profile: Default\n"
		"   Test: 1 GiB (x5) [C: 98% (109/111GiB)]\n"
		"   Date: 2021/06/22 16:34:55\n";
	char q[2048] = "labels=", last[80], other[sizeof(cdm)];
	struct answer a;
	json_t *labels;
	size_t n = strlen(q);

	for (int i = 0; i < 24; i++)
		n += (size_t)snprintf(q + n, sizeof(q) - n, "%s%02d%062d",
				      i ? "," : "", i, 0);
	ASSERT_TRUE(expect("POST", "/api/v1/import", q, cdm, 201, NULL));
	snprintf(last, sizeof(last), "label=%02d%062d", 23, 0);
	a = call("GET", "/api/v1/runs", last, NULL);
	ASSERT_EQ(a.status, 200);
	ASSERT_EQ(json_array_size(json_object_get(a.j, "runs")), 1);
	labels = json_object_get(
		json_array_get(json_object_get(a.j, "runs"), 0), "labels");
	ASSERT_EQ(json_array_size(labels), 26); /* imported, crystaldiskmark */
	answer_free(&a);
	/* another file (another date): "imported" is not added twice */
	memcpy(other, cdm, sizeof(cdm));
	memcpy(strstr(other, "16:34:55"), "16:34:56", 8);
	a = call("POST", "/api/v1/import", "labels=imported,x", other);
	ASSERT_EQ(a.status, 201);
	labels = json_object_get(a.j, "labels");
	ASSERT_EQ(json_array_size(labels), 3);
	ASSERT_STR_EQ(json_string_value(json_array_get(labels, 2)), "x");
	answer_free(&a);
}

/*
 * GET /static/… answers only from the files embedded in the binary: no
 * path, however it is spelt once the server has decoded it, reaches the
 * filesystem. The test runs in a directory holding static/secret.txt and
 * secret.txt: none of them is served.
 */
static void test_static_traversal(void)
{
	static const char *const paths[] = {
		"/static/../../etc/passwd", /* as sent, or %2e%2e decoded */
		"/static/%2e%2e/%2e%2e/etc/passwd", /* %252e%252e decoded once
						     */
		"/static/..%2f..%2fetc%2fpasswd",
		"/static//etc/passwd",
		"/static/./app.js",
		"/static/app.js/",
		"/static/APP.JS",
		"/static/",
		"/static/secret.txt",
		"/static/../secret.txt",
		"/static/app.js%00.txt",
		"/static/\xc0\xae\xc0\xae/etc/passwd", /* overlong "." */
	};
	char cwd[PATH_MAX], path[PATH_MAX + 32];
	struct answer a;
	int fd;

	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(path, sizeof(path), "%s/static", dir);
	ASSERT_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/static/secret.txt", dir);
	ASSERT_TRUE((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/secret.txt", dir);
	ASSERT_TRUE((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	ASSERT_EQ(chdir(dir), 0);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		a = call("GET", paths[i], NULL, NULL);
		if (a.status != 404)
			fprintf(stderr, "  GET %s -> %u\n", paths[i], a.status);
		ASSERT_EQ(a.status, 404);
		ASSERT_TRUE(a.j != NULL); /* problem+json, valid UTF-8 */
		answer_free(&a);
	}
	ASSERT_TRUE(expect("GET", "/static/app.js", NULL, NULL, 200, NULL));
	ASSERT_TRUE(expect("GET", "/", NULL, NULL, 200, NULL));
	ASSERT_TRUE(expect("HEAD", "/static/style.css", NULL, NULL, 200, NULL));
	ASSERT_TRUE(expect("POST", "/static/app.js", NULL, "x", 405, NULL));
	ASSERT_EQ(chdir(cwd), 0);
}

/*
 * GET /api/v1/openapi.json: the document openapi.c builds from the embedded
 * fragments (the JSON files of api/openapi/) and the field tables — an
 * OpenAPI 3.1 document whose info.version is this build's, served from the
 * binary whatever the working directory holds, taking no query.
 * (tests/integration/openapi.test.mjs validates it and checks it against
 * the route table and the daemon's real answers.)
 */
static void test_openapi(void)
{
	struct api_req req = { .ctx = &ctx,
			       .method = "GET",
			       .path = "/api/v1/openapi.json" };
	struct api_resp resp = { 0 };
	json_error_t err;
	json_t *doc;

	api_dispatch(&req, &resp);
	ASSERT_EQ(resp.status, 200);
	ASSERT_TRUE(resp.content_type &&
		    strncmp(resp.content_type, "application/json", 16) == 0);
	ASSERT_TRUE(resp.static_body != NULL && resp.len > 0);
	doc = json_loadb((const char *)resp.static_body, resp.len, 0, &err);
	if (!doc)
		fprintf(stderr, "  openapi.json: line %d: %s\n", err.line,
			err.text);
	ASSERT_TRUE(doc != NULL);
	ASSERT_STR_EQ(json_string_value(json_object_get(doc, "openapi")),
		      "3.1.0");
	ASSERT_STR_EQ(json_string_value(json_object_get(
			      json_object_get(doc, "info"), "version")),
		      STORBENCH_VERSION);
	json_decref(doc);
	free(resp.body);
	ASSERT_TRUE(
		expect("GET", "/api/v1/openapi.json", "x=1", NULL, 400, "x"));
	ASSERT_TRUE(
		expect("POST", "/api/v1/openapi.json", NULL, "{}", 405, NULL));
}

static void test_cleanup(void)
{
	archive_close(ctx.a);
	ctx.a = NULL;
	confine_reset();
	ASSERT_EQ(rm_tree(dir), 0);
}

/* libmicrohttpd's message fmt, … into the log (api_mhd_log). */
static void mhd_says(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	api_mhd_log(NULL, fmt, ap);
	va_end(ap);
}

/* An event stream's client leaving is not logged (nor counted as held
 * back); another failure on the stream, or on another route, is
 * (libmicrohttpd 0.9.75's words). Each kind is said once per
 * API_LOG_INTERVAL_S: one of each here. */
static void test_mhd_log_stream_end(void)
{
	static const char chunked[] =
		"Failed to send the chunked response body "
		"for the request for `%s'. Error: %s\n";
	FILE *f = tmpfile();
	char text[2048];
	size_t n;

	ASSERT_TRUE(f != NULL);
	log_to(f);
	mhd_says(chunked, "/api/v1/events",
		 "The socket is no longer available for sending");
	mhd_says(chunked, "/api/v1/events",
		 "The connection was forcibly closed by remote peer");
	mhd_says(chunked, "/api/v1/events", "The socket is not connected");
	mhd_says(chunked, "/api/v1/events",
		 "Not enough system resources to serve the request");
	mhd_says("Failed to send the response headers for the request for "
		 "`%s'. Error: %s\n",
		 "/api/v1/runs/1",
		 "The socket is no longer available for sending");
	log_to(NULL);
	rewind(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	ASSERT_TRUE(strstr(text, "`/api/v1/events'. Error: The") == NULL);
	ASSERT_TRUE(strstr(text, "held back") == NULL);
	ASSERT_TRUE(strstr(text, "`/api/v1/events'. Error: Not enough system "
				 "resources") != NULL);
	ASSERT_TRUE(strstr(text, "`/api/v1/runs/1'. Error: The socket is no "
				 "longer available for sending") != NULL);
}

/* The URL the daemon reaches itself at (multi-host jobs' "self"):
 * loopback for a wildcard listener, else the address it listens on. */
static void test_listen_self_url(void)
{
	static const char *const cases[][2] = {
		{ "0.0.0.0:8080", "http://127.0.0.1:8080" },
		{ "127.0.0.1:8080", "http://127.0.0.1:8080" },
		{ "127.0.0.5:9", "http://127.0.0.5:9" },
		{ "192.168.1.5:80", "http://192.168.1.5:80" },
		{ "[::]:8080", "http://[::1]:8080" },
		{ "[::1]:8080", "http://[::1]:8080" },
		{ "::1:8080", "http://[::1]:8080" },
		{ "[fe80::1%1]:8080", "http://[fe80::1%251]:8080" },
	};
	char url[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(api_listen_self_url(cases[i][0], url, sizeof(url)),
			  0);
		ASSERT_STR_EQ(url, cases[i][1]);
	}
	ASSERT_EQ(api_listen_self_url("localhost:80", url, sizeof(url)),
		  -EINVAL);
	ASSERT_EQ(api_listen_self_url("127.0.0.1", url, sizeof(url)), -EINVAL);
	ASSERT_EQ(api_listen_self_url("127.0.0.1:0", url, sizeof(url)),
		  -EINVAL);
	ASSERT_EQ(api_listen_self_url("127.0.0.5:8080", url, 21),
		  -ENAMETOOLONG);
}

TEST_MAIN(test_setup, test_query_checked, test_query_limits, test_bodies,
	  test_jobs_without_worker, test_import_not_utf8,
	  test_import_same_names, test_import_labels, test_static_traversal,
	  test_openapi, test_mhd_log_stream_end, test_listen_self_url,
	  test_cleanup)
