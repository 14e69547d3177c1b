/*
 * sse — GET /api/v1/events as server-sent events. The server gives each
 * connection its own thread (server.c), so a stream's reader simply waits:
 * for the event bus (events.h) to hold something after the last event it
 * sent (the bus's waker signals), for its keep-alive to be due (at most a
 * second's wait at a time), or for the server to stop, which ends every
 * stream.
 */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <microhttpd.h>

#include "jobs/events.h"
#include "os/os.h"

struct api_streams {
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* with mu: new events, or the stop */
	int stopping;	    /* under mu */
	unsigned n_streams; /* under mu */
};

/* One event stream: it has sent what the bus held up to `last`. */
struct sse {
	struct api_streams *srv;
	uint64_t last;	   /* sequence number of the last event sent */
	uint64_t wrote_ns; /* when something was last sent */
	int hello;	   /* the opening lines went */
};

#define SSE_KEEPALIVE_NS (15ULL * 1000000000ULL)

/* The bus's waker: new events (or the stop). */
static void sse_wake(void *arg)
{
	struct api_streams *s = arg;

	pthread_mutex_lock(&s->mu);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;
	struct api_streams *s = e->srv;
	size_t n = 0;

	(void)pos;
	pthread_mutex_lock(&s->mu);
	if (!e->hello) {
		int w = snprintf(buf, max,
				 ": storbench %s event stream\nretry: 2000\n\n",
				 STORBENCH_VERSION);
		n = w > 0 && (size_t)w < max ? (size_t)w : 0;
		e->hello = 1;
	}
	for (;;) {
		struct timespec until;
		if (s->stopping) {
			pthread_mutex_unlock(&s->mu);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		/* no lost wake-up: the waker takes mu too */
		n += events_read(e->last, buf + n, max - n, &e->last);
		if (n)
			break;
		if (os_now_ns() - e->wrote_ns >= SSE_KEEPALIVE_NS) {
			int w = snprintf(buf, max, ": keep-alive\n\n");
			n = w > 0 && (size_t)w < max ? (size_t)w : 0;
			break;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&s->cv, &s->mu, &until);
	}
	e->wrote_ns = os_now_ns();
	pthread_mutex_unlock(&s->mu);
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	struct sse *e = cls;
	struct api_streams *s = e->srv;

	pthread_mutex_lock(&s->mu);
	s->n_streams--;
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
	s->n_streams++;
	pthread_mutex_unlock(&s->mu);
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/event-stream; charset=utf-8");
	api_guard_headers(mr);
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CACHE_CONTROL,
				API_CACHE_LIVE);
	MHD_add_response_header(mr, "X-Accel-Buffering", "no");
	/* a stream is quiet between keep-alives: the server's idle timeout
	 * is not for it */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
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
	pthread_cond_init(&s->cv, NULL);
	events_set_waker(sse_wake, s);
	*out = s;
	return 0;
}

void api_streams_stop(struct api_streams *s)
{
	if (!s)
		return;
	events_set_waker(NULL, NULL);
	/* every reader sees stopping and ends its stream */
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void api_streams_free(struct api_streams *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}
