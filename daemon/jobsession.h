/*
 * jobsession — a job's back-end session: for an smb:// target, the SMB
 * session (a stored credential's user, password and domain, and the
 * job's protocol knobs), from the request when a job is checked and from
 * the stored job when it runs. The password is never stored with the job:
 * only the credential's name and the knobs are (smb_json).
 */
#ifndef STORBENCH_JOBSESSION_H
#define STORBENCH_JOBSESSION_H

#include <stddef.h>

#include <jansson.h>

#include "fields.h"

struct job_spec;

/* The request's "smb" object: its descriptors (fields.h). */
#define JOBSESSION_N_SMB_FIELDS 4
extern const struct field jobsession_smb_fields[JOBSESSION_N_SMB_FIELDS];
extern const size_t jobsession_n_smb_fields;

/*
 * From request root: "credential" (a stored credential's name, required
 * for an smb:// target) and "smb" {min_protocol, max_protocol,
 * require_signing, require_encryption}. For a local target both are
 * refused and *session stays NULL. On 0 with a session, *session (free with
 * jobsession_free) holds the password for the request's checks and
 * *smb_json (malloc'd) the job's stored form, without it.
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

#endif
