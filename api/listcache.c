/*
 * listcache — the list routes' answers (GET /api/v1/runs, GET
 * /api/v1/jobs), kept as bytes until the archive changes.
 *
 * Dashboards and scripts poll the lists; each answer is many rows of the
 * archive made into JSON, the same bytes again until something is written.
 * So an answer is kept per query (the route and its arguments' values, in
 * the route's order: its key) with the archive's generation it was read at
 * (archive_generation: a count every commit moves, this process's or
 * another's), and served as bytes, with a strong ETag (api_etag_of), while
 * the generation has not moved: the server sends the kept bytes
 * themselves, counted while it does (struct api_bytes), not a copy. A kept
 * answer of an older generation is never served: the first request after
 * any write makes a fresh one.
 *
 * What the archive does not hold is not kept: while a job's end waits to
 * be written (jobq_unwritten: the lists show it ended, the archive says
 * running) no answer is kept or served, and a handler keeps no answer that
 * shows a running job's live progress (api_list_put's keep 0).
 *
 * The same discipline as runcache.c's for a request that read before an
 * edit: the generation is noted before the reads, and a copy is kept only
 * if it has not moved when the answer is made. At most LIST_SLOTS answers
 * and LIST_BYTES bytes are kept; a new answer takes an older generation's
 * slot first, else the one kept longest. Thread-safe.
 */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "queue/jobq.h"

#define LIST_SLOTS 32
#define LIST_BYTES (32UL << 20)
#define LIST_KEY 512

struct slot {
	char key[LIST_KEY]; /* "" unused */
	uint64_t gen;
	struct api_bytes *body;
	size_t len;
	const char *content_type; /* a string literal of the handler's */
	char etag[24];
	uint64_t made; /* order of making: the oldest goes first */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[LIST_SLOTS];
static size_t kept_bytes;
static uint64_t made;

int api_list_key(struct api_req *req, const char *route,
		 const char *const names[], char *key, size_t size)
{
	size_t n;
	int w = snprintf(key, size, "%s?", route);

	if (w < 0 || (size_t)w >= size)
		return -ENAMETOOLONG;
	n = (size_t)w;
	for (size_t i = 0; names[i]; i++) {
		const char *v = api_query_str(req, names[i]);
		if (!v)
			continue;
		/* the value's length first: no value can fake a boundary */
		w = snprintf(key + n, size - n, "%s=%zu:%s&", names[i],
			     strlen(v), v);
		if (w < 0 || (size_t)w >= size - n)
			return -ENAMETOOLONG;
		n += (size_t)w;
	}
	return 0;
}

uint64_t api_list_gen(struct api_req *req)
{
	if (jobq_unwritten(req->ctx->q, NULL))
		return 0;
	return archive_generation(req->ctx->a);
}

struct api_bytes *api_bytes_new(const void *data, size_t len)
{
	struct api_bytes *b = malloc(sizeof(*b) + len + 1);

	if (!b)
		return NULL;
	atomic_init(&b->refs, 1);
	b->len = len;
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

struct api_bytes *api_bytes_ref(struct api_bytes *b)
{
	atomic_fetch_add(&b->refs, 1);
	return b;
}

void api_bytes_unref(void *cls)
{
	struct api_bytes *b = cls;

	if (b && atomic_fetch_sub(&b->refs, 1) == 1)
		free(b);
}

int api_list_get(struct api_req *req, const char *key, uint64_t gen,
		 struct api_resp *resp)
{
	int hit = 0;

	if (!gen)
		return 0;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < LIST_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (s->gen != gen || strcmp(s->key, key) != 0)
			continue;
		/* sent from the kept bytes where a server sends it (it calls
		 * release), else a copy */
		if (req->conn) {
			resp->static_body =
				(const unsigned char *)api_bytes_ref(s->body)
					->data;
			resp->release = api_bytes_unref;
			resp->release_cls = s->body;
		} else if ((resp->body = malloc(s->len ? s->len : 1))) {
			memcpy(resp->body, s->body->data, s->len);
		} else {
			break;
		}
		hit = 1;
		resp->status = 200;
		resp->len = s->len;
		resp->content_type = s->content_type;
		snprintf(resp->etag, sizeof(resp->etag), "%s", s->etag);
		resp->cache_control = API_CACHE_ENDED;
		break;
	}
	pthread_mutex_unlock(&mu);
	return hit;
}

/* Empties slot s; mu held. */
static void clear(struct slot *s)
{
	kept_bytes -= s->len;
	api_bytes_unref(s->body);
	memset(s, 0, sizeof(*s));
}

/* The slot a new answer of generation gen for key takes; mu held. */
static struct slot *pick(const char *key, uint64_t gen)
{
	struct slot *best = NULL;

	for (size_t i = 0; i < LIST_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (s->key[0] && s->gen != gen)
			clear(s); /* an older generation's: never served */
		if (!s->key[0] || strcmp(s->key, key) == 0)
			return s;
		if (!best || s->made < best->made)
			best = s;
	}
	return best;
}

void api_list_put(struct api_req *req, const char *key, uint64_t gen, int keep,
		  struct api_resp *resp)
{
	struct slot *s;
	struct api_bytes *copy; /* the slot's */

	if (resp->status != 200 || !resp->body)
		return;
	api_etag_of(resp->body, resp->len, resp->etag);
	resp->cache_control = API_CACHE_ENDED;
	if (!keep || !gen || resp->len > LIST_BYTES / 4 ||
	    strlen(key) >= LIST_KEY ||
	    !(copy = api_bytes_new(resp->body, resp->len)))
		return;
	/* a write since gen, or a job's end now waiting: what was read may
	 * be older than what the next request must see */
	if (jobq_unwritten(req->ctx->q, NULL)) {
		api_bytes_unref(copy);
		return;
	}
	pthread_mutex_lock(&mu);
	if (archive_generation(NULL) != gen) {
		pthread_mutex_unlock(&mu);
		api_bytes_unref(copy);
		return;
	}
	s = pick(key, gen);
	clear(s);
	while (kept_bytes + resp->len > LIST_BYTES) {
		struct slot *old = NULL;
		for (size_t i = 0; i < LIST_SLOTS; i++)
			if (slots[i].key[0] &&
			    (!old || slots[i].made < old->made))
				old = &slots[i];
		clear(old);
	}
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->gen = gen;
	s->body = copy;
	s->len = resp->len;
	s->content_type = resp->content_type;
	snprintf(s->etag, sizeof(s->etag), "%s", resp->etag);
	s->made = ++made;
	kept_bytes += s->len;
	pthread_mutex_unlock(&mu);
}
