/*
 * h_hub — GET /api/v1/hub: what this daemon pushes to its hub (`serve
 * --hub URL`, fleet/hubsync.h): the hub's URL (never its token); the runs
 * the hub took, those pending (ended, not yet taken: sent when the hub
 * answers), those it refused for good with its detail, and those still
 * running (the archive's hub_pushes, archive_hub_json); and the pusher's
 * state: the last error, how many tries failed in a row, when the next
 * try is. Without --hub: url null, state "off", every count 0.
 */
#include "api.h"

#include "archive/archive.h"
#include "fleet/hubsync.h"

/* The refused runs the answer lists (the newest). */
#define HUB_REFUSALS_SHOWN 20

void h_hub(struct api_req *req, struct api_resp *resp)
{
	static const char *const none[] = { NULL };
	const char *url = hubsync_url(req->ctx->hub);
	json_t *o, *counts = NULL;

	if (api_query_known(req, resp, none) < 0)
		return;
	if (!url) {
		o = json_pack("{s:n, s:s, s:i, s:n, s:n, s:n, s:i, s:n, s:n}",
			      "url", "state", "off", "sent", 0, "last_push_at",
			      "last_error", "last_error_at", "failures", 0,
			      "next_try_at", "next_try_in_s");
		counts = json_pack("{s:i, s:i, s:i, s:i, s:[]}", "pushed", 0,
				   "pending", 0, "refused", 0, "running", 0,
				   "refusals");
	} else if (archive_hub_json(req->ctx->a, url, HUB_REFUSALS_SHOWN,
				    &counts) < 0) {
		api_fail(resp, 503, NULL, "the archive does not answer");
		return;
	} else {
		o = json_pack("{s:s}", "url", url);
		hubsync_status(req->ctx->hub, o);
	}
	json_object_update(o, counts);
	json_decref(counts);
	api_send_json(resp, 200, o);
}
