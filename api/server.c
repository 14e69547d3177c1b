/*
 * server — the libmicrohttpd side: listening, collecting a request body up to
 * API_BODY_LIMIT, handing the request to the route table and sending what the
 * handler filled in.
 *
 * A body larger than the limit is refused with 413. When its Content-Length
 * says so and the client waits for "100 Continue" (curl does), or the body
 * would exceed API_DRAIN_LIMIT, the answer goes out before any of the body
 * is read. Otherwise (most HTTP libraries write the whole body before they
 * read an answer) the excess is received and dropped, then 413 is sent, so
 * the client sees the problem rather than a reset connection.
 *
 * Access (access_check, before any of a body is read): the dashboard's files
 * and /healthz are open; /metrics and everything under /api/ need "Authorization: Bearer
 * TOKEN" when ctx->require_token (a listener on anything but loopback, or
 * --require-token). A token in the query string is refused, never used:
 * URLs end up in logs, proxies and browser history. Without a token
 * (loopback), a request must name a loopback host (against DNS rebinding:
 * a page of evil.example resolving to 127.0.0.1) and a state-changing one
 * must come from our own origin (against cross-site requests: browsers send
 * Origin and Sec-Fetch-Site). No response carries CORS headers, so no other
 * origin can read an answer.
 */
#include "api.h"

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "events.h"
#include "log.h"

#define API_DRAIN_LIMIT (64UL << 20) /* bytes read and dropped at most */

struct sse;

struct api_server {
	struct MHD_Daemon *d;
	struct api_ctx *ctx;
	/* event streams (GET /api/v1/events) */
	pthread_mutex_t sse_mu;
	struct sse *streams;     /* under sse_mu */
	int stopping;            /* under sse_mu */
	pthread_t ticker;
	pthread_cond_t tick_cv;  /* with sse_mu: wakes the ticker to stop */
	int ticker_started;
};

/* Per-request state while the body arrives. */
struct conn_state {
	char *buf;
	size_t len;
	int too_big;
	uint64_t t0_ns;          /* the request's first callback */
};

/*
 * One event stream. Its reader sends what the bus (events.h) holds after
 * `last`; with nothing new it suspends the connection (the libmicrohttpd
 * way to say "no data yet" without a busy loop) and the bus's waker, or
 * the ticker once a second, resumes it.
 */
struct sse {
	struct api_server *srv;
	struct MHD_Connection *c;
	uint64_t last;           /* sequence number of the last event sent */
	uint64_t wrote_ns;       /* when something was last sent */
	int hello;               /* the opening lines went */
	int suspended;           /* under srv->sse_mu */
	struct sse *next, *prev; /* under srv->sse_mu */
};

#define SSE_KEEPALIVE_NS (15ULL * 1000000000ULL)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The headers every answer carries (README "Access"). */
static void add_guard_headers(struct MHD_Response *mr)
{
	MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(mr, "X-Frame-Options", "DENY");
	MHD_add_response_header(mr, "Content-Security-Policy",
				"default-src 'self'; script-src 'self'; "
				"style-src 'self' 'unsafe-inline'; "
				"img-src 'self' data:; connect-src 'self'; "
				"object-src 'none'; base-uri 'none'; "
				"form-action 'self'; frame-ancestors 'none'");
	MHD_add_response_header(mr, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(mr, "Cross-Origin-Resource-Policy",
				"same-origin");
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
}

/* --- HTTP metrics: requests by route, method and status; latency --- */

#define HTTP_ROUTES_MAX 256
static const double lat_le[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
				0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
#define N_LE (sizeof(lat_le) / sizeof(lat_le[0]))
static struct {
	pthread_mutex_t mu;
	struct {
		const char *route; /* a route pattern (static), or a word */
		char method[8];
		unsigned status;
		uint64_t n;
	} by[HTTP_ROUTES_MAX];
	size_t n_by;
	uint64_t le[N_LE + 1]; /* cumulative at print time; +Inf last */
	uint64_t count;
	double sum_s;
} http = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Counts one answer: route (a pattern; NULL: none matched), method, status
 * and the seconds from its first byte to its answer. */
static void http_count(const char *route, const char *method, unsigned status,
		       double secs)
{
	static const char *const known[] = {"GET", "HEAD", "POST", "PUT",
					    "PATCH", "DELETE", "OPTIONS"};
	const char *m = "other";
	size_t i, b;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(method, known[i]) == 0)
			m = known[i];
	if (!route)
		route = "unmatched";
	pthread_mutex_lock(&http.mu);
	for (i = 0; i < http.n_by; i++)
		if (http.by[i].status == status && strcmp(http.by[i].method, m) == 0 &&
		    strcmp(http.by[i].route, route) == 0)
			break;
	if (i == http.n_by && http.n_by < HTTP_ROUTES_MAX) {
		http.by[i].route = route;
		snprintf(http.by[i].method, sizeof(http.by[i].method), "%s", m);
		http.by[i].status = status;
		http.by[i].n = 0;
		http.n_by++;
	}
	if (i < http.n_by)
		http.by[i].n++;
	for (b = 0; b < N_LE && secs > lat_le[b]; b++)
		;
	http.le[b]++;
	http.count++;
	http.sum_s += secs;
	pthread_mutex_unlock(&http.mu);
}

void api_http_metrics(FILE *f)
{
	uint64_t cum = 0;

	pthread_mutex_lock(&http.mu);
	fprintf(f, "# HELP storbench_http_requests_total HTTP requests answered, "
		   "by route pattern, method and status code.\n"
		   "# TYPE storbench_http_requests_total counter\n");
	for (size_t i = 0; i < http.n_by; i++)
		fprintf(f,
			"storbench_http_requests_total{route=\"%s\",method=\"%s\","
			"code=\"%u\"} %llu\n",
			http.by[i].route, http.by[i].method, http.by[i].status,
			(unsigned long long)http.by[i].n);
	fprintf(f, "# HELP storbench_http_request_duration_seconds Time from a "
		   "request's first byte to its answer being queued.\n"
		   "# TYPE storbench_http_request_duration_seconds histogram\n");
	for (size_t b = 0; b < N_LE; b++) {
		cum += http.le[b];
		fprintf(f,
			"storbench_http_request_duration_seconds_bucket{le=\"%g\"} "
			"%llu\n",
			lat_le[b], (unsigned long long)cum);
	}
	fprintf(f,
		"storbench_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
		"storbench_http_request_duration_seconds_sum %.9f\n"
		"storbench_http_request_duration_seconds_count %llu\n",
		(unsigned long long)http.count, http.sum_s,
		(unsigned long long)http.count);
	pthread_mutex_unlock(&http.mu);
}

/* --- event streams --- */

/* Resumes every suspended stream; the caller holds s->sse_mu. */
static void resume_all(struct api_server *s)
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
	struct api_server *s = arg;

	pthread_mutex_lock(&s->sse_mu);
	resume_all(s);
	pthread_mutex_unlock(&s->sse_mu);
}

/* Once a second: streams due a keep-alive send it. */
static void *sse_ticker(void *arg)
{
	struct api_server *s = arg;

	pthread_mutex_lock(&s->sse_mu);
	while (!s->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&s->tick_cv, &s->sse_mu, &until);
		resume_all(s);
	}
	pthread_mutex_unlock(&s->sse_mu);
	return NULL;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;
	struct api_server *s = e->srv;
	uint64_t now = mono_ns();
	size_t n = 0;

	(void)pos;
	pthread_mutex_lock(&s->sse_mu);
	if (s->stopping) {
		pthread_mutex_unlock(&s->sse_mu);
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	if (!e->hello) {
		int w = snprintf(buf, max, ": storbench %s event stream\nretry: 2000\n\n",
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
	pthread_mutex_unlock(&s->sse_mu);
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	struct sse *e = cls;
	struct api_server *s = e->srv;

	pthread_mutex_lock(&s->sse_mu);
	if (e->prev)
		e->prev->next = e->next;
	else
		s->streams = e->next;
	if (e->next)
		e->next->prev = e->prev;
	pthread_mutex_unlock(&s->sse_mu);
	free(e);
}

/* Answers GET /api/v1/events: text/event-stream from the events after
 * Last-Event-ID (when given and still held), else from now on. */
static enum MHD_Result sse_start(struct api_server *s, struct MHD_Connection *c)
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
	e->wrote_ns = mono_ns();
	if (lei && *lei) {
		char *end;
		unsigned long long v;
		errno = 0;
		v = strtoull(lei, &end, 10);
		if (!errno && !*end && v <= now_seq)
			e->last = v;
	}
	mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read,
					       e, sse_free);
	if (!mr) {
		free(e);
		return MHD_NO;
	}
	pthread_mutex_lock(&s->sse_mu);
	e->next = s->streams;
	if (s->streams)
		s->streams->prev = e;
	s->streams = e;
	pthread_mutex_unlock(&s->sse_mu);
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/event-stream; charset=utf-8");
	add_guard_headers(mr);
	MHD_add_response_header(mr, "X-Accel-Buffering", "no");
	ret = MHD_queue_response(c, MHD_HTTP_OK, mr);
	MHD_destroy_response(mr);
	return ret;
}

static enum MHD_Result send_resp(struct MHD_Connection *c,
				 struct api_resp *r)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;

	if (r->body) {
		mr = MHD_create_response_from_buffer(r->len, r->body,
						     MHD_RESPMEM_MUST_FREE);
		r->body = NULL;
	} else {
		mr = MHD_create_response_from_buffer(
			r->len, (void *)r->static_body, MHD_RESPMEM_PERSISTENT);
	}
	if (!mr)
		return MHD_NO;
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
				r->content_type ? r->content_type
						: "application/json");
	add_guard_headers(mr);
	if (r->status == 401)
		MHD_add_response_header(mr, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"storbench\"");
	if (r->location[0])
		MHD_add_response_header(mr, MHD_HTTP_HEADER_LOCATION,
					r->location);
	if (r->allow[0])
		MHD_add_response_header(mr, MHD_HTTP_HEADER_ALLOW, r->allow);
	if (r->filename[0]) {
		/* a header is ASCII: anything else (an imported file's UTF-8
		 * or stray bytes), quotes and backslashes become '_' */
		char cd[160], name[sizeof(r->filename)];
		size_t i;
		for (i = 0; r->filename[i] && i < sizeof(name) - 1; i++) {
			unsigned char ch = (unsigned char)r->filename[i];
			name[i] = ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\'
					  ? '_'
					  : (char)ch;
		}
		name[i] = '\0';
		snprintf(cd, sizeof(cd), "attachment; filename=\"%s\"", name);
		MHD_add_response_header(mr, "Content-Disposition", cd);
	}
	ret = MHD_queue_response(c, r->status, mr);
	MHD_destroy_response(mr);
	return ret;
}

/* The largest body url takes: result files are larger than job bodies. */
static size_t body_limit(const char *url)
{
	return strcmp(url, "/api/v1/import") == 0 ? API_IMPORT_LIMIT : API_BODY_LIMIT;
}

static enum MHD_Result too_big(struct MHD_Connection *c, const char *method,
			       const struct conn_state *cs, size_t limit)
{
	struct api_resp r = {0};
	enum MHD_Result ret;

	api_fail(&r, 413, "body", "request body is larger than %zu bytes", limit);
	ret = send_resp(c, &r);
	http_count(NULL, method, 413, (double)(mono_ns() - cs->t0_ns) / 1e9);
	free(r.body);
	return ret;
}

/* Compares a and b (b: the token) in time that depends on b's length only. */
static int token_equal(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char d = na != nb;

	for (size_t i = 0; i < nb; i++)
		d |= (unsigned char)(a[i < na ? i : 0] ^ b[i]);
	return d == 0;
}

/* Is the Host header a loopback name: localhost, 127.x.y.z or [::1], with
 * any port? */
static int loopback_host(const char *host)
{
	char name[64];
	size_t n;
	struct in_addr a4;

	if (!host)
		return 0;
	if (strncmp(host, "[::1]", 5) == 0)
		return host[5] == '\0' || host[5] == ':';
	n = strcspn(host, ":");
	if (n >= sizeof(name))
		return 0;
	memcpy(name, host, n);
	name[n] = '\0';
	if (strcasecmp(name, "localhost") == 0)
		return 1;
	return inet_pton(AF_INET, name, &a4) == 1 &&
	       (ntohl(a4.s_addr) >> 24) == 127;
}

static int changes_state(const char *method)
{
	return strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 &&
	       strcmp(method, "OPTIONS") != 0;
}

/*
 * May this request go on (0), or is it refused (-EACCES, the problem in r)?
 * The rules are in the file's header.
 */
static int access_check(struct api_ctx *ctx, struct MHD_Connection *c,
			const char *url, const char *method, struct api_resp *r)
{
	const char *auth, *host, *origin, *site;
	char own[300];
	unsigned st = ctx->require_token ? 401 : 400;

	if (strncmp(url, "/api/", 5) != 0 && strcmp(url, "/metrics") != 0)
		return 0;
	if (MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
					"access_token") ||
	    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token")) {
		api_fail(r, st, "access_token",
			 "a token in the URL is refused (URLs end up in logs "
			 "and browser history): send the header "
			 "\"Authorization: Bearer TOKEN\"");
		return -EACCES;
	}
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_AUTHORIZATION);
	if (auth) {
		if (strncasecmp(auth, "Bearer ", 7) != 0 || !ctx->token[0] ||
		    !token_equal(auth + 7, ctx->token)) {
			api_fail(r, 401, "Authorization",
				 "the bearer token does not match this "
				 "daemon's (DATA/api-token, or --token-file)");
			return -EACCES;
		}
		return 0;
	}
	if (ctx->require_token) {
		api_fail(r, 401, "Authorization",
			 "this listener needs the API token: send "
			 "\"Authorization: Bearer TOKEN\" (the daemon logged "
			 "where its token file is)");
		return -EACCES;
	}
	host = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_HOST);
	if (!loopback_host(host)) {
		api_fail(r, 403, "Host",
			 "Host \"%.100s\" is not a loopback name: without a "
			 "token the API answers only to localhost, 127.x.y.z "
			 "and [::1] (a guard against DNS rebinding)",
			 host ? host : "");
		return -EACCES;
	}
	if (!changes_state(method))
		return 0;
	origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	snprintf(own, sizeof(own), "http://%s", host);
	site = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
	if ((origin && strcasecmp(origin, own) != 0) ||
	    (site && strcmp(site, "same-origin") != 0 && strcmp(site, "none") != 0)) {
		api_fail(r, 403, "Origin",
			 "a %s from another origin (%.100s) is refused: the "
			 "dashboard at %.100s or a client without an Origin "
			 "header (curl) may change state",
			 method, origin ? origin : site, own);
		return -EACCES;
	}
	return 0;
}

static int expects_continue(struct MHD_Connection *c)
{
	const char *e = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_EXPECT);

	return e && strcasecmp(e, "100-continue") == 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct api_server *s = cls;
	struct conn_state *cs = *con_cls;
	struct api_req req = {0};
	struct api_resp resp = {0};
	enum MHD_Result ret;

	(void)version;
	if (!cs) {
		const char *cl = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return MHD_NO;
		*con_cls = cs;
		cs->t0_ns = mono_ns();
		if (access_check(s->ctx, c, url, method, &resp) < 0) {
			cs->too_big = 1; /* drop whatever body follows */
			ret = send_resp(c, &resp);
			http_count(NULL, method, resp.status,
				   (double)(mono_ns() - cs->t0_ns) / 1e9);
			free(resp.body);
			return ret;
		}
		if (cl && strtoull(cl, NULL, 10) > body_limit(url)) {
			cs->too_big = 1;
			/* a client that waits for "100 Continue", or one that
			 * would send a great deal, gets the answer at once */
			if (expects_continue(c) ||
			    strtoull(cl, NULL, 10) > API_DRAIN_LIMIT)
				return too_big(c, method, cs, body_limit(url));
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (!cs->too_big && cs->len + *upload_size <= body_limit(url)) {
			char *nb = realloc(cs->buf, cs->len + *upload_size + 1);
			if (!nb)
				return MHD_NO;
			memcpy(nb + cs->len, upload, *upload_size);
			cs->buf = nb;
			cs->len += *upload_size;
			cs->buf[cs->len] = '\0';
		} else {
			cs->too_big = 1;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	if (cs->too_big)
		return too_big(c, method, cs, body_limit(url));
	req.ctx = s->ctx;
	req.conn = c;
	req.method = method;
	req.path = url;
	req.body = cs->buf;
	req.body_len = cs->len;
	api_dispatch(&req, &resp);
	if (resp.stream) {
		http_count(resp.route, method, 200,
			   (double)(mono_ns() - cs->t0_ns) / 1e9);
		return sse_start(s, c);
	}
	ret = send_resp(c, &resp);
	http_count(resp.route, method, resp.status,
		   (double)(mono_ns() - cs->t0_ns) / 1e9);
	free(resp.body);
	return ret;
}

size_t api_unescape(char *s)
{
	char *w = s;
	const char *r = s;

	while (*r) {
		unsigned v;
		if (r[0] == '%' && isxdigit((unsigned char)r[1]) &&
		    isxdigit((unsigned char)r[2]) &&
		    sscanf(r + 1, "%2x", &v) == 1 && v != 0) {
			*w++ = (char)v;
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* libmicrohttpd's unescape callback: api_unescape. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return api_unescape(s);
}

/* libmicrohttpd's own messages go through our log, as level "http". */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_msg("http", "%s", line);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct conn_state *cs = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (cs) {
		free(cs->buf);
		free(cs);
		*con_cls = NULL;
	}
}

/* Splits "ADDR:PORT" / "[V6]:PORT" and resolves it numerically. */
static int parse_listen(const char *listen, struct addrinfo **ai)
{
	char host[256];
	const char *colon, *port;
	char *end;
	long pn;
	size_t hl;
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
	};

	if (listen[0] == '[') {
		const char *close = strchr(listen, ']');
		if (!close || close[1] != ':')
			return -EINVAL;
		hl = (size_t)(close - listen - 1);
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, listen + 1, hl);
		port = close + 2;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - listen);
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, listen, hl);
		port = colon + 1;
	}
	host[hl] = '\0';
	errno = 0;
	pn = strtol(port, &end, 10);
	if (!isdigit((unsigned char)*port) || *end || errno || pn < 1 ||
	    pn > 65535 ||
	    getaddrinfo(host, port, &hints, ai) != 0)
		return -EINVAL;
	return 0;
}

int api_listen_is_loopback(const char *listen)
{
	struct addrinfo *ai = NULL;
	int rc;

	if ((rc = parse_listen(listen, &ai)) < 0)
		return rc;
	if (ai->ai_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ai->ai_addr;
		rc = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	} else {
		const struct sockaddr_in6 *in6 = (const void *)ai->ai_addr;
		rc = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	freeaddrinfo(ai);
	return rc;
}

int api_start(const char *listen, struct api_ctx *ctx, struct api_server **out)
{
	struct api_server *s = calloc(1, sizeof(*s));
	struct addrinfo *ai = NULL;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME;
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->sse_mu, NULL);
	pthread_cond_init(&s->tick_cv, NULL);
	if ((rc = parse_listen(listen, &ai)) < 0)
		goto fail;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->ctx = ctx;
	errno = 0;
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)900,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)200,
				MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!s->d) {
		rc = errno ? -errno : -EADDRINUSE;
		goto fail;
	}
	if (pthread_create(&s->ticker, NULL, sse_ticker, s) == 0)
		s->ticker_started = 1;
	events_set_waker(sse_wake, s);
	*out = s;
	return 0;
fail:
	pthread_mutex_destroy(&s->sse_mu);
	pthread_cond_destroy(&s->tick_cv);
	free(s);
	return rc;
}

void api_stop(struct api_server *s)
{
	if (!s)
		return;
	events_set_waker(NULL, NULL);
	/* event streams end: their readers see stopping once resumed */
	pthread_mutex_lock(&s->sse_mu);
	s->stopping = 1;
	pthread_cond_signal(&s->tick_cv);
	pthread_mutex_unlock(&s->sse_mu);
	if (s->ticker_started)
		pthread_join(s->ticker, NULL);
	sse_wake(s);
	MHD_stop_daemon(s->d);
	pthread_mutex_destroy(&s->sse_mu);
	pthread_cond_destroy(&s->tick_cv);
	free(s);
}
