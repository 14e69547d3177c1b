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
 * Who may ask is access.c's (api_access_check, before any of a body is
 * read); the event stream is sse.c's; the HTTP metrics httpstats.c's.
 *
 * Threads: a thread per connection (libmicrohttpd's), at most
 * API_MAX_CONNECTIONS, so a slow answer (a compare over thousands of runs,
 * an import, a job whose SMB server is slow to answer) holds only its own
 * connection: /healthz, the dashboard and the event stream go on. Each
 * request borrows an archive connection from a pool (SQLite's WAL lets them
 * read side by side) and gives it back.
 *
 * Who is connected, and which idle connections to close, is conns.c's;
 * idle connections time out after API_IDLE_TIMEOUT_S (event streams do
 * not).
 */
#include "api.h"
#include "conns.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <microhttpd.h>

#include "net.h"

#include "archive/archive.h"
#include "os/os.h"
#include "platform/log.h"

#define API_DRAIN_LIMIT (64UL << 20) /* bytes read and dropped at most */

struct api_server {
	struct MHD_Daemon *d;
	struct api_ctx *ctx;
	struct api_streams *streams; /* GET /api/v1/events (sse.c) */
	pthread_mutex_t mu;
	pthread_mutex_t open_mu; /* opening an archive connection */
	/* archive connections not lent out (under mu) */
	struct archive *pool[API_MAX_CONNECTIONS];
	size_t n_pool;
	struct api_conns *conns; /* who is connected (conns.c) */
};

/* Per-request state while the body arrives. */
struct conn_state {
	char *buf;
	size_t len;
	int too_big;
	uint64_t t0_ns; /* the request's first callback */
};

static enum MHD_Result send_resp(struct MHD_Connection *c, struct api_resp *r)
{
	struct MHD_Response *mr;
	enum MHD_Result ret;

	if (r->body) {
		mr = MHD_create_response_from_buffer(r->len, r->body,
						     MHD_RESPMEM_MUST_FREE);
		r->body = NULL;
	} else if (r->release) {
		/* kept bytes (listcache.c): released once sent */
		mr = MHD_create_response_from_buffer_with_free_callback_cls(
			r->len, (void *)r->static_body, r->release,
			r->release_cls);
		if (!mr)
			r->release(r->release_cls);
		r->release = NULL;
	} else {
		mr = MHD_create_response_from_buffer(
			r->len, (void *)r->static_body, MHD_RESPMEM_PERSISTENT);
	}
	if (!mr)
		return MHD_NO;
	/* a 304 carries no representation metadata (RFC 9110 15.4.5);
	 * libmicrohttpd 0.9.75 adds "Content-Length: 0" to it all the same */
	if (r->status != 304) {
		MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
					r->content_type ? r->content_type
							: "application/json");
	}
	api_guard_headers(mr);
	if (r->status == 401)
		MHD_add_response_header(mr, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"storbench\"");
	if (r->location[0])
		MHD_add_response_header(mr, MHD_HTTP_HEADER_LOCATION,
					r->location);
	if (r->allow[0])
		MHD_add_response_header(mr, MHD_HTTP_HEADER_ALLOW, r->allow);
	if (r->close)
		MHD_add_response_header(mr, MHD_HTTP_HEADER_CONNECTION,
					"close");
	if (r->etag[0])
		MHD_add_response_header(mr, MHD_HTTP_HEADER_ETAG, r->etag);
	if (r->timing[0])
		MHD_add_response_header(mr, "Server-Timing", r->timing);
	MHD_add_response_header(mr, MHD_HTTP_HEADER_CACHE_CONTROL,
				r->cache_control ? r->cache_control
						 : API_CACHE_LIVE);
	if (r->filename[0]) {
		/* a header is ASCII: anything else (an imported file's UTF-8
		 * or stray bytes), quotes and backslashes become '_' */
		char cd[160], name[sizeof(r->filename)];
		size_t i;
		for (i = 0; r->filename[i] && i < sizeof(name) - 1; i++) {
			unsigned char ch = (unsigned char)r->filename[i];
			name[i] = ch < 0x20 || ch > 0x7e || ch == '"' ||
						  ch == '\\'
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
	return strcmp(url, "/api/v1/import") == 0 ? API_IMPORT_LIMIT
						  : API_BODY_LIMIT;
}

static enum MHD_Result too_big(struct MHD_Connection *c, const char *method,
			       const struct conn_state *cs, size_t limit)
{
	struct api_resp r = { 0 };
	enum MHD_Result ret;

	api_fail(&r, 413, "body", "request body is larger than %zu bytes",
		 limit);
	ret = send_resp(c, &r);
	api_http_count(NULL, method, 413,
		       (double)(os_now_ns() - cs->t0_ns) / 1e9);
	free(r.body);
	return ret;
}

/* The request's Content-Length headers: how many, and whether they
 * disagree. */
struct lengths {
	int n, differ;
	char first[32];
};

static enum MHD_Result count_length(void *cls, enum MHD_ValueKind kind,
				    const char *key, const char *value)
{
	struct lengths *l = cls;

	(void)kind;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		return MHD_YES;
	if (l->n++ == 0)
		snprintf(l->first, sizeof(l->first), "%s", value ? value : "");
	else if (strcmp(l->first, value ? value : "") != 0)
		l->differ = 1;
	return MHD_YES;
}

/* Two Content-Length headers that disagree: the body's end is unknown
 * (RFC 9112 6.3), so the request is refused and the connection closed
 * rather than read one way. */
static int conflicting_length(struct MHD_Connection *c, struct api_resp *r)
{
	struct lengths l = { 0 };

	MHD_get_connection_values(c, MHD_HEADER_KIND, count_length, &l);
	if (!l.differ)
		return 0;
	api_fail(r, 400, "Content-Length",
		 "Content-Length: the request has %d of them that disagree; "
		 "send one",
		 l.n);
	r->close = 1;
	return 1;
}

/* Does the request's If-None-Match name etag (or "*")? Weak comparison,
 * as RFC 9110 13.1.2 has it for If-None-Match: W/"x" matches "x". */
static int none_match(struct MHD_Connection *c, const char *etag)
{
	const char *v = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	size_t n = strlen(etag);

	while (v && *v) {
		v += strspn(v, " \t,");
		if (*v == '*')
			return 1;
		if (strncmp(v, "W/", 2) == 0)
			v += 2;
		if (strncmp(v, etag, n) == 0 && (v[n] == '\0' || v[n] == ',' ||
						 v[n] == ' ' || v[n] == '\t'))
			return 1;
		v += strcspn(v, ",");
	}
	return 0;
}

/* An answer the client holds already (its If-None-Match names the ETag):
 * 304, the ETag and Cache-Control, no body. */
static void not_modified(struct MHD_Connection *c, struct api_resp *r)
{
	if (r->status != 200 || !r->etag[0] || !none_match(c, r->etag))
		return;
	free(r->body);
	r->body = NULL;
	if (r->release)
		r->release(r->release_cls);
	r->release = NULL;
	r->static_body = NULL;
	r->len = 0;
	r->filename[0] = '\0';
	r->status = 304;
}

static int expects_continue(struct MHD_Connection *c)
{
	const char *e = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_EXPECT);

	return e && strcasecmp(e, "100-continue") == 0;
}

/* An archive connection for one request: a pooled one, or a new one. */
static struct archive *pool_take(struct api_server *s)
{
	struct archive *a = NULL;

	pthread_mutex_lock(&s->mu);
	if (s->n_pool)
		a = s->pool[--s->n_pool];
	pthread_mutex_unlock(&s->mu);
	if (a)
		return a;
	/* one at a time: opening takes the archive's locks briefly, and
	 * many at once (a burst of new clients) would wait on each other in
	 * SQLite's busy back-off */
	pthread_mutex_lock(&s->open_mu);
	if (archive_open(s->ctx->db_path, &a) < 0)
		a = NULL;
	pthread_mutex_unlock(&s->open_mu);
	return a;
}

static void pool_give(struct api_server *s, struct archive *a)
{
	if (archive_settle(a))
		log_error("a request left an archive transaction open; "
			  "rolled back");
	pthread_mutex_lock(&s->mu);
	if (s->n_pool < API_MAX_CONNECTIONS) {
		s->pool[s->n_pool++] = a;
		a = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	archive_close(a);
}

static __thread int thread_lowered; /* os_thread_yield_to_engine done */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct api_server *s = cls;
	struct conn_state *cs = *con_cls;
	struct api_req req = { 0 };
	struct api_resp resp = { 0 };
	struct api_ctx lctx;
	enum MHD_Result ret;

	(void)version;
	if (!cs) {
		const char *cl = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return MHD_NO;
		*con_cls = cs;
		cs->t0_ns = os_now_ns();
		/* this connection's thread, once: a running benchmark's
		 * engine comes first for the CPU */
		if (!thread_lowered) {
			os_thread_yield_to_engine();
			thread_lowered = 1;
		}
		if (conflicting_length(c, &resp) ||
		    api_access_check(s->ctx, c, url, method, &resp) < 0) {
			cs->too_big = 1; /* drop whatever body follows */
			/* a refused client keeps no connection open */
			resp.close = 1;
			ret = send_resp(c, &resp);
			api_http_count(NULL, method, resp.status,
				       (double)(os_now_ns() - cs->t0_ns) / 1e9);
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
	/* the request has arrived: it is being answered, not waiting */
	api_conns_waits(c, 0);
	if (cs->too_big)
		return too_big(c, method, cs, body_limit(url));
	/* the handler's own archive connection, for this request */
	lctx = *s->ctx;
	if (!(lctx.a = pool_take(s))) {
		api_fail(&resp, 503, NULL,
			 "the archive cannot be opened; see the daemon's log");
		ret = send_resp(c, &resp);
		free(resp.body);
		return ret;
	}
	req.ctx = &lctx;
	req.conn = c;
	req.method = method;
	req.path = url;
	req.body = cs->buf;
	req.body_len = cs->len;
	api_dispatch(&req, &resp);
	pool_give(s, lctx.a);
	if (resp.stream) {
		api_http_count(resp.route, method, 200,
			       (double)(os_now_ns() - cs->t0_ns) / 1e9);
		return (enum MHD_Result)api_streams_open(s->streams, c);
	}
	not_modified(c, &resp);
	ret = send_resp(c, &resp);
	api_http_count(resp.route, method, resp.status,
		       (double)(os_now_ns() - cs->t0_ns) / 1e9);
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

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct conn_state *cs = *con_cls;

	(void)cls;
	(void)toe;
	api_conns_waits(c, 1); /* until its next request arrives */
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
	    pn > 65535 || getaddrinfo(host, port, &hints, ai) != 0)
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

int api_listen_self_url(const char *listen, char *url, size_t size)
{
	struct addrinfo *ai = NULL;
	const char *port, *h, *hend;
	char host[256];
	size_t o = 0;
	int any = 1, v6, rc, n;

	if ((rc = parse_listen(listen, &ai)) < 0)
		return rc;
	v6 = ai->ai_family == AF_INET6;
	if (v6) {
		const struct sockaddr_in6 *in6 = (const void *)ai->ai_addr;
		for (int i = 0; i < 16; i++)
			any &= in6->sin6_addr.s6_addr[i] == 0;
	} else {
		const struct sockaddr_in *in = (const void *)ai->ai_addr;
		any = in->sin_addr.s_addr == htonl(INADDR_ANY);
	}
	freeaddrinfo(ai);
	/* parse_listen took it: ADDR:PORT or [ADDR]:PORT, PORT digits */
	port = strrchr(listen, ':') + 1;
	if (any) {
		n = snprintf(url, size, "http://%s:%s",
			     v6 ? "[::1]" : "127.0.0.1", port);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	/* the address itself; an IPv6 zone's '%' is "%25" in a URL */
	h = listen + (listen[0] == '[');
	hend = listen[0] == '[' ? strchr(listen, ']') : port - 1;
	for (; h < hend && o + 4 < sizeof(host); h++) {
		if (*h == '%') {
			memcpy(host + o, "%25", 3);
			o += 3;
		} else {
			host[o++] = *h;
		}
	}
	host[o] = '\0';
	n = snprintf(url, size, v6 ? "http://[%s]:%s" : "http://%s:%s", host,
		     port);
	return h < hend || n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int api_start(const char *listen, struct api_ctx *ctx, struct api_server **out)
{
	struct api_server *s = calloc(1, sizeof(*s));
	struct addrinfo *ai = NULL;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME;
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	if ((rc = parse_listen(listen, &ai)) < 0)
		goto fail;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->ctx = ctx;
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->open_mu, NULL);
	if ((rc = api_conns_start(&s->conns)) < 0)
		goto fail;
	errno = 0;
	s->d = MHD_start_daemon(
		flags, 0, api_conns_on_accept, s->conns, on_request, s,
		MHD_OPTION_EXTERNAL_LOGGER, api_mhd_log, NULL,
		MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, s, MHD_OPTION_NOTIFY_CONNECTION,
		api_conns_on_connection, s->conns, MHD_OPTION_UNESCAPE_CALLBACK,
		unescape, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)API_IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)API_MAX_CONNECTIONS, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!s->d) {
		rc = errno ? -errno : -EADDRINUSE;
		goto fail;
	}
	if ((rc = api_streams_start(&s->streams)) < 0) {
		MHD_stop_daemon(s->d);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	api_conns_stop(s->conns);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->open_mu);
	free(s);
	return rc;
}

void api_stop(struct api_server *s)
{
	if (!s)
		return;
	api_streams_stop(s->streams); /* every stream sees the end */
	MHD_stop_daemon(s->d);
	api_conns_stop(s->conns);
	api_streams_free(s->streams);
	while (s->n_pool)
		archive_close(s->pool[--s->n_pool]);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->open_mu);
	free(s);
}
