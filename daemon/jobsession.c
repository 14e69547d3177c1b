/*
 * jobsession — see jobsession.h.
 */
#include "jobsession.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "creds.h"
#include "os.h"
#include "smb.h"
#include "target.h"

static const char *const dialects[] = { "SMB2_02", "SMB2_10", "SMB3_00",
					"SMB3_02", "SMB3_11", NULL };

const struct field jobsession_smb_fields[JOBSESSION_N_SMB_FIELDS] = {
	{ .name = "min_protocol",
	  .type = FIELD_ENUM,
	  .choices = dialects,
	  .def_text = "the library's (SMB2_02)",
	  .help = "the oldest SMB dialect to negotiate" },
	{ .name = "max_protocol",
	  .type = FIELD_ENUM,
	  .choices = dialects,
	  .def_text = "the library's (SMB3_11)",
	  .help = "the newest SMB dialect to negotiate; not below "
		  "min_protocol" },
	{ .name = "require_signing",
	  .type = FIELD_BOOL,
	  .def = "false",
	  .help = "refuse a session without signing" },
	{ .name = "require_encryption",
	  .type = FIELD_BOOL,
	  .def = "false",
	  .help = "SMB 3 encryption required, else the job fails" },
};
const size_t jobsession_n_smb_fields = FIELDS_N(jobsession_smb_fields);
_Static_assert(FIELDS_N(jobsession_smb_fields) == JOBSESSION_N_SMB_FIELDS,
	       "JOBSESSION_N_SMB_FIELDS counts jobsession_smb_fields");

void jobsession_free(void *session)
{
	if (!session)
		return;
	os_wipe(session, sizeof(struct smb_session));
	free(session);
}

const char *jobsession_user(const void *session)
{
	return session ? ((const struct smb_session *)session)->user : "";
}

/* The knobs of normalized smb object o into ss. */
static void knobs(json_t *o, struct smb_session *ss)
{
	const char *v;

	if ((v = json_string_value(json_object_get(o, "min_protocol"))))
		snprintf(ss->min_protocol, sizeof(ss->min_protocol), "%s", v);
	if ((v = json_string_value(json_object_get(o, "max_protocol"))))
		snprintf(ss->max_protocol, sizeof(ss->max_protocol), "%s", v);
	ss->require_signing =
		json_is_true(json_object_get(o, "require_signing"));
	ss->require_encryption =
		json_is_true(json_object_get(o, "require_encryption"));
}

int jobsession_from_request(json_t *root, void **session, char **smb_json,
			    struct field_error *e)
{
	json_t *t = json_object_get(root, "target");
	json_t *c = json_object_get(root, "credential");
	json_t *o = json_object_get(root, "smb"), *n = NULL, *v;
	struct smb_session *ss;
	const char *name;
	int lo, hi, rc;

	*session = NULL;
	*smb_json = NULL;
	if (t && !json_is_string(t))
		return 0; /* the target's check says what is wrong with it */
	if (!json_is_string(t) || !tgt_for_target(json_string_value(t))) {
		if (c)
			return field_fail(e, "credential",
					  "only for an smb:// target");
		if (o)
			return field_fail(e, "smb",
					  "only for an smb:// target");
		return 0;
	}
	if (!c)
		return field_fail(e, "credential",
				  "required for an smb:// target: the name of "
				  "a stored credential (POST "
				  "/api/v1/credentials)");
	if (!json_is_string(c) || !creds_name_ok(json_string_value(c)))
		return field_fail(e, "credential",
				  "must be the name of a stored credential");
	name = json_string_value(c);
	if (!(ss = calloc(1, sizeof(*ss))))
		return -ENOMEM;
	*session = ss;
	if (creds_get(name, ss) < 0)
		return field_fail(e, "credential",
				  "no credential named \"%s\" (store one with "
				  "POST /api/v1/credentials)",
				  name);
	if ((rc = fields_check_object(jobsession_smb_fields,
				      jobsession_n_smb_fields, o, "smb", NULL,
				      &n, e)) < 0)
		return rc;
	knobs(n, ss);
	lo = ss->min_protocol[0] ? smb_dialect_index(ss->min_protocol) : -1;
	hi = ss->max_protocol[0] ? smb_dialect_index(ss->max_protocol) : -1;
	if (lo >= 0 && hi >= 0 && lo > hi)
		rc = field_fail(e, "smb.min_protocol",
				"is above smb.max_protocol");
	else if (ss->require_encryption && hi >= 0 && hi < 2)
		rc = field_fail(e, "smb.require_encryption",
				"needs SMB 3 (max_protocol SMB3_00 or above)");
	json_decref(n);
	if (rc < 0)
		return rc;
	v = json_pack(
		"{s:s, s:s?, s:s?, s:b, s:b}", "credential", name,
		"min_protocol", ss->min_protocol[0] ? ss->min_protocol : NULL,
		"max_protocol", ss->max_protocol[0] ? ss->max_protocol : NULL,
		"require_signing", ss->require_signing, "require_encryption",
		ss->require_encryption);
	*smb_json = v ? json_dumps(v, JSON_COMPACT) : NULL;
	json_decref(v);
	return *smb_json ? 0 : -ENOMEM;
}

int jobsession_from_job(const struct job_spec *s, void **session, char *error,
			size_t len)
{
	json_t *o;
	const char *name;
	struct smb_session *ss;
	int rc = 0;

	*session = NULL;
	if (!tgt_for_target(s->target))
		return 0;
	o = s->smb_json ? json_loads(s->smb_json, 0, NULL) : NULL;
	name = json_string_value(json_object_get(o, "credential"));
	if (!(ss = calloc(1, sizeof(*ss)))) {
		json_decref(o);
		return -ENOMEM;
	}
	if (!name) {
		snprintf(error, len, "the job has no SMB credential");
		rc = -EINVAL;
	} else if ((rc = creds_get(name, ss)) < 0) {
		snprintf(error, len,
			 rc == -ENOENT
				 ? "credential \"%s\" was deleted after the "
				   "job was queued"
				 : "credential \"%s\": the store failed",
			 name);
	} else {
		knobs(o, ss);
	}
	json_decref(o);
	if (rc < 0) {
		jobsession_free(ss);
		return rc;
	}
	*session = ss;
	return 0;
}
