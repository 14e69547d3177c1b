/*
 * jobsession — a job's back-end session: for an smb:// target, the SMB
 * session (a stored credential's user, password and domain, and the
 * job's protocol knobs), from the request when a job is checked and from
 * the stored job when it runs. The password is never stored with the job:
 * only the credential's name and the knobs are (smb_json).
 *
 * On Windows a share is a path (\\server\share\dir, sys_path_share) that
 * the local back-end reaches through Windows' own SMB client; such a job
 * has no back-end session. Its "credential" is optional: named, the share
 * is connected under it (sys_share_connect) while the job is checked
 * (jobsession_connect_request: the target's and each compare_with path's
 * share) and while each of its targets runs (jobsession_connect_job), and
 * let go after (jobsession_disconnect); smb_json is then {"credential"}.
 * Without one the daemon's own account reaches the share. Only a share
 * under an allowed one is connected (confine_share): no credential goes
 * to a server the daemon was not allowed.
 */
#ifndef STORBENCH_JOBSESSION_H
#define STORBENCH_JOBSESSION_H

#include <stddef.h>

#include <jansson.h>

#include "platform/fields.h"

struct job_spec;

/* The request's "smb" object: its descriptors (fields.h). */
#define JOBSESSION_N_SMB_FIELDS 4
extern const struct field jobsession_smb_fields[JOBSESSION_N_SMB_FIELDS];
extern const size_t jobsession_n_smb_fields;

/*
 * From request root: "credential" (a stored credential's name, required
 * for an smb:// target) and "smb" {min_protocol, max_protocol,
 * require_signing, require_encryption}. For a local target both are
 * refused and *session stays NULL. For a job on Windows shares (above)
 * "credential" may be named (checked to exist; *smb_json {"credential"}),
 * "smb" is refused, and *session stays NULL. On 0 with a session, *session
 * (free with jobsession_free) holds the password for the request's checks and
 * *smb_json (malloc'd) the job's stored form, without it — with the
 * request's "baseline" normalized (wire.h) when it names one; "baseline"
 * on any other job is refused with wire_from_request's sentence.
 */
int jobsession_from_request(json_t *root, void **session, char **smb_json,
			    struct field_error *e);

/* From a stored job (its target and smb_json): the session to run it with,
 * or NULL for a local target. 0, or a negative errno with error filled. */
int jobsession_from_job(const struct job_spec *s, void **session, char *error,
			size_t len);

/* Wipes and frees a session (NULL is fine). */
void jobsession_free(void *session);

/* The user a session logs on as, for sentences ("" for none). */
const char *jobsession_user(const void *session);

/* The shares a job's credential connected (Windows; above). */
struct jobsession_conn;

/*
 * For request root (after jobsession_from_request took it): with a
 * "credential", connects the share of its target and of each compare_with
 * path that is on an allowed share. *conn (jobsession_disconnect) may be
 * NULL: nothing to connect. 0; -EINVAL with e naming "credential" (the
 * logon refused) or the path's field (the share cannot be reached), with
 * Windows' words; -ENOMEM.
 */
int jobsession_connect_request(json_t *root, struct jobsession_conn **conn,
			       struct field_error *e);

/* For stored job s (one side of an interleaved job: its own target): its
 * target's share under its credential, before it runs. 0, or a negative
 * errno with error filled. */
int jobsession_connect_job(const struct job_spec *s,
			   struct jobsession_conn **conn, char *error,
			   size_t len);

/* Lets go of the shares (NULL is fine): the last holder of one cancels its
 * connection. */
void jobsession_disconnect(struct jobsession_conn *conn);

#endif
