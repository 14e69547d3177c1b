/*
 * hub — see hub.h. The document is runview_document's (what
 * ?format=storbench serves), sent compact with the file name
 * storbench-run-UUID.json, so the other archive keeps it as the import's
 * original; HTTP is peerhttp's (no redirects followed: a token goes to the
 * URL given and nowhere else).
 */
#include "hub.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare/runview.h"
#include "peerhttp.h"
#include "platform/utf8.h"

void hub_endpoint(const char *url, const char *filename, char *out, size_t len)
{
	static const char tail[] = "/api/v1/import";
	size_t n = strlen(url);
	int named;

	while (n && url[n - 1] == '/')
		n--;
	named = n >= sizeof(tail) - 1 && memcmp(url + n - (sizeof(tail) - 1),
						tail, sizeof(tail) - 1) == 0;
	snprintf(out, len, "%.*s%s%s%s", (int)n, url, named ? "" : tail,
		 filename ? "?filename=" : "", filename ? filename : "");
}

/* What status means for a run sent: taken, refused for good, or a try to
 * make again. */
static enum hub_outcome outcome_of(long status)
{
	if (status == 200 || status == 201)
		return HUB_TAKEN;
	/* the token (401, 403), time (408) and load (429) may change; 404
	 * and 405 say the URL is no storbench import endpoint, which the
	 * run cannot help either */
	if (status >= 400 && status < 500 && status != 401 && status != 403 &&
	    status != 404 && status != 405 && status != 408 && status != 429)
		return HUB_REFUSED;
	return HUB_FAILED;
}

int hub_push_run(struct archive *a, const char *url, const char *token,
		 int64_t run_id, long timeout_ms, const atomic_int *stop,
		 struct hub_sent *out)
{
	json_t *doc = NULL;
	char *text = NULL, to[PATH_MAX], name[80];
	struct peer_reply r;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = runview_document(a, run_id, &doc)) < 0)
		return rc;
	if (!(text = json_dumps(doc, JSON_COMPACT))) {
		json_decref(doc);
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "storbench-run-%.40s.json",
		 json_string_value(json_object_get(doc, "uuid")));
	json_decref(doc);
	hub_endpoint(url, name, to, sizeof(to));
	if (peerhttp_call_until(to, token, "POST", NULL, text, timeout_ms, stop,
				&r) < 0) {
		out->outcome = HUB_FAILED;
		snprintf(out->detail, sizeof(out->detail), "%s", r.error);
	} else {
		out->status = r.status;
		out->outcome = outcome_of(r.status);
		if (out->outcome == HUB_TAKEN) {
			out->duplicate = r.status == 200;
			out->remote_id = (int64_t)json_integer_value(
				json_object_get(r.json, "id"));
		} else {
			snprintf(out->detail, sizeof(out->detail), "%s",
				 peer_reply_detail(&r));
		}
	}
	utf8_sanitize(out->detail); /* (a body cut anywhere) */
	peer_reply_free(&r);
	free(text);
	return 0;
}
