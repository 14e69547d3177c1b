/*
 * peers — the other storbench daemons this one coordinates in multi-host
 * jobs (fleet.h), by name: each peer's base URL and the API token it
 * wants, kept beside the SMB credentials in their own 0600 file
 * (creds_db_open, DATA/credentials.db), never in the archive; nothing the
 * API returns, the log writes or a run stores holds a token. This daemon
 * itself is the peer "self" (its loopback URL and own token, set by
 * serve). Any thread may call.
 */
#ifndef STORBENCH_PEERS_H
#define STORBENCH_PEERS_H

#include <jansson.h>

struct peer {
	char name[65];
	char url[513];
	char token[256]; /* "" when the peer needs none */
};

/* This daemon as a host of its own multi-host jobs: its API's base URL on
 * loopback (http://127.0.0.1:PORT) and its API token. */
void peers_self_set(const char *url, const char *token);

/* name's URL and token ("self": what peers_self_set gave). 0, -ENOENT, or
 * -EIO (the store failed). */
int peers_get(const char *name, struct peer *out);

/* Stores a peer (replace 1 overwrites, else -EEXIST; -EEXIST also when a
 * peer of the name in another case exists: N2 and n2 are one name); *created
 * says whether it was new. name: creds_name_ok and not "self"; url:
 * peerhttp_url_ok (the caller checks both). 0 or a negative errno. */
int peers_put(const char *name, const char *url, const char *token, int replace,
	      int *created);
/* Removes name. 0 or -ENOENT. */
int peers_delete(const char *name);
/* name, url, token_set, created_at, updated_at of one peer (never its
 * token), or of all (an array) when name is NULL. 0, -ENOENT or -EIO. */
int peers_json(const char *name, json_t **out);

/* What a probe of a peer found. */
struct peer_clock {
	int reachable;	    /* a 200 with the peer's clock came */
	long status;	    /* the last HTTP status, 0 when none came */
	char error[200];    /* why not reachable, naming the peer */
	char version[32];   /* its storbench version */
	char os[16];	    /* "linux" or "windows" */
	char hostname[256]; /* its host's name */
	char instance[33];  /* its daemon's instance (random per start): two
			       peers with one are one daemon */
	double rtt_ms;	    /* the shortest round trip of the tries, ms */
	double offset_ms;   /* its clock minus ours, from that try: its unix_ns
			       less the middle of the round trip, ms */
	double uncertainty_ms; /* half that round trip: the true offset is
				  within offset_ms ± this */
};

/*
 * tries (1 … 16) GETs of p's /api/v1/clock, NTP's way: the try with the
 * shortest round trip gives the offset, half of it the uncertainty (each
 * try waits at most 2 s). 0 when reachable; else a negative errno with
 * out->error saying why (not answering, the token refused: 401/403).
 */
int peers_probe(const struct peer *p, int tries, struct peer_clock *out);

/* The probe of every peer in list (peers_json's array, self first when
 * set), made at once (a thread each), added to each as reachable, status,
 * error, version, os, hostname, rtt_ms, offset_ms, uncertainty_ms. */
void peers_probe_list(json_t *list);

#endif
