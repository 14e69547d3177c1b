/*
 * cmd_serve — `storbench serve`: the daemon.
 *
 *   storbench serve [--listen ADDR:PORT] [--data DIR] [--demo] [--allow PATH]…
 *                   [--allow-device DEV]… [--reserve PCT%|SIZE]
 *                   [--token-file FILE] [--require-token]
 *                   [--hub URL [--hub-token-file FILE]] [--clock-offset-ms N]
 *
 * `serve` opens (or creates) DIR/storbench.db, creates DIR/scratch (the
 * default target), sets where jobs may write (confine.h), reads or creates
 * the API token (DIR/api-token, private), starts the queue worker and the HTTP
 * server (with --hub, the pusher of every ended run to the hub daemon at
 * URL: fleet/hubsync.h, kicked by the queue at each job's end), and waits for
 * SIGINT, SIGTERM or SIGHUP; then it stops the running test (its job becomes
 * interrupted, its test file is removed) and the pusher (a run being sent
 * stays pending) and exits 0. Signals are blocked in
 * every thread and taken with sigwait() here, so no handler runs in the middle
 * of an I/O loop.
 *
 * The options are read apart from acting on them (cmd_serve_options, then
 * cmd_serve_run), so that `storbench service install` (Windows) reads the
 * same options, refuses what serve would (cmd_serve_check), and the service
 * runs the same daemon; cmd_serve_run says when it serves (sys_serving:
 * the service is RUNNING from then on).
 *
 * Secrets: the daemon runs with umask 077 (its data directory 0700, its
 * files 0600; on Windows a protected access list for Administrators and the
 * daemon's account, sys_private_win.c) and without core dumps (RLIMIT_CORE
 * 0), since its memory holds the API token and SMB passwords; neither is
 * ever logged.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "archive/archive.h"
#include "cmd.h"
#include "fleet/fleet.h"
#include "fleet/hubsync.h"
#include "fleet/peerhttp.h"
#include "fleet/peers.h"
#include "os/os.h"
#include "platform/confine.h"
#include "platform/creds.h"
#include "platform/log.h"
#include "platform/sys.h"
#include "queue/jobq.h"

static const char usage_serve[] =
	"usage: storbench serve [--listen ADDR:PORT] [--data DIR] [--demo]\n"
	"                       [--allow PATH]... [--allow-device DEV]... "
	"[--reserve PCT%|SIZE]\n"
	"                       [--token-file FILE] [--require-token] "
	"[--log-format text|json]\n"
	"                       [--hub URL [--hub-token-file FILE]]\n"
	"                       [--clock-offset-ms N]\n"
	"\n"
	"The daemon: dashboard, API and job queue.\n"
	"  --listen ADDR:PORT  where the dashboard and API listen "
	"(default 127.0.0.1:8080; [::1]:8080 for IPv6)\n"
	"  --data DIR          archive and scratch folder (default ./var)\n"
	"  --demo              on an empty archive, queue one run of the "
	"default preset\n"
	"                      (the first of storbench run --help's) on "
	"DIR/scratch\n"
	"  --allow PATH        a directory jobs may write in, or a share: "
	"smb://server/share[/dir]\n"
	"                      (Linux), \\\\server\\share[\\dir] (Windows' "
	"SMB client); repeatable;\n"
	"                      DIR/scratch is always allowed\n"
	"  --allow-device DEV  a raw block device jobs may overwrite (refused "
	"while mounted; Linux)\n"
	"  --reserve R         free space every job leaves on its filesystem: "
	"10% (default) or a size\n"
	"  --token-file FILE   the API token (default DIR/api-token, created "
	"private on first start)\n"
	"  --require-token     the token also on a loopback listener (always "
	"needed on others)\n"
	"  --log-format F      text (default) or json: one object per line\n"
	"  --hub URL           push every run that has ended (measured or "
	"imported) to the\n"
	"                      storbench daemon at URL (http://hub:8080), as "
	"storbench push\n"
	"                      does; retried while it is away "
	"(GET /api/v1/hub)\n"
	"  --hub-token-file F  the hub's API token (its DATA/api-token)\n"
	"  --clock-offset-ms N for tests: this daemon's wall clock reads N ms "
	"off the\n"
	"                      system's (what multi-host jobs' coordinators "
	"measure)\n";

/* Our own files in the data directory, made private if an older storbench
 * (or a copy) left them readable by others (sys_tighten). */
static void tighten(const char *dir, const char *scratch)
{
	static const char *const own[] = {
		"storbench.db",	  "storbench.db-wal",	"storbench.db-shm",
		"credentials.db", "credentials.db-wal", "credentials.db-shm",
		"storbench.pid",
	};

	sys_tighten(dir, scratch, own, sizeof(own) / sizeof(own[0]));
}

/* Queues the embedded default job when the archive has never run one. */
static void queue_demo(struct api_ctx *ctx)
{
	static const char body[] = "{\"labels\":[\"demo\"]}";
	struct job_spec s;
	struct api_problem p;
	json_t *jobs = NULL;
	int64_t id;

	if (archive_jobs_json(ctx->a, 1, 0, &jobs) < 0 ||
	    json_array_size(jobs) > 0) {
		json_decref(jobs);
		return;
	}
	json_decref(jobs);
	if (jobspec_parse(body, sizeof(body) - 1, ctx->scratch, &s, &p) < 0) {
		log_error("demo job refused: %s", p.detail);
		return;
	}
	if (archive_job_insert(ctx->a, &s, &id) == 0) {
		log_info("demo: queued job %lld (%s on %s)", (long long)id,
			 s.profile, s.target);
		jobq_kick(ctx->q);
	}
	job_spec_clear(&s);
}

/* getopt_long's codes of the options without a letter */
enum { OPT_HUB = 0x100, OPT_HUB_TOKEN, OPT_CLOCK_OFFSET };

/* The queue's job-end hook: the hub pusher looks at once. */
static void kick_hub(void *hub)
{
	hubsync_kick(hub);
}

/* Starts the pusher to o->hub (none without it) with the token of
 * o->hub_token_file. 0, or -1 (logged). */
static int start_hub(const struct cmd_serve_opts *o, const char *db,
		     struct hubsync **out)
{
	char tok[256] = "";
	int err;

	*out = NULL;
	if (!o->hub)
		return 0;
	if (o->hub_token_file &&
	    cmd_load_token(o->hub_token_file, 0, tok, sizeof(tok)) < 0) {
		log_error("--hub-token-file %s: the hub's token cannot be used "
			  "(above)",
			  o->hub_token_file);
		return -1;
	}
	err = hubsync_start(db, o->hub, tok, out);
	os_wipe(tok, sizeof(tok));
	if (err < 0) {
		log_error("--hub %s: %s", o->hub, strerror(-err));
		return -1;
	}
	log_info("every run that ends is pushed to the hub at %s (%s); GET "
		 "/api/v1/hub tells how far",
		 hubsync_url(*out),
		 o->hub_token_file ? "with the token of --hub-token-file"
				   : "without a token");
	return 0;
}

int cmd_serve_options(const char *cmd, int argc, char **argv,
		      struct cmd_serve_opts *o)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "data", required_argument, NULL, 'd' },
		{ "demo", no_argument, NULL, 'D' },
		{ "allow", required_argument, NULL, 'a' },
		{ "allow-device", required_argument, NULL, 'A' },
		{ "reserve", required_argument, NULL, 'r' },
		{ "token-file", required_argument, NULL, 't' },
		{ "require-token", no_argument, NULL, 'T' },
		{ "log-format", required_argument, NULL, 'L' },
		{ "hub", required_argument, NULL, OPT_HUB },
		{ "hub-token-file", required_argument, NULL, OPT_HUB_TOKEN },
		{ "clock-offset-ms", required_argument, NULL,
		  OPT_CLOCK_OFFSET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0; /* afresh (glibc and mingw-w64 alike) */
	while ((c = getopt_long(argc, argv, ":l:d:Da:A:r:t:TL:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'L':
			if (strcmp(optarg, "json") != 0 &&
			    strcmp(optarg, "text") != 0) {
				fprintf(stderr,
					"storbench %s: --log-format: text or "
					"json\n",
					cmd);
				return -EINVAL;
			}
			o->log_format = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case 'd':
			o->data = optarg;
			break;
		case 'D':
			o->demo = 1;
			break;
		case 'a':
		case 'A':
			if ((c == 'a' ? o->n_allow : o->n_devs) ==
			    CONFINE_MAX_ROOTS) {
				log_error("at most %d of --%s",
					  CONFINE_MAX_ROOTS,
					  c == 'a' ? "allow" : "allow-device");
				return -EINVAL;
			}
			if (c == 'a')
				o->allow[o->n_allow++] = optarg;
			else
				o->devs[o->n_devs++] = optarg;
			break;
		case 'r':
			o->reserve = optarg;
			break;
		case 't':
			o->token_file = optarg;
			break;
		case 'T':
			o->require_token = 1;
			break;
		case OPT_HUB:
			if (!peerhttp_url_ok(optarg)) {
				fprintf(stderr,
					"storbench %s: --hub %s: an http:// or "
					"https:// URL without a query or "
					"fragment (the hub daemon, "
					"http://hub:8080, or its "
					"/api/v1/import)\n",
					cmd, optarg);
				return -EINVAL;
			}
			o->hub = optarg;
			break;
		case OPT_HUB_TOKEN:
			o->hub_token_file = optarg;
			break;
		case OPT_CLOCK_OFFSET: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < -3600000 || v > 3600000) {
				fprintf(stderr,
					"storbench %s: --clock-offset-ms %s: "
					"an integer from -3600000 to 3600000\n",
					cmd, optarg);
				return -EINVAL;
			}
			o->clock_offset_ms = v;
			break;
		}
		case 'h':
			o->help = 1;
			return 0;
		default:
			cmd_bad_option(cmd, c, argv);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "storbench %s: unexpected argument %s\n", cmd,
			argv[optind]);
		return -EINVAL;
	}
	if (o->hub_token_file && !o->hub) {
		fprintf(stderr,
			"storbench %s: --hub-token-file without --hub: the "
			"token of which hub?\n",
			cmd);
		return -EINVAL;
	}
	return 0;
}

int cmd_serve_check(const char *cmd, const struct cmd_serve_opts *o)
{
	char why[PATH_MAX + 200];
	struct api_ctx ctx = { 0 }; /* (for its token's size) */
	const char *listen = o->listen ? o->listen : "127.0.0.1:8080";

	if (api_listen_is_loopback(listen) < 0) {
		fprintf(stderr,
			"storbench %s: --listen %s: not ADDR:PORT with a "
			"numeric address and a port from 1 to 65535\n",
			cmd, listen);
		return -EINVAL;
	}
	if (o->reserve && confine_set_reserve(o->reserve, why, sizeof(why)) < 0)
		goto refused;
	for (size_t i = 0; i < o->n_allow; i++)
		if (confine_allow(o->allow[i], why, sizeof(why)) < 0)
			goto refused;
	for (size_t i = 0; i < o->n_devs; i++)
		if (confine_allow_device(o->devs[i], why, sizeof(why)) < 0)
			goto refused;
	/* (the default token is made by the daemon on its first start) */
	if (o->token_file &&
	    cmd_load_token(o->token_file, 0, ctx.token, sizeof(ctx.token)) < 0)
		return -EINVAL; /* logged (and the buffer wiped) */
	if (o->hub_token_file && cmd_load_token(o->hub_token_file, 0, ctx.token,
						sizeof(ctx.token)) < 0)
		return -EINVAL;
	os_wipe(ctx.token, sizeof(ctx.token));
	return 0;
refused:
	fprintf(stderr, "storbench %s: %s\n", cmd, why);
	return -EINVAL;
}

int cmd_data_dir_check(const char *cmd, const char *dir)
{
	char parent[PATH_MAX];
	int kind = sys_path_kind(dir);
	size_t n;

	if (kind == SYS_KIND_DIR || kind == SYS_KIND_LINK)
		return 0;
	if (kind >= 0) {
		fprintf(stderr, "storbench %s: --data %s: not a folder\n", cmd,
			dir);
		return -EINVAL;
	}
	if (kind != -ENOENT) {
		fprintf(stderr, "storbench %s: --data %s: %s\n", cmd, dir,
			strerror(-kind));
		return -EINVAL;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	n = strlen(parent);
	while (n > 0 && sys_path_sep(parent[n - 1])) /* the trailing ones */
		parent[--n] = '\0';
	while (n > 0 && !sys_path_sep(parent[n - 1]))
		parent[--n] = '\0';
	if (n == 0 || (kind = sys_path_kind(parent)) == SYS_KIND_DIR ||
	    kind == SYS_KIND_LINK)
		return 0; /* relative: made in the current folder */
	fprintf(stderr,
		"storbench %s: --data %s: %s is not a folder (%s); the daemon "
		"makes the last folder of the path only\n",
		cmd, dir, parent,
		kind < 0 ? strerror(-kind) : "a file or a device");
	return -EINVAL;
}

int cmd_serve(int argc, char **argv)
{
	struct cmd_serve_opts o;

	if (cmd_serve_options("serve", argc, argv, &o) < 0) {
		fputs(usage_serve, stderr);
		return 2;
	}
	if (o.help) {
		fputs(usage_serve, stdout);
		return 0;
	}
	return cmd_serve_run(&o);
}

/* This daemon as a host of its own multi-host jobs ("self"): its API at
 * the address it listens on (loopback for a wildcard one), with its own
 * token. */
static void self_peer(const char *listen, const char *token)
{
	char url[300];

	if (api_listen_self_url(listen, url, sizeof(url)) == 0)
		peers_self_set(url, token);
	else
		log_warn("--listen %s: no URL for this daemon itself; "
			 "multi-host jobs cannot name \"self\"",
			 listen);
}

int cmd_serve_run(const struct cmd_serve_opts *o)
{
	const char *listen = o->listen ? o->listen : "127.0.0.1:8080";
	const char *data = o->data ? o->data : "./var";
	const char *token_file = o->token_file;
	char db[PATH_MAX], scratch[PATH_MAX], real[PATH_MAX],
		creds[PATH_MAX + 32];
	char tokpath[PATH_MAX + 16], why[PATH_MAX + 200], roots[1024];
	struct api_ctx ctx = { .require_token = o->require_token };
	struct api_server *srv = NULL;
	struct jobq *q = NULL;
	struct fleet *fleet = NULL;
	struct hubsync *hub = NULL;
	int sig = 0, rc = 1, err, lock = -1;

	if (o->log_format)
		log_setup(strcmp(o->log_format, "json") == 0 ? LOG_JSON
							     : LOG_TEXT,
			  0);
	/* (a bad ADDR:PORT is refused by api_start, after the lock) */
	if (api_listen_is_loopback(listen) == 0)
		ctx.require_token = 1;
	umask(077);
	sys_no_core_dumps();
	if ((err = sys_mkdir_private(data)) < 0 ||
	    sys_realpath(data, real) < 0) {
		log_error("data directory %s: %s", data,
			  strerror(err ? -err : errno));
		return 1;
	}
	if (snprintf(db, sizeof(db), "%s/storbench.db", real) >=
		    (int)sizeof(db) ||
	    snprintf(scratch, sizeof(scratch), "%s/scratch", real) >=
		    (int)sizeof(scratch)) {
		log_error("data directory path is too long");
		return 1;
	}
	if ((err = sys_mkdir_private(scratch)) < 0) {
		log_error("scratch directory %s: %s", scratch, strerror(-err));
		return 1;
	}
	tighten(real, scratch);
	/* where jobs may write: scratch, then each --allow */
	if (confine_allow(scratch, why, sizeof(why)) < 0) {
		log_error("%s", why);
		return 1;
	}
	for (size_t i = 0; i < o->n_allow; i++) {
		char who[200];
		if (confine_allow(o->allow[i], why, sizeof(why)) < 0) {
			log_error("%s", why);
			return 2;
		}
		if (why[0]) /* a share allowed by its name */
			log_warn("%s", why);
		else if (sys_dir_open_to_all(o->allow[i], who, sizeof(who)))
			log_warn("--allow %s: %s; whoever can queue jobs can "
				 "aim them at any folder made in it",
				 o->allow[i], who);
	}
	for (size_t i = 0; i < o->n_devs; i++) {
		char dreal[PATH_MAX];
		uint64_t bytes = 0;
		if (confine_allow_device(o->devs[i], why, sizeof(why)) < 0) {
			log_error("%s", why);
			return 2;
		}
		if (confine_device(o->devs[i], dreal, &bytes, why,
				   sizeof(why)) < 0)
			log_warn(
				"--allow-device %s: %s; jobs on it are refused "
				"while that lasts",
				o->devs[i], why);
		else
			log_info("jobs may overwrite the first bytes of raw "
				 "device %s (%.1f GiB)",
				 dreal, (double)bytes / (1 << 30));
	}
	if (o->reserve &&
	    confine_set_reserve(o->reserve, why, sizeof(why)) < 0) {
		log_error("%s", why);
		return 2;
	}
	snprintf(tokpath, sizeof(tokpath), "%s/api-token", real);
	if (cmd_load_token(token_file ? token_file : tokpath, !token_file,
			   ctx.token, sizeof(ctx.token)) < 0)
		return 1;

	if ((lock = cmd_lock_data_dir(real)) < 0)
		return 1;

	sys_hold_stop_requests();

	if (o->clock_offset_ms) {
		os_wall_offset_set((int64_t)o->clock_offset_ms * 1000000);
		log_info("the wall clock reads %ld ms off the system's "
			 "(--clock-offset-ms: a test's)",
			 o->clock_offset_ms);
	}
	if ((err = archive_open(db, &ctx.a)) < 0) {
		log_error("archive %s: %s", db, strerror(-err));
		goto out;
	}
	/* SMB credentials: a file of their own, never in the archive */
	snprintf(creds, sizeof(creds), "%s/credentials.db", real);
	if ((err = creds_init(creds)) < 0) {
		log_error("credential store %s: %s", creds, strerror(-err));
		goto out;
	}
	if ((err = jobq_open(db, &q)) < 0) {
		log_error("job queue: %s", strerror(-err));
		goto out;
	}
	/* the pusher before the API, which reads ctx.hub from its first
	 * request; it finds the runs jobq_open marked interrupted */
	if (start_hub(o, db, &hub) < 0)
		goto out;
	if (hub)
		jobq_on_end(q, kick_hub, hub);
	ctx.q = q;
	if ((err = fleet_open(db, &fleet)) < 0) {
		log_error("multi-host jobs: %s", strerror(-err));
		goto out;
	}
	ctx.fleet = fleet;
	ctx.hub = hub;
	ctx.scratch = scratch;
	ctx.db_path = db;
	if ((err = api_start(listen, &ctx, &srv)) < 0) {
		log_error("cannot listen on %s: %s", listen,
			  err == -EINVAL
				  ? "not ADDR:PORT with a numeric address "
				    "and a port from 1 to 65535"
				  : strerror(-err));
		goto out;
	}
	/* the worker starts once the daemon surely serves: a start that fails
	 * (the port is taken) claims no queued job */
	if ((err = jobq_run(q)) < 0 || (err = fleet_run(fleet)) < 0) {
		log_error("job queue: %s", strerror(-err));
		goto out;
	}
	self_peer(listen, ctx.token);
	log_info("storbench %s serving http://%s/ (data %s)", STORBENCH_VERSION,
		 listen, real);
	confine_roots_text(NULL, CONFINE_ALL, roots, sizeof(roots));
	confine_reserve_text(why, sizeof(why));
	log_info("jobs may write under: %s; each leaves %s of its filesystem "
		 "free",
		 roots, why);
	if (ctx.require_token)
		log_info("the API needs \"Authorization: Bearer TOKEN\"; the "
			 "token is in %s",
			 token_file ? token_file : tokpath);
	else
		log_info("the API is open on loopback without a token "
			 "(--require-token closes it); the token in %s works "
			 "too",
			 token_file ? token_file : tokpath);
	if (o->demo)
		queue_demo(&ctx);

	sys_serving(); /* (a Windows service: now RUNNING) */
	sig = sys_wait_stop(-1);
	log_info("signal %d: stopping", sig);
	rc = 0;
out:
	/* a multi-host job's hosts are told (this daemon's own job too,
	 * through its API) before the API stops */
	fleet_stop(fleet);
	api_stop(srv);
	jobq_stop(q); /* (its last end kicks the pusher, which is still here) */
	hubsync_stop(hub);
	archive_close(ctx.a);
	if (rc == 0)
		log_info("stopped");
	return rc;
}
