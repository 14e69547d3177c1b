/*
 * unc — see unc.h.
 */
#include "unc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int is_sep(int c)
{
	return c == '/' || c == '\\';
}

int unc_is(const char *path)
{
	if (!path || !is_sep(path[0]) || !is_sep(path[1]) || !path[2] ||
	    is_sep(path[2]))
		return 0;
	/* \\.\D:, \\?\UNC\…: device paths, not shares */
	return !((path[2] == '.' || path[2] == '?') && is_sep(path[3]));
}

/* The name at *p (up to a separator or the end) into out[n]; *p moves past
 * it. 0, or -EINVAL with a sentence naming what (the server, a name). */
static int take_name(const char **p, const char *what, char *out, size_t n,
		     char *err, size_t len)
{
	size_t k = strcspn(*p, "/\\");

	if (k == 0) {
		snprintf(err, len, "an empty %s (two separators in a row)",
			 what);
		return -EINVAL;
	}
	if (k >= n) {
		snprintf(err, len, "a %s longer than %zu bytes", what, n - 1);
		return -EINVAL;
	}
	if ((k == 1 && (*p)[0] == '.') ||
	    (k == 2 && (*p)[0] == '.' && (*p)[1] == '.')) {
		snprintf(err, len,
			 "a \"%.*s\" name; give the directory's own path",
			 (int)k, *p);
		return -EINVAL;
	}
	memcpy(out, *p, k);
	out[k] = '\0';
	*p += k;
	return 0;
}

int unc_parse(const char *path, struct unc_path *u, char *err, size_t len)
{
	const char *p = path + 2;
	size_t used = 0;
	char name[256];
	int rc;

	memset(u, 0, sizeof(*u));
	if (!unc_is(path)) {
		snprintf(err, len,
			 "not a share's path (\\\\server\\share\\dir)");
		return -EINVAL;
	}
	if ((rc = take_name(&p, "server name", u->server, sizeof(u->server),
			    err, len)) < 0)
		return rc;
	if (!*p || !p[1]) {
		snprintf(err, len,
			 "names the server %s but no share: "
			 "\\\\%s\\share\\dir",
			 u->server, u->server);
		return -EINVAL;
	}
	p++;
	if ((rc = take_name(&p, "share name", u->share, sizeof(u->share), err,
			    len)) < 0)
		return rc;
	while (*p) {
		p++; /* the separator */
		if (!*p)
			break; /* one at the end */
		if ((rc = take_name(&p, "name", name, sizeof(name), err, len)) <
		    0)
			return rc;
		rc = snprintf(u->dir + used, sizeof(u->dir) - used, "%s%s",
			      used ? "/" : "", name);
		if (rc < 0 || (size_t)rc >= sizeof(u->dir) - used) {
			snprintf(err, len, "a path longer than %zu bytes",
				 sizeof(u->dir) - 1);
			return -EINVAL;
		}
		used += (size_t)rc;
	}
	return 0;
}

int unc_format(const struct unc_path *u, int sep, int share_only, char *buf,
	       size_t len)
{
	int n = snprintf(buf, len, "//%s/%s%s%s", u->server, u->share,
			 !share_only && u->dir[0] ? "/" : "",
			 share_only ? "" : u->dir);

	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	/* no name holds a separator: every '/' is one */
	for (char *c = buf; *c; c++)
		if (*c == '/')
			*c = (char)sep;
	return 0;
}

int unc_under(const struct unc_path *u, const struct unc_path *root)
{
	size_t n = strlen(root->dir);

	if (strcasecmp(u->server, root->server) != 0 ||
	    strcasecmp(u->share, root->share) != 0)
		return 0;
	return n == 0 || (strncasecmp(u->dir, root->dir, n) == 0 &&
			  (u->dir[n] == '\0' || u->dir[n] == '/'));
}
