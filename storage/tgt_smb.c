/*
 * tgt_smb — a file on an SMB share, through Samba's client library
 * (libsmbclient), without mounting it. Paths are URLs:
 * smb://server[:port]/share/dir/file.
 *
 * libsmbclient calls block, so queue depth comes from workpool: one worker
 * per queue slot, each with its own libsmbclient context — its own
 * connection to the server — and its own handle on the file; an I/O is a
 * seek and a read or write on that handle. Queue depth N is therefore N
 * connections with one request in flight each (the library does not
 * pipeline on one connection).
 *
 * Debian's libsmbclient is not safe to use from several threads of one
 * process (its talloc stack frames are process-wide, and it does not export
 * smbc_thread_posix), so each worker is a process: `storbench smb-worker
 * URL`, spawned fresh (never forked from a threaded daemon), credentials in
 * its environment, talking over a socketpair — a request (offset, length,
 * read or write, the data of a write), a reply (the result, the data of a
 * read). A workpool thread waits on each. The file is created first, on a context of
 * its own, with O_CREAT|O_EXCL, so the workers only open it.
 *
 * There is no client cache in the way (the library does not keep one), so
 * a run reports direct I/O as asked; what the server caches is the
 * server's. libsmbclient has no flush call: fsync does nothing here (writes
 * have reached the server when they complete).
 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libsmbclient.h>

extern char **environ;

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds (the tests): libtalloc, under libsmbclient, keeps blocks
 * for the process's life; they are not leaks. Every program that links this
 * back-end (the daemon, its SMB workers, the tests) gets this. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtalloc\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif

#include "workpool.h"

/* The credentials every SMB context uses (tgt_smb_set_auth). */
static pthread_mutex_t auth_mu = PTHREAD_MUTEX_INITIALIZER;
static char auth_user[128], auth_pass[256], auth_domain[128];

/* The environment a worker is spawned with: ours, plus the credentials
 * (the password never on a command line). Called under auth_mu; the caller
 * frees the array and its last three strings. */
static char **worker_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 4, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "STORBENCH_SMB_", 14) != 0)
			env[k++] = environ[i];
	if (asprintf(&env[k], "STORBENCH_SMB_USER=%s", auth_user) < 0 ||
	    asprintf(&env[k + 1], "STORBENCH_SMB_PASSWORD=%s", auth_pass) < 0 ||
	    asprintf(&env[k + 2], "STORBENCH_SMB_DOMAIN=%s", auth_domain) < 0) {
		free(env);
		return NULL;
	}
	return env;
}

static void free_env(char **env)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	for (size_t i = n >= 3 ? n - 3 : 0; i < n; i++) {
		memset(env[i], 0, strlen(env[i])); /* the password */
		free(env[i]);
	}
	free(env);
}

void tgt_smb_set_auth(const char *user, const char *password,
		      const char *domain)
{
	pthread_mutex_lock(&auth_mu);
	snprintf(auth_user, sizeof(auth_user), "%s", user ? user : "");
	snprintf(auth_pass, sizeof(auth_pass), "%s", password ? password : "");
	snprintf(auth_domain, sizeof(auth_domain), "%s", domain ? domain : "");
	pthread_mutex_unlock(&auth_mu);
}

static void auth_fn(SMBCCTX *c, const char *srv, const char *shr, char *wg,
		    int wglen, char *un, int unlen, char *pw, int pwlen)
{
	(void)c;
	(void)srv;
	(void)shr;
	pthread_mutex_lock(&auth_mu);
	if (auth_domain[0])
		snprintf(wg, (size_t)wglen, "%s", auth_domain);
	snprintf(un, (size_t)unlen, "%s", auth_user);
	snprintf(pw, (size_t)pwlen, "%s", auth_pass);
	pthread_mutex_unlock(&auth_mu);
}

/* A new, initialised context (one connection per context), or NULL. */
static SMBCCTX *new_ctx(void)
{
	SMBCCTX *c;

	c = smbc_new_context();

	if (!c)
		return NULL;
	smbc_setFunctionAuthDataWithContext(c, auth_fn);
	smbc_setOptionNoAutoAnonymousLogin(c, 1);
	if (!smbc_init_context(c)) {
		smbc_free_context(c, 1);
		return NULL;
	}
	return c;
}

struct smb_ctx {
	struct workpool_target wt; /* first: the queue ops; no shared fd */
	const char *url;
};

/* The program run as a worker: this one, unless a test says otherwise. */
static char helper_path[4096] = "/proc/self/exe";

void tgt_smb_set_helper(const char *path)
{
	snprintf(helper_path, sizeof(helper_path), "%s", path);
}

/* One request on the wire: the I/O, then its data for a write. The reply:
 * the result, then the data for a read that moved any. */
struct smb_req {
	uint64_t offset;
	uint32_t len;
	uint32_t write;
};

static int full_io(int fd, void *buf, size_t len, int out)
{
	char *p = buf;

	while (len) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct smb_worker {
	int sock;
	pid_t pid;
};

static int smb_worker_init(void *arg, unsigned i, void **wctx)
{
	struct smb_ctx *s = arg;
	struct smb_worker *w = calloc(1, sizeof(*w));
	posix_spawn_file_actions_t fa;
	char *argv[] = {"storbench", "smb-worker", (char *)s->url, NULL};
	char **env;
	int sv[2], rc;
	int64_t ready;

	(void)i;
	if (!w)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		free(w);
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	pthread_mutex_lock(&auth_mu);
	env = worker_env();
	pthread_mutex_unlock(&auth_mu);
	rc = env ? posix_spawn(&w->pid, helper_path, &fa, NULL, argv, env)
		 : ENOMEM;
	free_env(env);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		free(w);
		return -rc;
	}
	w->sock = sv[0];
	/* the worker says whether it could open the file */
	if ((rc = full_io(w->sock, &ready, sizeof(ready), 0)) < 0 || ready < 0) {
		close(w->sock);
		waitpid(w->pid, NULL, 0);
		free(w);
		return rc < 0 ? -EIO : (int)ready;
	}
	*wctx = w;
	return 0;
}

static int64_t smb_transfer(void *wctx, struct tgt_io *io)
{
	struct smb_worker *w = wctx;
	struct smb_req rq = {io->offset, io->len, (uint32_t)io->write};
	int64_t res;
	int rc;

	if ((rc = full_io(w->sock, &rq, sizeof(rq), 1)) < 0 ||
	    (io->write && (rc = full_io(w->sock, io->buf, io->len, 1)) < 0) ||
	    (rc = full_io(w->sock, &res, sizeof(res), 0)) < 0)
		return -EIO;
	if (!io->write && res > 0 &&
	    full_io(w->sock, io->buf, (size_t)res, 0) < 0)
		return -EIO;
	return res;
}

static void smb_worker_fini(void *wctx)
{
	struct smb_worker *w = wctx;

	close(w->sock); /* the worker sees end of file and exits */
	waitpid(w->pid, NULL, 0);
	free(w);
}

int tgt_smb_worker_main(const char *url)
{
	SMBCCTX *c;
	SMBCFILE *f;
	char *buf = NULL;
	size_t cap = 0;
	int64_t ready;
	struct smb_req rq;

	tgt_smb_set_auth(getenv("STORBENCH_SMB_USER"),
			 getenv("STORBENCH_SMB_PASSWORD"),
			 getenv("STORBENCH_SMB_DOMAIN"));
	unsetenv("STORBENCH_SMB_PASSWORD");
	c = new_ctx();
	errno = 0;
	f = c ? smbc_getFunctionOpen(c)(c, url, O_RDWR, 0) : NULL;
	ready = f ? 0 : errno ? -errno : -EIO;
	if (full_io(1, &ready, sizeof(ready), 1) < 0 || ready < 0)
		return 1;
	while (full_io(0, &rq, sizeof(rq), 0) == 0) {
		int64_t res;
		ssize_t n = 0;
		uint64_t off = 0;
		if (rq.len > cap) {
			char *b = realloc(buf, rq.len);
			if (!b)
				return 1;
			buf = b;
			cap = rq.len;
		}
		if (rq.write && full_io(0, buf, rq.len, 0) < 0)
			break;
		res = smbc_getFunctionLseek(c)(c, f, (off_t)rq.offset, SEEK_SET) < 0
			      ? -(errno ? errno : EIO)
			      : 0;
		while (res == 0 && off < rq.len) {
			n = rq.write ? smbc_getFunctionWrite(c)(c, f, buf + off,
								 rq.len - off)
				     : smbc_getFunctionRead(c)(c, f, buf + off,
								rq.len - off);
			if (n <= 0)
				break;
			off += (uint64_t)n;
		}
		if (res == 0)
			res = n < 0 ? -(errno ? errno : EIO) : (int64_t)off;
		if (full_io(1, &res, sizeof(res), 1) < 0 ||
		    (!rq.write && res > 0 && full_io(1, buf, (size_t)res, 1) < 0))
			break;
	}
	smbc_getFunctionClose(c)(c, f);
	smbc_free_context(c, 1);
	free(buf);
	return 0;
}

static const struct workpool_ops smb_pool = {
	.init = smb_worker_init,
	.io = smb_transfer,
	.fini = smb_worker_fini,
};

/* Creates url (never an existing file) on a context of its own. */
static int smb_create(const char *url)
{
	SMBCCTX *c = new_ctx();
	SMBCFILE *f;
	int rc = 0;

	if (!c)
		return -ENOMEM;
	errno = 0;
	f = smbc_getFunctionOpen(c)(c, url, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (!f)
		rc = errno ? -errno : -EIO;
	else
		smbc_getFunctionClose(c)(c, f);
	smbc_free_context(c, 1);
	return rc;
}

static int smb_unlink(const char *url)
{
	SMBCCTX *c = new_ctx();
	int rc = 0;

	if (!c)
		return -ENOMEM;
	if (smbc_getFunctionUnlink(c)(c, url) < 0)
		rc = errno ? -errno : -EIO;
	smbc_free_context(c, 1);
	return rc;
}

static void smb_close(void *ctx)
{
	struct smb_ctx *s = ctx;

	workpool_stop(s->wt.pool);
	free(s);
}

static int smb_open(const struct tgt_open_args *args, void **ctx, int *direct)
{
	struct smb_ctx *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->wt.local.fd = -1;
	s->url = args->path;
	if (args->create && (rc = smb_create(args->path)) < 0) {
		free(s);
		return rc;
	}
	if ((rc = workpool_start(&smb_pool, s, args->depth, &s->wt.pool)) < 0) {
		free(s);
		if (args->create)
			smb_unlink(args->path);
		return rc;
	}
	*direct = args->direct;
	*ctx = s;
	return 0;
}

/* Writes have reached the server when they complete; the library has no
 * flush to send. */
static int smb_fsync(void *ctx)
{
	(void)ctx;
	return 0;
}

static int smb_preallocate(void *ctx, uint64_t size)
{
	(void)ctx;
	(void)size;
	return -EOPNOTSUPP;
}

const struct tgt_ops tgt_smb_ops = {
	.version = TGT_OPS_VERSION,
	.name = "smb",
	.caps = TGT_CAP_ASYNC,
	.open = smb_open,
	.queue = workpool_tgt_queue,
	.commit = workpool_tgt_commit,
	.reap = workpool_tgt_reap,
	.fsync = smb_fsync,
	.preallocate = smb_preallocate,
	.close = smb_close,
	.unlink = smb_unlink,
};
