/*
 * cmd_push — storbench push [--data DIR] [--token-file FILE] URL RUN_ID...:
 * runs of this machine's archive sent to another daemon's import endpoint
 * (POST /api/v1/import), each as its run document (runview_document), so
 * a run made here lands in that server's archive whole; a run already
 * there (the same uuid) is answered as a duplicate, never copied. Also
 * what `storbench run --push URL` calls after its run.
 *
 * HTTP is libcurl's (http and https only, no redirects followed: a token
 * is never sent anywhere but the URL given). The answer's first line is
 * printed: imported as run N, already there as run N, or the problem's
 * status and detail.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "archive/archive.h"
#include "cmd.h"
#include "compare/runview.h"

static const char usage_push[] =
	"usage: storbench push [--data DIR] [--token-file FILE] URL RUN_ID...\n"
	"\n"
	"Sends runs of DIR's archive to another storbench daemon, which "
	"stores each\n"
	"whole (probe, spec, every iteration, histograms, per-second "
	"samples) under\n"
	"the run's own identity: a run it has already is not copied again.\n"
	"  URL                the other daemon (http://host:8080) or its "
	"import endpoint\n"
	"  --data DIR         the archive the runs are in (default ./var)\n"
	"  --token-file FILE  the other daemon's API token (its "
	"DATA/api-token), needed\n"
	"                     unless it listens on loopback without "
	"--require-token\n"
	"Exit status: 0 every run landed or was there, 1 one did not, 2 bad "
	"arguments.\n";

/* The answer's body, grown as it arrives (at most 1 MiB kept). */
struct body {
	char *p;
	size_t n;
};

static size_t on_data(char *d, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t k = size * nmemb;
	char *p;

	if (b->n + k > (1u << 20))
		return k; /* the rest is not needed */
	if (!(p = realloc(b->p, b->n + k + 1)))
		return 0;
	memcpy(p + b->n, d, k);
	b->n += k;
	p[b->n] = '\0';
	b->p = p;
	return k;
}

/* url's import endpoint: url itself when it names it, else url with
 * /api/v1/import after it. */
static void endpoint(const char *url, const char *filename, char *out,
		     size_t len)
{
	static const char tail[] = "/api/v1/import";
	size_t n = strlen(url);

	while (n && url[n - 1] == '/')
		n--;
	if (n >= sizeof(tail) - 1 &&
	    memcmp(url + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) == 0)
		snprintf(out, len, "%.*s?filename=%s", (int)n, url, filename);
	else
		snprintf(out, len, "%.*s%s?filename=%s", (int)n, url, tail,
			 filename);
}

/* Prints what the other archive said about run id (on out when it has the
 * run, else stderr). 0: it has the run. */
static int report(FILE *out, int64_t id, const char *to, long status,
		  const struct body *b)
{
	json_t *r = b->p ? json_loads(b->p, 0, NULL) : NULL;
	int ok = status == 200 || status == 201;

	if (ok)
		fprintf(out, "run %lld: %s run %lld at %s\n", (long long)id,
			status == 201 ? "imported as" : "already there as",
			(long long)json_integer_value(json_object_get(r, "id")),
			to);
	else
		fprintf(stderr, "run %lld: %s answered %ld: %s\n",
			(long long)id, to, status,
			json_is_string(json_object_get(r, "detail"))
				? json_string_value(
					  json_object_get(r, "detail"))
			: b->p ? b->p
			       : "(no answer)");
	json_decref(r);
	return ok ? 0 : -1;
}

/* POSTs run id's document; 0 when the other archive has it (said on
 * out). */
static int push_one(CURL *c, struct archive *a, const char *url,
		    const char *auth, int64_t id, FILE *out)
{
	json_t *doc = NULL;
	char *text = NULL, to[PATH_MAX], name[80];
	struct curl_slist *h = NULL;
	struct body b = { 0 };
	long status = 0;
	CURLcode cc;
	int rc;

	if ((rc = runview_document(a, id, &doc)) < 0) {
		fprintf(stderr, "run %lld: %s\n", (long long)id,
			rc == -ENOENT ? "no such run in this archive"
				      : strerror(-rc));
		return -1;
	}
	if (!(text = json_dumps(doc, JSON_COMPACT))) {
		json_decref(doc);
		return -1;
	}
	snprintf(name, sizeof(name), "storbench-run-%.40s.json",
		 json_string_value(json_object_get(doc, "uuid")));
	endpoint(url, name, to, sizeof(to));
	h = curl_slist_append(h, "Content-Type: application/json");
	if (auth)
		h = curl_slist_append(h, auth);
	curl_easy_setopt(c, CURLOPT_URL, to);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)strlen(text));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	if ((cc = curl_easy_perform(c)) != CURLE_OK) {
		fprintf(stderr, "run %lld: %s: %s\n", (long long)id, url,
			curl_easy_strerror(cc));
		rc = -1;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		rc = report(out, id, url, status, &b);
	}
	curl_slist_free_all(h);
	free(b.p);
	free(text);
	json_decref(doc);
	return rc;
}

int cmd_push_check(const char *url, const char *token_file)
{
	char tok[256];
	int rc = 0;

	if ((strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) ||
	    strpbrk(url, "?# \t\r\n")) {
		fprintf(stderr,
			"storbench: %s: an http:// or https:// URL without a "
			"query or fragment (the daemon, or its "
			"/api/v1/import)\n",
			url);
		return -1;
	}
	if (token_file && cmd_load_token(token_file, 0, tok, sizeof(tok)) < 0)
		rc = -1; /* logged: which and why */
	memset(tok, 0, sizeof(tok));
	return rc;
}

int cmd_push_runs(struct archive *a, const char *url, const char *token_file,
		  const int64_t *ids, size_t n, FILE *out)
{
	char tok[256], auth[300] = "";
	CURL *c;
	int failed = 0;

	if (cmd_push_check(url, token_file) < 0)
		return 1;
	if (token_file) {
		if (cmd_load_token(token_file, 0, tok, sizeof(tok)) < 0)
			return 1; /* logged: which and why */
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", tok);
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 ||
	    !(c = curl_easy_init())) {
		fprintf(stderr, "storbench push: libcurl did not start\n");
		return 1;
	}
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	for (size_t i = 0; i < n; i++)
		failed |= push_one(c, a, url, auth[0] ? auth : NULL, ids[i],
				   out) < 0;
	curl_easy_cleanup(c);
	curl_global_cleanup();
	memset(tok, 0, sizeof(tok));
	memset(auth, 0, sizeof(auth));
	return failed;
}

/* RUN_ID: a positive run id, or 0. */
static int64_t run_id_arg(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	return *s && !*end && v > 0 && errno == 0 ? (int64_t)v : 0;
}

int cmd_push(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "token-file", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *data = "./var", *token_file = NULL;
	char db[PATH_MAX];
	struct archive *a = NULL;
	int64_t *ids;
	int c, rc, n;

	while ((c = getopt_long(argc, argv, ":d:t:h", opts, NULL)) != -1) {
		if (c == 'd')
			data = optarg;
		else if (c == 't')
			token_file = optarg;
		else {
			cmd_bad_option("push", c, argv);
			fputs(usage_push, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (argc - optind < 2) {
		fputs(usage_push, stderr);
		return 2;
	}
	if (cmd_push_check(argv[optind], token_file) < 0)
		return 2;
	n = argc - optind - 1;
	if (!(ids = calloc((size_t)n, sizeof(*ids))))
		return 1;
	for (int i = 0; i < n; i++)
		if (!(ids[i] = run_id_arg(argv[optind + 1 + i]))) {
			fprintf(stderr,
				"storbench push: %s: a run id (a positive "
				"integer)\n",
				argv[optind + 1 + i]);
			free(ids);
			return 2;
		}
	if (snprintf(db, sizeof(db), "%s/storbench.db", data) >=
		    (int)sizeof(db) ||
	    access(db, R_OK) != 0 || (rc = archive_open(db, &a)) < 0) {
		fprintf(stderr, "storbench push: no archive in %s\n", data);
		free(ids);
		return 1;
	}
	rc = cmd_push_runs(a, argv[optind], token_file, ids, (size_t)n, stdout);
	archive_close(a);
	free(ids);
	return rc;
}
