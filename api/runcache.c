/*
 * runcache — answers about runs that have ended, kept in memory.
 *
 * A run that has ended (done, failed, cancelled, interrupted) does not
 * change but for its labels and notes, and those change only through this
 * API (PATCH, DELETE: they forget the run here, after the archive has
 * it). So each of its answers (the JSON, the CSV, the CrystalDiskMark
 * text, the samples) is made once, on its first request, and then served
 * as bytes, with a strong ETag (the first 64 bits of the bytes' SHA-256,
 * nettle's). At most API_CACHE_BYTES are kept; the least recently served
 * answer goes first. Thread-safe.
 *
 * A request that read the archive before an edit may finish after the
 * edit forgot the run: it must not keep what it read. So every forget
 * counts (forgets), a request notes the count before it reads
 * (api_cache_epoch), and a copy is kept only when no forget came between.
 */
#include "api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"

#define API_CACHE_BYTES (64UL << 20)
#define N_BUCKETS 1024

struct entry {
	int64_t run;
	char variant[16];
	char *body;
	size_t len;
	const char *content_type; /* a string literal of the handler's */
	char filename[96];
	char etag[24];
	struct entry *chain;	     /* the bucket's next */
	struct entry *newer, *older; /* recency */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry *buckets[N_BUCKETS];
static struct entry *newest, *oldest;
static size_t bytes;
static uint64_t forgets; /* under mu */

static struct entry **slot(int64_t run, const char *variant)
{
	struct entry **e = &buckets[(uint64_t)run % N_BUCKETS];

	while (*e && ((*e)->run != run || strcmp((*e)->variant, variant)))
		e = &(*e)->chain;
	return e;
}

static void unlink_recency(struct entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		oldest = e->newer;
	e->newer = e->older = NULL;
}

static void link_newest(struct entry *e)
{
	e->older = newest;
	e->newer = NULL;
	if (newest)
		newest->newer = e;
	newest = e;
	if (!oldest)
		oldest = e;
}

/* Takes e out of the cache and frees it; mu held. */
static void drop(struct entry *e)
{
	struct entry **s = slot(e->run, e->variant);

	*s = e->chain;
	unlink_recency(e);
	bytes -= e->len;
	free(e->body);
	free(e);
}

void api_etag_of(const void *body, size_t len, char out[24])
{
	char hex[65];

	import_sha256_hex(body, len, hex);
	snprintf(out, 24, "\"%.16s\"", hex); /* its first 64 bits */
}

int api_cache_get(int64_t run, const char *variant, struct api_resp *resp)
{
	struct entry *e;
	char *copy = NULL;

	pthread_mutex_lock(&mu);
	e = *slot(run, variant);
	if (e && (copy = malloc(e->len ? e->len : 1)) != NULL) {
		memcpy(copy, e->body, e->len);
		unlink_recency(e);
		link_newest(e);
		resp->status = 200;
		resp->body = copy;
		resp->len = e->len;
		resp->content_type = e->content_type;
		snprintf(resp->filename, sizeof(resp->filename), "%s",
			 e->filename);
		snprintf(resp->etag, sizeof(resp->etag), "%s", e->etag);
		resp->cache_control = API_CACHE_ENDED;
	}
	pthread_mutex_unlock(&mu);
	return copy != NULL;
}

uint64_t api_cache_epoch(void)
{
	uint64_t n;

	pthread_mutex_lock(&mu);
	n = forgets;
	pthread_mutex_unlock(&mu);
	return n;
}

void api_cache_put(int64_t run, const char *variant, uint64_t epoch,
		   struct api_resp *resp)
{
	struct entry *e, **s;

	if (resp->status != 200 || !resp->body || resp->len > API_CACHE_BYTES)
		return;
	if (!(e = calloc(1, sizeof(*e))) || !(e->body = malloc(resp->len))) {
		free(e);
		return;
	}
	e->run = run;
	snprintf(e->variant, sizeof(e->variant), "%s", variant);
	memcpy(e->body, resp->body, resp->len);
	e->len = resp->len;
	e->content_type = resp->content_type;
	snprintf(e->filename, sizeof(e->filename), "%s", resp->filename);
	api_etag_of(e->body, e->len, e->etag);
	snprintf(resp->etag, sizeof(resp->etag), "%s", e->etag);
	resp->cache_control = API_CACHE_ENDED;
	pthread_mutex_lock(&mu);
	if (forgets != epoch) { /* an edit came after this was read */
		pthread_mutex_unlock(&mu);
		free(e->body);
		free(e);
		resp->etag[0] = '\0';
		resp->cache_control = API_CACHE_LIVE;
		return;
	}
	if (*(s = slot(run, variant)))
		drop(*s); /* another thread made it too */
	s = slot(run, variant);
	e->chain = *s;
	*s = e;
	link_newest(e);
	bytes += e->len;
	while (bytes > API_CACHE_BYTES && oldest != e)
		drop(oldest);
	pthread_mutex_unlock(&mu);
}

void api_cache_forget(int64_t run)
{
	pthread_mutex_lock(&mu);
	forgets++;
	for (struct entry *e = buckets[(uint64_t)run % N_BUCKETS], *next; e;
	     e = next) {
		next = e->chain;
		if (e->run == run)
			drop(e);
	}
	pthread_mutex_unlock(&mu);
}
