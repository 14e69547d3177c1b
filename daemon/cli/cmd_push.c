/*
 * cmd_push — storbench push [--data DIR] [--token-file FILE] URL RUN_ID...:
 * runs of this machine's archive sent to another daemon's import endpoint
 * (POST /api/v1/import), each as its run document (runview_document), so
 * a run made here lands in that server's archive whole; a run already
 * there (the same uuid) is answered as a duplicate, never copied. Also
 * what `storbench run --push URL` calls after its run.
 *
 * Sending is fleet/hub.h's (hub_push_run, which serve --hub's pusher
 * calls too; HTTP is peerhttp's: libcurl, http and https only, no
 * redirects followed: a token is never sent anywhere but the URL given). The
 * answer's first line is printed: imported as run N, already there as run N, or
 * the problem's status and detail.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/archive.h"
#include "cmd.h"
#include "fleet/hub.h"
#include "fleet/peerhttp.h"
#include "os/os.h"

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

/* Sends run id and prints what came of it (on out when the other archive
 * has the run, else on stderr). 0: it has the run. */
static int push_one(struct archive *a, const char *url, const char *token,
		    int64_t id, FILE *out)
{
	struct hub_sent h;
	int rc = hub_push_run(a, url, token, id, 300000, NULL, &h);

	if (rc < 0) {
		fprintf(stderr, "run %lld: %s\n", (long long)id,
			rc == -ENOENT ? "no such run in this archive"
				      : strerror(-rc));
		return -1;
	}
	if (h.outcome == HUB_TAKEN) {
		fprintf(out, "run %lld: %s run %lld at %s\n", (long long)id,
			h.duplicate ? "already there as" : "imported as",
			(long long)h.remote_id, url);
		return 0;
	}
	if (h.status == 0)
		fprintf(stderr, "run %lld: %s: %s\n", (long long)id, url,
			h.detail);
	else
		fprintf(stderr, "run %lld: %s answered %ld: %s\n",
			(long long)id, url, h.status, h.detail);
	return -1;
}

int cmd_push_check(const char *url, const char *token_file)
{
	char tok[256];
	int rc = 0;

	if (!peerhttp_url_ok(url)) {
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
	char tok[256] = "";
	int failed = 0;

	if (cmd_push_check(url, token_file) < 0)
		return 1;
	if (token_file && cmd_load_token(token_file, 0, tok, sizeof(tok)) < 0)
		return 1; /* logged: which and why */
	for (size_t i = 0; i < n; i++)
		failed |=
			push_one(a, url, tok[0] ? tok : NULL, ids[i], out) < 0;
	os_wipe(tok, sizeof(tok));
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
