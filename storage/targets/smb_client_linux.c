/*
 * smb_client — the child process's side of smb.h: the only code that calls
 * libsmbclient. One process is one session: its credentials and knobs come
 * from the environment the daemon spawned it with (STORBENCH_SMB_*) and its
 * password from the first bytes on fd 0 (a socket to the daemon; never in
 * the environment, which /proc/PID/environ shows for the process's life);
 * its answers go to fd 1, the same socket.
 *
 * Knobs: minimum/maximum protocol through smbc_setOptionProtocols,
 * encryption through smbc_setOptionSmbEncryptionLevel(REQUIRE). Signing has
 * no library call; libsmbclient reads $HOME/.smb/smb.conf in place of the
 * system's configuration when it exists, so a child that must sign writes
 * one ("client signing = required", after an include of
 * /etc/samba/smb.conf) in a private temporary HOME, which it removes once
 * the library has read it.
 */
#include "smb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <libsmbclient.h>

#include "os/child.h"

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds (the tests): libtalloc, under libsmbclient, keeps blocks
 * for the process's life; they are not leaks. */
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

static struct smb_session sess;

static void env_copy(const char *name, char *dst, size_t len)
{
	const char *v = getenv(name);

	snprintf(dst, len, "%s", v ? v : "");
}

static void session_from_env(void)
{
	const char *v;

	uint32_t len = 0;

	env_copy("STORBENCH_SMB_USER", sess.user, sizeof(sess.user));
	env_copy("STORBENCH_SMB_DOMAIN", sess.domain, sizeof(sess.domain));
	env_copy("STORBENCH_SMB_MIN_PROTOCOL", sess.min_protocol,
		 sizeof(sess.min_protocol));
	env_copy("STORBENCH_SMB_MAX_PROTOCOL", sess.max_protocol,
		 sizeof(sess.max_protocol));
	sess.require_signing =
		(v = getenv("STORBENCH_SMB_SIGNING")) && *v == '1';
	sess.require_encryption =
		(v = getenv("STORBENCH_SMB_ENCRYPTION")) && *v == '1';
	/* the password: the first bytes on the socket (tgt_smb.c) */
	if (child_full_io(0, &len, sizeof(len), 0) == 0 &&
	    len < sizeof(sess.password) &&
	    child_full_io(0, sess.password, len, 0) == 0)
		sess.password[len] = '\0';
	else
		sess.password[0] = '\0';
}

static void auth_fn(SMBCCTX *c, const char *srv, const char *shr, char *wg,
		    int wglen, char *un, int unlen, char *pw, int pwlen)
{
	(void)c;
	(void)srv;
	(void)shr;
	if (sess.domain[0])
		snprintf(wg, (size_t)wglen, "%s", sess.domain);
	snprintf(un, (size_t)unlen, "%s", sess.user);
	snprintf(pw, (size_t)pwlen, "%s", sess.password);
}

/* The private HOME with .smb/smb.conf, until the library has read it. */
static char home[64];
static int conf_done;

static void conf_write(void)
{
	char path[128];
	FILE *f;

	snprintf(home, sizeof(home), "/tmp/storbench-smb.XXXXXX");
	if (!mkdtemp(home)) {
		home[0] = '\0';
		return;
	}
	snprintf(path, sizeof(path), "%s/.smb", home);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.smb/smb.conf", home);
	if ((f = fopen(path, "w")) != NULL) {
		/* the system's settings, then ours in a [global] reopened
		 * after the shares it may end with */
		if (access("/etc/samba/smb.conf", R_OK) == 0)
			fprintf(f, "[global]\ninclude = /etc/samba/smb.conf\n");
		fprintf(f, "[global]\nclient signing = required\n");
		fclose(f);
	}
	setenv("HOME", home, 1);
}

static void conf_remove(void)
{
	char path[128];

	if (!home[0])
		return;
	snprintf(path, sizeof(path), "%s/.smb/smb.conf", home);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.smb", home);
	rmdir(path);
	rmdir(home);
	home[0] = '\0';
}

/* A new context (its own connection) limited to [minp, maxp] ("" = the
 * session's), or NULL. */
static SMBCCTX *new_ctx(const char *minp, const char *maxp)
{
	const char *lo = minp[0] ? minp : sess.min_protocol;
	const char *hi = maxp[0] ? maxp : sess.max_protocol;
	SMBCCTX *c;

	/* the library reads its configuration once, with the first context */
	if (sess.require_signing && !conf_done)
		conf_write();
	conf_done = 1;
	if (!(c = smbc_new_context())) {
		conf_remove();
		return NULL;
	}
	smbc_setFunctionAuthDataWithContext(c, auth_fn);
	smbc_setOptionNoAutoAnonymousLogin(c, 1);
	smbc_setOptionDebugToStderr(c, 1);
	smbc_setTimeout(c, SMB_REQUEST_TIMEOUT_MS);
	if (sess.require_encryption)
		smbc_setOptionSmbEncryptionLevel(c, SMBC_ENCRYPTLEVEL_REQUIRE);
	if (lo[0] || hi[0])
		smbc_setOptionProtocols(c, lo[0] ? lo : NULL,
					hi[0] ? hi : NULL);
	if (!smbc_init_context(c)) {
		smbc_free_context(c, 1);
		conf_remove();
		return NULL;
	}
	conf_remove();
	return c;
}

static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

/* --- the I/O worker: one queue slot of tgt_smb --- */

static int worker_main(const char *url)
{
	SMBCCTX *c = new_ctx("", "");
	SMBCFILE *f;
	char *buf = NULL;
	size_t cap = 0;
	int64_t ready;
	struct smb_req rq;

	errno = 0;
	f = c ? smbc_getFunctionOpen(c)(c, url, O_RDWR, 0) : NULL;
	ready = f ? 0 : neg_errno();
	if (child_full_io(1, &ready, sizeof(ready), 1) < 0 || ready < 0)
		return 1;
	while (child_full_io(0, &rq, sizeof(rq), 0) == 0) {
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
		if (rq.write && child_full_io(0, buf, rq.len, 0) < 0)
			break;
		errno = 0;
		res = smbc_getFunctionLseek(c)(c, f, (off_t)rq.offset,
					       SEEK_SET) < 0
			      ? neg_errno()
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
			res = n < 0 ? neg_errno() : (int64_t)off;
		if (child_write2(1, &res, sizeof(res), buf,
				 !rq.write && res > 0 ? (size_t)res : 0) < 0)
			break;
	}
	smbc_getFunctionClose(c)(c, f);
	smbc_free_context(c, 1);
	free(buf);
	return 0;
}

/* --- one-shot operations --- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The share's root of url: smb://server[:port]/share */
static void share_root(const char *url, char *root, size_t len)
{
	const char *p = url + 6; /* past smb:// */

	p = strchr(p, '/');
	p = p ? strchr(p + 1, '/') : NULL;
	snprintf(root, len, "%.*s", p ? (int)(p - url) : (int)strlen(url), url);
}

static int statvfs_of(SMBCCTX *c, const char *url, struct smb_info *in)
{
	struct statvfs v;
	char *u = strdup(url);
	int rc;

	if (!u)
		return -ENOMEM;
	errno = 0;
	rc = smbc_getFunctionStatVFS(c)(c, u, &v) < 0 ? neg_errno() : 0;
	free(u);
	/* libsmbclient fills statvfs from the SMB FS_FULL_SIZE answer:
	 * f_bsize is bytes per sector, f_frsize sectors per allocation unit,
	 * the counts are allocation units */
	if (rc == 0) {
		uint64_t unit =
			(uint64_t)v.f_bsize * (v.f_frsize ? v.f_frsize : 1);
		in->free_bytes = (int64_t)(v.f_bavail * unit);
		in->total_bytes = (int64_t)(v.f_blocks * unit);
	}
	return rc;
}

/* url is a directory we can create a file in; fills free space. */
static int op_check(SMBCCTX *c, const char *url, struct smb_info *in)
{
	struct stat st;
	char probe[4500];
	SMBCFILE *f;

	errno = 0;
	if (smbc_getFunctionStat(c)(c, url, &st) < 0)
		return neg_errno();
	in->is_dir = S_ISDIR(st.st_mode);
	if (!in->is_dir)
		return -ENOTDIR;
	statvfs_of(c, url, in);
	snprintf(probe, sizeof(probe), "%s/.storbench-check-%d", url,
		 (int)getpid());
	errno = 0;
	f = smbc_getFunctionOpen(c)(c, probe, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (!f)
		return neg_errno();
	smbc_getFunctionClose(c)(c, f);
	smbc_getFunctionUnlink(c)(c, probe);
	return 0;
}

/* Runs a stat on url with the library logging every packet to a memory
 * file, then reads whether it signed or encrypted them. */
static void observe_security(SMBCCTX *c, const char *url, struct smb_info *in)
{
	int saved = dup(2), mfd = memfd_create("smb-log", 0);
	char *log = NULL;
	struct stat st;
	off_t n;

	in->signing = in->encryption = -1;
	if (saved < 0 || mfd < 0)
		goto out;
	fflush(stderr);
	dup2(mfd, 2);
	smbc_setDebug(c, 10);
	smbc_getFunctionStat(c)(c, url, &st);
	smbc_setDebug(c, 0);
	fflush(stderr);
	dup2(saved, 2);
	n = lseek(mfd, 0, SEEK_END);
	if (n <= 0 || !(log = calloc(1, (size_t)n + 1)) ||
	    pread(mfd, log, (size_t)n, 0) != n)
		goto out;
	/* the library's own words for a request it sent: without them the
	 * log is not what we expect, and nothing is claimed */
	if (!strstr(log, "SMBC_getatr"))
		goto out;
	in->encryption = strstr(log, "Encrypted SMB2 message") != NULL;
	in->signing = in->encryption || strstr(log, "signed SMB2 message");
out:
	free(log);
	if (mfd >= 0)
		close(mfd);
	if (saved >= 0)
		close(saved);
}

static int op_probe(SMBCCTX *c, const char *url, struct smb_info *in)
{
	char root[600];
	int rc = op_check(c, url, in);
	int hi = sess.max_protocol[0] ? smb_dialect_index(sess.max_protocol)
				      : smb_n_dialects - 1;
	int lo =
		sess.min_protocol[0] ? smb_dialect_index(sess.min_protocol) : 0;
	struct stat st;

	if (rc < 0)
		return rc;
	share_root(url, root, sizeof(root));
	for (int d = hi; d >= lo && d >= 0; d--) {
		SMBCCTX *t = new_ctx(smb_dialects[d], smb_dialects[d]);
		int ok = t && smbc_getFunctionStat(t)(t, root, &st) == 0;
		if (t)
			smbc_free_context(t, 1);
		if (ok) {
			snprintf(in->dialect, sizeof(in->dialect), "%s",
				 smb_dialects[d]);
			break;
		}
	}
	observe_security(c, root, in);
	return 0;
}

static SMBCFILE *open_new(SMBCCTX *c, const char *url)
{
	errno = 0;
	return smbc_getFunctionOpen(c)(c, url, O_RDWR | O_CREAT | O_EXCL, 0600);
}

static int op_sparse(SMBCCTX *c, const char *url, uint64_t size)
{
	SMBCFILE *f = open_new(c, url);
	int rc;

	if (!f)
		return neg_errno();
	errno = 0;
	rc = smbc_getFunctionFtruncate(c)(c, f, (off_t)size) < 0 ? neg_errno()
								 : 0;
	smbc_getFunctionClose(c)(c, f);
	return rc;
}

#define CHUNK (1 << 20)

/* Writes size bytes to f: zeros when in is NULL, else what in holds. */
static int pump(SMBCCTX *c, SMBCFILE *in, SMBCFILE *out, uint64_t size)
{
	char *buf = calloc(1, CHUNK);
	uint64_t done = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (done < size && rc == 0) {
		size_t want =
			size - done < CHUNK ? (size_t)(size - done) : CHUNK;
		ssize_t n = (ssize_t)want, w = 0;
		errno = 0;
		if (in &&
		    (n = smbc_getFunctionRead(c)(c, in, buf, want)) <= 0) {
			rc = n < 0 ? neg_errno() : -EIO;
			break;
		}
		while (w < n && rc == 0) {
			ssize_t k = smbc_getFunctionWrite(c)(c, out, buf + w,
							     (size_t)(n - w));
			if (k <= 0)
				rc = k < 0 ? neg_errno() : -EIO;
			else
				w += k;
		}
		done += (uint64_t)n;
	}
	free(buf);
	return rc;
}

/* The library reports progress of a server-side copy; go on. */
static int splice_go_on(off_t n, void *priv)
{
	(void)n;
	(void)priv;
	return 1;
}

static int op_copy(SMBCCTX *c, const char *src, const char *dst, uint64_t size,
		   int server_side)
{
	SMBCFILE *in, *out;
	int rc = 0;

	errno = 0;
	if (!(in = smbc_getFunctionOpen(c)(c, src, O_RDONLY, 0)))
		return neg_errno();
	if (!(out = open_new(c, dst))) {
		rc = neg_errno();
		smbc_getFunctionClose(c)(c, in);
		return rc;
	}
	if (!server_side) {
		rc = pump(c, in, out, size);
	} else {
		errno = 0;
		off_t n = smbc_getFunctionSplice(c)(c, in, out, (off_t)size,
						    splice_go_on, NULL);
		if (n < 0)
			rc = neg_errno();
		else if ((uint64_t)n != size)
			rc = -EIO;
	}
	smbc_getFunctionClose(c)(c, in);
	smbc_getFunctionClose(c)(c, out);
	return rc;
}

static int op_run(SMBCCTX *c, const char *op, const char *url, const char *url2,
		  uint64_t size, struct smb_info *in)
{
	SMBCFILE *f;
	int rc;

	if (strcmp(op, "check") == 0)
		return op_check(c, url, in);
	if (strcmp(op, "probe") == 0)
		return op_probe(c, url, in);
	if (strcmp(op, "df") == 0)
		return statvfs_of(c, url, in);
	if (strcmp(op, "unlink") == 0) {
		errno = 0;
		return smbc_getFunctionUnlink(c)(c, url) < 0 ? neg_errno() : 0;
	}
	if (strcmp(op, "create") == 0) {
		if (!(f = open_new(c, url)))
			return neg_errno();
		smbc_getFunctionClose(c)(c, f);
		return 0;
	}
	if (strcmp(op, "sparse") == 0)
		return op_sparse(c, url, size);
	if (strcmp(op, "zeros") == 0) {
		if (!(f = open_new(c, url)))
			return neg_errno();
		rc = pump(c, NULL, f, size);
		smbc_getFunctionClose(c)(c, f);
		return rc;
	}
	if (strcmp(op, "copy") == 0 || strcmp(op, "copy-rw") == 0)
		return op_copy(c, url, url2, size, strcmp(op, "copy") == 0);
	return -ENOSYS;
}

static int op_main(const char *op, const char *url, const char *url2,
		   uint64_t size)
{
	struct smb_info in = { .signing = -1, .encryption = -1 };
	char root[600];
	struct stat st;
	SMBCCTX *c = new_ctx("", "");
	int64_t t0;

	in.stage = SMB_STAGE_CONNECT;
	if (!c) {
		in.err = neg_errno();
	} else {
		/* connect first, so that the time is the operation's */
		share_root(url, root, sizeof(root));
		errno = 0;
		if (smbc_getFunctionStat(c)(c, root, &st) < 0) {
			in.err = neg_errno();
		} else {
			in.stage = SMB_STAGE_OP;
			t0 = now_ns();
			in.err = op_run(c, op, url, url2, size, &in);
			in.elapsed_ns = now_ns() - t0;
		}
		smbc_free_context(c, 1);
	}
	return child_full_io(1, &in, sizeof(in), 1) < 0;
}

int smb_child_main(int argc, char **argv)
{
	session_from_env();
	if (argc == 2 && strcmp(argv[0], "smb-worker") == 0)
		return worker_main(argv[1]);
	if (argc == 5 && strcmp(argv[0], "smb-op") == 0)
		return op_main(argv[1], argv[2], argv[3],
			       strtoull(argv[4], NULL, 10));
	fprintf(stderr, "smb child: bad arguments\n");
	return 2;
}
