/*
 * hubsync — `storbench serve --hub URL`: every run of this daemon's
 * archive that has ended (done, failed, cancelled or interrupted; measured
 * here or imported) is sent to the hub daemon at URL through its import
 * endpoint (hub.h: hub_push_run, what `storbench push` does), so the
 * hub's archive holds the runs of every server that names it.
 *
 * Design: one thread (sb-hub) with its own archive connection. It takes
 * the archive's pending runs (archive_hub_next: ended, without a row for
 * this hub URL in hub_pushes) oldest first, sends each, and records what
 * the hub did: took it (pushed) or refused it for good (a 4xx about the
 * run: recorded with the hub's detail, logged, not sent again). A try
 * that failed (no answer, a 5xx, 401, 403, 404, 405, 408, 429) is made
 * again after 1, 2, 4 … 60 s, the next try taking the next pending run
 * (so one run the hub cannot take holds up no other); a run taken resets
 * the back-off. Nothing is lost while the hub is away: pending is what
 * the archive holds, so a restart finds it again. No duplicates: the hub
 * answers a uuid it has as a duplicate (200), recorded as pushed.
 *
 * It wakes at once when told something ended (hubsync_kick: the queue's
 * job-end hook and an import call it) and otherwise looks at the archive
 * every HUBSYNC_POLL_S seconds. The token is kept in memory only, never
 * shown (hubsync_status) or logged, and wiped when the thread stops.
 */
#ifndef STORBENCH_HUBSYNC_H
#define STORBENCH_HUBSYNC_H

#include <jansson.h>

#define HUBSYNC_POLL_S 5       /* s between looks without a kick */
#define HUBSYNC_BACKOFF_MAX 60 /* s: the longest wait after failed tries */

struct hubsync;

/*
 * Starts the pusher to the hub at url (checked by peerhttp_url_ok; kept
 * with its trailing slashes dropped, the name its rows are kept under)
 * with token (NULL or "": none; copied), over its own connection to the
 * archive at db_path. *out is freed by hubsync_stop. 0 or a negative
 * errno (-EINVAL for a url peerhttp_url_ok refuses).
 */
int hubsync_start(const char *db_path, const char *url, const char *token,
		  struct hubsync **out);

/* Stops the thread (a run being sent is given up within about a second;
 * it stays pending), waits for it and frees h. NULL is fine. */
void hubsync_stop(struct hubsync *h);

/* Something may have ended (a job, an import): look at the archive now.
 * From any thread; NULL is fine. Not during a back-off's wait. */
void hubsync_kick(struct hubsync *h);

/* The hub's URL as its rows name it, or NULL when h is NULL. */
const char *hubsync_url(const struct hubsync *h);

/*
 * Adds to o what the pusher knows beside the archive's counts: "state"
 * ("pushing": a run is being sent, "waiting": a failed try waits for the
 * next, "idle": nothing pending that it knows of), "sent" (runs the hub
 * took since this daemon started), "last_push_at", "last_error" (the
 * last failed or refused try, in words: which run, what the hub said or
 * why no answer came; null after a run taken since), "last_error_at",
 * "failures" (failed tries in a row), "next_try_at" and "next_try_in_s"
 * (when the next try is, during a back-off; else null). Any thread.
 */
void hubsync_status(struct hubsync *h, json_t *o);

#endif
