/*
 * main — the storbench command line.
 *
 *   storbench serve [--listen ADDR:PORT] [--data DIR] [--demo] [--allow PATH]…
 *                   [--allow-device DEV]… [--reserve PCT%|SIZE]
 *                   [--token-file FILE] [--require-token]
 *   storbench --version | --help
 *
 * `serve` opens (or creates) DIR/storbench.db, creates DIR/scratch (the
 * default target), sets where jobs may write (confine.h), reads or creates
 * the API token (DIR/api-token, 0600), starts the queue worker and the HTTP
 * server, and waits for
 * SIGINT, SIGTERM or SIGHUP; then it stops the running test (its job becomes
 * interrupted, its test file is removed) and exits 0. Signals are blocked in
 * every thread and taken with sigwait() here, so no handler runs in the middle
 * of an I/O loop.
 *
 * Secrets: the daemon runs with umask 077 (its data directory 0700, its
 * files 0600) and without core dumps (RLIMIT_CORE 0), since its memory holds
 * the API token and SMB passwords; neither is ever logged.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "archive.h"
#include "confine.h"
#include "creds.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "os.h"
#include "runview.h"
#include "smb.h"
#include "sys.h"
#include "target.h"

static const char usage_serve[] =
	"usage: storbench serve [--listen ADDR:PORT] [--data DIR] [--demo]\n"
	"                       [--allow PATH]... [--allow-device DEV]... "
	"[--reserve PCT%|SIZE]\n"
	"                       [--token-file FILE] [--require-token] "
	"[--log-format text|json]\n"
	"\n"
	"The daemon: dashboard, API and job queue.\n"
	"  --listen ADDR:PORT  where the dashboard and API listen "
	"(default 127.0.0.1:8080; [::1]:8080 for IPv6)\n"
	"  --data DIR          archive and scratch folder (default ./var)\n"
	"  --demo              on an empty archive, queue one cdm-default "
	"run on DIR/scratch\n"
	"  --allow PATH        a directory (or smb://server/share[/dir]) jobs "
	"may write in;\n"
	"                      repeatable; DIR/scratch is always allowed\n"
	"  --allow-device DEV  a raw block device jobs may overwrite (refused "
	"while mounted)\n"
	"  --reserve R         free space every job leaves on its filesystem: "
	"10% (default) or a size\n"
	"  --token-file FILE   the API token (default DIR/api-token, created "
	"0600 on first start)\n"
	"  --require-token     the token also on a loopback listener (always "
	"needed on others)\n"
	"  --log-format F      text (default) or json: one object per line\n";

static const char usage_run[] =
	"usage: storbench run [--profile P] [--size S] [--iterations N] "
	"[--duration SECONDS]\n"
	"                     [--label L]... [--data DIR | --no-archive] "
	"[--json] [--verbose] TARGET\n"
	"\n"
	"Runs one job here and now, without a daemon, and prints what "
	"CrystalDiskMark prints\n"
	"(or the run as JSON). TARGET is a directory (storbench makes its own "
	"test file there)\n"
	"or a raw block device (overwritten). The run is stored in DIR's "
	"archive unless --no-archive.\n"
	"  --profile P         cdm-default (default), cdm-peak, cdm-realworld, "
	"cdm3, seq-sweep, ...\n"
	"                      (storbench serve's GET /api/v1/profiles lists "
	"them)\n"
	"  --size S            test file size (\"1GiB\", \"64MiB\"; default the "
	"profile's)\n"
	"  --iterations N      iterations of each test (default the profile's)\n"
	"  --duration SECONDS  seconds per iteration (default the profile's)\n"
	"  --label L           a label for the archive (repeatable)\n"
	"  --data DIR          the archive to store the run in (default ./var; "
	"not one a daemon serves)\n"
	"  --no-archive        store nothing\n"
	"  --json              print the run as the API's JSON (GET "
	"/api/v1/runs/{id})\n"
	"  --verbose           log lines on stderr as the daemon writes them\n"
	"Exit status: 0 done, 1 the job failed, 2 bad arguments or a refused "
	"job, 130 interrupted.\n"
	"A progress line goes to stderr when it is a terminal.\n";

static const char usage_import[] =
	"usage: storbench import [--data DIR] [--format cdm|fio|diskspd] "
	"[--labels A,B] FILE...\n"
	"\n"
	"Stores CrystalDiskMark text, fio JSON or DiskSpd XML/text results in "
	"DIR's archive\n"
	"(default ./var; a daemon on DIR may be running).\n";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: storbench COMMAND [OPTIONS]\n"
		"\n"
		"  serve    the daemon: dashboard, REST API and job queue\n"
		"  run      one benchmark here and now, printed like "
		"CrystalDiskMark\n"
		"  import   results of CrystalDiskMark, fio or DiskSpd into the "
		"archive\n"
		"\n"
		"storbench COMMAND --help   what a command takes\n"
		"storbench --version\n");
}


/*
 * Reads the API token from path, or — when path is our default and no file
 * is there — creates it: 32 random bytes as 64 hex digits, O_EXCL|O_NOFOLLOW,
 * mode 0600. A token shorter than 16 characters, or a file others may read,
 * is refused. Returns 0 or a negative errno (logged).
 */
static int load_token(const char *path, int create, char *tok, size_t len)
{
	unsigned char raw[32];
	struct stat st;
	ssize_t n;
	char buf[512];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = 0;

	if (fd < 0 && errno == ENOENT && create) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
		if (fd < 0 || os_random(raw, sizeof(raw)) != 0) {
			rc = fd < 0 ? -errno : -EIO;
			goto out;
		}
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(tok + 2 * i, len - 2 * i, "%02x", raw[i]);
		os_wipe(raw, sizeof(raw));
		if (write(fd, tok, strlen(tok)) != (ssize_t)strlen(tok) ||
		    write(fd, "\n", 1) != 1 || fsync(fd) != 0) {
			rc = -EIO;
			unlink(path);
		} else {
			log_info("created the API token in %s (mode 0600)", path);
		}
		goto out;
	}
	if (fd < 0) {
		rc = -errno;
		log_error("API token %s: %s", path, strerror(-rc));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		log_error("API token %s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & 077) {
		rc = -EPERM;
		log_error("API token %s: others may read it (mode %03o); "
			  "chmod 600 it",
			  path, (unsigned)(st.st_mode & 0777));
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (strlen(buf) >= len) {
		rc = -EINVAL;
		log_error("API token %s: longer than %zu characters", path,
			  len - 1);
		goto out;
	}
	memcpy(tok, buf, strlen(buf) + 1);
	if (strlen(tok) < 16 || strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
					    "ghijklmnopqrstuvwxyz0123456789"
					    "-._~+/=") != strlen(tok)) {
		rc = -EINVAL;
		log_error("API token %s: one line of 16 to %zu characters "
			  "from A-Z a-z 0-9 - . _ ~ + / =",
			  path, len - 1);
	}
out:
	os_wipe(buf, sizeof(buf));
	if (rc < 0)
		os_wipe(tok, len);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Our own files in the data directory, made 0600 if an older storbench (or
 * a copy) left them readable by others, and the scratch folder 0700. */
static void tighten(const char *dir, const char *scratch)
{
	static const char *const own[] = {
		"storbench.db", "storbench.db-wal", "storbench.db-shm",
		"credentials.db", "credentials.db-wal", "credentials.db-shm",
		"storbench.pid",
	};
	char path[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, own[i]) >=
		    (int)sizeof(path))
			return;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 077) && chmod(path, 0600) == 0)
			log_warn("%s was readable by others; now 0600", path);
	}
	if (stat(dir, &st) == 0 && (st.st_mode & 077))
		log_warn("data directory %s is open to others (mode %03o); "
			 "storbench keeps the archive and credentials there: "
			 "chmod 700 it",
			 dir, (unsigned)(st.st_mode & 0777));
	if (lstat(scratch, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 077) && chmod(scratch, 0700) == 0)
		log_warn("%s was open to others (mode %03o); now 0700", scratch,
			 (unsigned)(st.st_mode & 0777));
}

/*
 * Locks the data directory for this daemon (sys_lock_dir) and writes our
 * pid into DATA/storbench.pid, so that a second daemon on the same data
 * directory stops before it touches the archive: it would otherwise take the
 * first one's running job for a crash and remove its test file. Returns 0 or
 * -1 (logged).
 */
static int lock_data_dir(const char *dir)
{
	char path[PATH_MAX], pid[32] = "";
	int pf, n, rc;

	if (snprintf(path, sizeof(path), "%s/storbench.pid", dir) >=
	    (int)sizeof(path))
		return -1;
	rc = sys_lock_dir(dir, path);
	if (rc == -EBUSY) {
		pf = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		n = pf >= 0 ? (int)read(pf, pid, sizeof(pid) - 1) : 0;
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (pf >= 0)
			close(pf);
		log_error("another storbench (pid %s) is serving %s; one daemon "
			  "per data directory",
			  pid[0] ? pid : "?", dir);
		return -1;
	}
	if (rc < 0) {
		log_error("data directory %s: %s", dir, strerror(-rc));
		return -1;
	}
	if (rc > 0)
		log_warn("could not write the pid into %s", path);
	return 0;
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

static int serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"data", required_argument, NULL, 'd'},
		{"demo", no_argument, NULL, 'D'},
		{"allow", required_argument, NULL, 'a'},
		{"allow-device", required_argument, NULL, 'A'},
		{"reserve", required_argument, NULL, 'r'},
		{"token-file", required_argument, NULL, 't'},
		{"require-token", no_argument, NULL, 'T'},
		{"log-format", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *listen = "127.0.0.1:8080", *data = "./var";
	const char *token_file = NULL, *allow[CONFINE_MAX_ROOTS],
		   *devs[CONFINE_MAX_ROOTS], *reserve = NULL;
	char db[PATH_MAX], scratch[PATH_MAX], real[PATH_MAX], creds[PATH_MAX + 32];
	char tokpath[PATH_MAX + 16], why[PATH_MAX + 200], roots[1024];
	struct api_ctx ctx = {0};
	struct api_server *srv = NULL;
	struct jobq *q = NULL;
	size_t n_allow = 0, n_devs = 0;
	int c, sig = 0, demo = 0, rc = 1, err, lock = -1;

	while ((c = getopt_long(argc, argv, "l:d:Da:A:r:t:TL:h", opts, NULL)) != -1) {
		switch (c) {
		case 'L':
			if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0) {
				fprintf(stderr, "storbench serve: --log-format: text "
						"or json\n");
				return 2;
			}
			log_setup(strcmp(optarg, "json") == 0 ? LOG_JSON : LOG_TEXT, 0);
			break;
		case 'l':
			listen = optarg;
			break;
		case 'd':
			data = optarg;
			break;
		case 'D':
			demo = 1;
			break;
		case 'a':
		case 'A':
			if ((c == 'a' ? n_allow : n_devs) == CONFINE_MAX_ROOTS) {
				log_error("at most %d of --%s", CONFINE_MAX_ROOTS,
					  c == 'a' ? "allow" : "allow-device");
				return 2;
			}
			if (c == 'a')
				allow[n_allow++] = optarg;
			else
				devs[n_devs++] = optarg;
			break;
		case 'r':
			reserve = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 'T':
			ctx.require_token = 1;
			break;
		case 'h':
			fputs(usage_serve, stdout);
			return 0;
		default:
			fputs(usage_serve, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(usage_serve, stderr);
		return 2;
	}
	/* (a bad ADDR:PORT is refused by api_start, after the lock) */
	if (api_listen_is_loopback(listen) == 0)
		ctx.require_token = 1;
	umask(077);
	sys_no_core_dumps();
	if ((err = sys_mkdir_private(data)) < 0 || sys_realpath(data, real) < 0) {
		log_error("data directory %s: %s", data,
			  strerror(err ? -err : errno));
		return 1;
	}
	if (snprintf(db, sizeof(db), "%s/storbench.db", real) >= (int)sizeof(db) ||
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
	for (size_t i = 0; i < n_allow; i++) {
		struct stat st;
		if (confine_allow(allow[i], why, sizeof(why)) < 0) {
			log_error("%s", why);
			return 2;
		}
		if (stat(allow[i], &st) == 0 && (st.st_mode & S_IWOTH))
			log_warn("--allow %s: every local user may write there "
				 "(mode %04o); whoever can queue jobs can aim "
				 "them at any folder made in it",
				 allow[i], (unsigned)(st.st_mode & 07777));
	}
	for (size_t i = 0; i < n_devs; i++) {
		char dreal[PATH_MAX];
		uint64_t bytes = 0;
		if (confine_allow_device(devs[i], why, sizeof(why)) < 0) {
			log_error("%s", why);
			return 2;
		}
		if (confine_device(devs[i], dreal, &bytes, why, sizeof(why)) < 0)
			log_warn("--allow-device %s: %s; jobs on it are refused "
				 "while that lasts",
				 devs[i], why);
		else
			log_info("jobs may overwrite the first bytes of raw "
				 "device %s (%.1f GiB)",
				 dreal, (double)bytes / (1 << 30));
	}
	if (reserve && confine_set_reserve(reserve, why, sizeof(why)) < 0) {
		log_error("%s", why);
		return 2;
	}
	snprintf(tokpath, sizeof(tokpath), "%s/api-token", real);
	if (load_token(token_file ? token_file : tokpath, !token_file,
		       ctx.token, sizeof(ctx.token)) < 0)
		return 1;

	if ((lock = lock_data_dir(real)) < 0)
		return 1;

	sys_hold_stop_requests();

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
	if ((err = jobq_start(db, &q)) < 0) {
		log_error("job queue: %s", strerror(-err));
		goto out;
	}
	ctx.q = q;
	ctx.scratch = scratch;
	if ((err = api_start(listen, &ctx, &srv)) < 0) {
		log_error("cannot listen on %s: %s", listen,
			  err == -EINVAL ? "not ADDR:PORT with a numeric address "
					   "and a port from 1 to 65535"
					 : strerror(-err));
		goto out;
	}
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
	if (demo)
		queue_demo(&ctx);

	sig = sys_wait_stop(-1);
	log_info("signal %d: stopping", sig);
	rc = 0;
out:
	api_stop(srv);
	jobq_stop(q);
	archive_close(ctx.a);
	if (rc == 0)
		log_info("stopped");
	return rc;
}

/* Reads path whole into *buf (malloc'd). Returns 0 or a negative errno. */
static int slurp(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, k;
	char *b = NULL, *nb;

	if (!f)
		return -errno;
	do {
		if (n == cap || !b) {
			if (n > (64u << 20) ||
			    !(nb = realloc(b, cap = b ? cap * 2 : cap))) {
				free(b);
				fclose(f);
				return n > (64u << 20) ? -EFBIG : -ENOMEM;
			}
			b = nb;
		}
		k = fread(b + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
}

/* storbench import [--data DIR] [--format F] [--labels L] FILE... */
static int import_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"format", required_argument, NULL, 'f'},
		{"labels", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data = "./var", *format = NULL, *labels = NULL;
	char db[PATH_MAX];
	struct archive *a = NULL;
	struct import_run *r = calloc(1, sizeof(*r));
	int c, failed = 0, err;

	umask(077); /* a new archive is the user's alone, as serve makes it */
	while ((c = getopt_long(argc, argv, "d:f:l:h", opts, NULL)) != -1) {
		if (c == 'd')
			data = optarg;
		else if (c == 'f')
			format = optarg;
		else if (c == 'l')
			labels = optarg;
		else {
			fputs(usage_import, c == 'h' ? stdout : stderr);
			free(r);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind == argc || !r) {
		fputs(usage_import, stderr);
		free(r);
		return 2;
	}
	{
		char why[160];
		if (import_check_args(labels, NULL, why, sizeof(why)) < 0) {
			fprintf(stderr, "storbench import: --%s\n", why);
			free(r);
			return 2;
		}
	}
	if ((err = sys_mkdir_private(data)) < 0 ||
	    snprintf(db, sizeof(db), "%s/storbench.db", data) >= (int)sizeof(db) ||
	    (err = archive_open(db, &a)) < 0) {
		fprintf(stderr, "storbench import: archive in %s: %s\n", data,
			strerror(err < 0 ? -err : ENAMETOOLONG));
		free(r);
		return 1;
	}
	for (int i = optind; i < argc; i++) {
		const char *path = argv[i], *base = strrchr(path, '/');
		const char *fmt = format;
		char *buf = NULL, why[256] = "";
		size_t len = 0;
		int64_t id = 0;
		int rc = slurp(path, &buf, &len);

		base = base ? base + 1 : path;
		if (rc < 0)
			snprintf(why, sizeof(why), "%s", strerror(-rc));
		else if (!fmt && !(fmt = import_detect(buf, len)))
			snprintf(why, sizeof(why), "not a result file storbench "
						   "recognises (use --format)");
		else if ((rc = import_parse(fmt, buf, len, r, why, sizeof(why))) >= 0 &&
			 (rc = import_store(a, r, fmt, buf, len, base, labels, &id)) < 0 &&
			 rc != -EEXIST)
			snprintf(why, sizeof(why), "the archive: %s", strerror(-rc));
		if (why[0]) {
			fprintf(stderr, "%s: %s\n", path, why);
			failed = 1;
		} else {
			printf("%s: %s run %lld (%s %s, %zu tests)\n", path,
			       rc == -EEXIST ? "already imported as" : "imported as",
			       (long long)id, r->tool, r->version, r->n);
		}
		free(buf);
	}
	archive_close(a);
	free(r);
	return failed;
}

/* Writes a one-line progress report over the last one (a terminal). */
static void progress_line(const struct jobq_progress *p)
{
	char left[32] = "";

	if (p->remaining_s >= 0)
		snprintf(left, sizeof(left), ", %.0f s left", p->remaining_s);
	fprintf(stderr, "\r\033[K%-10s %-14.14s %-5s %5.1f %%  %9.2f MB/s  "
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
					   str) ? -1 : 0;
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

/* storbench run [...] TARGET: one job, here and now (usage_run). */
static int run_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{"profile", required_argument, NULL, 'p'},
		{"size", required_argument, NULL, 's'},
		{"iterations", required_argument, NULL, 'i'},
		{"duration", required_argument, NULL, 'u'},
		{"label", required_argument, NULL, 'l'},
		{"data", required_argument, NULL, 'd'},
		{"no-archive", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data = "./var";
	char tmpl[PATH_MAX], real[PATH_MAX], treal[PATH_MAX], why[PATH_MAX + 200];
	char db[PATH_MAX + 16], scratch[PATH_MAX + 16];
	json_t *body = json_object(), *labels = json_array(), *job = NULL, *run = NULL;
	struct job_spec spec;
	struct api_problem prob;
	struct archive *a = NULL;
	struct jobq *q = NULL;
	struct stat st;
	char *text = NULL;
	int64_t id = 0, run_id = 0;
	int c, no_archive = 0, as_json = 0, verbose = 0, rc = 2, lock = -1;
	int interrupted = 0, tty = isatty(2);
	const char *state;

	while ((c = getopt_long(argc, argv, "p:s:i:u:l:d:njvh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 's':
		case 'i':
		case 'u':
			if (run_flag(body, c, optarg) < 0)
				goto out;
			break;
		case 'l':
			if (json_array_append_new(labels, json_string(optarg)) < 0) {
				fprintf(stderr, "storbench run: --label: not UTF-8 "
						"text\n");
				goto out;
			}
			break;
		case 'd':
			data = optarg;
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
		case 'h':
			fputs(usage_run, stdout);
			rc = 0;
			goto out;
		default:
			fputs(usage_run, stderr);
			goto out;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_run, stderr);
		goto out;
	}
	if (tgt_for_target(argv[optind])) {
		fprintf(stderr, "storbench run: an SMB share runs through the "
				"daemon, where its credential is stored (storbench "
				"serve --allow %s, then POST /api/v1/jobs)\n",
			argv[optind]);
		goto out;
	}
	if (sys_realpath(argv[optind], treal) < 0 || stat(treal, &st) != 0) {
		fprintf(stderr, "storbench run: %s: %s\n", argv[optind],
			strerror(errno));
		goto out;
	}
	umask(077);
	sys_no_core_dumps();
	log_setup(LOG_TEXT, !verbose);
	rc = 1;
	if (no_archive) {
		snprintf(tmpl, sizeof(tmpl), "%s/storbench-run-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(tmpl)) {
			fprintf(stderr, "storbench run: %s: %s\n", tmpl,
				strerror(errno));
			no_archive = 0;
			goto out;
		}
		data = tmpl;
	} else if (sys_mkdir_private(data) < 0) {
		fprintf(stderr, "storbench run: --data %s: %s\n", data,
			strerror(errno));
		goto out;
	}
	if (sys_realpath(data, real) < 0) {
		fprintf(stderr, "storbench run: --data %s: %s\n", data,
			strerror(errno));
		goto out;
	}
	snprintf(db, sizeof(db), "%s/storbench.db", real);
	snprintf(scratch, sizeof(scratch), "%s/scratch", real);
	if (sys_mkdir_private(scratch) < 0 || (lock = lock_data_dir(real)) < 0) {
		fprintf(stderr, "storbench run: %s is in use (a daemon serves it?): "
				"queue the job through its API, or give another "
				"--data, or --no-archive\n",
			real);
		goto out;
	}
	/* the target named on the command line is the one root allowed */
	if (confine_allow(scratch, why, sizeof(why)) < 0 ||
	    (S_ISBLK(st.st_mode) ? confine_allow_device(treal, why, sizeof(why))
				 : confine_allow(treal, why, sizeof(why))) < 0) {
		fprintf(stderr, "storbench run: %s\n",
			strncmp(why, "--allow", 7) == 0 ? strchr(why, ' ') + 1 : why);
		rc = 2;
		goto out;
	}
	if (json_object_set_new(body, "target", json_string(treal)) < 0) {
		/* (not UTF-8: a JSON body cannot name it, and the default
		 * target must not stand in for it) */
		fprintf(stderr, "storbench run: %s: the path is not UTF-8 text; "
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
	if (archive_open(db, &a) < 0 || archive_job_insert(a, &spec, &id) < 0) {
		job_spec_clear(&spec);
		fprintf(stderr, "storbench run: the archive %s cannot be written\n",
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
		const char *err = json_string_value(json_object_get(job, "error"));
		fprintf(stderr, "storbench run: %s%s%s\n", state ? state : "?",
			err ? ": " : "", err ? err : "");
		rc = interrupted ? 130 : 1;
		goto out;
	}
	if (runview_json(a, run_id, &run) < 0)
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
	rc = 0;
out:
	jobq_stop(q);
	archive_close(a);
	if (no_archive)
		sys_remove_tree(tmpl);
	json_decref(run);
	json_decref(job);
	json_decref(body);
	json_decref(labels);
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	/* a child the SMB back-end spawns (storage/smb.h) */
	if (argc >= 2 && (strcmp(argv[1], "smb-worker") == 0 ||
			  strcmp(argv[1], "smb-op") == 0))
		return smb_child_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return serve(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "import") == 0)
		return import_cmd(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return run_cmd(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("storbench %s\n", STORBENCH_VERSION);
		return 0;
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "help") == 0)) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
