/*
 * confine — the allowed roots and devices (confine.h has the design; the
 * reserve is confine_reserve.c's). Whether a block device is in use, and
 * where it is mounted, is the system's answer (sys_device_free, sys.h).
 *
 * Shares through the system's own SMB client (Windows: \\server\share\dir,
 * unc.h) are roots like directories, compared by their parts (server and
 * share without case, then the names below). A path on a share is held
 * against them by its text before anything opens it, so no server outside
 * them is ever asked (nor sent the daemon's logon); then, resolved, it must
 * still lie under one.
 */
#include "confine.h"
#include "os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sys.h"
#include "targets/smb.h"
#include "targets/target.h"
#include "unc.h"

struct root {
	char given[PATH_MAX]; /* as --allow named it (smb://… for a share) */
	char real[PATH_MAX];  /* resolved at start; "" for an smb:// share,
				 or a share path not reached at start */
	struct smb_url smb;   /* an smb:// share's parts */
	int is_smb;
	/* on a share through the system's client (sys_path_share): its
	 * parts as resolved (real), else as given; and as given */
	struct unc_path unc, unc_given;
	int is_unc, given_unc;
};

static struct root roots[CONFINE_MAX_ROOTS];
static size_t n_roots;
static uint64_t devices[CONFINE_MAX_ROOTS]; /* sys_device_id */
static size_t n_devices;

void confine_reset(void)
{
	n_roots = n_devices = 0;
	confine_reserve_reset();
}

/* Does path name a ".." component? (Between separators: '/', and '\\'
 * on Windows.) */
static int has_dotdot(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, "..")) != NULL) {
		if ((p == path || sys_path_sep(p[-1])) &&
		    (p[2] == '\0' || sys_path_sep(p[2])))
			return 1;
		p += 2;
	}
	return 0;
}

/* Is path equal to root or below it (on a '/' boundary)? A root that ends
 * in '/' is a whole tree: "/" (refused as a root, but a scratch may be
 * compared with it), "D:/" (a Windows volume, a valid root). */
static int under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n && root[n - 1] == '/')
		return strncmp(path, root, n) == 0;
	return strncmp(path, root, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

/* path as text, its separators '/' and no '/' at its end but a root's
 * ("/", "D:/"): how a path given by a person compares with a resolved one
 * ("D:\bench\" is "D:/bench"). */
static void text_form(const char *path, char *out, size_t len)
{
	size_t n = 0;

	for (; *path && n + 1 < len; path++)
		out[n++] = sys_path_sep(*path) ? '/' : *path;
	while (n > 1 && out[n - 1] == '/' && out[n - 2] != ':')
		n--;
	out[n] = '\0';
}

/* Do two paths read the same, separators aside? */
static int same_text(const char *a, const char *b)
{
	char x[PATH_MAX], y[PATH_MAX];

	text_form(a, x, sizeof(x));
	text_form(b, y, sizeof(y));
	return strcmp(x, y) == 0;
}

/* under(), separators aside: is path below root as written? */
static int under_text(const char *path, const char *root)
{
	char x[PATH_MAX], y[PATH_MAX];

	text_form(path, x, sizeof(x));
	text_form(root, y, sizeof(y));
	return under(x, y);
}

/* The system's words for the last failure of a sys.h call, "(…)" after a
 * space, or the errno's when it has none. */
static void os_words(int rc, char *buf, size_t len)
{
	char w[300];

	if (os_error_detail(w, sizeof(w)))
		snprintf(buf, len, "%s", w);
	else
		snprintf(buf, len, "%s", strerror(-rc));
}

/* A root on a share that cannot be reached now (the daemon's account may
 * not open it: a job's credential may): allowed by its name, with a
 * warning in why. */
static int allow_unreached(struct root *r, int rc, char *why, size_t len)
{
	char words[300];

	os_words(rc, words, sizeof(words));
	r->unc = r->unc_given;
	r->is_unc = 1;
	n_roots++;
	snprintf(why, len,
		 "--allow %s: the share cannot be reached now (%s); allowed "
		 "by its name: a job reaches it with the daemon's account, "
		 "or with its credential when it names one",
		 r->given, words);
	return 0;
}

int confine_allow(const char *path, char *why, size_t len)
{
	struct root *r;
	char err[160];
	int rc, kind;

	why[0] = '\0';
	if (n_roots == CONFINE_MAX_ROOTS) {
		snprintf(why, len, "at most %d allowed roots",
			 CONFINE_MAX_ROOTS);
		return -E2BIG;
	}
	r = &roots[n_roots];
	memset(r, 0, sizeof(*r));
	if (strlen(path) >= sizeof(r->given)) {
		snprintf(why, len, "--allow %.60s…: path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(r->given, sizeof(r->given), "%s", path);
	if (smb_is_url(path) && !tgt_for_target(path)) {
		smb_no_backend(path, err, sizeof(err));
		snprintf(why, len, "--allow %s: %s", path, err);
		return -EINVAL;
	}
	if (smb_is_url(path)) {
		if (smb_url_parse(path, &r->smb, err, sizeof(err)) < 0) {
			snprintf(why, len, "--allow %s: %s", path, err);
			return -EINVAL;
		}
		r->is_smb = 1;
		n_roots++;
		return 0;
	}
	if (!sys_path_absolute(path) || has_dotdot(path)) {
		snprintf(why, len,
			 "--allow %s: an absolute path without \"..\"", path);
		return -EINVAL;
	}
	if (sys_path_share(path)) {
		if (unc_parse(path, &r->unc_given, err, sizeof(err)) < 0) {
			snprintf(why, len, "--allow %s: %s", path, err);
			return -EINVAL;
		}
		r->given_unc = 1;
	}
	if ((kind = sys_path_kind(path)) < 0) {
		if (r->given_unc)
			return allow_unreached(r, kind, why, len);
		snprintf(why, len, "--allow %s: %s", path, strerror(-kind));
		return kind;
	}
	if (kind == SYS_KIND_LINK) {
		char to[PATH_MAX];
		snprintf(
			why, len,
			"--allow %s: is a symlink (to %s); allow the directory "
			"it points to by its own path",
			path, sys_realpath(path, to) == 0 ? to : "nowhere");
		return -ELOOP;
	}
	if (kind != SYS_KIND_DIR) {
		snprintf(why, len, "--allow %s: not a directory%s", path,
			 kind == SYS_KIND_DEVICE ? " (a raw device needs "
						   "--allow-device)"
						 : "");
		return -ENOTDIR;
	}
	if ((rc = sys_realpath(path, r->real)) < 0) {
		if (r->given_unc) {
			r->real[0] = '\0';
			return allow_unreached(r, rc, why, len);
		}
		snprintf(why, len, "--allow %s: %s", path, strerror(-rc));
		return rc;
	}
	if (strcmp(r->real, "/") == 0) {
		snprintf(why, len,
			 "--allow %s: the whole filesystem tree cannot be a "
			 "root; name the directories benchmarks may use",
			 path);
		return -EINVAL;
	}
	/* a share, or a drive that leads to one */
	if (sys_path_share(r->real)) {
		if (unc_parse(r->real, &r->unc, err, sizeof(err)) < 0) {
			snprintf(why, len, "--allow %s: resolves to %s: %s",
				 path, r->real, err);
			return -EINVAL;
		}
		r->is_unc = 1;
	}
	n_roots++;
	return 0;
}

int confine_allow_device(const char *path, char *why, size_t len)
{
	struct stat st;
	char real[PATH_MAX];
	uint64_t id;
	int kind = sys_path_kind(path);

	if (n_devices == CONFINE_MAX_ROOTS) {
		snprintf(why, len, "at most %d allowed devices",
			 CONFINE_MAX_ROOTS);
		return -E2BIG;
	}
	/* (a Windows volume, \\.\D:, is told by its name; stat has none) */
	if (kind != SYS_KIND_DEVICE && stat(path, &st) != 0) {
		snprintf(why, len, "--allow-device %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	if (sys_device_id(path, real, &id) < 0) {
		if (kind == SYS_KIND_DEVICE) /* Windows: sys_win.c */
			snprintf(why, len,
				 "--allow-device %s: storbench does not write "
				 "raw devices on this system; allow a "
				 "directory in the volume",
				 path);
		else
			snprintf(why, len,
				 "--allow-device %s: not a block device", path);
		return -ENOTBLK;
	}
	devices[n_devices++] = id;
	return 0;
}

void confine_roots_text(const char *scratch, int kind, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (scratch && kind != CONFINE_SMB && kind != CONFINE_SHARE)
		used = (size_t)snprintf(buf, len, "%s", scratch);
	for (size_t i = 0; i < n_roots && used < len; i++) {
		if ((kind == CONFINE_LOCAL && roots[i].is_smb) ||
		    (kind == CONFINE_SMB && !roots[i].is_smb) ||
		    (kind == CONFINE_SHARE && !roots[i].is_unc) ||
		    (scratch && strcmp(roots[i].given, scratch) == 0))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "", roots[i].given);
	}
}

/* Is the path u under the share root r: by its parts as resolved, or as
 * --allow named them? */
static int under_share(const struct unc_path *u, const struct root *r)
{
	return r->is_unc && (unc_under(u, &r->unc) ||
			     (r->given_unc && unc_under(u, &r->unc_given)));
}

int confine_share(const char *path, char *why, size_t len)
{
	struct unc_path u;
	char err[160], list[512], share[600];

	if (unc_parse(path, &u, err, sizeof(err)) < 0) {
		snprintf(why, len, "%s: %s", path, err);
		return -EINVAL;
	}
	for (size_t i = 0; i < n_roots; i++)
		if (under_share(&u, &roots[i]))
			return 0;
	confine_roots_text(NULL, CONFINE_SHARE, list, sizeof(list));
	(void)unc_format(&u, '\\', 1, share, sizeof(share));
	snprintf(why, len,
		 "%s: outside the allowed shares (%s); the daemon's --allow %s "
		 "would allow it",
		 path, list[0] ? list : "none is allowed", share);
	return -EACCES;
}

/* Is real, resolved onto a share, under a share root that is still what
 * it was at start? 0, or -EACCES with the sentence for path. */
static int share_final(const char *path, const char *real, char *why,
		       size_t len)
{
	struct unc_path u, p, was;
	char err[160], now[PATH_MAX] = "", list[512], share[600];
	int lexical = 0, named = sys_path_share(path) &&
				 unc_parse(path, &p, err, sizeof(err)) == 0;

	if (unc_parse(real, &u, err, sizeof(err)) < 0) {
		snprintf(why, len, "%s: resolves to %s: %s", path, real, err);
		return -EACCES;
	}
	for (size_t i = 0; i < n_roots; i++) {
		const struct root *r = &roots[i];
		lexical |= named && under_share(&p, r);
		if (!r->is_unc || !unc_under(&u, &r->unc))
			continue;
		/* a root reached at start must still be what it was then */
		if (r->real[0] &&
		    (sys_realpath(r->given, now) < 0 ||
		     unc_parse(now, &was, err, sizeof(err)) < 0 ||
		     !unc_under(&was, &r->unc) || !unc_under(&r->unc, &was))) {
			snprintf(why, len,
				 "%s: the allowed root %s now resolves to %s, "
				 "not %s as when the daemon started; refused",
				 path, r->given, now[0] ? now : "nothing",
				 r->real);
			return -EACCES;
		}
		return 0;
	}
	confine_roots_text(NULL, CONFINE_ALL, list, sizeof(list));
	(void)unc_format(&u, '\\', 1, share, sizeof(share));
	if (lexical)
		snprintf(why, len,
			 "%s: resolves to %s, outside the allowed roots (%s): "
			 "a link leads out of them",
			 path, real, list);
	else
		snprintf(why, len,
			 "%s: resolves to %s, outside the allowed roots (%s); "
			 "the daemon's --allow %s would allow it",
			 path, real, list, share);
	return -EACCES;
}

int confine_dir(const char *path, const char *scratch, char real[PATH_MAX],
		char *why, size_t len)
{
	char list[512], now[PATH_MAX], words[300];
	int lexical = 0, share = sys_path_share(path), rc;

	if (!sys_path_absolute(path)) {
		snprintf(why, len, "%s: must be an absolute path", path);
		return -EINVAL;
	}
	if (has_dotdot(path)) {
		snprintf(why, len,
			 "%s: names \"..\"; give the directory's own path "
			 "(\"..\" could lead out of the allowed roots)",
			 path);
		return -EACCES;
	}
	/* a share: allowed by its text before anything opens it */
	if (share && (rc = confine_share(path, why, len)) < 0)
		return rc;
	if ((rc = sys_realpath(path, real)) < 0) {
		if (share) {
			os_words(rc, words, sizeof(words));
			snprintf(why, len,
				 "%s: Windows' SMB client cannot open it (%s) "
				 "with the daemon's account, or with the "
				 "job's credential when it names one",
				 path, words);
			/* not a refusal of the roots (403) */
			return rc == -EACCES ? -EPERM : rc;
		}
		snprintf(why, len, "%s: %s", path,
			 rc == -ENOENT ? "does not exist" : strerror(-rc));
		return rc;
	}
	if (scratch && sys_realpath(scratch, now) == 0 && under(real, now))
		return 0;
	if (sys_path_share(real))
		return share_final(path, real, why, len);
	for (size_t i = 0; i < n_roots; i++) {
		const struct root *r = &roots[i];
		if (r->is_smb || !r->real[0]) /* (a share not reached) */
			continue;
		if (under_text(path, r->given) || under_text(path, r->real))
			lexical = 1;
		if (!under(real, r->real))
			continue;
		/* the root itself must still be what it was at start */
		if (sys_realpath(r->given, now) < 0 ||
		    strcmp(now, r->real) != 0) {
			snprintf(why, len,
				 "%s: the allowed root %s now resolves to %s, "
				 "not %s as when the daemon started (replaced "
				 "by a symlink?); refused",
				 path, r->given, now[0] ? now : "nothing",
				 r->real);
			return -EACCES;
		}
		return 0;
	}
	confine_roots_text(scratch, CONFINE_LOCAL, list, sizeof(list));
	if (lexical || !same_text(path, real))
		snprintf(why, len,
			 "%s: resolves to %s, outside the allowed roots (%s): "
			 "a symlink leads out of them",
			 path, real, list);
	else
		snprintf(why, len,
			 "%s: outside the allowed roots (%s); the daemon's "
			 "--allow %s would allow it",
			 path, list, path);
	return -EACCES;
}

int confine_smb(const char *url, char *why, size_t len)
{
	struct smb_url u;
	char err[160], list[512];

	if (smb_url_parse(url, &u, err, sizeof(err)) < 0) {
		snprintf(why, len, "%s", err);
		return -EINVAL;
	}
	for (size_t i = 0; i < n_roots; i++) {
		const struct smb_url *r = &roots[i].smb;
		size_t n = strlen(r->path);
		if (!roots[i].is_smb || strcasecmp(r->server, u.server) != 0 ||
		    (r->port ? r->port : 445) != (u.port ? u.port : 445) ||
		    strcasecmp(r->share, u.share) != 0)
			continue;
		if (n == 0 || (strncmp(u.path, r->path, n) == 0 &&
			       (u.path[n] == '\0' || u.path[n] == '/')))
			return 0;
	}
	confine_roots_text(NULL, CONFINE_SMB, list, sizeof(list));
	snprintf(why, len,
		 "%s: not under an allowed share (%s); the daemon's --allow "
		 "smb://server/share allows one",
		 url, list[0] ? list : "none is allowed");
	return -EACCES;
}

int confine_device(const char *path, char real[PATH_MAX], uint64_t *bytes,
		   char *why, size_t len)
{
	uint64_t id;
	size_t i;
	int rc;

	if (sys_device_id(path, real, &id) < 0)
		return -ENOTBLK;
	for (i = 0; i < n_devices && devices[i] != id; i++)
		;
	if (i == n_devices) {
		snprintf(why, len,
			 "%s: is a raw block device; storbench writes to one "
			 "(destroying what is on it) only when the daemon is "
			 "started with --allow-device %s",
			 path, real);
		return -EACCES;
	}
	if ((rc = sys_device_free(path, real, id, why, len)) < 0)
		return rc;
	if ((rc = sys_device_size(real, bytes)) < 0)
		snprintf(why, len, "%s: %s", path, strerror(-rc));
	return rc;
}
