/*
 * jobq — see jobq.h for the design. What a runner does with its job is
 * jobrun.h's (jobrun.c, jobfiles.c) and the preset's (preset_*.c,
 * planrun.c); this file claims jobs, sets them up and ends them.
 */
#include "jobq.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive/archive.h"
#include "interleave.h"
#include "jobs/events.h"
#include "jobs/jobsession.h"
#include "jobsetup.h"
#include "os/os.h"
#include "platform/log.h"
#include "platform/sys.h"
#include "platform/utf8.h"
#include "presets/preset.h"
#include "targets/target.h"

struct jobq {
	struct archive *a;	   /* the worker's own connection */
	const struct tgt_ops *ops; /* the default local back-end */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;		 /* under mu */
	int kicked;		 /* under mu */
	int64_t current;	 /* running job id or 0; under mu */
	atomic_int cancel;	 /* read by the engine threads */
	int64_t only;		 /* run this job only, then stop (0: all) */
	int started;		 /* the worker runs (jobq_run) */
	struct jobrun_live live; /* the running job's progress */
	/* a job's end the archive could not take (its disk full): what the
	 * API shows until a retry writes it (under mu) */
	struct unwritten {
		int64_t job, run; /* job 0: none */
		char state[16];
		char error[256];
		char at[32];
		int tries; /* writes that failed */
	} end;
	void (*on_end)(void *arg); /* jobq_on_end's, or NULL */
	void *on_end_arg;
};

/* Writes q->end into the archive (the caller holds mu, which is let go
 * during the write); 0 when it is written (or there is none), else the
 * archive's error. */
static int write_end(struct jobq *q)
{
	struct unwritten e = q->end; /* only the worker changes it */
	int rc;

	if (!e.job)
		return 0;
	/* the API's readers (jobq_overlay) go on while the archive, which
	 * may wait up to its busy timeout, takes it */
	pthread_mutex_unlock(&q->mu);
	rc = archive_job_finish(q->a, e.job, e.run, e.state,
				e.error[0] ? e.error : NULL, e.at);
	pthread_mutex_lock(&q->mu);
	if (rc == 0) {
		if (e.tries)
			log_info("job %lld: its end (%s) is in the archive now",
				 (long long)e.job, e.state);
		q->end.job = 0;
		if (q->on_end)
			q->on_end(q->on_end_arg);
	} else {
		q->end.tries++;
	}
	return rc;
}

void jobq_on_end(struct jobq *q, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&q->mu);
	q->on_end = fn;
	q->on_end_arg = arg;
	pthread_mutex_unlock(&q->mu);
}

void jobq_overlay(struct jobq *q, json_t *o, int is_run)
{
	json_int_t id = json_integer_value(json_object_get(o, "id"));
	json_int_t job = json_integer_value(json_object_get(o, "job_id"));

	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	if (q->end.job && (is_run ? job == q->end.job : id == q->end.job) &&
	    json_is_string(json_object_get(o, "state")) &&
	    strcmp(json_string_value(json_object_get(o, "state")), "running") ==
		    0) {
		json_object_set_new(o, "state", json_string(q->end.state));
		json_object_set_new(o, "finished_at", json_string(q->end.at));
		if (!is_run)
			json_object_set_new(o, "error",
					    q->end.error[0]
						    ? json_string(q->end.error)
						    : json_null());
	}
	pthread_mutex_unlock(&q->mu);
}

int jobq_unwritten(struct jobq *q, char state[16])
{
	int n;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->mu);
	n = q->end.job != 0;
	if (n && state)
		snprintf(state, 16, "%s", q->end.state);
	pthread_mutex_unlock(&q->mu);
	return n;
}

int jobq_done(struct jobq *q)
{
	int done;

	pthread_mutex_lock(&q->mu);
	done = q->only && q->stopping && q->current == 0;
	pthread_mutex_unlock(&q->mu);
	return done;
}

int jobq_go(struct jobq *q, int64_t id, int gate, int64_t at_ns, int *waiting)
{
	*waiting = -1;
	return q ? jobrun_live_go(&q->live, id, gate, at_ns, waiting) : -ENOENT;
}

int jobq_progress(struct jobq *q, int64_t id, struct jobq_progress *p)
{
	return q ? jobrun_live_get(&q->live, id, p) : -ENOENT;
}

/* Jobs this process ended, by state (archive_job_states' order). */
static atomic_ullong finished[ARCHIVE_N_STATES];

void jobq_finished_counts(unsigned long long counts[ARCHIVE_N_STATES])
{
	for (int i = 0; i < ARCHIVE_N_STATES; i++)
		counts[i] = atomic_load(&finished[i]);
}

void jobq_publish_job(int64_t id, const char *state, int64_t run_id,
		      const char *error)
{
	for (int i = 2; i < ARCHIVE_N_STATES; i++) /* the end states */
		if (strcmp(state, archive_job_states[i]) == 0)
			atomic_fetch_add(&finished[i], 1);
	events_publish("job",
		       json_pack("{s:I, s:s, s:o, s:s?}", "id", (json_int_t)id,
				 "state", state, "run_id",
				 run_id ? json_integer(run_id) : json_null(),
				 "error", error && error[0] ? error : NULL));
}

/* --- one job --- */

static int is_stopping(struct jobq *q)
{
	int s;

	pthread_mutex_lock(&q->mu);
	s = q->stopping;
	pthread_mutex_unlock(&q->mu);
	return s;
}

/* Is rc what an I/O gets when the connection under it is gone? */
static int lost_connection(int rc)
{
	return rc == -ECONNRESET || rc == -ENETRESET || rc == -ECONNABORTED ||
	       rc == -EPIPE || rc == -ECONNREFUSED || rc == -ETIMEDOUT ||
	       rc == -ENOTCONN || rc == -EHOSTUNREACH || rc == -ENETUNREACH;
}

/* The job's error sentence, made to say what the failure means. */
static void explain(struct job_run *jr, int rc)
{
	char was[sizeof(jr->error)];

	snprintf(was, sizeof(was), "%s", jr->error);
	if ((jr->ops && (jr->ops->caps & TGT_CAP_REMOTE)) &&
	    lost_connection(rc))
		snprintf(jr->error, sizeof(jr->error),
			 "SMB server of %.60s went away mid-run (%.100s)%s",
			 jr->s->target, was,
			 jr->run_id ? "; samples measured before it are kept "
				      "on the run"
				    : "");
	/* the target's space, not the archive's (its own sentence) */
	if (rc == -ENOSPC && strncmp(was, "refused", 7) != 0 &&
	    !strstr(was, "in the archive"))
		snprintf(jr->error, sizeof(jr->error),
			 "%.80s ran out of space during the job (%.100s)%s",
			 jr->s->target, was[0] ? was : "ENOSPC",
			 jr->device ? "" : "; its test files are removed");
}

static void run_job(struct jobq *q, int64_t id, const struct job_spec *s)
{
	struct job_run *jr = calloc(1, sizeof(*jr)); /* ~1 MiB of paths */
	char error[256] = "";
	int stopping, rc;
	const char *state;

	if (!jr) {
		rc = -ENOMEM;
		goto out;
	}
	jr->a = q->a;
	jr->live = &q->live;
	jr->id = id;
	jr->device_h = -1;
	jr->s = s;
	jr->cancel = &q->cancel;
	if (!(jr->preset = preset_find(s->profile))) {
		snprintf(jr->error, sizeof(jr->error), "unknown profile %s",
			 s->profile);
		rc = -EINVAL;
		goto out;
	}
	if ((rc = job_setup(jr, q->ops)) == 0 && (rc = job_wire(jr)) == 0)
		rc = s->compare_with_json ? interleave_run(jr, q->ops)
					  : jr->preset->run(jr);
out:
	if (jr) {
		if (rc < 0)
			explain(jr, rc);
		job_files_remove(jr);
		snprintf(error, sizeof(error), "%s", jr->error);
	}
	stopping = is_stopping(q);
	if (rc == 0)
		state = "done";
	else if (rc == -ECANCELED && stopping)
		state = "interrupted";
	else if (rc == -ECANCELED)
		state = "cancelled";
	else
		state = "failed";
	if (rc == -ECANCELED)
		snprintf(error, sizeof(error), "%s",
			 stopping ? "the daemon stopped while this job ran"
				  : "cancelled by request");
	else if (rc < 0 && error[0] == '\0')
		snprintf(error, sizeof(error), "%s", strerror(-rc));
	/* JSON holds only UTF-8: a path that is not, or a %.Ns cut through a
	 * character, must not cost the job its sentence */
	utf8_sanitize(error);
	/* the end is the worker's to write; when the archive cannot take it
	 * (its disk is full), it is shown from memory and retried */
	pthread_mutex_lock(&q->mu);
	q->end.job = id;
	q->end.run = jr ? jr->run_id : 0;
	snprintf(q->end.state, sizeof(q->end.state), "%s", state);
	snprintf(q->end.error, sizeof(q->end.error), "%s",
		 rc == 0 ? "" : error);
	log_utc_now(q->end.at);
	q->end.tries = 0;
	if (write_end(q) < 0)
		log_error("job %lld: its end (%s) could not be written to the "
			  "archive; the API shows it, and it is retried (after "
			  "1, 2, 4 … 30 s)",
			  (long long)id, state);
	pthread_mutex_unlock(&q->mu);
	jobq_publish_job(id, state, jr ? jr->run_id : 0,
			 rc == 0 ? NULL : error);
	log_info("job %lld: %s%s%s", (long long)id, state, rc ? ": " : "",
		 rc ? error : "");
	if (jr) {
		json_decref(jr->options);
		json_decref(jr->wire);
		json_decref(jr->member);
		jobsession_free((void *)jr->session);
		jobsession_disconnect(jr->conn);
	}
	free(jr);
}

/* --- the worker --- */

static void *worker(void *arg)
{
	struct jobq *q = arg;

	os_thread_name("sb-jobs");
	pthread_mutex_lock(&q->mu);
	while (!q->stopping) {
		struct job_spec s;
		int64_t id = 0;
		int rc;

		q->kicked = 0;
		/* the last job's end first: no job runs before it is written */
		if ((rc = write_end(q)) < 0 && !q->only) {
			struct timespec until;
			int t = q->end.tries;
			clock_gettime(CLOCK_REALTIME, &until);
			/* 1, 2, 4 … 30 s: the archive logs each failure */
			until.tv_sec += t > 5 ? 30 : 1 << (t - 1);
			pthread_cond_timedwait(&q->cv, &q->mu, &until);
			continue;
		}
		if (rc < 0)
			break;
		rc = archive_job_claim(q->a, q->only, &id, &s);
		if (rc < 0 && q->only) {
			q->stopping = 1; /* its one job is not queued */
			break;
		}
		if (rc < 0) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += rc == -ENOENT ? 5 : 1;
			if (!q->kicked && !q->stopping)
				pthread_cond_timedwait(&q->cv, &q->mu, &until);
			continue;
		}
		q->current = id;
		atomic_store(&q->cancel, 0);
		jobrun_live_begin(&q->live, id);
		pthread_mutex_unlock(&q->mu);
		log_info("job %lld: %s on %s", (long long)id, s.profile,
			 s.target);
		jobq_publish_job(id, "running", 0, NULL);
		run_job(q, id, &s);
		job_spec_clear(&s);
		jobrun_live_end(&q->live);
		pthread_mutex_lock(&q->mu);
		q->current = 0;
		if (q->only)
			q->stopping = 1;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* The queue, its archive connection and its start-up chores; no worker. */
static int open_queue(const char *db_path, int64_t only, struct jobq **out)
{
	struct jobq *q = calloc(1, sizeof(*q));
	char why[300];
	int rc, n = 0;

	*out = NULL;
	if (!q)
		return -ENOMEM;
	q->only = only;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	jobrun_live_init(&q->live);
	q->ops = tgt_local_default(why, sizeof(why));
	if (why[0])
		log_warn("%s", why);
	if ((rc = archive_open(db_path, &q->a)) < 0)
		goto fail;
	if ((rc = archive_interrupt_running(q->a, &n)) < 0)
		goto fail;
	if (n)
		log_warn("%d job(s) were running when the daemon stopped; "
			 "marked interrupted",
			 n);
	job_files_remove_leftovers(q->a);
	*out = q;
	return 0;
fail:
	archive_close(q->a);
	jobrun_live_destroy(&q->live);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
	return rc;
}

int jobq_open(const char *db_path, struct jobq **out)
{
	return open_queue(db_path, 0, out);
}

int jobq_run(struct jobq *q)
{
	if (q->started)
		return 0;
	if (pthread_create(&q->tid, NULL, worker, q) != 0)
		return -EAGAIN;
	q->started = 1;
	return 0;
}

int jobq_start_one(const char *db_path, int64_t only, struct jobq **out)
{
	int rc = open_queue(db_path, only, out);

	if (rc == 0 && (rc = jobq_run(*out)) < 0) {
		jobq_stop(*out);
		*out = NULL;
	}
	return rc;
}

void jobq_kick(struct jobq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->kicked = 1;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

int jobq_cancel(struct jobq *q, struct archive *a, int64_t id)
{
	int rc;

	if (!q) { /* no worker: nothing runs, a queued job just ends */
		rc = archive_job_cancel_queued(a, id);
		if (rc == 1)
			jobq_publish_job(id, "cancelled", 0,
					 "cancelled by request");
		return rc == 1 ? 0 : rc == 0 ? -EALREADY : rc;
	}
	pthread_mutex_lock(&q->mu);
	rc = archive_job_cancel_queued(a, id);
	if (rc == 1) {
		rc = 0;
		jobq_publish_job(id, "cancelled", 0, "cancelled by request");
	} else if (rc == 0 && q->current == id) {
		atomic_store(&q->cancel, 1);
	} else if (rc == 0) {
		rc = -EALREADY;
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

void jobq_stop(struct jobq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stopping = 1;
	atomic_store(&q->cancel, 1);
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	if (q->started)
		pthread_join(q->tid, NULL);
	archive_close(q->a);
	jobrun_live_destroy(&q->live);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}
