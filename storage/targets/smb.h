/*
 * smb — SMB shares through Samba's client library (libsmbclient), without
 * mounting them: the back-end tgt_smb_ops (smb:// targets, target.h), the
 * one-shot operations below, and URL parsing (smb_url.c, portable). The
 * dialects by name are probe/smb_dialect.h, which the probe shares.
 *
 * Debian's libsmbclient is not safe to use from several threads of one
 * process (its talloc stack frames and its loaded configuration are
 * process-wide), and the daemon is threaded. So the daemon never calls it:
 * every SMB operation runs in a child process, this same program spawned
 * fresh (`storbench smb-worker URL` for a queue slot of the I/O back-end,
 * `storbench smb-op OP URL ...` for a one-shot operation), with the session
 * (protocol knobs) in its environment, the password over its socket, and
 * its answer on that socket. smb_client_linux.c is the child's side,
 * tgt_smb_linux.c the daemon's. The session is an argument of every call
 * that connects (tgt_open_args.session, smb_op); nothing is process-wide.
 */
#ifndef STORBENCH_SMB_H
#define STORBENCH_SMB_H

#include <stddef.h>
#include <stdint.h>

#include "probe/smb_dialect.h"
#include "target.h"

/* Who connects, and how: the tuning knobs of a before/after comparison. */
struct smb_session {
	char user[128];
	char password[256];
	char domain[128];
	char min_protocol[16];	/* "" = the library's default (SMB2_02) */
	char max_protocol[16];	/* "" = the library's default (SMB3_11) */
	int require_signing;	/* client signing = required */
	int require_encryption; /* SMB3 encryption required, else fail */
};

/* An smb:// URL cut into its parts. */
struct smb_url {
	char server[256];
	int port; /* 0 when the URL names none (445) */
	char share[256];
	char path[4096]; /* below the share, "" or "dir/file" */
};

/*
 * Parses smb://server[:port]/share[/path]. Returns 0, or -EINVAL with a
 * sentence in err (no user info in the URL: credentials are stored apart).
 */
int smb_url_parse(const char *url, struct smb_url *u, char *err, size_t len);

/* Is path an smb:// URL? */
int smb_is_url(const char *path);

/* Why url cannot be a target in a build without the smb back-end
 * (storbench.exe: shares go through Windows' own client), naming the
 * share the Windows way: "this build has no SMB back-end: name the share
 * as \\server\share\dir (…)", into buf. */
void smb_no_backend(const char *url, char *buf, size_t len);

enum { SMB_STAGE_CONNECT = 1, SMB_STAGE_OP = 2 };

/* "check" and "df" give up after this long: err -ETIMEDOUT. */
#define SMB_CHECK_TIMEOUT_MS 5000

/* libsmbclient's own limit on one request, in every child: a server silent
 * this long fails the I/O (-ETIMEDOUT or a reset). */
#define SMB_REQUEST_TIMEOUT_MS 20000

/* The answer of a one-shot operation (smb_op). */
struct smb_info {
	int64_t err;	    /* 0, or -errno of the failure */
	int64_t free_bytes; /* statvfs of the share: f_bavail × f_frsize */
	int64_t total_bytes;
	int64_t elapsed_ns; /* the operation alone: no spawn, no connect */
	int32_t stage;	    /* where err arose: SMB_STAGE_CONNECT (the
			       server, the logon, the share) or _OP */
	int32_t is_dir;	    /* the URL is a directory */
	int32_t signing;    /* 1, 0, or -1 when it could not be seen */
	int32_t encryption; /* 1, 0, or -1 */
	char dialect[16];   /* negotiated: "SMB3_11"; "" when unknown */
	char message[256];  /* what went wrong, in words, or "" */
};

/*
 * Runs one operation in a child process under session s (required):
 *   "check"  url is a writable directory (a file is created there with
 *            O_EXCL and removed); statvfs of the share.
 *   "probe"  "check", plus the negotiated dialect (the highest one a
 *            connection allowed only that dialect accepts, from the
 *            session's maximum down — the server picks the highest
 *            common dialect, so this is the one a plain connection
 *            negotiates), and whether signing and encryption are on for
 *            traffic after the tree connect (from the library's own log
 *            of the packets it signs and encrypts).
 *   "df"     statvfs of the share (free_bytes, total_bytes).
 *   "unlink" removes url.
 *   "sparse" creates url (O_EXCL) of size bytes by truncating it.
 *   "zeros"  creates url (O_EXCL) and writes size bytes of zeros, 1 MiB
 *            per request, on one connection.
 *   "copy"   creates url2 (O_EXCL), a server-side copy of url's first size
 *            bytes (SMB2 COPYCHUNK through smbc_splice).
 *   "copy-rw" the same, read and written through the client, 1 MiB a time.
 * (No allocated size: the library's stat derives st_blocks from the size.)
 * Returns 0 and fills *info (info->err says how the operation went), or a
 * negative errno when the child could not run (-EINVAL: no session).
 */
int smb_op(const struct smb_session *s, const char *op, const char *url,
	   const char *url2, uint64_t size, struct smb_info *info);

/* --- the wire between the daemon and its children (tgt_smb.c,
 * smb_client.c) --- */

/* One I/O request (then a write's data); the answer is an int64_t result
 * (then a read's data). */
struct smb_req {
	uint64_t offset;
	uint32_t len;
	uint32_t write;
};

/* The child's entry: argv after the program name ("smb-worker", URL) or
 * ("smb-op", OP, URL, URL2, SIZE). Returns the exit status. */
int smb_child_main(int argc, char **argv);

/* The back-end: a file on a share by URL, through libsmbclient (Linux);
 * claims smb:// targets (tgt_for_target); its session is a
 * const struct smb_session *. */
extern const struct tgt_ops tgt_smb_ops;

#endif
