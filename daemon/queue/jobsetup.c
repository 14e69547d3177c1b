/*
 * jobsetup — see jobsetup.h.
 */
#include "jobsetup.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "jobs/jobrun.h"
#include "jobs/jobsession.h"
#include "platform/sys.h"
#include "targets/target.h"
#include "wire/wire.h"

int job_setup(struct job_run *jr, const struct tgt_ops *def)
{
	const struct job_spec *s = jr->s;
	char real[PATH_MAX];
	uint64_t id;
	void *session = NULL;
	int rc;

	jr->ops = tgt_for_target(s->target);
	if (!jr->ops)
		jr->ops = s->engine ? tgt_find(s->engine) : def;
	if (!jr->ops) {
		snprintf(jr->error, sizeof(jr->error), "unknown engine %s",
			 s->engine);
		return -EINVAL;
	}
	if (s->options_json &&
	    !(jr->options = json_loads(s->options_json, 0, NULL))) {
		snprintf(jr->error, sizeof(jr->error),
			 "the stored options are not JSON");
		return -EINVAL;
	}
	if ((rc = jobsession_from_job(s, &session, jr->error,
				      sizeof(jr->error))) < 0)
		return rc;
	jr->session = session;
	/* a share under the job's credential (Windows): before the probe */
	if ((rc = jobsession_connect_job(s, &jr->conn, jr->error,
					 sizeof(jr->error))) < 0)
		return rc;
	jr->device = !(jr->ops->caps & TGT_CAP_REMOTE) &&
		     sys_device_id(s->target, real, &id) == 0;
	rc = tgt_probe(jr->ops, s->target, jr->session, &jr->pr);
	if ((rc == -EACCES || rc == -EPERM) && session)
		snprintf(jr->error, sizeof(jr->error),
			 "%.120s refused the logon of user \"%.40s\" (was the "
			 "credential changed after the job was queued?)",
			 s->target, jobsession_user(session));
	if (rc == 0)
		job_files_remove_remote_leftovers(jr);
	if (rc < 0 && !jr->error[0])
		snprintf(jr->error, sizeof(jr->error), "target %s: %s",
			 s->target, strerror(-rc));
	return rc;
}

int job_wire(struct job_run *jr)
{
	json_t *o =
		jr->s->smb_json ? json_loads(jr->s->smb_json, 0, NULL) : NULL;
	json_t *b = json_object_get(o, "baseline");
	int rc = 0;

	if (json_is_object(b)) {
		job_phase(jr, "baseline", NULL, NULL, 0);
		rc = wire_measure(b, jr->cancel, &jr->wire, jr->error,
				  sizeof(jr->error));
	}
	json_decref(o);
	/* not a connection lost mid-run (jobq's explain): nothing ran */
	if (rc < 0 && rc != -ECANCELED)
		return -EIO;
	/* cancelled while the wire was measured: no test starts */
	return jr->cancel && atomic_load(jr->cancel) ? -ECANCELED : 0;
}
