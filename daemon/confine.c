/*
 * confine — the allowed roots, devices and reserve (confine.h has the
 * design). Block devices: "in use" is the kernel's own answer — an
 * exclusive open (O_EXCL on a block device) fails with EBUSY while a
 * filesystem, LVM, md or another O_EXCL holder has it — asked of the device
 * and of each of its partitions, with /proc/self/mountinfo naming the mount
 * point for the sentence.
 */
#include "confine.h"
#include "os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "smb.h"
#include "sys.h"
#include "units.h"

struct root {
	char given[PATH_MAX]; /* as --allow named it (smb://… for a share) */
	char real[PATH_MAX];  /* resolved at start; "" for a share */
	struct smb_url smb;   /* a share's parts */
	int is_smb;
};

static struct root roots[CONFINE_MAX_ROOTS];
static size_t n_roots;
static uint64_t devices[CONFINE_MAX_ROOTS]; /* sys_device_id */
static size_t n_devices;
static double reserve_pct = CONFINE_RESERVE_PCT;
static uint64_t reserve_fixed; /* bytes, when set as a size */

void confine_reset(void)
{
	n_roots = n_devices = 0;
	reserve_pct = CONFINE_RESERVE_PCT;
	reserve_fixed = 0;
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

int confine_allow(const char *path, char *why, size_t len)
{
	struct root *r;
	char err[160];
	int rc, kind;

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
	if ((kind = sys_path_kind(path)) < 0) {
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

int confine_set_reserve(const char *text, char *why, size_t len)
{
	size_t n = strlen(text);
	uint64_t b;

	if (n > 1 && text[n - 1] == '%') {
		char *end;
		double v;
		errno = 0;
		v = strtod(text, &end);
		if (errno == 0 && end == text + n - 1 && v >= 0 && v <= 90) {
			reserve_pct = v;
			reserve_fixed = 0;
			return 0;
		}
	} else if (units_parse_size(text, &b) == 0) {
		reserve_pct = 0;
		reserve_fixed = b;
		return 0;
	}
	snprintf(
		why, len,
		"--reserve %s: a percentage of the filesystem from 0%% to 90%% "
		"(\"10%%\") or a size (\"20GiB\")",
		text);
	return -EINVAL;
}

uint64_t confine_reserve_bytes(uint64_t total_bytes)
{
	if (reserve_fixed)
		return reserve_fixed;
	return (uint64_t)((double)total_bytes * reserve_pct / 100.0);
}

void confine_reserve_text(char *buf, size_t len)
{
	if (reserve_fixed)
		units_format_size(reserve_fixed, buf, len);
	else
		snprintf(buf, len, "%g %%", reserve_pct);
}

int confine_room(const char *path, int64_t free_bytes, int64_t total_bytes,
		 uint64_t need, char *why, size_t len)
{
	uint64_t keep = confine_reserve_bytes(
		total_bytes > 0 ? (uint64_t)total_bytes : 0);
	char r[32];

	if (free_bytes >= 0 && need + keep <= (uint64_t)free_bytes)
		return 1;
	confine_reserve_text(r, sizeof(r));
	snprintf(
		why, len,
		"%s has %.2f GiB free and the job needs %.2f GiB more, keeping "
		"the reserve (%s) free (%.2f GiB; the daemon's --reserve)",
		path, (double)free_bytes / (1 << 30), (double)need / (1 << 30),
		r, (double)keep / (1 << 30));
	return 0;
}

void confine_roots_text(const char *scratch, int kind, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (scratch && kind != CONFINE_SMB)
		used = (size_t)snprintf(buf, len, "%s", scratch);
	for (size_t i = 0; i < n_roots && used < len; i++) {
		if ((kind == CONFINE_LOCAL && roots[i].is_smb) ||
		    (kind == CONFINE_SMB && !roots[i].is_smb) ||
		    (scratch && strcmp(roots[i].given, scratch) == 0))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "", roots[i].given);
	}
}

int confine_dir(const char *path, const char *scratch, char real[PATH_MAX],
		char *why, size_t len)
{
	char list[512], now[PATH_MAX];
	int lexical = 0, rc;

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
	if ((rc = sys_realpath(path, real)) < 0) {
		snprintf(why, len, "%s: %s", path,
			 rc == -ENOENT ? "does not exist" : strerror(-rc));
		return rc;
	}
	if (scratch && sys_realpath(scratch, now) == 0 && under(real, now))
		return 0;
	for (size_t i = 0; i < n_roots; i++) {
		const struct root *r = &roots[i];
		if (r->is_smb)
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
