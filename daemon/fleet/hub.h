/*
 * hub — one run of this archive sent to another daemon's import endpoint
 * (POST /api/v1/import), as its run document (runview_document), so it
 * lands in that archive whole under its own uuid; a run already there is
 * answered as a duplicate, never copied. The one implementation of
 * "send a run document": `storbench push` (cmd_push.c) and the hub pusher
 * of `storbench serve --hub` (hubsync.h) both call hub_push_run.
 *
 * What an answer means is decided here too (hub_push_run's outcome): the
 * other archive has the run (201 imported, 200 already there), refused it
 * for good (a 4xx about the run: 400, 409, 413, 422 …), or the try failed
 * and may be made again (no answer, a 5xx, 401, 403, 408, 429, and 404 or
 * 405: the URL is not a storbench import endpoint, not the run's fault).
 */
#ifndef STORBENCH_HUB_H
#define STORBENCH_HUB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct archive;

enum hub_outcome {
	HUB_TAKEN,   /* the other archive has the run (imported or there) */
	HUB_REFUSED, /* it refused the run: sending it again will not help */
	HUB_FAILED,  /* no answer, or one that may change: try again later */
};

/* What sending one run came to. */
struct hub_sent {
	enum hub_outcome outcome;
	long status;	   /* the HTTP status; 0 when no answer came */
	int duplicate;	   /* HUB_TAKEN: it was there already (200) */
	int64_t remote_id; /* HUB_TAKEN: the run's id in the other archive */
	char detail[512];  /* the problem's detail (its title, the body's
			      start), or why no answer came (libcurl's
			      words); "" when taken */
};

/* url's import endpoint into out (len bytes): url itself when it names
 * /api/v1/import, else url with /api/v1/import after it (trailing slashes
 * dropped); ?filename=filename after it when filename is not NULL. */
void hub_endpoint(const char *url, const char *filename, char *out, size_t len);

/*
 * POSTs run run_id of a as its document to url (the other daemon's base,
 * "http://host:8080", or its import endpoint; checked by
 * peerhttp_url_ok) with token as a Bearer token (NULL: none), waiting at
 * most timeout_ms, and gives up within about a second once *stop (NULL:
 * never) is set. Fills *out. Returns 0 when out says what came of it
 * (an answer, or none: HUB_FAILED); -ENOENT when a has no run run_id,
 * -ENOMEM, or the archive's errno (nothing was sent).
 */
int hub_push_run(struct archive *a, const char *url, const char *token,
		 int64_t run_id, long timeout_ms, const atomic_int *stop,
		 struct hub_sent *out);

#endif
