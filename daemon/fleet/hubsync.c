/*
 * hubsync — see hubsync.h for the design. The thread's state (what
 * hubsync_status shows) is under one mutex, with one condition variable
 * that a kick and the stop signal; the archive and the network are used
 * with the mutex let go, so the API's readers never wait on them.
 */
#include "hubsync.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive/archive.h"
#include "hub.h"
#include "os/os.h"
#include "peerhttp.h"
#include "platform/log.h"

/* ms a run's document may take to reach the hub and be answered (a
 * document of 16 MiB, the import's limit, over a slow link) */
#define HUBSYNC_TIMEOUT_MS 300000L

struct hubsync {
	struct archive *a; /* the thread's own connection */
	char url[520];	   /* the hub, trailing slashes dropped */
	char token[256];   /* "" for none; wiped at stop */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	atomic_int stop; /* read by the transfer's progress callback */
	int started;	 /* tid runs */
	/* under mu */
	int kicked, sending, failures;
	unsigned long long sent;
	time_t next_try; /* wall clock, s; 0: no back-off */
	char last_push_at[32], last_error_at[32];
	char last_error[700];
};

/* time t as ISO 8601 UTC into buf. */
static void iso_of(time_t t, char buf[32])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Waits on h->cv (mu held) until time until (wall clock, s) or a signal. */
static void wait_until(struct hubsync *h, time_t until)
{
	struct timespec ts = { .tv_sec = until, .tv_nsec = 0 };

	pthread_cond_timedwait(&h->cv, &h->mu, &ts);
}

/* A failed try of run id: the back-off grows (1, 2, 4 … 60 s) and the
 * reason is kept and logged. mu held. */
static void failed(struct hubsync *h, int64_t id, const char *why)
{
	int k = h->failures < 7 ? h->failures : 7;
	time_t wait = (time_t)1 << k;

	if (wait > HUBSYNC_BACKOFF_MAX)
		wait = HUBSYNC_BACKOFF_MAX;
	h->failures++;
	h->next_try = time(NULL) + wait;
	snprintf(h->last_error, sizeof(h->last_error), "run %lld: %s",
		 (long long)id, why);
	log_utc_now(h->last_error_at);
	log_warn("hub %s: run %lld not sent: %s; next try in %lld s", h->url,
		 (long long)id, why, (long long)wait);
}

/* Sends run id and records what came of it; mu held (let go while the
 * archive and the network work). */
static void send_run(struct hubsync *h, int64_t id)
{
	struct hub_sent s;
	char why[600];
	int rc, mark = 0;

	h->sending = 1;
	pthread_mutex_unlock(&h->mu);
	rc = hub_push_run(h->a, h->url, h->token[0] ? h->token : NULL, id,
			  HUBSYNC_TIMEOUT_MS, &h->stop, &s);
	if (rc == 0 && s.outcome != HUB_FAILED)
		mark = archive_hub_mark(h->a, id, h->url,
					s.outcome == HUB_TAKEN, s.remote_id,
					s.status, s.detail);
	pthread_mutex_lock(&h->mu);
	h->sending = 0;
	if (rc == -ENOENT || mark == -ENOENT)
		return; /* deleted meanwhile: nothing to send */
	if (rc < 0) {
		snprintf(why, sizeof(why), "its document: %s", strerror(-rc));
		failed(h, id, why);
	} else if (s.outcome == HUB_FAILED) {
		if (atomic_load(&h->stop))
			return; /* given up for the stop: still pending */
		if (s.status)
			snprintf(why, sizeof(why), "the hub answered %ld: %s",
				 s.status, s.detail);
		else
			snprintf(why, sizeof(why), "the hub did not answer: %s",
				 s.detail);
		failed(h, id, why);
	} else if (mark < 0) {
		/* the hub has it, the archive could not say so: sent again
		 * later, which the hub answers as a duplicate */
		failed(h, id, "the archive could not record the hub's answer");
	} else if (s.outcome == HUB_TAKEN) {
		h->failures = 0;
		h->next_try = 0;
		h->sent++;
		h->last_error[0] = h->last_error_at[0] = '\0';
		log_utc_now(h->last_push_at);
		log_info("hub %s: run %lld %s run %lld there", h->url,
			 (long long)id,
			 s.duplicate ? "was already" : "pushed as",
			 (long long)s.remote_id);
	} else {
		h->failures = 0; /* the hub answers: no back-off */
		h->next_try = 0;
		snprintf(h->last_error, sizeof(h->last_error),
			 "run %lld: refused (%ld): %s", (long long)id, s.status,
			 s.detail);
		log_utc_now(h->last_error_at);
		log_warn("hub %s refused run %lld (%ld): %s; it is not sent "
			 "again",
			 h->url, (long long)id, s.status, s.detail);
	}
}

static void *worker(void *arg)
{
	struct hubsync *h = arg;
	int64_t after = 0; /* the run tried last: the next try takes the next */

	os_thread_name("sb-hub");
	pthread_mutex_lock(&h->mu);
	while (!atomic_load(&h->stop)) {
		int64_t id = 0;
		int rc;

		if (h->next_try && time(NULL) < h->next_try) {
			/* (a wall clock stepped back waits no longer) */
			if (h->next_try - time(NULL) > HUBSYNC_BACKOFF_MAX)
				h->next_try = time(NULL) + HUBSYNC_BACKOFF_MAX;
			wait_until(h, h->next_try);
			continue;
		}
		h->kicked = 0;
		pthread_mutex_unlock(&h->mu);
		rc = archive_hub_next(h->a, h->url, after, &id);
		if (rc == -ENOENT && after > 0) { /* from the oldest again */
			after = 0;
			rc = archive_hub_next(h->a, h->url, after, &id);
		}
		pthread_mutex_lock(&h->mu);
		if (rc < 0) {
			/* nothing pending (or the archive is busy: logged) */
			if (!h->kicked && !atomic_load(&h->stop))
				wait_until(h, time(NULL) + HUBSYNC_POLL_S);
			continue;
		}
		send_run(h, id);
		after = id;
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

int hubsync_start(const char *db_path, const char *url, const char *token,
		  struct hubsync **out)
{
	struct hubsync *h;
	size_t n;
	int rc;

	*out = NULL;
	if (!peerhttp_url_ok(url) || (token && strlen(token) >= 256))
		return -EINVAL;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	snprintf(h->url, sizeof(h->url), "%.*s", (int)n, url);
	snprintf(h->token, sizeof(h->token), "%s", token ? token : "");
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	if ((rc = archive_open(db_path, &h->a)) < 0)
		goto fail;
	if (pthread_create(&h->tid, NULL, worker, h) != 0) {
		rc = -EAGAIN;
		goto fail;
	}
	h->started = 1;
	*out = h;
	return 0;
fail:
	hubsync_stop(h);
	return rc;
}

void hubsync_stop(struct hubsync *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	atomic_store(&h->stop, 1);
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	if (h->started)
		pthread_join(h->tid, NULL);
	archive_close(h->a);
	os_wipe(h->token, sizeof(h->token));
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

void hubsync_kick(struct hubsync *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->kicked = 1;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

const char *hubsync_url(const struct hubsync *h)
{
	return h ? h->url : NULL;
}

/* s as a JSON string, or null when it is empty. */
static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

void hubsync_status(struct hubsync *h, json_t *o)
{
	char at[32];
	time_t now = time(NULL);

	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	json_object_set_new(o, "state",
			    json_string(h->sending    ? "pushing"
					: h->next_try ? "waiting"
						      : "idle"));
	json_object_set_new(o, "sent", json_integer((json_int_t)h->sent));
	json_object_set_new(o, "last_push_at", str_or_null(h->last_push_at));
	json_object_set_new(o, "last_error", str_or_null(h->last_error));
	json_object_set_new(o, "last_error_at", str_or_null(h->last_error_at));
	json_object_set_new(o, "failures", json_integer(h->failures));
	if (h->next_try && !h->sending) {
		iso_of(h->next_try, at);
		json_object_set_new(o, "next_try_at", json_string(at));
		json_object_set_new(
			o, "next_try_in_s",
			json_integer(h->next_try > now
					     ? (json_int_t)(h->next_try - now)
					     : 0));
	} else {
		json_object_set_new(o, "next_try_at", json_null());
		json_object_set_new(o, "next_try_in_s", json_null());
	}
	pthread_mutex_unlock(&h->mu);
}
