/*
 * smb_url — the portable part of smb.h: smb://server[:port]/share/path
 * URLs, parsed and checked. No I/O.
 */
#include "smb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		snprintf(err, len,
			 "no '?', '#', '%%' or '\\' in the URL: the path "
			 "is used as written (libsmbclient would read "
			 "options or %%-escapes there)");
		return -EINVAL;
	}
	p = url + 6;
	slash = strchr(p, '/');
	n = slash ? (size_t)(slash - p) : strlen(p);
	if (memchr(p, '@', n) || memchr(p, ';', n)) {
		snprintf(err, len,
			 "no user or password in the URL: store them "
			 "with POST /api/v1/credentials and name them "
			 "in \"credential\"");
		return -EINVAL;
	}
	/* [IPv6]:port, or name:port: the port's colon is after the host */
	host_end = p;
	if (n && p[0] == '[') {
		const char *close = memchr(p, ']', n);
		if (!close) {
			snprintf(err, len,
				 "an IPv6 address goes in brackets: "
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
		snprintf(err, len,
			 "no server in the URL "
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
		if (end != p + n || colon[1] < '0' || colon[1] > '9' ||
		    port < 1 || port > 65535) {
			snprintf(err, len,
				 "the port must be a number from 1 "
				 "to 65535");
			return -EINVAL;
		}
		u->port = (int)port;
		n = (size_t)(colon - p);
	}
	memcpy(u->server, p, n);
	if (!slash || !slash[1] || slash[1] == '/') {
		snprintf(err, len,
			 "no share in the URL "
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
			snprintf(err, len,
				 "no empty, . or .. names in the path");
			return -EINVAL;
		}
		if (k > 255) {
			snprintf(err, len,
				 "a name in the path is longer than "
				 "255 bytes");
			return -EINVAL;
		}
		seg = end ? end + 1 : seg + k;
	}
	return 0;
}

void smb_no_backend(const char *url, char *buf, size_t len)
{
	struct smb_url u;
	char err[160],
		unc[sizeof(u.server) + sizeof(u.share) + sizeof(u.path) + 8];

	if (smb_url_parse(url, &u, err, sizeof(err)) < 0) {
		snprintf(unc, sizeof(unc), "\\\\server\\share\\dir");
	} else {
		snprintf(unc, sizeof(unc), "\\\\%s\\%s%s%s", u.server, u.share,
			 u.path[0] ? "\\" : "", u.path);
		for (char *c = unc; *c; c++)
			if (*c == '/')
				*c = '\\';
	}
	snprintf(buf, len,
		 "this build has no SMB back-end: name the share as %s "
		 "(Windows' own SMB client measures it)",
		 unc);
}
