/*
 * unc — a directory on a share as Windows names it, read as text:
 * \\server\share\dir, or //server/share/dir (storbench keeps paths with '/':
 * that form is what sys_realpath gives and what a job stores). No I/O.
 *
 * Only Windows reaches such a path through its own SMB client
 * (sys_path_share, sys.h); on Linux "//x/y" is the local "/x/y" and nothing
 * here is asked. The text rules are portable so that the unit tests run
 * them on Linux.
 *
 * Names compare as Windows' SMB client opens them, without case — for
 * ASCII letters; other letters must match exactly, which refuses a path a
 * wider comparison would allow, never the other way round.
 */
#ifndef STORBENCH_UNC_H
#define STORBENCH_UNC_H

#include <limits.h>
#include <stddef.h>

struct unc_path {
	char server[256];
	char share[256];
	char dir[PATH_MAX]; /* below the share: "" or "a/b", '/' between */
};

/* Does path start the way a share's does: two separators ('\' or '/')
 * and a name, not the device forms \\.\ and \\?\ ? 1 or 0. */
int unc_is(const char *path);

/*
 * Cuts path (unc_is) into *u. A separator at its end is dropped. 0, or
 * -EINVAL with a sentence in err: no share after the server, an empty
 * name (two separators in a row), a "." or ".." name, a name too long.
 */
int unc_parse(const char *path, struct unc_path *u, char *err, size_t len);

/* u as text with sep between its parts ('/': "//server/share/dir"; '\\':
 * "\\server\share\dir"), or only its share (share_only 1). 0 or
 * -ENAMETOOLONG (buf is then ""). */
int unc_format(const struct unc_path *u, int sep, int share_only, char *buf,
	       size_t len);

/* Is u root itself or inside it: the same server and share, then root's
 * names, one by one, at the start of u's (all without ASCII case)? */
int unc_under(const struct unc_path *u, const struct unc_path *root);

#endif
