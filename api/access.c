/*
 * access — who may ask, and what every answer carries.
 *
 * api_access_check runs before any of a body is read: the dashboard's files
 * and /healthz are open; /metrics and everything under /api/ need
 * "Authorization: Bearer TOKEN" when ctx->require_token (a listener on
 * anything but loopback, or --require-token). A token in the query string is
 * refused, never used: URLs end up in logs, proxies and browser history.
 * Without a token (loopback), a request must name a loopback host (against
 * DNS rebinding: a page of evil.example resolving to 127.0.0.1) and a
 * state-changing one must come from our own origin (against cross-site
 * requests: browsers send Origin and Sec-Fetch-Site). No response carries
 * CORS headers, so no other origin can read an answer; api_guard_headers are
 * on every one.
 */
#include "api.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

#include "net.h"

/* The headers every answer carries (README "Access"). */
void api_guard_headers(struct MHD_Response *mr)
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

int api_access_check(struct api_ctx *ctx, struct MHD_Connection *c,
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
	site = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					   "Sec-Fetch-Site");
	if ((origin && strcasecmp(origin, own) != 0) ||
	    (site && strcmp(site, "same-origin") != 0 &&
	     strcmp(site, "none") != 0)) {
		api_fail(r, 403, "Origin",
			 "a %s from another origin (%.100s) is refused: the "
			 "dashboard at %.100s or a client without an Origin "
			 "header (curl) may change state",
			 method, origin ? origin : site, own);
		return -EACCES;
	}
	return 0;
}
