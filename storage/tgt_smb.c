/*
 * tgt_smb — a file on an SMB share, through Samba's client library
 * (libsmbclient), without mounting it. Paths are URLs:
 * smb://server[:port]/share/dir/file. This is the daemon's side of smb.h;
 * the library runs only in child processes (smb_client.c).
 *
 * libsmbclient calls block, so queue depth comes from workpool: one worker
 * per queue slot, each a child process with its own libsmbclient context —
 * its own connection to the server — and its own handle on the file; an I/O
 * is a seek and a read or write on that handle. Queue depth N is therefore N
 * connections with one request in flight each (the library does not
 * pipeline on one connection). A workpool thread waits on each child over a
 * socketpair: a request (offset, length, read or write, the data of a
 * write), a reply (the result, the data of a read). The file is created
 * first, by a one-shot child, with O_CREAT|O_EXCL, so the workers only open
 * it.
 *
 * There is no client cache in the way (the library does not keep one), so
 * a run reports direct I/O as asked; what the server caches is the
 * server's. libsmbclient has no flush call: fsync does nothing here (writes
 * have reached the server when they complete).
 */
#include "smb.h"
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workpool.h"

extern char **environ;

const char *const smb_dialects[] = {"SMB2_02", "SMB2_10", "SMB3_00",
				    "SMB3_02", "SMB3_11"};
const int smb_n_dialects = 5;

int smb_dialect_index(const char *name)
{
	for (int i = 0; i < smb_n_dialects; i++)
		if (strcmp(name, smb_dialects[i]) == 0)
			return i;
	return -1;
}

int smb_is_url(const char *path)
{
	return path && strncmp(path, "smb://", 6) == 0;
}

int smb_url_parse(const char *url, struct smb_url *u, char *err, size_t len)
{
	const char *p, *slash, *colon, *host_end;
	size_t n;

	memset(u, 0, sizeof(*u));
	if (!smb_is_url(url)) {
		snprintf(err, len, "not an smb:// URL");
		return -EINVAL;
	}
	for (const unsigned char *c = (const unsigned char *)url; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			snprintf(err, len, "no control characters in the URL");
			return -EINVAL;
		}
	if (strpbrk(url, "?#%\\")) {
		snprintf(err, len, "no '?', '#', '%%' or '\\' in the URL: the path "
				   "is used as written (libsmbclient would read "
				   "options or %%-escapes there)");
		return -EINVAL;
	}
	p = url + 6;
	slash = strchr(p, '/');
	n = slash ? (size_t)(slash - p) : strlen(p);
	if (memchr(p, '@', n) || memchr(p, ';', n)) {
		snprintf(err, len, "no user or password in the URL: store them "
				   "with POST /api/v1/credentials and name them "
				   "in \"credential\"");
		return -EINVAL;
	}
	/* [IPv6]:port, or name:port: the port's colon is after the host */
	host_end = p;
	if (n && p[0] == '[') {
		const char *close = memchr(p, ']', n);
		if (!close) {
			snprintf(err, len, "an IPv6 address goes in brackets: "
					   "smb://[::1]:445/share");
			return -EINVAL;
		}
		host_end = close + 1;
	}
	colon = memchr(host_end, ':', (size_t)(p + n - host_end));
	if (colon == NULL && host_end != p && host_end != p + n) {
		snprintf(err, len, "after an IPv6 address's ']' only :port");
		return -EINVAL;
	}
	if (n == 0 || (colon && colon == p)) {
		snprintf(err, len, "no server in the URL "
				   "(smb://server[:port]/share/path)");
		return -EINVAL;
	}
	if ((size_t)((colon ? colon : p + n) - p) >= sizeof(u->server)) {
		snprintf(err, len, "the server name is longer than 255 bytes");
		return -EINVAL;
	}
	if (colon) {
		char *end;
		long port = strtol(colon + 1, &end, 10);
		if (end != p + n || colon[1] < '0' || colon[1] > '9' || port < 1 ||
		    port > 65535) {
			snprintf(err, len, "the port must be a number from 1 "
					   "to 65535");
			return -EINVAL;
		}
		u->port = (int)port;
		n = (size_t)(colon - p);
	}
	memcpy(u->server, p, n);
	if (!slash || !slash[1] || slash[1] == '/') {
		snprintf(err, len, "no share in the URL "
				   "(smb://server[:port]/share/path)");
		return -EINVAL;
	}
	p = slash + 1;
	slash = strchr(p, '/');
	n = slash ? (size_t)(slash - p) : strlen(p);
	if (n >= sizeof(u->share)) {
		snprintf(err, len, "the share name is too long");
		return -EINVAL;
	}
	memcpy(u->share, p, n);
	if (slash) {
		if (snprintf(u->path, sizeof(u->path), "%s", slash + 1) >=
		    (int)sizeof(u->path)) {
			snprintf(err, len, "the path is too long");
			return -EINVAL;
		}
		n = strlen(u->path);
		while (n && u->path[n - 1] == '/')
			u->path[--n] = '\0';
	}
	/* every directory name: not empty, not . or .., at most 255 bytes */
	for (const char *seg = u->path; *seg;) {
		const char *end = strchr(seg, '/');
		size_t k = end ? (size_t)(end - seg) : strlen(seg);
		if (k == 0 || (k == 1 && seg[0] == '.') ||
		    (k == 2 && seg[0] == '.' && seg[1] == '.')) {
			snprintf(err, len, "no empty, . or .. names in the path");
			return -EINVAL;
		}
		if (k > 255) {
			snprintf(err, len, "a name in the path is longer than "
					   "255 bytes");
			return -EINVAL;
		}
		seg = end ? end + 1 : seg + k;
	}
	return 0;
}

/* The session every I/O back-end context uses (smb_set_session). */
static pthread_mutex_t sess_mu = PTHREAD_MUTEX_INITIALIZER;
static struct smb_session cur;

void smb_set_session(const struct smb_session *s)
{
	pthread_mutex_lock(&sess_mu);
	if (s)
		cur = *s;
	else
		memset(&cur, 0, sizeof(cur));
	pthread_mutex_unlock(&sess_mu);
}

/* The program run as a child: this one, unless a test says otherwise. */
static char helper_path[4096] = "/proc/self/exe";

void smb_set_helper(const char *path)
{
	snprintf(helper_path, sizeof(helper_path), "%s", path);
}

#define N_SMB_ENV 6

/* The environment a child is spawned with: ours, plus the session without
 * its password (that goes over the socket: an environment stays readable in
 * /proc/PID/environ for the child's life). The caller frees it with
 * free_env. */
static char **child_env(const struct smb_session *s)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + N_SMB_ENV + 1, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "STORBENCH_SMB_", 14) != 0)
			env[k++] = environ[i];
	if (asprintf(&env[k], "STORBENCH_SMB_USER=%s", s->user) < 0 ||
	    asprintf(&env[k + 1], "STORBENCH_SMB_DOMAIN=%s", s->domain) < 0 ||
	    asprintf(&env[k + 2], "STORBENCH_SMB_MIN_PROTOCOL=%s",
		     s->min_protocol) < 0 ||
	    asprintf(&env[k + 3], "STORBENCH_SMB_MAX_PROTOCOL=%s",
		     s->max_protocol) < 0 ||
	    asprintf(&env[k + 4], "STORBENCH_SMB_SIGNING=%d",
		     s->require_signing) < 0 ||
	    asprintf(&env[k + 5], "STORBENCH_SMB_ENCRYPTION=%d",
		     s->require_encryption) < 0) {
		for (size_t i = k; i < k + N_SMB_ENV; i++)
			free(env[i]);
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
	for (size_t i = n >= N_SMB_ENV ? n - N_SMB_ENV : 0; i < n; i++)
		free(env[i]);
	free(env);
}

/* Spawns the helper with argv under session s, its fd 0 and 1 a socket;
 * *sock receives our end. Returns 0 or a negative errno. */
static int spawn_child(const struct smb_session *s, char *const argv[],
		       pid_t *pid, int *sock)
{
	posix_spawn_file_actions_t fa;
	char **env = child_env(s);
	int sv[2], rc;

	if (!env)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		rc = -errno;
		free_env(env);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	rc = posix_spawn(pid, helper_path, &fa, NULL, argv, env);
	free_env(env);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		return -rc;
	}
	/* the password first: its length (4 bytes), then its bytes; the
	 * socket buffer holds them until the child reads */
	{
		uint32_t len = (uint32_t)strnlen(s->password, sizeof(s->password));
		if ((rc = smb_write2(sv[0], &len, sizeof(len), s->password, len)) < 0) {
			close(sv[0]);
			kill(*pid, SIGKILL);
			waitpid(*pid, NULL, 0);
			return rc;
		}
	}
	*sock = sv[0];
	return 0;
}

int smb_write2(int fd, const void *a, size_t alen, const void *b, size_t blen)
{
	struct iovec v[2] = {{(void *)a, alen}, {(void *)b, blen}};
	struct iovec *p = v;
	int n = blen ? 2 : 1;

	while (n) {
		ssize_t k = writev(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EPIPE;
		/* a short write: step past what went */
		while (n && (size_t)k >= p->iov_len) {
			k -= (ssize_t)p->iov_len;
			p++;
			n--;
		}
		if (n) {
			p->iov_base = (char *)p->iov_base + k;
			p->iov_len -= (size_t)k;
		}
	}
	return 0;
}

int smb_full_io(int fd, void *buf, size_t len, int out)
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

int smb_op(const struct smb_session *s, const char *op, const char *url,
	   const char *url2, uint64_t size, struct smb_info *info)
{
	char sz[32];
	char *argv[] = {"storbench", "smb-op", (char *)op, (char *)url,
			(char *)(url2 ? url2 : ""), sz, NULL};
	struct smb_session now;
	pid_t pid;
	int sock, rc;

	memset(info, 0, sizeof(*info));
	if (!s) {
		pthread_mutex_lock(&sess_mu);
		now = cur;
		pthread_mutex_unlock(&sess_mu);
		s = &now;
	}
	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	if ((rc = spawn_child(s, argv, &pid, &sock)) < 0)
		return rc;
	/* a check answers an HTTP request: a server that does not answer
	 * must not hold it (or the API behind it) for long */
	if (strcmp(op, "check") == 0 || strcmp(op, "df") == 0) {
		struct pollfd pfd = {.fd = sock, .events = POLLIN};
		int n;
		do
			n = poll(&pfd, 1, SMB_CHECK_TIMEOUT_MS);
		while (n < 0 && errno == EINTR);
		if (n == 0) {
			kill(pid, SIGKILL);
			close(sock);
			waitpid(pid, NULL, 0);
			memset(info, 0, sizeof(*info));
			info->err = -ETIMEDOUT;
			info->stage = SMB_STAGE_CONNECT;
			if (s == &now)
				explicit_bzero(&now, sizeof(now));
			return 0;
		}
	}
	rc = smb_full_io(sock, info, sizeof(*info), 0);
	close(sock);
	waitpid(pid, NULL, 0);
	if (s == &now)
		explicit_bzero(&now, sizeof(now));
	if (rc < 0) {
		memset(info, 0, sizeof(*info));
		return -EIO; /* the child died before it answered */
	}
	info->dialect[sizeof(info->dialect) - 1] = '\0';
	info->message[sizeof(info->message) - 1] = '\0';
	return 0;
}

struct smb_ctx {
	struct workpool_target wt; /* first: the queue ops; no shared fd */
	const char *url;
	struct smb_session sess;   /* as it was when the file was opened */
};


struct smb_worker {
	int sock;
	pid_t pid;
};

static int smb_worker_init(void *arg, unsigned i, void **wctx)
{
	struct smb_ctx *s = arg;
	struct smb_worker *w = calloc(1, sizeof(*w));
	char *argv[] = {"storbench", "smb-worker", (char *)s->url, NULL};
	int rc;
	int64_t ready;

	(void)i;
	if (!w)
		return -ENOMEM;
	if ((rc = spawn_child(&s->sess, argv, &w->pid, &w->sock)) < 0) {
		free(w);
		return rc;
	}
	/* the worker says whether it could open the file */
	if ((rc = smb_full_io(w->sock, &ready, sizeof(ready), 0)) < 0 || ready < 0) {
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

	if ((rc = smb_write2(w->sock, &rq, sizeof(rq), io->buf,
			     io->write ? io->len : 0)) < 0 ||
	    (rc = smb_full_io(w->sock, &res, sizeof(res), 0)) < 0)
		return -ECONNRESET; /* the worker died: its connection did */
	if (!io->write && res > 0 &&
	    smb_full_io(w->sock, io->buf, (size_t)res, 0) < 0)
		return -ECONNRESET;
	return res;
}

static void smb_worker_fini(void *wctx)
{
	struct smb_worker *w = wctx;

	close(w->sock); /* the worker sees end of file and exits */
	waitpid(w->pid, NULL, 0);
	free(w);
}

static const struct workpool_ops smb_pool = {
	.init = smb_worker_init,
	.io = smb_transfer,
	.fini = smb_worker_fini,
};

static int one_shot(const struct smb_session *sess, const char *op,
		    const char *url)
{
	struct smb_info in;
	int rc = smb_op(sess, op, url, NULL, 0, &in);

	return rc < 0 ? rc : (int)in.err;
}

static int smb_unlink(const char *url)
{
	return one_shot(NULL, "unlink", url); /* the current session */
}

static void smb_close(void *ctx)
{
	struct smb_ctx *s = ctx;

	workpool_stop(s->wt.pool);
	memset(&s->sess, 0, sizeof(s->sess)); /* the password */
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
	pthread_mutex_lock(&sess_mu);
	s->sess = cur;
	pthread_mutex_unlock(&sess_mu);
	if (args->create && (rc = one_shot(&s->sess, "create", args->path)) < 0) {
		free(s);
		return rc;
	}
	if ((rc = workpool_start(&smb_pool, s, args->depth, &s->wt.pool)) < 0) {
		if (args->create)
			one_shot(&s->sess, "unlink", args->path);
		memset(&s->sess, 0, sizeof(s->sess));
		free(s);
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
