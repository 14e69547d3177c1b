/*
 * conns — who is connected to the API server, and which connections to
 * close so that no client is shut out.
 *
 * A connection is "waiting" while no request of its is being answered:
 * before its first request has all arrived (half-open, slow to start, a
 * header or body trickled a byte at a time), and idle between requests.
 * Waiting API_WAITING_GRACE_MS or longer, it counts: an address may hold
 * API_WAITING_PER_ADDR such connections (a quarter of that when the server
 * is three quarters full); beyond that its oldest are closed — on each new
 * connection and four times a second, since at the limit libmicrohttpd
 * refuses new connections before asking. A new connection is never refused
 * for them, so a client that sends its request (and its token) is not shut
 * out by idle sockets from its address (127.0.0.1 is every local client's).
 * A burst of new connections (a client opening 64 at once) is within the
 * grace. Such closings, and libmicrohttpd's own repeated messages, are
 * logged once per API_LOG_INTERVAL_S with a count, not once per connection;
 * an event stream's client leaving (a failed send to a gone peer) is not
 * an error and not logged.
 */
#include "conns.h"
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "net.h"

#include "os/os.h"
#include "platform/log.h"

/* One connection while it is open (libmicrohttpd's socket context). */
struct peer {
	MHD_socket fd; /* MHD_INVALID_SOCKET: none, or shut already */
	char addr[INET6_ADDRSTRLEN];
	int waiting;	/* no request being answered (atomic): before its
			   first, or between two, or while one arrives */
	uint64_t t0_ns; /* since when (atomic) */
	struct peer *next, *prev; /* under mu */
};

struct api_conns {
	pthread_mutex_t mu;
	struct peer *peers; /* open connections, newest first (under mu) */
	/* closings of waiting connections not logged yet (under mu) */
	unsigned long evicted;
	char evicted_addr[INET6_ADDRSTRLEN];
	uint64_t evict_logged_ns;
	/* the sweeper (sweep()) and its stop */
	pthread_t sweeper;
	int sweeper_started;
	pthread_mutex_t sweep_mu;
	pthread_cond_t sweep_cv;
	int stopping; /* under sweep_mu */
};

/* A kind of log line that would repeat (mhd_log). */
struct log_limit {
	char last[256];
	unsigned long held;
	uint64_t t_ns;
};

/* The connection's request has all arrived and is being answered (waiting
 * 0), or its answer has gone and it idles until the next (1, from now). */
void api_conns_waits(struct MHD_Connection *c, int waiting)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct peer *p = ci ? ci->socket_context : NULL;

	if (!p)
		return;
	if (waiting)
		__atomic_store_n(&p->t0_ns, os_now_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&p->waiting, waiting, __ATOMIC_RELAXED);
}

static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	buf[0] = '\0';
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
			  buf, (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
			  (socklen_t)len);
}

/* libmicrohttpd's notice of a connection opened or closed. The closed
 * notice comes before the socket is closed, so a peer's fd is valid for
 * as long as it is listed (under mu). */
void api_conns_on_connection(void *cls, struct MHD_Connection *c, void **sctx,
			     enum MHD_ConnectionNotificationCode code)
{
	struct api_conns *s = cls;
	struct peer *p = *sctx;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd = MHD_get_connection_info(
			c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ad = MHD_get_connection_info(
			c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (!(p = calloc(1, sizeof(*p))))
			return;
		p->fd = fd ? fd->connect_fd : MHD_INVALID_SOCKET;
		if (ad && ad->client_addr)
			addr_text(ad->client_addr, p->addr, sizeof(p->addr));
		p->waiting = 1;
		p->t0_ns = os_now_ns();
		pthread_mutex_lock(&s->mu);
		p->next = s->peers;
		if (s->peers)
			s->peers->prev = p;
		s->peers = p;
		pthread_mutex_unlock(&s->mu);
		*sctx = p;
		return;
	}
	if (!p)
		return;
	pthread_mutex_lock(&s->mu);
	if (p->prev)
		p->prev->next = p->next;
	else
		s->peers = p->next;
	if (p->next)
		p->next->prev = p->prev;
	pthread_mutex_unlock(&s->mu);
	free(p);
	*sctx = NULL;
}

/*
 * Closes (shuts down; its thread then ends it) each connection that has
 * waited past the grace while API_WAITING_PER_ADDR newer waiting ones
 * from its address exist — a quarter of that when the server is three
 * quarters full — and logs the closings once per API_LOG_INTERVAL_S.
 * Called on every new connection and four times a second.
 */
static void sweep(struct api_conns *s)
{
	uint64_t now = os_now_ns(), grace = API_WAITING_GRACE_MS * 1000000ULL;
	unsigned total = 0, cap = API_WAITING_PER_ADDR;
	struct peer *p, *q;

	pthread_mutex_lock(&s->mu);
	for (p = s->peers; p; p = p->next)
		total++;
	if (total >= API_MAX_CONNECTIONS * 3 / 4)
		cap = API_WAITING_PER_ADDR / 4;
	/* the list is newest first: count the newer waiting ones of p's
	 * address (O(n²) over at most API_MAX_CONNECTIONS, 4 times a s) */
	for (p = s->peers; p; p = p->next) {
		unsigned newer = 0;
		if (!__atomic_load_n(&p->waiting, __ATOMIC_RELAXED) ||
		    p->fd == MHD_INVALID_SOCKET || now - p->t0_ns < grace)
			continue;
		for (q = s->peers; q != p && newer < cap; q = q->next)
			newer += __atomic_load_n(&q->waiting,
						 __ATOMIC_RELAXED) &&
				 q->fd != MHD_INVALID_SOCKET &&
				 now - q->t0_ns >= grace &&
				 strcmp(q->addr, p->addr) == 0;
		if (newer < cap)
			continue;
		shutdown(p->fd, SHUT_RDWR);
		p->fd = MHD_INVALID_SOCKET; /* once */
		s->evicted++;
		snprintf(s->evicted_addr, sizeof(s->evicted_addr), "%s",
			 p->addr);
	}
	if (s->evicted &&
	    now - s->evict_logged_ns >= API_LOG_INTERVAL_S * 1000000000ULL) {
		log_warn("closed %lu connection(s) that sent no request "
			 "(last from %s: more than %u waiting from one "
			 "address)",
			 s->evicted, s->evicted_addr, cap);
		s->evicted = 0;
		s->evict_logged_ns = now;
	}
	pthread_mutex_unlock(&s->mu);
}

/* The sweeper: sweep() four times a second until the server stops. */
static void *sweeper(void *arg)
{
	struct api_conns *s = arg;

	pthread_mutex_lock(&s->sweep_mu);
	while (!s->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->sweep_cv, &s->sweep_mu, &until);
		pthread_mutex_unlock(&s->sweep_mu);
		sweep(s);
		pthread_mutex_lock(&s->sweep_mu);
	}
	pthread_mutex_unlock(&s->sweep_mu);
	return NULL;
}

/* A new connection: always let in (at the limit libmicrohttpd refuses it
 * before asking), after a sweep. */
enum MHD_Result api_conns_on_accept(void *cls, const struct sockaddr *addr,
				    socklen_t addrlen)
{
	(void)addr;
	(void)addrlen;
	sweep(cls);
	return MHD_YES;
}

int api_conns_start(struct api_conns **out)
{
	struct api_conns *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->sweep_mu, NULL);
	pthread_cond_init(&s->sweep_cv, NULL);
	if (pthread_create(&s->sweeper, NULL, sweeper, s) == 0)
		s->sweeper_started = 1;
	*out = s;
	return 0;
}

void api_conns_stop(struct api_conns *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->sweep_mu);
	s->stopping = 1;
	pthread_cond_signal(&s->sweep_cv);
	pthread_mutex_unlock(&s->sweep_mu);
	if (s->sweeper_started)
		pthread_join(s->sweeper, NULL);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->sweep_mu);
	pthread_cond_destroy(&s->sweep_cv);
	free(s);
}

/*
 * Is line libmicrohttpd saying that an event stream's client has gone?
 * An event stream (GET /api/v1/events, sse.c) ends when its client closes
 * it (a page left, a tool stopped); the next keep-alive or event then
 * fails to send with the peer gone (EPIPE, ECONNRESET, ENOTCONN, in
 * libmicrohttpd 0.9's words). That is the stream's normal end, not an
 * error. Any other failure, or on any other route, is one.
 */
static int stream_client_left(const char *line)
{
	static const char sent[] = "Failed to send the chunked response body "
				   "for the request for `/api/v1/events'. "
				   "Error: ";
	static const char *const gone[] = {
		"The socket is no longer available for sending",
		"The connection was forcibly closed by remote peer",
		"The socket is not connected",
	};

	if (strncmp(line, sent, sizeof(sent) - 1) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (strcmp(line + sizeof(sent) - 1, gone[i]) == 0)
			return 1;
	return 0;
}

/* libmicrohttpd's own messages go through our log, as level "http", cut
 * before any HTML it quotes; an event stream's client leaving is dropped
 * (stream_client_left). Each kind of message (its first 40 bytes; 8
 * kinds kept) is written once per API_LOG_INTERVAL_S, with how many like it
 * were held back: a flood of bad requests is a few lines, not one each. */
void api_mhd_log(void *cls, const char *fmt, va_list ap)
{
	static struct log_limit ll[8];
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	char line[256], *html;
	unsigned long held = 0;
	uint64_t now = os_now_ns();
	struct log_limit *slot = NULL, *oldest = &ll[0];
	int say;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if ((html = strstr(line, "<html")) != NULL)
		snprintf(html, sizeof(line) - (size_t)(html - line), "…");
	if (stream_client_left(line))
		return;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < 8 && !slot; i++) {
		if (strncmp(ll[i].last, line, 40) == 0)
			slot = &ll[i];
		else if (ll[i].t_ns < oldest->t_ns)
			oldest = &ll[i];
	}
	if (!slot) { /* a new kind takes the quietest slot */
		slot = oldest;
		slot->held = 0;
		slot->t_ns = 0;
		snprintf(slot->last, sizeof(slot->last), "%s", line);
	}
	say = now - slot->t_ns >= API_LOG_INTERVAL_S * 1000000000ULL;
	if (say) {
		held = slot->held;
		slot->held = 0;
		slot->t_ns = now;
	} else {
		slot->held++;
	}
	pthread_mutex_unlock(&mu);
	if (!say)
		return;
	if (held)
		log_msg("http", "%s (and %lu more like it held back)", line,
			held);
	else
		log_msg("http", "%s", line);
}
