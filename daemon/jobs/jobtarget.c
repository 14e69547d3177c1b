/*
 * jobtarget — see jobtarget.h.
 */
#include "jobtarget.h"
#include "os/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform/confine.h"
#include "platform/sys.h"
#include "platform/unc.h"
#include "targets/smb.h"
#include "targets/target.h"

/* The back-end for a path of a job: the one that claims it, or the local
 * default (every local one checks directories alike). */
static const struct tgt_ops *ops_for(const char *path)
{
	const struct tgt_ops *o = tgt_for_target(path);

	return o ? o : tgt_local_default(NULL, 0);
}

/* A refusal at field with status. */
static int refuse(struct field_error *e, unsigned status, const char *field,
		  const char *why)
{
	field_fail(e, field, "%s", why);
	e->status = status;
	return -EINVAL;
}

/* The back-end's own check of dir, its blame turned into a field. */
static int check_dir(const char *dir, const char *field, const void *session,
		     struct field_error *e)
{
	const struct tgt_ops *o = ops_for(dir);
	struct tgt_check c;
	int rc;

	if (!o)
		return refuse(e, 400, field, "no back-end can write there");
	if ((rc = tgt_check_dir(o, dir, session, &c)) == 0)
		return 0;
	if (!c.why[0])
		return rc; /* it could not be checked at all */
	if (c.blame == TGT_BLAME_LOGON)
		return refuse(e, 400, "credential", c.why);
	if (c.blame == TGT_BLAME_SESSION)
		return refuse(e, 400, "smb", c.why);
	return refuse(e, 400, field, c.why);
}

/* A local path: a raw device (when it is one) or a directory in the
 * roots. */
static int check_local(const char *t, const char *field, const char *scratch,
		       int device_ok, uint64_t *device_bytes, char **out,
		       struct field_error *e)
{
	char real[PATH_MAX], why[sizeof(e->detail) - 16];
	uint64_t dev_bytes;
	int rc;

	rc = confine_device(t, real, &dev_bytes, why, sizeof(why));
	if (rc != -ENOTBLK) {
		if (rc == 0 && !device_ok) {
			snprintf(why, sizeof(why),
				 "%s: is a raw block device; this preset "
				 "creates files and needs a directory",
				 t);
			rc = -EINVAL;
		}
		if (rc < 0)
			return refuse(e, rc == -EACCES ? 403 : 400, field, why);
		if (device_bytes)
			*device_bytes = dev_bytes;
		*out = strdup(real);
		return *out ? 0 : -ENOMEM;
	}
	if ((rc = confine_dir(t, scratch, real, why, sizeof(why))) < 0)
		return refuse(e, rc == -EACCES ? 403 : 400, field, why);
	if ((rc = check_dir(real, field, NULL, e)) < 0)
		return rc;
	*out = strdup(real);
	return *out ? 0 : -ENOMEM;
}

int jobtarget_check(json_t *v, const char *field, const char *scratch,
		    const void *session, int device_ok, uint64_t *device_bytes,
		    char **out, struct field_error *e)
{
	const char *t = scratch;
	const struct tgt_ops *remote;
	char why[sizeof(e->detail) - 16];
	size_t n;
	int rc;

	*out = NULL;
	if (device_bytes)
		*device_bytes = 0;
	if (v) {
		if (!json_is_string(v))
			return field_fail(
				e, field,
				"must be a string (a directory path)");
		t = json_string_value(v);
		remote = tgt_for_target(t);
		if (!remote && smb_is_url(t)) { /* Windows: its own client */
			smb_no_backend(t, why, sizeof(why));
			return refuse(e, 400, field, why);
		}
		if (!!remote != !!session)
			return field_fail(e, field,
					  session ? "every path of a job on an "
						    "SMB share is an smb:// URL"
						  : "an smb:// path needs an "
						    "smb:// target (the job's "
						    "credential)");
		/* a Windows volume or drive (\\.\D:) is named, not a path */
		if (!session && !sys_path_absolute(t) &&
		    sys_path_kind(t) == SYS_KIND_DEVICE)
			return refuse(e, 403, field,
				      "a raw volume or physical drive: "
				      "storbench does not write raw devices "
				      "on this system; name a directory in "
				      "the volume");
		if (!session && !sys_path_absolute(t))
			return field_fail(
				e, field,
				sys_path_share("//server/share")
					? "must be an absolute path: D:\\dir, "
					  "or \\\\server\\share\\dir on a share"
					: "must be an absolute path or an "
					  "smb://server[:port]/share/dir URL");
	}
	if (!session)
		return check_local(t, field, scratch, device_ok, device_bytes,
				   out, e);
	/* a share: allowed, then checked on the server */
	if ((rc = confine_smb(t, why, sizeof(why))) < 0)
		return refuse(e, rc == -EINVAL ? 400 : 403, field, why);
	if ((rc = check_dir(t, field, session, e)) < 0)
		return rc;
	if (!(*out = strdup(t)))
		return -ENOMEM;
	n = strlen(*out);
	while (n > 6 && (*out)[n - 1] == '/')
		(*out)[--n] = '\0';
	return 0;
}

int jobtarget_fits(const char *path, const void *session, uint64_t need,
		   char *why, size_t len)
{
	const struct tgt_ops *o = ops_for(path);
	int64_t free_bytes = 0, total = 0;

	if (!o || tgt_space(o, path, session, &free_bytes, &total) < 0)
		return 1;
	return confine_room(path, free_bytes, total, need, why, len);
}

int jobtarget_volume_key(const char *path, char *key, size_t len)
{
	const struct tgt_ops *ops = tgt_for_target(path);
	struct stat st;

	if (ops && tgt_volume(ops, path, key, len) == 0)
		return 0;
	if (sys_path_share(path)) { /* the share, as Windows compares it */
		struct unc_path u;
		char err[160];
		if (unc_parse(path, &u, err, sizeof(err)) < 0 ||
		    unc_format(&u, '/', 1, key, len) < 0)
			return -1;
		for (char *c = key; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		return 0;
	}
	if (stat(path, &st) < 0)
		return -1;
	snprintf(key, len, "dev %llu", (unsigned long long)st.st_dev);
	return 0;
}
