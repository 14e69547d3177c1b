/* TEMPORARY STUB — replaced by the peers branch */
#include "peers.h"
#include "os/os.h"
#include "peerhttp.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static struct peer self;
void peers_self_set(const char *url, const char *token)
{
	snprintf(self.name, sizeof(self.name), "self");
	snprintf(self.url, sizeof(self.url), "%s", url);
	snprintf(self.token, sizeof(self.token), "%s", token ? token : "");
}
int peers_get(const char *name, struct peer *out)
{
	const char *env = getenv("SB_STUB_PEERS"); /* name=url,name=url */
	if (strcmp(name, "self") == 0 && self.url[0]) {
		*out = self;
		return 0;
	}
	if (env) {
		char buf[4096], *save, *tok;
		snprintf(buf, sizeof(buf), "%s", env);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(tok, '=');
			if (eq && (size_t)(eq - tok) == strlen(name) &&
			    !strncmp(tok, name, strlen(name))) {
				memset(out, 0, sizeof(*out));
				snprintf(out->name, sizeof(out->name), "%s",
					 name);
				snprintf(out->url, sizeof(out->url), "%s",
					 eq + 1);
				return 0;
			}
		}
	}
	return -ENOENT;
}
int peers_probe(const struct peer *p, int tries, struct peer_clock *out)
{
	memset(out, 0, sizeof(*out));
	out->rtt_ms = 1e9;
	for (int i = 0; i < tries; i++) {
		struct peer_reply r;
		if (peerhttp_call(p->url, p->token, "GET", "/healthz", NULL,
				  2000, &r) == 0 &&
		    r.status == 200) {
			double rtt = (double)(r.recv_ns - r.sent_ns) / 1e6;
			out->reachable = 1;
			out->status = 200;
			if (rtt < out->rtt_ms) {
				out->rtt_ms = rtt;
				out->uncertainty_ms = rtt / 2;
			}
		} else {
			snprintf(out->error, sizeof(out->error),
				 "%.40s did not answer: %.100s", p->name,
				 r.error);
		}
		peer_reply_free(&r);
	}
	return out->reachable ? 0 : -EHOSTUNREACH;
}
