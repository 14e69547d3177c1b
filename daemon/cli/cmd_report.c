/*
 * cmd_report — `storbench report`: a comparison or a run of DATA's
 * archive as one self-contained HTML file (daemon/report/report.h), the
 * same bytes GET /api/v1/compare?…&format=html and GET
 * /api/v1/runs/{id}?format=html answer: the request is handed to the
 * API's own route table (api_dispatch) without a server, its query as
 * arguments, so the command and the route share every check and word.
 * A daemon may be serving DATA meanwhile (the archive is SQLite's to
 * share); the archive is only read.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "archive/archive.h"
#include "cmd.h"

static const char usage_report[] =
	"usage: storbench report [--data DIR] (--runs A,B[,…] | --group-by "
	"FIELD\n"
	"                        [--values V1,V2,…] [--profile P] [--label L] "
	"| --run N)\n"
	"                        [-o FILE]\n"
	"\n"
	"Writes a comparison (--runs, --group-by) or one run (--run) of DIR's "
	"archive\n"
	"as one self-contained HTML file to publish: the headline figures, "
	"charts,\n"
	"the deltas with their 95 % intervals and verdicts, what changed, the "
	"machines'\n"
	"probes and the job specs; no script, nothing loaded from anywhere, "
	"prints on\n"
	"A4. The same bytes as GET /api/v1/compare?…&format=html and GET\n"
	"/api/v1/runs/{id}?format=html.\n"
	"  --data DIR        the archive (default ./var; a daemon on DIR may "
	"be running)\n"
	"  --runs A,B,…      each run a side, the first the baseline\n"
	"  --group-by FIELD  each value of FIELD a side (fs_type, "
	"cluster_size, label,\n"
	"                    server, target, write_cache, direct, size, "
	"engine, version,\n"
	"                    cow, hosts); --values picks and orders them, "
	"--profile and\n"
	"                    --label filter the runs\n"
	"  --run N           one run\n"
	"  -o FILE           write to FILE (default, or -: standard output)\n"
	"Exit status: 0 written, 1 refused or failed (the reason on stderr), "
	"2 bad\n"
	"arguments.\n";

/* The problem's detail of a refused request (its JSON body), or its
 * status. */
static void say_problem(const struct api_resp *resp)
{
	json_t *p =
		resp->body ? json_loadb(resp->body, resp->len, 0, NULL) : NULL;
	const char *detail = json_string_value(json_object_get(p, "detail"));

	fprintf(stderr, "storbench report: %s\n",
		detail ? detail : "the report failed");
	json_decref(p);
}

static int write_out(const char *path, const char *body, size_t len)
{
	FILE *f;

	if (path && strcmp(path, "-") == 0) /* -o -: standard output */
		path = NULL;
	f = path ? fopen(path, "wb") : stdout;
	int bad;

	if (!f) {
		fprintf(stderr, "storbench report: %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	bad = fwrite(body, 1, len, f) != len;
	bad |= path ? fclose(f) != 0 : fflush(f) != 0;
	if (bad)
		fprintf(stderr, "storbench report: %s: %s\n",
			path ? path : "standard output", strerror(errno));
	return bad;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "runs", required_argument, NULL, 'r' },
		{ "group-by", required_argument, NULL, 'g' },
		{ "values", required_argument, NULL, 'v' },
		{ "profile", required_argument, NULL, 'p' },
		{ "label", required_argument, NULL, 'l' },
		{ "run", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *data = "./var", *out = NULL, *run = NULL;
	struct api_query_arg args[8];
	size_t n_args = 0;
	char db[PATH_MAX], path[64];
	struct api_ctx ctx = { 0 };
	struct api_req req = { 0 };
	struct api_resp resp = { 0 };
	int c, rc;

	while ((c = getopt_long(argc, argv, ":d:o:h", opts, NULL)) != -1) {
		static const char *const names[] = {
			['r'] = "runs",	   ['g'] = "group_by", ['v'] = "values",
			['p'] = "profile", ['l'] = "label",
		};
		if (c == 'd')
			data = optarg;
		else if (c == 'o')
			out = optarg;
		else if (c == 'n')
			run = optarg;
		else if (c == 'r' || c == 'g' || c == 'v' || c == 'p' ||
			 c == 'l') {
			args[n_args++] =
				(struct api_query_arg){ names[c], optarg };
			if (n_args == sizeof(args) / sizeof(args[0]) - 1)
				goto bad;
		} else {
			cmd_bad_option("report", c, argv);
			fputs(usage_report, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc || !!run == !!n_args) {
		if (optind != argc)
			fprintf(stderr, "storbench report: %s: not an option\n",
				argv[optind]);
		goto bad;
	}
	if (run &&
	    (snprintf(path, sizeof(path), "/api/v1/runs/%s", run) >=
		     (int)sizeof(path) ||
	     run[0] < '1' || run[0] > '9' || run[strspn(run, "0123456789")])) {
		fprintf(stderr,
			"storbench report: --run %s: a run id (a positive "
			"integer)\n",
			run);
		return 2;
	}
	if (!run)
		snprintf(path, sizeof(path), "/api/v1/compare");
	args[n_args++] = (struct api_query_arg){ "format", "html" };
	if (snprintf(db, sizeof(db), "%s/storbench.db", data) >=
		    (int)sizeof(db) ||
	    access(db, R_OK) != 0 || (rc = archive_open(db, &ctx.a)) < 0) {
		fprintf(stderr, "storbench report: no archive in %s\n", data);
		return 1;
	}
	req = (struct api_req){ .ctx = &ctx,
				.args = args,
				.n_args = n_args,
				.method = "GET",
				.path = path };
	api_dispatch(&req, &resp);
	if (resp.status == 200 && resp.body)
		rc = write_out(out, resp.body, resp.len);
	else {
		say_problem(&resp);
		rc = 1;
	}
	free(resp.body);
	archive_close(ctx.a);
	return rc;
bad:
	fputs(usage_report, stderr);
	return 2;
}
