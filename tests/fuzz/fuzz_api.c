/*
 * fuzz_api — the libFuzzer target of the HTTP API below the server:
 * api_dispatch() with a fuzzed method, path, query string and body, against
 * a real archive and credential store in the sandbox of fuzz_env.h. There
 * is no HTTP server and no job queue worker (ctx.q is NULL): a job is
 * queued in the archive and never runs, so no benchmark I/O happens.
 *
 * An input is a request as text:
 *
 *   METHOD SP PATH[?QUERY] LF BODY
 *
 * The path and the query's names and values are percent-decoded as the
 * server has libmicrohttpd do it ("+" is a space in the query, "%00" stays
 * as it is); a query piece without "=" is a name without a value. A request
 * line libmicrohttpd would not take (control characters, a space in the
 * target) and a body over the server's limit (answered 413 before any
 * route) are skipped. "@TMP@" anywhere is the sandbox directory. Seeds:
 * tests/fuzz/corpus/api/, requests for every route.
 *
 * Every answer must have a status from 200 to 599 and not 500 (a 500 is
 * the API failing on input it should have refused) or 503 (nothing else
 * holds the archive), a body that parses as JSON when it says it is JSON,
 * and a problem's "status" equal to the answer's; a 400 for an unknown
 * field or query parameter names it in "field".
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "archive/archive.h"
#include "fuzz_env.h"

#define MAX_ARGS 64

static struct api_ctx ctx;
static char scratch[4200];
static int trace;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char db[4200];

	(void)argc;
	(void)argv;
	fuzz_env_init();
	snprintf(scratch, sizeof(scratch), "%s/scratch", fuzz_dir);
	snprintf(db, sizeof(db), "%s/storbench.db", fuzz_dir);
	if (archive_open(db, &ctx.a) < 0) {
		fprintf(stderr, "fuzz_api: cannot open the archive %s\n", db);
		exit(2);
	}
	ctx.q = NULL; /* no worker: nothing queued ever runs */
	ctx.scratch = scratch;
	trace = getenv("FUZZ_TRACE") != NULL;
	return 0;
}

/* Splits query (modified) into args as libmicrohttpd does: pieces at '&',
 * name and value at the first '=', '+' a space, then percent-decoding.
 * Returns how many, or -1 for more than MAX_ARGS. */
static int parse_query(char *query, struct api_query_arg *args)
{
	int n = 0;

	while (query) {
		char *amp = strchr(query, '&'), *eq;
		if (amp)
			*amp = '\0';
		if (n == MAX_ARGS)
			return -1;
		for (char *c = query; *c; c++)
			if (*c == '+')
				*c = ' ';
		eq = strchr(query, '=');
		if (eq)
			*eq = '\0';
		api_unescape(query);
		if (eq)
			api_unescape(eq + 1);
		args[n].name = query;
		args[n].value = eq ? eq + 1 : NULL;
		n++;
		query = amp ? amp + 1 : NULL;
	}
	return n;
}

/* Stops the run with what broke the contract (libFuzzer saves the input). */
static void broken(const char *what, const struct api_req *req,
		   const struct api_resp *resp)
{
	fprintf(stderr, "fuzz_api: %s: %s %s -> %u %.*s\n", what, req->method,
		req->path, resp->status,
		resp->body ? (int)(resp->len > 600 ? 600 : resp->len) : 0,
		resp->body ? resp->body : "");
	abort();
}

static void check_answer(const struct api_req *req, const struct api_resp *resp)
{
	const char *ct = resp->content_type ? resp->content_type : "";
	int problem = strcmp(ct, "application/problem+json") == 0;
	/* a body built for the answer, or one compiled into the binary (the
	 * OpenAPI document) */
	const char *body =
		resp->body ? resp->body : (const char *)resp->static_body;
	const char *detail;
	json_error_t err;
	json_t *j;

	if (resp->status < 200 || resp->status > 599)
		broken("no status", req, resp);
	/* nothing else uses the archive here: it is never busy */
	if (resp->status == 500 || resp->status == 503)
		broken("internal error", req, resp);
	if (!problem && strncmp(ct, "application/json", 16) != 0)
		return;
	if (!body)
		broken("JSON answer without a body", req, resp);
	if (!(j = json_loadb(body, resp->len, 0, &err)))
		broken("the answer is not JSON", req, resp);
	if (problem &&
	    (json_integer_value(json_object_get(j, "status")) != resp->status ||
	     !json_is_string(json_object_get(j, "detail"))))
		broken("the problem does not match the answer", req, resp);
	/* what is unknown is named: the body field or query parameter
	 * (unless its name is "", which a field cannot show) */
	detail = problem ? json_string_value(json_object_get(j, "detail")) : "";
	/* (a JSON syntax error quotes the text near it, which may be any) */
	if (resp->status == 400 && strncmp(detail, "malformed JSON", 14) != 0 &&
	    !json_string_length(json_object_get(j, "field")) &&
	    ((strstr(detail, "unknown field") &&
	      !strstr(detail, "unknown field \"\"")) ||
	     (strstr(detail, "unknown query parameter") && detail[0] != ':')))
		broken("an unknown field that is not named", req, resp);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct api_query_arg args[MAX_ARGS];
	struct api_req req = { 0 };
	struct api_resp resp = { 0 };
	char *text, *nl, *sp, *q;
	size_t len, line;
	int n = 0;

	if (fuzz_env_subst(data, size, &text, &len) < 0)
		return 0;
	nl = memchr(text, '\n', len);
	line = nl ? (size_t)(nl - text) : len;
	/* what libmicrohttpd would not hand over */
	for (size_t i = 0; i < line; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			goto out;
	if (nl)
		*nl = '\0';
	if (!(sp = strchr(text, ' ')) || sp == text || strchr(sp + 1, ' '))
		goto out;
	*sp = '\0';
	req.method = text;
	req.path = sp + 1;
	if ((q = strchr(sp + 1, '?')) != NULL) {
		*q = '\0';
		if ((n = parse_query(q + 1, args)) < 0)
			goto out;
	}
	api_unescape(sp + 1);
	if (nl && (size_t)(nl + 1 - text) < len) {
		req.body = nl + 1;
		req.body_len = len - (size_t)(nl + 1 - text);
	}
	if (req.body_len > (strcmp(req.path, "/api/v1/import") == 0
				    ? API_IMPORT_LIMIT
				    : API_BODY_LIMIT))
		goto out;
	req.ctx = &ctx;
	req.conn = NULL;
	req.args = args;
	req.n_args = (size_t)n;
	api_dispatch(&req, &resp);
	if (trace) /* FUZZ_TRACE=1: what each input got (seed checks) */
		fprintf(stderr, "fuzz_api: %s %s -> %u\n", req.method, req.path,
			resp.status);
	check_answer(&req, &resp);
	free(resp.body);
out:
	free(text);
	return 0;
}
