/*
 * fleet — the coordinator's thread (see fleet.h): claims queued
 * multi-host jobs, runs each (fleet_job.c) and writes its end; at start,
 * cancels the hosts' jobs of coordinator jobs a crash ended.
 */
#include "fleet_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/events.h"
#include "os/os.h"
#include "peerhttp.h"
#include "platform/log.h"
#include "probe/probe.h"

const struct field fleet_member_fields[FLEET_N_MEMBER_FIELDS] = {
	{ .name = "host",
	  .type = FIELD_STRING,
	  .min = 1,
	  .max = 64,
	  .flags = FIELD_CLEAN,
	  .help = "this host's name in the job (a peer name, or self): its "
		  "test files are storbench-HOST-…" },
	{ .name = "coordinator",
	  .type = FIELD_STRING,
	  .min = 0,
	  .max = 255,
	  .flags = FIELD_CLEAN,
	  .help = "the coordinating daemon's host name" },
	{ .name = "job",
	  .type = FIELD_INT,
	  .min = 1,
	  .max = FIELD_EXACT_MAX,
	  .help = "the coordinator's job id" },
	{ .name = "gate_timeout_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 1,
	  .max = 3600,
	  .help = "how long the job waits for the coordinator's start of a "
		  "window before it stops itself" },
};

/* The request each host is sent and the job's bounds, from its hosts
 * record ({"hosts", "request", "clock_bound_ms", "peer_timeout_s",
 * "hosts_sweep"}), with its first k hosts (0: all). */
static int job_from_spec(struct fleet_job *j, size_t k)
{
	json_t *rec = json_loads(j->s->hosts_json, 0, NULL), *v;
	size_t i;

	if (!rec)
		return -EINVAL;
	j->req = json_incref(json_object_get(rec, "request"));
	j->clock_bound_ms =
		json_number_value(json_object_get(rec, "clock_bound_ms"));
	j->peer_timeout_s =
		json_number_value(json_object_get(rec, "peer_timeout_s"));
	if (!(j->clock_bound_ms > 0))
		j->clock_bound_ms = 5;
	if (!(j->peer_timeout_s > 0))
		j->peer_timeout_s = 10;
	j->sweep = json_incref(json_object_get(rec, "hosts_sweep"));
	json_array_foreach(json_object_get(rec, "hosts"), i, v)
	{
		if (j->n == FLEET_MAX || (k && j->n == k))
			break;
		snprintf(j->hosts[j->n++].name, sizeof(j->hosts[0].name), "%s",
			 json_string_value(v) ?: "");
	}
	json_decref(rec);
	return j->req && j->n ? 0 : -EINVAL;
}

static void publish_job(int64_t id, const char *state, int64_t run,
			const char *error)
{
	events_publish("job",
		       json_pack("{s:I, s:s, s:o, s:s?}", "id", (json_int_t)id,
				 "state", state, "run_id",
				 run ? json_integer(run) : json_null(), "error",
				 error && error[0] ? error : NULL));
}

/* The host counts job id runs with: its hosts_sweep, or all its hosts. */
static size_t sweep_points(const struct job_spec *s, size_t *points, size_t max)
{
	json_t *rec = json_loads(s->hosts_json, 0, NULL), *v;
	size_t n = 0, i;

	json_array_foreach(json_object_get(rec, "hosts_sweep"), i,
			   v) if (n < max) points[n++] =
		(size_t)json_integer_value(v);
	if (!n)
		points[n++] = 0;
	json_decref(rec);
	return n;
}

/* Runs job id with its first k hosts (0: all) into *out (the caller frees
 * it). 0 or fleet_job_run's error. */
static int run_point(struct fleet *f, int64_t id, const struct job_spec *s,
		     size_t k, struct fleet_job **out)
{
	struct fleet_job *j = calloc(1, sizeof(*j));
	int rc;

	if (!(*out = j))
		return -ENOMEM;
	j->f = f;
	j->a = f->a;
	j->id = id;
	j->s = s;
	if ((rc = job_from_spec(j, k)) < 0) {
		snprintf(j->error, sizeof(j->error),
			 "the job's hosts record is not readable");
		return rc;
	}
	j->point = k;
	return fleet_job_run(j);
}

static void run_one(struct fleet *f, int64_t id, const struct job_spec *s)
{
	struct fleet_job *j = NULL;
	size_t points[FLEET_MAX], n = sweep_points(s, points, FLEET_MAX);
	const char *state;
	int rc = 0, stopping;

	publish_job(id, "running", 0, NULL);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (j) {
			fleet_job_clear(j);
			free(j);
		}
		rc = run_point(f, id, s, points[i], &j);
	}
	if (!j) {
		archive_job_finish(f->a, id, 0, "failed", "out of memory",
				   NULL);
		return;
	}
	pthread_mutex_lock(&f->mu);
	stopping = f->stopping;
	pthread_mutex_unlock(&f->mu);
	if (rc == 0)
		state = "done";
	else if (rc == -ECANCELED)
		state = stopping ? "interrupted" : "cancelled";
	else
		state = "failed";
	if (rc == -ECANCELED)
		snprintf(j->error, sizeof(j->error), "%s",
			 stopping ? "the daemon stopped while this job ran; "
				    "its hosts' jobs are cancelled"
				  : "cancelled by request; every host's job "
				    "is cancelled");
	else if (rc < 0 && n > 1)
		snprintf(j->error + strlen(j->error),
			 sizeof(j->error) - strlen(j->error),
			 " (at the sweep's %zu hosts)", j->n);
	if (archive_job_finish(f->a, id, j->agg_run, state,
			       rc == 0 ? NULL : j->error, NULL) < 0)
		log_error("job %lld: its end (%s) could not be written",
			  (long long)id, state);
	if (rc != -ECANCELED || !stopping)
		archive_fleet_settle(f->a, id, NULL);
	publish_job(id, state, j->agg_run, rc == 0 ? NULL : j->error);
	log_info("job %lld (%zu hosts): %s%s%s", (long long)id, j->n, state,
		 rc ? ": " : "", rc ? j->error : "");
	fleet_job_clear(j);
	free(j);
}

/* The hosts' jobs of coordinator jobs a crash (or a stop) ended:
 * cancelled, once each. */
static void settle(struct fleet *f)
{
	json_t *rows = NULL, *r;
	size_t i;

	if (archive_fleet_unsettled(f->a, &rows) < 0)
		return;
	json_array_foreach(rows, i, r)
	{
		const char *host =
			json_string_value(json_object_get(r, "host"));
		int64_t job = json_integer_value(json_object_get(r, "job_id"));
		struct peer p;
		struct peer_reply a;
		char path[64];
		if (peers_get(host, &p) == 0) {
			snprintf(path, sizeof(path), "/api/v1/jobs/%lld",
				 (long long)json_integer_value(
					 json_object_get(r, "member_job")));
			if (peerhttp_call(p.url, p.token, "DELETE", path, NULL,
					  5000, &a) == 0)
				log_info("job %lld: cancelled %s's job %s "
					 "(%ld), which it ran when this "
					 "coordinator stopped",
					 (long long)job, host, path + 13,
					 a.status);
			peer_reply_free(&a);
			os_wipe(p.token, sizeof(p.token));
		}
		archive_fleet_settle(f->a, job, host);
	}
	json_decref(rows);
}

static void *main_loop(void *arg)
{
	struct fleet *f = arg;

	settle(f);
	for (;;) {
		struct job_spec s;
		int64_t id;
		pthread_mutex_lock(&f->mu);
		while (!f->stopping && !f->kicked)
			pthread_cond_wait(&f->cv, &f->mu);
		f->kicked = 0;
		if (f->stopping) {
			pthread_mutex_unlock(&f->mu);
			break;
		}
		pthread_mutex_unlock(&f->mu);
		while (archive_job_claim_hosts(f->a, &id, &s) == 0) {
			pthread_mutex_lock(&f->mu);
			f->current = id;
			atomic_store(&f->cancel, f->stopping);
			pthread_mutex_unlock(&f->mu);
			run_one(f, id, &s);
			job_spec_clear(&s);
			pthread_mutex_lock(&f->mu);
			f->current = 0;
			json_decref(f->progress);
			f->progress = NULL;
			pthread_mutex_unlock(&f->mu);
		}
	}
	return NULL;
}

int fleet_open(const char *db_path, struct fleet **out)
{
	struct fleet *f = calloc(1, sizeof(*f));
	struct probe *pr = calloc(1, sizeof(*pr));
	int rc;

	*out = NULL;
	if (!f || !pr) {
		free(f);
		free(pr);
		return -ENOMEM;
	}
	if ((rc = archive_open(db_path, &f->a)) < 0) {
		free(f);
		free(pr);
		return rc;
	}
	if (probe_path(db_path, pr) == 0)
		snprintf(f->hostname, sizeof(f->hostname), "%s", pr->hostname);
	free(pr);
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->kicked = 1; /* jobs queued before a restart */
	*out = f;
	return 0;
}

int fleet_run(struct fleet *f)
{
	if (pthread_create(&f->tid, NULL, main_loop, f) != 0)
		return -EAGAIN;
	f->started = 1;
	return 0;
}

void fleet_kick(struct fleet *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->kicked = 1;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

int fleet_cancel(struct fleet *f, int64_t id)
{
	int rc = -ENOENT;

	if (!f)
		return rc;
	pthread_mutex_lock(&f->mu);
	if (f->current == id && id > 0) {
		atomic_store(&f->cancel, 1);
		rc = 0;
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

json_t *fleet_progress(struct fleet *f, int64_t id)
{
	json_t *p = NULL;

	if (!f)
		return NULL;
	pthread_mutex_lock(&f->mu);
	if (f->current == id && id > 0 && f->progress)
		p = json_deep_copy(f->progress);
	pthread_mutex_unlock(&f->mu);
	return p;
}

void fleet_stop(struct fleet *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stopping = 1;
	atomic_store(&f->cancel, 1);
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	if (f->started)
		pthread_join(f->tid, NULL);
	json_decref(f->progress);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	archive_close(f->a);
	free(f);
}
