/*
 * jobtarget — where a job may put its files, checked before it is queued:
 * a directory (or smb:// URL; on Windows also \\server\share\dir, a
 * directory through Windows' own SMB client) inside the allowed roots that
 * its back-end says can take new files (tgt_check_dir: exists, is a
 * directory, writable; on a share reachable and logged on), or an allowed
 * raw block device; and whether bytes fit there with the reserve
 * (--reserve) kept free.
 *
 * Used by the job's validation (api/jobspec.c) and by presets whose options
 * name directories of their own (mailbox-db's database and log paths). The
 * refusals are field_errors naming the field they were given: 403 for the
 * allowed roots, 400 otherwise; a logon refused blames "credential", a
 * negotiation "smb".
 */
#ifndef STORBENCH_JOBTARGET_H
#define STORBENCH_JOBTARGET_H

#include <stdint.h>

#include <jansson.h>

#include "platform/fields.h"

/*
 * Checks target v (NULL: scratch, the default) for field (its path in the
 * request: "target", "options.log_paths[1]"). session: the job's back-end
 * session when the job's target is an smb:// URL, else NULL (then every path
 * of the job must be local, and vice versa). With device_ok an allowed raw
 * block device is taken too (*device_bytes: its size; 0 for a directory).
 * *out (malloc'd): the path to store — resolved for a local one. Returns 0,
 * -EINVAL with e filled, or -ENOMEM.
 */
int jobtarget_check(json_t *v, const char *field, const char *scratch,
		    const void *session, int device_ok, uint64_t *device_bytes,
		    char **out, struct field_error *e);

/*
 * Do need more bytes fit on the filesystem (or share) of path, keeping the
 * reserve free? 1 yes, or unknown (the space cannot be read); 0 no: then
 * why says how much there is.
 */
int jobtarget_fits(const char *path, const void *session, uint64_t need,
		   char *why, size_t len);

/* The volume path is on, as a key two paths on the same filesystem or share
 * share: the back-end's volume (smb://server/share/), a share through the
 * system's own client ("//server/share", lowercase), else the local
 * device. 0, or -1 when path cannot be read. */
int jobtarget_volume_key(const char *path, char *key, size_t len);

#endif
