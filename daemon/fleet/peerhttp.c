/*
 * peerhttp — see peerhttp.h.
 */
#include "peerhttp.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "os/os.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int curl_ok;

static void setup(void)
{
	curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == 0;
}

int peerhttp_url_ok(const char *url)
{
	size_t n = url ? strlen(url) : 0;
	char *scheme = NULL, *host = NULL, *part = NULL;
	CURLU *u;
	int ok;

	if (n == 0 || n > 512)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f ||
		    url[i] == '?' || url[i] == '#')
			return 0;
	pthread_once(&once, setup);
	if (!(u = curl_url()))
		return 0;
	/* libcurl's own parser: the scheme (any case), a host, a port of 1 …
	 * 65535; no user or password (a secret in a URL would be shown and
	 * stored with it) */
	ok = curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	     curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	     (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) &&
	     curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	     host[0] != '\0' &&
	     curl_url_get(u, CURLUPART_USER, &part, 0) == CURLUE_NO_USER &&
	     curl_url_get(u, CURLUPART_PASSWORD, &part, 0) ==
		     CURLUE_NO_PASSWORD;
	curl_free(scheme);
	curl_free(host);
	curl_free(part);
	curl_url_cleanup(u);
	return ok;
}

static size_t on_data(char *d, size_t size, size_t nmemb, void *arg)
{
	struct peer_reply *r = arg;
	size_t k = size * nmemb;
	char *p;

	if (r->len + k > PEERHTTP_MAX_BODY)
		return 0; /* libcurl fails the transfer: CURLE_WRITE_ERROR */
	if (!(p = realloc(r->body, r->len + k + 1)))
		return 0;
	memcpy(p + r->len, d, k);
	r->len += k;
	p[r->len] = '\0';
	r->body = p;
	return k;
}

/* libcurl's progress callback (at least once a second): nonzero ends the
 * transfer (CURLE_ABORTED_BY_CALLBACK) once *stop is set. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return atomic_load((const atomic_int *)arg) != 0;
}

static int errno_of(CURLcode cc, const struct peer_reply *r)
{
	switch (cc) {
	case CURLE_ABORTED_BY_CALLBACK:
		return -ECANCELED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_WRITE_ERROR:
		return r->len + 1 > PEERHTTP_MAX_BODY / 2 ? -EFBIG : -ENOMEM;
	default:
		return -EIO;
	}
}

int peerhttp_call(const char *base, const char *token, const char *method,
		  const char *path, const char *body, long timeout_ms,
		  struct peer_reply *r)
{
	return peerhttp_call_until(base, token, method, path, body, timeout_ms,
				   NULL, r);
}

int peerhttp_call_until(const char *base, const char *token, const char *method,
			const char *path, const char *body, long timeout_ms,
			const atomic_int *stop, struct peer_reply *r)
{
	struct curl_slist *h = NULL;
	char url[1200], auth[300];
	size_t n = strlen(base);
	CURLcode cc;
	CURL *c;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	pthread_once(&once, setup);
	while (n && base[n - 1] == '/')
		n--;
	if (snprintf(url, sizeof(url), "%.*s%s", (int)n, base,
		     path ? path : "") >= (int)sizeof(url)) {
		snprintf(r->error, sizeof(r->error), "URL too long");
		return -ENAMETOOLONG;
	}
	if (!curl_ok || !(c = curl_easy_init())) {
		snprintf(r->error, sizeof(r->error), "libcurl did not start");
		return -ENOMEM;
	}
	if (body)
		h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Accept: application/json");
	if (token && token[0]) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		h = curl_slist_append(h, auth);
		os_wipe(auth, sizeof(auth));
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 timeout_ms < 5000 ? timeout_ms : 5000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(body));
	} else if (strcmp(method, "GET") == 0) {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	if (stop) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)stop);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	r->sent_ns = os_wall_ns();
	cc = curl_easy_perform(c);
	r->recv_ns = os_wall_ns();
	if (cc != CURLE_OK) {
		rc = errno_of(cc, r);
		snprintf(r->error, sizeof(r->error), "%s",
			 rc == -EFBIG	    ? "answer too long"
			 : rc == -ECANCELED ? "stopped"
					    : curl_easy_strerror(cc));
		r->status = 0;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
		if (r->body)
			r->json = json_loadb(r->body, r->len, 0, NULL);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return rc;
}

void peer_reply_free(struct peer_reply *r)
{
	free(r->body);
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

const char *peer_reply_detail(const struct peer_reply *r)
{
	json_t *d = json_object_get(r->json, "detail");

	if (!json_is_string(d))
		d = json_object_get(r->json, "title");
	if (json_is_string(d))
		return json_string_value(d);
	if (r->status == 0)
		return r->error[0] ? r->error : "(no answer)";
	return r->body ? r->body : "(no answer)";
}
