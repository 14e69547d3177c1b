/*
 * api — the HTTP side: a libmicrohttpd server (server.c), a route table
 * (routes.c), one handler file per resource (h_*.c), request validation
 * (jobspec.c) and errors as application/problem+json (problem.c).
 *
 * Design: MHD runs a thread per connection (server.c); a handler runs on
 * its connection's thread with an archive connection of its own for the
 * request (req->ctx->a), so handlers run side by side and a slow one holds
 * up only its own client. A handler gets a parsed request (method, path, id
 * from the path, the whole body) and fills a response; it never blocks on
 * benchmark I/O (that is the queue worker's).
 */
#ifndef STORBENCH_API_H
#define STORBENCH_API_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "platform/fields.h"

#define API_BODY_LIMIT (64 * 1024) /* bytes; larger bodies get 413 */
/* server.c: connections (a thread each) open at once; of them, how many one
 * address may hold that sent no request within the grace (ms) after they
 * opened; seconds an idle connection
 * stays open; seconds between log lines about refused connections */
#define API_MAX_CONNECTIONS 512
#define API_WAITING_PER_ADDR 32
#define API_WAITING_GRACE_MS 1000
#define API_IDLE_TIMEOUT_S 10
#define API_LOG_INTERVAL_S 10
#define API_IMPORT_LIMIT (16 << 20) /* bytes, POST /api/v1/import */

struct archive;
struct jobq;
struct hubsync;
struct MHD_Connection;

/* What the handlers share; owned by main. */
struct api_ctx {
	struct archive *a;   /* in a handler: this request's archive
				connection (server.c lends one) */
	const char *db_path; /* the archive file, for server.c's pool */
	struct jobq *q;
	struct fleet *fleet; /* the multi-host jobs' coordinator, or NULL */
	struct hubsync *hub; /* serve --hub's pusher (fleet/hubsync.h), or
				NULL: this daemon pushes to no hub */
	const char *scratch; /* DATA/scratch, the default target */
	/* access (server.c): the bearer token ("" when none), and whether the
	 * API needs it — always on a non-loopback listener, on loopback only
	 * with --require-token */
	char token[128];
	int require_token;
};

/* A query argument handed over without libmicrohttpd: a tool or a test
 * fills req->args and leaves req->conn NULL. value is NULL for a name that
 * stood alone ("?a&b=1"), as libmicrohttpd reports it. */
struct api_query_arg {
	const char *name;
	const char *value;
};

struct api_req {
	struct api_ctx *ctx;
	struct MHD_Connection *conn; /* NULL: the query is args[0..n_args) */
	const struct api_query_arg *args;
	size_t n_args;
	const char *method;
	const char *path;
	const char *body; /* NUL-terminated; NULL when there is none */
	size_t body_len;
	int64_t id;	  /* the {id} of the route, or 0 */
	const char *rest; /* what a trailing "*" of the route matched */
};

struct api_resp {
	unsigned status;
	const char *content_type;
	char *body;			  /* malloc'd, freed by the server */
	const unsigned char *static_body; /* or a static one, */
	void (*release)(void *cls);	  /* or a shared one: static_body until
					     release(release_cls), which the server
					     calls once it is sent or dropped */
	void *release_cls;
	size_t len;
	char location[128];	   /* Location header when non-empty */
	char allow[64];		   /* Allow header (405) when non-empty */
	char filename[96];	   /* Content-Disposition: attachment */
	int stream;		   /* set by h_events: the server answers
				      with the event stream instead */
	int close;		   /* Connection: close (the request's framing
				      cannot be trusted) */
	const char *route;	   /* the matched route's pattern, for the
				      HTTP metrics (set by api_dispatch) */
	char etag[24];		   /* ETag (quoted) when non-empty: a request's
				      matching If-None-Match gets 304 */
	const char *cache_control; /* Cache-Control, when not NULL */
	char timing[160];	   /* Server-Timing when non-empty: what the
				      answer waited for */
};

/* A problem (RFC 9457) being built: status, title, field, detail. */
struct api_problem {
	unsigned status;
	char title[64];
	char field[64]; /* the request field at fault, or "" */
	char detail[512];
};

typedef void (*api_handler)(struct api_req *req, struct api_resp *resp);

/* --- server.c --- */
struct api_server;
/* Starts listening on "ADDR:PORT" ("127.0.0.1:8080", "[::1]:8080",
 * "0.0.0.0:8080"). Returns 0 or a negative errno (-EINVAL for a bad address,
 * -EADDRINUSE ...). */
int api_start(const char *listen, struct api_ctx *ctx, struct api_server **out);
/*
 * Percent-decodes s in place, as libmicrohttpd's own decoding but that "%00"
 * is left as it is: decoded, it would end the C string and
 * "/api/v1/jobs/1%00x" would reach the handlers as "/api/v1/jobs/1". The
 * server's decoding of paths and queries. Returns the new length.
 */
size_t api_unescape(char *s);

/* Is "ADDR:PORT" a loopback address (127.0.0.0/8, ::1)? 1, 0, or -EINVAL. */
int api_listen_is_loopback(const char *listen);
/* The base URL this daemon itself is reached at when it listens on
 * "ADDR:PORT": loopback for a wildcard address ("0.0.0.0:8080":
 * "http://127.0.0.1:8080", "[::]:8080": "http://[::1]:8080"), else the
 * address it listens on ("127.0.0.5:8080": "http://127.0.0.5:8080"), into
 * url[size]. 0, -EINVAL (not ADDR:PORT) or -ENAMETOOLONG. */
int api_listen_self_url(const char *listen, char *url, size_t size);
void api_stop(struct api_server *s);
/* The HTTP metrics (requests by route, method and code; the latency
 * histogram) in Prometheus text exposition, into f. */
void api_http_metrics(FILE *f);
/* Counts one answer: route (a pattern; NULL: none matched), method, status
 * and the seconds from its first byte to its answer (httpstats.c). */
void api_http_count(const char *route, const char *method, unsigned status,
		    double secs);

/* --- runcache.c: the answers about runs that have ended --- */
/* Cache-Control of an answer that can be kept and revalidated (its ETag
 * changes only with its bytes: a run's labels and notes can still be
 * edited, so a copy is checked, not trusted blindly) */
#define API_CACHE_ENDED "private, no-cache"
/* Cache-Control of an answer about a run still measuring */
#define API_CACHE_LIVE "no-store"
/* The strong ETag of body, quoted: "0123456789abcdef". */
void api_etag_of(const void *body, size_t len, char out[24]);
/* Fills resp with the kept answer variant ("json", "csv", "cdm",
 * "samples") about run, with its ETag: 1, or 0 when none is kept. */
int api_cache_get(int64_t run, const char *variant, struct api_resp *resp);
/* The count of forgets so far: note it before reading the archive for an
 * answer to keep. */
uint64_t api_cache_epoch(void);
/* Keeps a copy of resp (a 200 about run, which had ended before it was
 * read at epoch) and sets its ETag and Cache-Control — unless a run was
 * forgotten since epoch (what was read may predate an edit): then resp is
 * sent as not to be stored. */
void api_cache_put(int64_t run, const char *variant, uint64_t epoch,
		   struct api_resp *resp);
/* Forgets every answer about run; call after the archive has its edit or
 * deletion. */
void api_cache_forget(int64_t run);

/* --- listcache.c: the list routes' answers, per archive generation --- */
/* Bytes shared by whoever keeps them and the answers being sent from them
 * (resp->release = api_bytes_unref): len bytes at data, NUL after. The
 * last holder to let go frees them. */
struct api_bytes {
	atomic_uint refs;
	size_t len;
	char data[];
};
/* A copy of len bytes at data, held once; NULL without memory. */
struct api_bytes *api_bytes_new(const void *data, size_t len);
/* One more holder of b; returns b. */
struct api_bytes *api_bytes_ref(struct api_bytes *b);
/* A holder of b (a struct api_bytes *, or NULL) lets go. */
void api_bytes_unref(void *b);
/* The query's key: route, then each of names[] given, with its value
 * ("runs?limit=3:100&"), into key[size]. 0, or -ENAMETOOLONG. */
int api_list_key(struct api_req *req, const char *route,
		 const char *const names[], char *key, size_t size);
/* The generation an answer made now reads at (archive_generation with
 * the request's connection), or 0: none can be kept or served now (a
 * job's end waits to be written). Call before reading the archive. */
uint64_t api_list_gen(struct api_req *req);
/* Fills resp with the answer kept for key at gen, with its ETag: 1, or 0
 * when there is none (gen 0: never). Through a server (req->conn) resp
 * shares the kept bytes (static_body, release); else it gets a copy. */
int api_list_get(struct api_req *req, const char *key, uint64_t gen,
		 struct api_resp *resp);
/* Gives resp (a 200) its ETag and Cache-Control, and keeps a copy for key
 * when keep is 1 and nothing was written since gen. keep 0: an answer
 * that shows what the archive does not hold (a running job's progress). */
void api_list_put(struct api_req *req, const char *key, uint64_t gen, int keep,
		  struct api_resp *resp);

/* --- access.c --- */
struct MHD_Response;
/* May this request go on (0), or is it refused (-EACCES, the problem in r)?
 * The rules are in access.c's header. */
int api_access_check(struct api_ctx *ctx, struct MHD_Connection *c,
		     const char *url, const char *method, struct api_resp *r);
/* The headers every answer carries (README "Access"), but Cache-Control,
 * which is the answer's own (API_CACHE_*). */
void api_guard_headers(struct MHD_Response *mr);

/* --- sse.c: GET /api/v1/events --- */
struct api_streams;
/* The event streams of a server: their ticker and the bus's waker. */
int api_streams_start(struct api_streams **out);
/* Answers c with text/event-stream from the events after Last-Event-ID
 * (when given and still held), else from now on (an MHD_Result). */
int api_streams_open(struct api_streams *s, struct MHD_Connection *c);
/* Every stream ends (call before stopping the HTTP daemon) … */
void api_streams_stop(struct api_streams *s);
/* … then the streams' state is freed (after it). */
void api_streams_free(struct api_streams *s);

/* --- routes.c --- */
void api_dispatch(struct api_req *req, struct api_resp *resp);

/* --- problem.c --- */
/* The one place an errno becomes an HTTP status. */
unsigned api_status_from_errno(int rc);
void api_problem_set(struct api_problem *p, unsigned status, const char *field,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Fills resp with p as application/problem+json. */
void api_send_problem(struct api_resp *resp, const struct api_problem *p);
/* A write the archive (or the credential store) refused with rc: 507 when
 * its disk is full, saying so, else the errno's status; what says what
 * was not done ("the job was not queued"). */
void api_fail_store(struct api_resp *resp, int rc, const char *what);
/* Shorthand: a problem straight into resp. */
void api_fail(struct api_resp *resp, unsigned status, const char *field,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The request's body as a JSON object (a new reference), keys given twice
 * refused: else NULL with a 400 sent — "malformed JSON at line L column
 * C: …" for what does not parse, "the body must be a JSON object SHAPE"
 * for anything else (shape: "{\"gate\", \"start_at_ns\"}"). */
json_t *api_body_object(struct api_req *req, struct api_resp *resp,
			const char *shape);
/* Fills resp with v as application/json (v is consumed). */
void api_send_json(struct api_resp *resp, unsigned status, json_t *v);

/* The content type of the HTML reports (format=html) */
#define API_HTML_TYPE "text/html; charset=utf-8"
/* --- h_report.c: format=html --- */
/* Answers run (GET /api/v1/runs/{id}'s JSON; consumed) as its HTML report,
 * an attachment storbench-run-ID.html (500 when out of memory). */
void api_send_run_html(struct api_resp *resp, json_t *run);
/* Answers c (GET /api/v1/compare's JSON for req's query; consumed) as its
 * HTML report with the probes and specs of the sides' first 64 runs, an
 * attachment named after req's runs, group_by or latest_per. */
void api_send_compare_html(struct api_req *req, struct api_resp *resp,
			   json_t *c);

/* Sends body (malloc'd, len bytes; taken over) as content_type with status
 * 200, an attachment named filename. */
void api_send_file(struct api_resp *resp, char *body, size_t len,
		   const char *content_type, const char *filename);

/*
 * CSV (RFC 4180, UTF-8, CRLF) of rows, an array of arrays of strings,
 * numbers, booleans or null (empty), after the header names cols[0..n);
 * sent as text/csv, an attachment named filename. Frees rows.
 */
void api_send_csv(struct api_resp *resp, const char *const *cols, size_t n,
		  json_t *rows, const char *filename);

/* Is ?format=csv asked (1), json or none (0), or something else (-1, the
 * problem sent)? */
int api_want_csv(struct api_req *req, struct api_resp *resp);
/* A query-string parameter's value, or NULL when absent (names match
 * without regard to case, as libmicrohttpd matches them; the first of a
 * name given twice). From the connection, or req->args without one. */
const char *api_query_str(struct api_req *req, const char *name);

/*
 * Checks the whole query against known (a NULL-terminated list of the
 * parameters the route takes): an unknown name, a name given twice, a value
 * longer than API_QUERY_VALUE_MAX bytes or not UTF-8 is a 400 naming the
 * parameter. Returns 0, or -EINVAL with the problem already in resp.
 */
#define API_QUERY_VALUE_MAX 4096
int api_query_known(struct api_req *req, struct api_resp *resp,
		    const char *const *known);

/* Reads query parameter name as an integer in [min, max] (def when absent).
 * Returns 0, or -EINVAL with a 400 problem already in resp. */
int api_query_int(struct api_req *req, struct api_resp *resp, const char *name,
		  long long def, long long min, long long max, long long *out);

/* --- jobspec.c --- */
struct job_spec;
/* The job request's fields (fields.h): validation, GET /api/v1/profiles
 * ("job_fields"), the OpenAPI document's JobRequest. */
extern const struct field jobspec_fields[];
extern const size_t jobspec_n_fields;
/* Fills the profile and engine choices of jobspec_fields from the
 * registries (once; every reader of the table calls it first). */
void jobspec_init(void);
/*
 * Parses and validates a POST /api/v1/jobs body (body may be NULL or empty:
 * every field takes its default) into *s (caller: job_spec_clear). Returns 0,
 * or -EINVAL with *p naming the field and the problem (400); *s is then
 * empty. scratch is the default target.
 */
int jobspec_parse(const char *body, size_t len, const char *scratch,
		  struct job_spec *s, struct api_problem *p);
/* Field name of request root checked by its descriptor in jobspec_fields:
 * *out the normalized value (a new reference), or NULL when absent. 0, or
 * -EINVAL with e filled. (jobspec_fields.c) */
int jobspec_get(json_t *root, const char *name, json_t **out,
		struct field_error *e);

/* --- jobspec_plan.c: the preset's part of a job request --- */
struct preset;
struct tgt_ops;
/*
 * The preset pr's part of request root, into s (whose size, duration_s and
 * iterations jobspec_parse has set): its options (the preset's descriptors,
 * then its check hook, which gets scratch and session) as s->options_json;
 * its tests (the request's for a preset that takes them, the hook's, or
 * its fixed ones) with the job-wide data, ramp_s, precondition and
 * steady_state, planned, each within ops's queue slots (ops NULL: no
 * limit), and written out in full as s->plan_json. 0, -EINVAL with e
 * naming the field, or -ENOMEM.
 */
int jobspec_plan(json_t *root, const struct preset *pr, struct job_spec *s,
		 const char *scratch, const void *session,
		 const struct tgt_ops *ops, struct field_error *e);
/* The presets that take tests (flag PRESET_TESTS, or another PRESET_*
 * flag) or, with flag 0, options, as "a, b and c" into buf, for a
 * refusal. */
void jobspec_takers(unsigned flag, char *buf, size_t len);

/*
 * A run (archive_run_json's object) as CrystalDiskMark 8's text layout, so
 * it can be pasted where people paste CrystalDiskMark results (and imported
 * back): [Read], [Write], [Mix] sections of the best iterations, lines ending
 * in eol ("\r\n" as CrystalDiskMark saves them, "\n" for a terminal). The
 * banner says storbench wrote it; tests CrystalDiskMark's grammar cannot name
 * (a block size not in KiB) are left out. *out (malloc'd, the caller frees)
 * and *len. 0 or -ENOMEM.
 */
int api_run_cdm_text(json_t *run, const char *eol, char **out, size_t *len);

/* --- handlers --- */
/* A job's or run's "labels" (NULL v: []) into *out as a JSON array text,
 * and "notes"; 0 or -EINVAL with p set (docs/api.md has the rules). */
int jobspec_labels(json_t *v, char **out, struct api_problem *p);
int jobspec_notes(json_t *v, struct api_problem *p);

void h_jobs_create(struct api_req *req, struct api_resp *resp);
void h_jobs_list(struct api_req *req, struct api_resp *resp);
void h_jobs_get(struct api_req *req, struct api_resp *resp);
void h_jobs_cancel(struct api_req *req, struct api_resp *resp);
void h_jobs_go(struct api_req *req, struct api_resp *resp);
void h_clock(struct api_req *req, struct api_resp *resp);
void h_peers_create(struct api_req *req, struct api_resp *resp);
void h_peers_put(struct api_req *req, struct api_resp *resp);
void h_peers_list(struct api_req *req, struct api_resp *resp);
void h_peers_get(struct api_req *req, struct api_resp *resp);
void h_peers_delete(struct api_req *req, struct api_resp *resp);
void h_runs_list(struct api_req *req, struct api_resp *resp);
void h_runs_get(struct api_req *req, struct api_resp *resp);
void h_runs_samples(struct api_req *req, struct api_resp *resp);
void h_runs_patch(struct api_req *req, struct api_resp *resp);
/* *out = run id as GET /api/v1/runs/{id} serves it: runview_json plus the
 * address of an imported run's original file. 0 or a negative errno. */
int api_run_json(struct archive *a, int64_t id, json_t **out);
/* The run as a document another server's import takes
 * (?format=storbench): api_run_json with archive_run_raw's counts,
 * histograms and samples, and "document": {"format": "storbench-run",
 * "version": 1}. */
int api_run_document(struct archive *a, int64_t id, json_t **out);

/* The run filters of the query (docs/api.md, GET /api/v1/runs) into *f,
 * checked; 0, or -EINVAL with the problem sent. */
struct run_filter;
int api_run_filter(struct api_req *req, struct api_resp *resp,
		   struct run_filter *f);
void h_runs_delete(struct api_req *req, struct api_resp *resp);
void h_compare(struct api_req *req, struct api_resp *resp);
void h_history(struct api_req *req, struct api_resp *resp);
void h_import(struct api_req *req, struct api_resp *resp);
void h_runs_original(struct api_req *req, struct api_resp *resp);
void h_profiles(struct api_req *req, struct api_resp *resp);
void h_events(struct api_req *req, struct api_resp *resp);
void h_metrics(struct api_req *req, struct api_resp *resp);
void h_hub(struct api_req *req, struct api_resp *resp);
void h_creds_create(struct api_req *req, struct api_resp *resp);
void h_creds_list(struct api_req *req, struct api_resp *resp);
void h_creds_get(struct api_req *req, struct api_resp *resp);
void h_creds_put(struct api_req *req, struct api_resp *resp);
void h_creds_delete(struct api_req *req, struct api_resp *resp);
void h_health(struct api_req *req, struct api_resp *resp);
void h_static(struct api_req *req, struct api_resp *resp);
void h_openapi(struct api_req *req, struct api_resp *resp);

/* --- openapi.c --- */
/*
 * The OpenAPI document GET /api/v1/openapi.json serves: the fragments (the
 * JSON files of api/openapi/, embedded at build time) merged, with the request
 * schemas generated from the field tables (JobRequest, TestRequest,
 * SmbRequest, each preset's options). Built on the first call (any thread),
 * then the same text: two-space indented, as api/openapi.json is committed
 * (scripts/gen-openapi). Returns it (NUL-terminated) and *len, or NULL with
 * *why (when why is not NULL) saying what is wrong with the fragments.
 */
const char *api_openapi_text(size_t *len, const char **why);

#endif
