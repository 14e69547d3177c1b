/*
 * sse — GET /api/v1/events as server-sent events, without a thread per
 * stream. Each stream's reader sends what the event bus (events.h) holds
 * after the last event it sent; with nothing new it suspends its connection
 * (libmicrohttpd's way to say "no data yet" without a busy loop) and the
 * bus's waker, or the ticker once a second (for keep-alives), resumes it.
 * Every stream ends when the server stops.
 */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <microhttpd.h>

#include "events.h"
#include "os.h"

struct api_streams {
	pthread_mutex_t mu;
	struct sse *streams; /* under mu */
	int stopping;	     /* under mu */
	pthread_t ticker;
	pthread_cond_t tick_cv; /* with mu: wakes the ticker to stop */
	int ticker_started;
};

/*
 * One event stream. Its reader sends what the bus (events.h) holds after
 * `last`; with nothing new it suspends the connection (the libmicrohttpd
 * way to say "no data yet" without a busy loop) and the bus's waker, or
 * the ticker once a second, resumes it.
 */
struct sse {
	struct api_streams *srv;
	struct MHD_Connection *c;
	uint64_t last;		 /* sequence number of the last event sent */
	uint64_t wrote_ns;	 /* when something was last sent */
	int hello;		 /* the opening lines went */
	int suspended;		 /* under srv->mu */
	struct sse *next, *prev; /* under srv->mu */
};

#define SSE_KEEPALIVE_NS (15ULL * 1000000000ULL)

/* Resumes every suspended stream; the caller holds s->mu. */
static void resume_all(struct api_streams *s)
{
	for (struct sse *e = s->streams; e; e = e->next)
		if (e->suspended) {
			e->suspended = 0;
			MHD_resume_connection(e->c);
		}
}

/* The bus's waker: new events (or the stop). */
static void sse_wake(void *arg)
{
	struct api_streams *s = arg;

	pthread_mutex_lock(&s->mu);
	resume_all(s);
	pthread_mutex_unlock(&s->mu);
}

/* Once a second: streams due a keep-alive send it. */
static void *sse_ticker(void *arg)
{
	struct api_streams *s = arg;

	pthread_mutex_lock(&s->mu);
	while (!s->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&s->tick_cv, &s->mu, &until);
		resume_all(s);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;
	struct api_streams *s = e->srv;
	uint64_t now = os_now_ns();
	size_t n = 0;

	(void)pos;
	pthread_mutex_lock(&s->mu);
	if (s->stopping) {
		pthread_mutex_unlock(&s->mu);
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	if (!e->hello) {
		int w = snprintf(buf, max,
				 ": storbench %s event stream\nretry: 2000\n\n",
				 STORBENCH_VERSION);
		n = w > 0 && (size_t)w < max ? (size_t)w : 0;
		e->hello = 1;
	}
	n += events_read(e->last, buf + n, max - n, &e->last);
	if (n == 0 && now - e->wrote_ns >= SSE_KEEPALIVE_NS) {
		int w = snprintf(buf, max, ": keep-alive\n\n");
		n = w > 0 && (size_t)w < max ? (size_t)w : 0;
	}
	if (n == 0) {
		/* nothing to say: park the connection until the next event
		 * or tick resumes it (no lost wake-up: both take sse_mu) */
		e->suspended = 1;
		MHD_suspend_connection(e->c);
	} else {
		e->wrote_ns = now;
	}
	pthread_mutex_unlock(&s->mu);
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	struct sse *e = cls;
	struct api_streams *s = e->srv;

	pthread_mutex_lock(&s->mu);
	if (e->prev)
		e->prev->next = e->next;
	else
		s->streams = e->next;
	if (e->next)
		e->next->prev = e->prev;
	pthread_mutex_unlock(&s->mu);
	free(e);
}

int api_streams_open(struct api_streams *s, struct MHD_Connection *c)
{
	struct sse *e = calloc(1, sizeof(*e));
	const char *lei = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "Last-Event-ID");
	struct MHD_Response *mr;
	enum MHD_Result ret;
	uint64_t now_seq = events_last();

	if (!e)
		return MHD_NO;
	e->srv = s;
	e->c = c;
	e->last = now_seq;
	e->wrote_ns = os_now_ns();
	if (lei && *lei) {
		char *end;
		unsigned long long v;
		errno = 0;
		v = strtoull(lei, &end, 10);
		if (!errno && !*end && v <= now_seq)
			e->last = v;
	}
	mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384,
					       sse_read, e, sse_free);
	if (!mr) {
		free(e);
		return MHD_NO;
	}
	pthread_mutex_lock(&s->mu);
	e->next = s->streams;
	if (s->streams)
		s->streams->prev = e;
	s->streams = e;
	pthread_mutex_unlock(&s->mu);
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/event-stream; charset=utf-8");
	api_guard_headers(mr);
	MHD_add_response_header(mr, "X-Accel-Buffering", "no");
	ret = MHD_queue_response(c, MHD_HTTP_OK, mr);
	MHD_destroy_response(mr);
	return ret;
}

int api_streams_start(struct api_streams **out)
{
	struct api_streams *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->tick_cv, NULL);
	if (pthread_create(&s->ticker, NULL, sse_ticker, s) == 0)
		s->ticker_started = 1;
	events_set_waker(sse_wake, s);
	*out = s;
	return 0;
}

void api_streams_stop(struct api_streams *s)
{
	if (!s)
		return;
	events_set_waker(NULL, NULL);
	/* event streams end: their readers see stopping once resumed */
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_cond_signal(&s->tick_cv);
	pthread_mutex_unlock(&s->mu);
	if (s->ticker_started)
		pthread_join(s->ticker, NULL);
	s->ticker_started = 0;
	sse_wake(s);
}

void api_streams_free(struct api_streams *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->tick_cv);
	free(s);
}
