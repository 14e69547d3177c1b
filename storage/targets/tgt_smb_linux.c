/*
 * tgt_smb_linux — a file on an SMB share, through Samba's client library
 * (libsmbclient), without mounting it. Paths are URLs:
 * smb://server[:port]/share/dir/file. This is the daemon's side of smb.h;
 * the library runs only in child processes (smb_client_linux.c), spawned
 * by child_spawn (child.h) and talked to over a socketpair. The session (user,
 * password, protocol knobs) comes with every call that connects: the open
 * arguments' session, the probe's, unlink's and make_file's.
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
#include "lfile.h"
#include "smb.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "os/child.h"
#include "os/os.h"
#include "workpool.h"

extern char **environ;

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
	char **env = child_env(s);
	int rc;

	if (!env)
		return -ENOMEM;
	rc = child_spawn(argv, env, pid, sock);
	free_env(env);
	if (rc < 0)
		return rc;
	/* the password first: its length (4 bytes), then its bytes; the
	 * socket buffer holds them until the child reads */
	{
		uint32_t len =
			(uint32_t)strnlen(s->password, sizeof(s->password));
		if ((rc = child_write2(*sock, &len, sizeof(len), s->password,
				       len)) < 0) {
			child_reap(*pid, *sock, 1);
			return rc;
		}
	}
	return 0;
}

int smb_op(const struct smb_session *s, const char *op, const char *url,
	   const char *url2, uint64_t size, struct smb_info *info)
{
	char sz[32];
	char *argv[] = { "storbench",
			 "smb-op",
			 (char *)op,
			 (char *)url,
			 (char *)(url2 ? url2 : ""),
			 sz,
			 NULL };
	pid_t pid;
	int sock, rc;

	memset(info, 0, sizeof(*info));
	if (!s)
		return -EINVAL;
	snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	if ((rc = spawn_child(s, argv, &pid, &sock)) < 0)
		return rc;
	/* a check answers an HTTP request: a server that does not answer
	 * must not hold it (or the API behind it) for long */
	if (strcmp(op, "check") == 0 || strcmp(op, "df") == 0) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int n;
		do
			n = poll(&pfd, 1, SMB_CHECK_TIMEOUT_MS);
		while (n < 0 && errno == EINTR);
		if (n == 0) {
			child_reap(pid, sock, 1);
			memset(info, 0, sizeof(*info));
			info->err = -ETIMEDOUT;
			info->stage = SMB_STAGE_CONNECT;
			return 0;
		}
	}
	rc = child_full_io(sock, info, sizeof(*info), 0);
	child_reap(pid, sock, 0);
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
	struct smb_session sess; /* as it was when the file was opened */
};

struct smb_worker {
	int sock;
	pid_t pid;
};

static int smb_worker_init(void *arg, unsigned i, void **wctx)
{
	struct smb_ctx *s = arg;
	struct smb_worker *w = calloc(1, sizeof(*w));
	char *argv[] = { "storbench", "smb-worker", (char *)s->url, NULL };
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
	if ((rc = child_full_io(w->sock, &ready, sizeof(ready), 0)) < 0 ||
	    ready < 0) {
		child_reap(w->pid, w->sock, 0);
		free(w);
		return rc < 0 ? -EIO : (int)ready;
	}
	*wctx = w;
	return 0;
}

static int64_t smb_transfer(void *wctx, struct tgt_io *io)
{
	struct smb_worker *w = wctx;
	struct smb_req rq = { io->offset, io->len, (uint32_t)io->write };
	int64_t res;
	int rc;

	if ((rc = child_write2(w->sock, &rq, sizeof(rq), io->buf,
			       io->write ? io->len : 0)) < 0 ||
	    (rc = child_full_io(w->sock, &res, sizeof(res), 0)) < 0)
		return -ECONNRESET; /* the worker died: its connection did */
	if (!io->write && res > 0 &&
	    child_full_io(w->sock, io->buf, (size_t)res, 0) < 0)
		return -ECONNRESET;
	return res;
}

static void smb_worker_fini(void *wctx)
{
	struct smb_worker *w = wctx;

	/* the worker sees end of file and exits */
	child_reap(w->pid, w->sock, 0);
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

static int smb_unlink(const char *url, const void *session)
{
	return one_shot(session, "unlink", url);
}

static void smb_close(void *ctx)
{
	struct smb_ctx *s = ctx;

	workpool_stop(s->wt.pool);
	os_wipe(&s->sess, sizeof(s->sess)); /* the password */
	free(s);
}

static int smb_open(const struct tgt_open_args *args, void **ctx, int *direct)
{
	struct smb_ctx *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->wt.local.h = -1;
	s->url = args->path;
	if (!args->session) {
		free(s);
		return -EINVAL;
	}
	s->sess = *(const struct smb_session *)args->session;
	if (args->create &&
	    (rc = one_shot(&s->sess, "create", args->path)) < 0) {
		free(s);
		return rc;
	}
	if ((rc = workpool_start(&smb_pool, s, args->depth, &s->wt.pool)) < 0) {
		if (args->create)
			one_shot(&s->sess, "unlink", args->path);
		os_wipe(&s->sess, sizeof(s->sess));
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

/* Copies src into dst[n]; "" when it does not fit (probe.h's rule). */
static void set_str(char *dst, size_t n, const char *src)
{
	int len = snprintf(dst, n, "%s", src);

	if (len < 0 || (size_t)len >= n)
		dst[0] = '\0';
}

/* tgt_ops.probe: this machine's fields as probe_path gives them, fs_type
 * "smb", mount_point the share's URL, device the server, the share's free
 * and total bytes, the negotiated dialect, signing and encryption. */
static int smb_probe(const char *url, const void *session, struct probe *p)
{
	const struct smb_session *s = session;
	struct smb_info in;
	struct smb_url u;
	char err[160];
	int rc;

	if ((rc = smb_url_parse(url, &u, err, sizeof(err))) < 0)
		return rc;
	if ((rc = probe_path("/", p)) < 0) /* this machine's side */
		return rc;
	p->fs_type[0] = p->mount_options[0] = p->disk[0] = '\0';
	p->device_model[0] = p->write_cache[0] = '\0';
	p->firmware_rev[0] = p->scheduler[0] = '\0';
	p->rotational = -1;
	p->fs_block_size = p->free_bytes = p->total_bytes = -1;
	if ((rc = smb_op(s, "probe", url, NULL, 0, &in)) < 0)
		return rc;
	if (in.err < 0)
		return (int)in.err;
	set_str(p->fs_type, sizeof(p->fs_type), "smb");
	if (u.port)
		snprintf(p->mount_point, sizeof(p->mount_point),
			 "smb://%s:%d/%s", u.server, u.port, u.share);
	else
		snprintf(p->mount_point, sizeof(p->mount_point), "smb://%s/%s",
			 u.server, u.share);
	set_str(p->device, sizeof(p->device), u.server);
	set_str(p->smb_server, sizeof(p->smb_server), u.server);
	p->smb_port = u.port;
	set_str(p->smb_share, sizeof(p->smb_share), u.share);
	set_str(p->smb_dialect, sizeof(p->smb_dialect), in.dialect);
	p->smb_signing = in.signing;
	p->smb_encryption = in.encryption;
	p->free_bytes = in.free_bytes;
	p->total_bytes = in.total_bytes;
	return 0;
}

/* tgt_ops.check_dir: the child's "check" (the directory takes a new file),
 * its failure in words and who is to blame. */
static int smb_check_dir(const char *url, const void *session,
			 struct tgt_check *c)
{
	const struct smb_session *sess = session;
	struct smb_info in;
	int rc = smb_op(sess, "check", url, NULL, 0, &in), e;

	if (rc < 0)
		return rc;
	if (in.err >= 0)
		return 0;
	e = (int)-in.err;
	if (e == EACCES || e == EPERM) {
		c->blame = TGT_BLAME_LOGON;
		snprintf(c->why, sizeof(c->why),
			 "%s refused the logon of user \"%s\" (wrong user, "
			 "password or domain, or no access to the share)",
			 url, sess->user);
	} else if ((e == ENOENT || e == ENODEV) && in.stage == SMB_STAGE_OP) {
		snprintf(c->why, sizeof(c->why),
			 "%s does not exist on the share", url);
	} else if (e == ENOENT || e == ENODEV) {
		snprintf(c->why, sizeof(c->why),
			 "%s: the server has no such share", url);
	} else if (e == ENOTDIR) {
		snprintf(
			c->why, sizeof(c->why),
			"%s is not a directory (storbench creates its own test "
			"file inside a directory)",
			url);
	} else if (e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH) {
		snprintf(c->why, sizeof(c->why),
			 "cannot reach the SMB server of %s: %s", url,
			 strerror(e));
	} else if (e == ETIMEDOUT) {
		snprintf(c->why, sizeof(c->why),
			 "the SMB server of %s did not answer within %d s", url,
			 SMB_CHECK_TIMEOUT_MS / 1000);
	} else if (e == EINVAL && in.stage == SMB_STAGE_OP) {
		snprintf(c->why, sizeof(c->why),
			 "%s: the server refused the path (an invalid or too "
			 "long "
			 "name)",
			 url);
	} else if (e == EINVAL || e == ECONNRESET) {
		c->blame = TGT_BLAME_SESSION;
		snprintf(c->why, sizeof(c->why),
			 "the connection to %s failed while negotiating (%s): "
			 "no "
			 "dialect common to the server and min_protocol…"
			 "max_protocol, or signing or encryption required and "
			 "refused",
			 url, strerror(e));
	} else {
		snprintf(c->why, sizeof(c->why), "%s: %s", url, strerror(e));
	}
	return -e;
}

/* tgt_ops.space: statvfs of the share, from the child's "df". */
static int smb_space(const char *url, const void *session, int64_t *free_bytes,
		     int64_t *total_bytes)
{
	struct smb_info in;
	int rc = smb_op(session, "df", url, NULL, 0, &in);

	if (rc < 0)
		return rc;
	if (in.err < 0)
		return (int)in.err;
	*free_bytes = in.free_bytes;
	*total_bytes = in.total_bytes;
	return 0;
}

static int smb_claims(const char *target)
{
	return smb_is_url(target);
}

/* "smb://server[:port]/share/": what every path on the share starts with. */
static int smb_volume(const char *url, char *buf, size_t len)
{
	struct smb_url u;
	char err[160];
	int n;

	if (smb_url_parse(url, &u, err, sizeof(err)) < 0)
		return -EINVAL;
	if (u.port)
		n = snprintf(buf, len, "smb://%s:%d/%s/", u.server, u.port,
			     u.share);
	else
		n = snprintf(buf, len, "smb://%s/%s/", u.server, u.share);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* tgt_ops.make_file through a one-shot child on one connection; *secs is
 * the child's own clock, which leaves out its start and its connection.
 * libsmbclient has no call that allocates or clones (no FSCTL for it). */
static int smb_make(const struct tgt_open_args *dst, enum tgt_file_op op,
		    const char *src, uint64_t size, double *secs)
{
	static const char *const child_op[TGT_FILE_N] = {
		[TGT_FILE_SPARSE] = "sparse",
		[TGT_FILE_ZEROS] = "zeros",
		[TGT_FILE_COPY_OFFLOAD] = "copy",
		[TGT_FILE_COPY_RW] = "copy-rw",
	};
	struct smb_info in;
	int rc;

	*secs = 0;
	if (op >= TGT_FILE_N || !child_op[op])
		return -EOPNOTSUPP;
	rc = smb_op(dst->session, child_op[op], src ? src : dst->path,
		    src ? dst->path : NULL, size, &in);
	*secs = (double)in.elapsed_ns / 1e9;
	return rc < 0 ? rc : (int)in.err;
}

const struct tgt_ops tgt_smb_ops = {
	.version = TGT_OPS_VERSION,
	.name = "smb",
	.title = "libsmbclient, a child process and connection per queue slot",
	.caps = TGT_CAP_ASYNC | TGT_CAP_FILES | TGT_CAP_REMOTE,
	.file_caps = TGT_FILE_CAP(TGT_FILE_SPARSE) |
		     TGT_FILE_CAP(TGT_FILE_ZEROS) |
		     TGT_FILE_CAP(TGT_FILE_COPY_OFFLOAD) |
		     TGT_FILE_CAP(TGT_FILE_COPY_RW),
	.file_names = { [TGT_FILE_COPY_OFFLOAD] = "server_copy" },
	.max_slots = 512,
	.slot_what = "process and SMB connection",
	.claims = smb_claims,
	.volume = smb_volume,
	.probe = smb_probe,
	.check_dir = smb_check_dir,
	.space = smb_space,
	.open = smb_open,
	.queue = workpool_tgt_queue,
	.commit = workpool_tgt_commit,
	.reap = workpool_tgt_reap,
	.fsync = smb_fsync,
	.preallocate = smb_preallocate,
	.close = smb_close,
	.unlink = smb_unlink,
	.make_file = smb_make,
};
