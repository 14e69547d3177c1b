/*
 * cmd_run — `storbench run`: one job here and now, without a daemon.
 *
 * The job goes the daemon's way, so it is the same job: the flags become a
 * job body for jobspec_parse (the API's validation), the job is queued in
 * DATA's archive and a queue worker runs just that one (jobq_start_one),
 * while this thread takes the stop signals (a first one cancels the job),
 * draws a progress line on a terminal and, at the end, prints the run as
 * CrystalDiskMark does or as the API's JSON. Where it may write is the
 * target named and DATA/scratch, nothing else (confine.h). DATA is locked
 * as a daemon locks it (cmd_common.c), so a run never shares an archive
 * with a daemon serving it; --no-archive uses a temporary one, removed at
 * the end. Exit status: 0 done, 1 the job failed, 2 bad arguments or a
 * refused job, 130 interrupted.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "archive/archive.h"
#include "cmd.h"
#include "compare/runview.h"
#include "os/os.h"
#include "platform/confine.h"
#include "platform/log.h"
#include "platform/sys.h"
#include "queue/jobq.h"
#include "targets/smb.h"
#include "targets/target.h"

static const char usage_run[] =
	"usage: storbench run [--profile P] [--size S] [--iterations N] "
	"[--duration SECONDS]\n"
	"                     [--spec FILE] [--label L]... [--data DIR | "
	"--no-archive] "
	"[--json] [--verbose]\n"
	"                     [--push URL [--token-file FILE]] TARGET\n"
	"\n"
	"Runs one job here and now, without a daemon, and prints what "
	"CrystalDiskMark prints\n"
	"(or the run as JSON). TARGET is a directory (storbench makes its own "
	"test file there)\n"
	"or a raw block device (Linux; overwritten). The run is stored in "
	"DIR's "
	"archive unless --no-archive.\n"
	"  --profile P         a preset (the first is the default; one that "
	"takes a tests\n"
	"                      array is the API's: POST /api/v1/jobs):\n"
	"%s"
	"  --size S            test file size (\"1GiB\", \"64MiB\"; default "
	"the "
	"profile's)\n"
	"  --iterations N      iterations of each test (default the "
	"profile's)\n"
	"  --duration SECONDS  seconds per iteration (default the profile's)\n"
	"  --spec FILE         the job as POST /api/v1/jobs takes it (JSON: "
	"\"tests\", block\n"
	"                      sizes, QD…), without \"target\"; the other "
	"options override it\n"
	"  --label L           a label for the archive (repeatable)\n"
	"  --data DIR          the archive to store the run in (default ./var; "
	"not one a daemon serves)\n"
	"  --no-archive        store nothing\n"
	"  --json              print the run as its document (GET "
	"/api/v1/runs/{id}?format=storbench):\n"
	"                      what `storbench import` and POST "
	"/api/v1/import take\n"
	"  --push URL          then send the run to another daemon "
	"(http://host:8080), which\n"
	"                      stores it whole: as `storbench push`\n"
	"  --token-file FILE   the other daemon's API token, for --push\n"
	"  --verbose           log lines on stderr as the daemon writes them\n"
	"Exit status: 0 done, 1 the job failed, 2 bad arguments or a refused "
	"job, 130 interrupted.\n"
	"A progress line goes to stderr when it is a terminal.\n";

/* Writes a one-line progress report over the last one (a terminal). */
static void progress_line(const struct jobq_progress *p)
{
	char left[32] = "";

	if (p->remaining_s >= 0)
		snprintf(left, sizeof(left), ", %.0f s left", p->remaining_s);
	fprintf(stderr,
		"\r\033[K%-10s %-14.14s %-5s %5.1f %%  %9.2f MB/s  "
		"%9.0f IOPS%s",
		p->phase, p->test, p->rw, 100 * p->fraction, p->live_mb_s,
		p->live_iops, left);
}

/* Lays a flag's value into the job body: "size" and "profile" as strings,
 * iterations an integer, duration a number; 0, or -1 (said why). */
static int run_flag(json_t *body, int c, const char *v)
{
	char *end;

	errno = 0;
	if (c == 'p' || c == 's') {
		json_t *str = json_string(v);
		if (!str) {
			fprintf(stderr, "storbench run: --%s: not UTF-8 text\n",
				c == 'p' ? "profile" : "size");
			return -1;
		}
		return json_object_set_new(body, c == 'p' ? "profile" : "size",
					   str)
			       ? -1
			       : 0;
	}
	if (c == 'i') {
		long long n = strtoll(v, &end, 10);
		if (errno || end == v || *end) {
			fprintf(stderr, "storbench run: --iterations: a whole "
					"number\n");
			return -1;
		}
		return json_object_set_new(body, "iterations", json_integer(n));
	}
	{
		double d = strtod(v, &end);
		if (errno || end == v || *end || !isfinite(d)) {
			fprintf(stderr, "storbench run: --duration: seconds, a "
					"number\n");
			return -1;
		}
		return json_object_set_new(body, "duration_s", json_real(d));
	}
}

/* Does run have a read or write test (a line of CrystalDiskMark's layout)? */
static int has_read_or_write(json_t *run)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		const char *rw = json_string_value(json_object_get(t, "rw"));
		if (rw && (strcmp(rw, "read") == 0 || strcmp(rw, "write") == 0))
			return 1;
	}
	return 0;
}

/* --spec FILE: the members of the JSON object in file that body (the
 * options given) does not set, merged into it (the job as the API takes
 * it), except "target", which is TARGET's. */
static int run_spec_file(json_t *body, const char *file)
{
	json_error_t err;
	json_t *spec = json_load_file(file, JSON_REJECT_DUPLICATES, &err);
	int rc = -1;

	if (!spec && err.line < 1) /* not read at all */
		fprintf(stderr, "storbench run: --spec %s: %s\n", file,
			err.text);
	else if (!spec)
		fprintf(stderr, "storbench run: --spec %s: line %d: %s\n", file,
			err.line, err.text);
	else if (!json_is_object(spec))
		fprintf(stderr,
			"storbench run: --spec %s: not a JSON object (the "
			"body of POST /api/v1/jobs)\n",
			file);
	else if (json_object_get(spec, "target"))
		fprintf(stderr,
			"storbench run: --spec %s: \"target\" is the command "
			"line's TARGET; leave it out of the file\n",
			file);
	else
		rc = json_object_update_missing(body, spec);
	json_decref(spec);
	return rc;
}

/* storbench run [...] TARGET: one job, here and now (usage_run). */
int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'u' },
		{ "spec", required_argument, NULL, 'S' },
		{ "label", required_argument, NULL, 'l' },
		{ "data", required_argument, NULL, 'd' },
		{ "no-archive", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "push", required_argument, NULL, 'P' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *data = "./var", *push = NULL, *token_file = NULL,
		   *spec_file = NULL;
	char tmpl[PATH_MAX], real[PATH_MAX], treal[PATH_MAX],
		why[PATH_MAX + 200];
	char db[PATH_MAX + 16], scratch[PATH_MAX + 16];
	json_t *body = json_object(), *labels = json_array(), *job = NULL,
	       *run = NULL;
	struct job_spec spec;
	struct api_problem prob;
	struct archive *a = NULL;
	struct jobq *q = NULL;
	char *text = NULL;
	int64_t id = 0, run_id = 0;
	int c, no_archive = 0, as_json = 0, verbose = 0, rc = 2, lock = -1;
	int kind, e, data_given = 0;
	uint64_t dev;
	int interrupted = 0, tty = isatty(2);
	const char *state;

	while ((c = getopt_long(argc, argv, ":p:s:i:u:S:l:d:njvh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
		case 's':
		case 'i':
		case 'u':
			if (run_flag(body, c, optarg) < 0)
				goto out;
			break;
		case 'S':
			spec_file = optarg; /* read once the options are in */
			break;
		case 'l':
			if (json_array_append_new(labels, json_string(optarg)) <
			    0) {
				fprintf(stderr,
					"storbench run: --label: not UTF-8 "
					"text\n");
				goto out;
			}
			break;
		case 'd':
			data = optarg;
			data_given = 1;
			break;
		case 'n':
			no_archive = 1;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'P':
			push = optarg;
			break;
		case 'T':
			token_file = optarg;
			break;
		case 'h':
			cmd_usage(stdout, usage_run);
			rc = 0;
			goto out;
		default:
			cmd_bad_option("run", c, argv);
			cmd_usage(stderr, usage_run);
			goto out;
		}
	}
	if (spec_file && run_spec_file(body, spec_file) < 0)
		goto out;
	if (no_archive && data_given) {
		fprintf(stderr, "storbench run: --data or --no-archive, not "
				"both\n");
		goto out;
	}
	if (token_file && !push) {
		fprintf(stderr,
			"storbench run: --token-file goes with --push\n");
		goto out;
	}
	if (push && cmd_push_check(push, token_file) < 0)
		goto out; /* before the run, not after it */
	if (optind != argc - 1) {
		cmd_usage(stderr, usage_run);
		goto out;
	}
	if (tgt_for_target(argv[optind])) {
		fprintf(stderr,
			"storbench run: an SMB share runs through the "
			"daemon, where its credential is stored (storbench "
			"serve --allow %s, then POST /api/v1/jobs)\n",
			argv[optind]);
		goto out;
	}
	if (smb_is_url(argv[optind])) { /* and no back-end here claims it */
		smb_no_backend(argv[optind], why, sizeof(why));
		fprintf(stderr, "storbench run: %s: %s\n", argv[optind], why);
		goto out;
	}
	if (sys_path_kind(argv[optind]) == SYS_KIND_DEVICE &&
	    sys_device_id(argv[optind], treal, &dev) == -ENOTBLK) {
		/* a device this system does not write (Windows) */
		fprintf(stderr,
			"storbench run: %s: a raw volume or physical drive: "
			"storbench does not write raw devices on this "
			"system; name a directory in the volume\n",
			argv[optind]);
		goto out;
	}
	if ((kind = sys_realpath(argv[optind], treal)) < 0 ||
	    (kind = sys_path_kind(treal)) < 0) {
		fprintf(stderr, "storbench run: %s: %s\n", argv[optind],
			strerror(-kind));
		goto out;
	}
	umask(077);
	sys_no_core_dumps();
	log_setup(LOG_TEXT, !verbose);
	rc = 1;
	if (no_archive) {
		if ((e = sys_temp_dir("storbench-run", tmpl, sizeof(tmpl))) <
		    0) {
			fprintf(stderr, "storbench run: %s: %s\n", tmpl,
				strerror(-e));
			no_archive = 0;
			goto out;
		}
		data = tmpl;
	} else if ((e = sys_mkdir_private(data)) < 0) {
		fprintf(stderr, "storbench run: --data %s: %s\n", data,
			strerror(-e));
		goto out;
	}
	if ((e = sys_realpath(data, real)) < 0) {
		fprintf(stderr, "storbench run: --data %s: %s\n", data,
			strerror(-e));
		goto out;
	}
	snprintf(db, sizeof(db), "%s/storbench.db", real);
	snprintf(scratch, sizeof(scratch), "%s/scratch", real);
	if (sys_mkdir_private(scratch) < 0 ||
	    (lock = cmd_lock_data_dir(real)) < 0) {
		fprintf(stderr,
			"storbench run: %s is in use (a daemon serves it?): "
			"queue the job through its API, or give another "
			"--data, or --no-archive\n",
			real);
		goto out;
	}
	/* the target named on the command line is the one root allowed */
	if (confine_allow(scratch, why, sizeof(why)) < 0 ||
	    (kind == SYS_KIND_DEVICE
		     ? confine_allow_device(treal, why, sizeof(why))
		     : confine_allow(treal, why, sizeof(why))) < 0) {
		fprintf(stderr, "storbench run: %s\n",
			strncmp(why, "--allow", 7) == 0 ? strchr(why, ' ') + 1
							: why);
		rc = 2;
		goto out;
	}
	if (json_object_set_new(body, "target", json_string(treal)) < 0) {
		/* (not UTF-8: a JSON body cannot name it, and the default
		 * target must not stand in for it) */
		fprintf(stderr,
			"storbench run: %s: the path is not UTF-8 text; "
			"storbench stores paths as UTF-8\n",
			treal);
		rc = 2;
		goto out;
	}
	if (json_array_size(labels))
		json_object_set(body, "labels", labels);
	if (!(text = json_dumps(body, JSON_COMPACT)))
		goto out;
	if (jobspec_parse(text, strlen(text), scratch, &spec, &prob) < 0) {
		fprintf(stderr, "storbench run: %s\n", prob.detail);
		rc = 2;
		goto out;
	}
	if (spec.hosts_json || spec.fleet_json) {
		fprintf(stderr, "storbench run: a multi-host job is a daemon's "
				"to run: POST it to a storbench serve's "
				"/api/v1/jobs\n");
		job_spec_clear(&spec);
		rc = 2;
		goto out;
	}
	if (archive_open(db, &a) < 0 || archive_job_insert(a, &spec, &id) < 0) {
		job_spec_clear(&spec);
		fprintf(stderr,
			"storbench run: the archive %s cannot be written\n",
			db);
		goto out;
	}
	job_spec_clear(&spec);
	/* the worker inherits the held signals; they are taken here */
	sys_hold_stop_requests();
	if (jobq_start_one(db, id, &q) < 0) {
		fprintf(stderr, "storbench run: cannot start the job\n");
		goto out;
	}
	while (!jobq_done(q)) {
		struct jobq_progress p;
		int sig = sys_wait_stop(250);
		if (sig > 0 && !interrupted) {
			interrupted = 1;
			jobq_cancel(q, a, id);
		}
		if (tty && jobq_progress(q, id, &p) == 0)
			progress_line(&p);
	}
	jobq_stop(q);
	q = NULL;
	if (tty)
		fputs("\r\033[K", stderr);
	if (archive_job_json(a, id, &job) < 0)
		goto out;
	state = json_string_value(json_object_get(job, "state"));
	run_id = json_integer_value(json_object_get(job, "run_id"));
	if (!state || strcmp(state, "done") != 0) {
		const char *err =
			json_string_value(json_object_get(job, "error"));
		fprintf(stderr, "storbench run: %s%s%s\n", state ? state : "?",
			err ? ": " : "", err ? err : "");
		rc = interrupted ? 130 : 1;
		goto out;
	}
	if ((as_json ? runview_document(a, run_id, &run)
		     : runview_json(a, run_id, &run)) < 0)
		goto out;
	if (as_json) {
		json_dumpf(run, stdout, JSON_INDENT(2));
		putchar('\n');
	} else {
		char *cdm = NULL;
		size_t n = 0;
		if (api_run_cdm_text(run, "\n", &cdm, &n) == 0)
			fwrite(cdm, 1, n, stdout);
		free(cdm);
		if (!has_read_or_write(run))
			fprintf(stderr,
				"storbench run: %s's results are not reads and "
				"writes, so CrystalDiskMark's layout has no "
				"line for them: --json prints them whole\n",
				json_string_value(
					json_object_get(run, "profile")));
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "storbench run: writing the result: %s%s\n",
			strerror(errno),
			no_archive ? "" : " (the run is stored all the same)");
		goto out;
	}
	if (!no_archive)
		fprintf(stderr, "storbench run: stored as run %lld in %s\n",
			(long long)run_id, db);
	/* (stderr: stdout holds the run, which --json makes a document) */
	rc = push && cmd_push_runs(a, push, token_file, &run_id, 1, stderr) ? 1
									    : 0;
out:
	jobq_stop(q);
	archive_close(a);
	if (no_archive) {
		sys_unlock_dir(); /* Windows removes no folder in use */
		sys_remove_tree(tmpl);
	}
	json_decref(run);
	json_decref(job);
	json_decref(body);
	json_decref(labels);
	free(text);
	return rc;
}
