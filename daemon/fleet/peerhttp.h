/*
 * peerhttp — one HTTP request from this daemon to another storbench
 * daemon's API (a peer of a multi-host job, a hub, the archive of
 * `storbench push`), over libcurl: http and https only, no redirects
 * followed (a token is sent to the URL given and nowhere else), the token
 * as `Authorization: Bearer`, JSON in and out.
 *
 * Safe from any thread (libcurl is set up once, peerhttp_call makes an
 * easy handle per request).
 */
#ifndef STORBENCH_PEERHTTP_H
#define STORBENCH_PEERHTTP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* What a peer answered. */
struct peer_reply {
	long status;	 /* the HTTP status; 0 when no answer came */
	char *body;	 /* the body, NUL-terminated (NULL when empty) */
	size_t len;	 /* its length, bytes (at most PEERHTTP_MAX_BODY) */
	json_t *json;	 /* body parsed as JSON, or NULL */
	int64_t sent_ns; /* os_wall_ns() just before the request left */
	int64_t recv_ns; /* … and when its answer was read */
	char error[200]; /* why no answer (libcurl's words), when status 0 */
};

/* The largest body kept (a run document with every second and histogram
 * of a long job fits); longer answers fail with "answer too long". */
#define PEERHTTP_MAX_BODY (256u << 20)

/* 1 when url is an http:// or https:// URL (the scheme in any case) with a
 * host, a port (if any) of 1 … 65535, no user or password, query,
 * fragment, blank or control character, of at most 512 bytes, as
 * libcurl's URL parser reads it; else 0. */
int peerhttp_url_ok(const char *url);

/*
 * method (GET, POST, DELETE) base + path (base's trailing slashes dropped;
 * path starts with '/', or is NULL for base itself) with token as a Bearer
 * token (NULL: none) and body as application/json (NULL: none), waiting at
 * most timeout_ms for the whole exchange (connecting: at most 5 s of it).
 * Fills *r (free with peer_reply_free). Returns 0 when an answer came,
 * whatever its status; a negative errno when none did (-ETIMEDOUT,
 * -ECONNREFUSED, -EHOSTUNREACH, -EIO otherwise, -EFBIG answer too long),
 * with r->error saying why.
 */
int peerhttp_call(const char *base, const char *token, const char *method,
		  const char *path, const char *body, long timeout_ms,
		  struct peer_reply *r);
/* peerhttp_call that gives up within about a second once *stop (NULL:
 * never) is nonzero: -ECANCELED, r->error "stopped". For a thread that
 * must end promptly when the daemon stops. */
int peerhttp_call_until(const char *base, const char *token, const char *method,
			const char *path, const char *body, long timeout_ms,
			const atomic_int *stop, struct peer_reply *r);

void peer_reply_free(struct peer_reply *r);

/* The sentence a problem+json answer carries (its detail, else its
 * title), or the body's start, or "(no answer)"; for error messages. */
const char *peer_reply_detail(const struct peer_reply *r);

#endif
