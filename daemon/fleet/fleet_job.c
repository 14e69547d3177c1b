/*
 * fleet_job — one multi-host job from its coordinator's side (see
 * fleet.h): its hosts probed, sent the job, started together window by
 * window, watched, and their runs brought here with the aggregate.
 */
#include "fleet_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "os/os.h"
#include "peerhttp.h"

/* How often the hosts' jobs are asked how they are. */
#define POLL_NS 20000000ULL
/* A start is given this far ahead at least, and four round trips of the
 * slowest host more: every host has it before it comes. */
#define START_MARGIN_NS 50000000LL
/* How long a cancelled host's job may take to end (remove its files). */
#define CANCEL_WAIT_NS 30000000000ULL

static int ended(const char *state)
{
	return state[0] && strcmp(state, "queued") != 0 &&
	       strcmp(state, "running") != 0;
}

/* No daemon twice: two names (or a peer and self) that reach one daemon
 * would make it wait at its own gate until the gate's time-out. An older
 * daemon states no instance: it cannot be told apart, and is not. */
static int one_daemon_each(struct fleet_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		for (size_t k = i + 1; k < j->n; k++) {
			const struct fleet_host *a = &j->hosts[i],
						*b = &j->hosts[k];
			if (!a->clk.instance[0] ||
			    strcmp(a->clk.instance, b->clk.instance) != 0)
				continue;
			snprintf(j->error, sizeof(j->error),
				 "hosts[%zu] (%s, %.150s) and hosts[%zu] (%s, "
				 "%.150s) are one daemon (instance %s): "
				 "name each daemon once",
				 i, a->name, a->peer.url, k, b->name,
				 b->peer.url, a->clk.instance);
			return -EINVAL;
		}
	return 0;
}

/* Every host named, reachable, its token taken, its clock within the
 * bound (NTP-style offset from the best of five round trips). */
static int probe_all(struct fleet_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		double off;
		if (peers_get(h->name, &h->peer) < 0) {
			snprintf(j->error, sizeof(j->error),
				 "hosts[%zu]: no peer named %s (POST "
				 "/api/v1/peers registers one)",
				 i, h->name);
			return -ENOENT;
		}
		if (peers_probe(&h->peer, 5, &h->clk) < 0) {
			snprintf(j->error, sizeof(j->error),
				 "%s (%.200s) is not reachable: %.200s",
				 h->name, h->peer.url, h->clk.error);
			return -EHOSTUNREACH;
		}
		/* this daemon's own clock is the one the others are
		 * measured against: no offset, whatever the round trip */
		if (strcmp(h->name, "self") == 0)
			h->clk.offset_ms = h->clk.uncertainty_ms = 0;
		off = h->clk.offset_ms;
		if (fabs(off) + h->clk.uncertainty_ms > j->clock_bound_ms) {
			snprintf(j->error, sizeof(j->error),
				 "the clock of %s is %.1f ms %s this host's "
				 "(± %.1f ms), more than the job's bound of "
				 "%.1f ms: keep the hosts' clocks in step "
				 "(chrony or NTP on Linux, Windows Time) — "
				 "storbench measures the offset, it does not "
				 "set clocks",
				 h->name, fabs(off),
				 off >= 0 ? "ahead of" : "behind",
				 h->clk.uncertainty_ms, j->clock_bound_ms);
			return -ERANGE;
		}
		h->offset_ns = (int64_t)llround(off * 1e6);
	}
	return one_daemon_each(j);
}

/* A host's answer as a sentence for the job's error. */
static void host_fail(struct fleet_job *j, struct fleet_host *h,
		      const char *what, const struct peer_reply *r)
{
	snprintf(j->error, sizeof(j->error), "%s (%.200s) %s: %.200s", h->name,
		 h->peer.url, what, peer_reply_detail(r));
}

/* The label host:NAME on a host's job, so its run says which host it was
 * where it is made — also self's, which the coordinator's archive has
 * already and does not import again (a label is 64 bytes at most, a job
 * has 32 at most: a longer name is cut, a 33rd label not added). */
static void label_host(json_t *body, const char *name)
{
	json_t *l = json_object_get(body, "labels"), *v;
	char label[65];
	size_t i;

	snprintf(label, sizeof(label), "host:%s", name);
	if (!json_is_array(l)) {
		json_object_set_new(body, "labels", json_pack("[s]", label));
		return;
	}
	json_array_foreach(l, i, v)
	{
		if (strcmp(json_string_value(v) ?: "", label) == 0)
			return;
	}
	if (json_array_size(l) < 32)
		json_array_append_new(l, json_string(label));
}

/* Sends every host the job; each answers with its job's id. */
static int post_all(struct fleet_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		json_t *body = json_deep_copy(j->req);
		struct peer_reply r;
		char *text;
		int rc;
		json_object_set_new(
			body, "fleet",
			json_pack("{s:s, s:s, s:I, s:f}", "host", h->name,
				  "coordinator", j->f->hostname, "job",
				  (json_int_t)j->id, "gate_timeout_s",
				  j->peer_timeout_s * 4 + 30));
		label_host(body, h->name);
		text = json_dumps(body, JSON_COMPACT);
		json_decref(body);
		if (!text)
			return -ENOMEM;
		rc = peerhttp_call(h->peer.url, h->peer.token, "POST",
				   "/api/v1/jobs", text, 60000, &r);
		free(text);
		if (rc < 0 || r.status != 202 ||
		    !json_is_integer(json_object_get(r.json, "id"))) {
			const char *field = json_string_value(
				json_object_get(r.json, "field"));
			if (rc == 0 && field)
				snprintf(j->error, sizeof(j->error),
					 "%s (%.200s) refused the job: %.200s",
					 h->name, h->peer.url,
					 peer_reply_detail(&r));
			else
				host_fail(j, h,
					  rc < 0 ? "did not take the job"
						 : "refused the job",
					  &r);
			peer_reply_free(&r);
			return rc < 0 ? rc : -EINVAL;
		}
		h->job = json_integer_value(json_object_get(r.json, "id"));
		snprintf(h->state, sizeof(h->state), "queued");
		h->answered_ns = os_now_ns();
		peer_reply_free(&r);
		archive_fleet_member_put(j->a, j->id, h->name, h->peer.url,
					 h->job);
	}
	return 0;
}

/* Asks host h how its job is. 0; -ETIMEDOUT when it has not answered for
 * the job's peer_timeout_s (j->error says so). */
static int poll_host(struct fleet_job *j, struct fleet_host *h)
{
	char path[64];
	struct peer_reply r;
	int rc;

	snprintf(path, sizeof(path), "/api/v1/jobs/%lld", (long long)h->job);
	rc = peerhttp_call(h->peer.url, h->peer.token, "GET", path, NULL, 2000,
			   &r);
	if (rc == 0 && r.status == 200 && json_is_object(r.json)) {
		json_t *run = json_object_get(r.json, "run_id");
		snprintf(h->state, sizeof(h->state), "%s",
			 json_string_value(json_object_get(r.json, "state"))
				 ?: "");
		json_decref(h->progress);
		h->progress = json_incref(json_object_get(r.json, "progress"));
		if (json_is_integer(run))
			h->remote_run = json_integer_value(run);
		snprintf(h->error, sizeof(h->error), "%s",
			 json_string_value(json_object_get(r.json, "error"))
				 ?: "");
		h->answered_ns = os_now_ns();
	} else if (os_now_ns() - h->answered_ns >
		   (uint64_t)(j->peer_timeout_s * 1e9)) {
		host_fail(j, h,
			  rc < 0 ? "stopped answering" : "answered wrongly",
			  &r);
		peer_reply_free(&r);
		/* lost: not asked again (a stopped host would hold every
		 * later request to its timeout) */
		snprintf(h->state, sizeof(h->state), "lost");
		return -ETIMEDOUT;
	}
	peer_reply_free(&r);
	return 0;
}

/* The gate host h waits at, or -1. */
static int waiting_at(const struct fleet_host *h)
{
	json_t *g = json_object_get(h->progress, "gate");

	return strcmp(h->state, "running") == 0 && json_is_integer(g)
		       ? (int)json_integer_value(g)
		       : -1;
}

/* Every host starts window gate at one time: now plus a margin, on each
 * host's clock (ours plus its offset). */
static int go_all(struct fleet_job *j, int gate)
{
	double rtt = 0;
	int64_t t0;

	for (size_t i = 0; i < j->n; i++)
		if (j->hosts[i].clk.rtt_ms > rtt)
			rtt = j->hosts[i].clk.rtt_ms;
	t0 = os_wall_ns() + START_MARGIN_NS + (int64_t)(4 * rtt * 1e6);
	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		char path[64], body[96];
		struct peer_reply r;
		int rc;
		snprintf(path, sizeof(path), "/api/v1/jobs/%lld/go",
			 (long long)h->job);
		snprintf(body, sizeof(body),
			 "{\"gate\":%d,\"start_at_ns\":%lld}", gate,
			 (long long)(t0 + h->offset_ns));
		rc = peerhttp_call(h->peer.url, h->peer.token, "POST", path,
				   body, 2000, &r);
		if (rc < 0 || r.status != 202) {
			host_fail(j, h, "did not take its start", &r);
			peer_reply_free(&r);
			return rc < 0 ? rc : -EPROTO;
		}
		peer_reply_free(&r);
	}
	return 0;
}

/* Cancels every host's job that has not ended and waits (bounded) for
 * each to end, so every host has removed its files. */
static void cancel_all(struct fleet_job *j)
{
	uint64_t until = os_now_ns() + CANCEL_WAIT_NS;
	int left;

	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		char path[64];
		struct peer_reply r;
		if (!h->job || ended(h->state))
			continue;
		snprintf(path, sizeof(path), "/api/v1/jobs/%lld",
			 (long long)h->job);
		peerhttp_call(h->peer.url, h->peer.token, "DELETE", path, NULL,
			      5000, &r);
		peer_reply_free(&r);
	}
	do {
		left = 0;
		for (size_t i = 0; i < j->n; i++) {
			struct fleet_host *h = &j->hosts[i];
			if (!h->job || ended(h->state))
				continue;
			/* a host gone for good counts as ended */
			if (poll_host(j, h) < 0)
				snprintf(h->state, sizeof(h->state), "lost");
			left += !ended(h->state);
		}
		if (left)
			os_sleep_ns(POLL_NS * 5);
	} while (left && os_now_ns() < until);
}

/* Brings host h's run here whole (its run document, imported; the run of
 * "self" is here already and comes back as a duplicate) and links it to
 * the job. */
static int fetch_run(struct fleet_job *j, struct fleet_host *h)
{
	struct import_done done[IMPORT_MAX_RUNS];
	char path[80], label[80], err[256];
	struct peer_reply r;
	size_t n = 0;
	int rc;

	if (!h->remote_run)
		return 0;
	snprintf(path, sizeof(path), "/api/v1/runs/%lld?format=storbench",
		 (long long)h->remote_run);
	rc = peerhttp_call(h->peer.url, h->peer.token, "GET", path, NULL,
			   120000, &r);
	if (rc < 0 || r.status != 200) {
		host_fail(j, h, "did not give its run", &r);
		peer_reply_free(&r);
		return rc < 0 ? rc : -EPROTO;
	}
	snprintf(label, sizeof(label), "host:%s", h->name);
	rc = import_file(j->a, "storbench", r.body, r.len, NULL, label, done,
			 &n, err, sizeof(err));
	peer_reply_free(&r);
	if (rc < 0 || n < 1) {
		snprintf(j->error, sizeof(j->error),
			 "%s's run could not be stored here: %s", h->name,
			 rc < 0 ? err : "no run");
		return rc < 0 ? rc : -EPROTO;
	}
	h->local_run = done[0].id;
	return archive_run_set_job(j->a, h->local_run, j->id);
}

/* Every host's run that exists, brought here (after a fault: best effort,
 * the first error kept). */
static int fetch_all(struct fleet_job *j, int keep_error)
{
	char first[sizeof(j->error)];
	int rc = 0;

	snprintf(first, sizeof(first), "%s", j->error);
	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		int r;
		if (strcmp(h->state, "lost") == 0)
			continue;
		if (h->job && !h->remote_run)
			poll_host(j, h);
		if ((r = fetch_run(j, h)) < 0 && rc == 0)
			rc = r;
	}
	if (keep_error)
		snprintf(j->error, sizeof(j->error), "%s", first);
	return rc;
}

/* The coordinator's view of the hosts, for GET /api/v1/jobs/{id}. */
static void publish(struct fleet_job *j, int gate)
{
	json_t *hosts = json_array(), *p;
	double iops = 0, mb_s = 0;

	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		json_t *pr = h->progress;
		double hi = json_number_value(json_object_get(pr, "live_iops"));
		double hm = json_number_value(json_object_get(pr, "live_mb_s"));
		iops += hi;
		mb_s += hm;
		json_array_append_new(
			hosts,
			json_pack("{s:s, s:I, s:s, s:O?, s:O?, s:O?, s:O?, "
				  "s:O?, s:O?, s:f, s:f, s:s?}",
				  "name", h->name, "job", (json_int_t)h->job,
				  "state", h->state, "phase",
				  json_object_get(pr, "phase"), "test",
				  json_object_get(pr, "test"), "rw",
				  json_object_get(pr, "rw"), "iteration",
				  json_object_get(pr, "iteration"), "gate",
				  json_object_get(pr, "gate"), "fraction",
				  json_object_get(pr, "fraction"), "live_iops",
				  hi, "live_mb_s", hm, "error",
				  h->error[0] ? h->error : NULL));
	}
	p = json_pack("{s:i, s:f, s:f, s:o}", "gate", gate, "live_iops", iops,
		      "live_mb_s", mb_s, "hosts", hosts);
	pthread_mutex_lock(&j->f->mu);
	json_decref(j->f->progress);
	j->f->progress = p;
	pthread_mutex_unlock(&j->f->mu);
}

/* Watches the hosts and starts their windows together until every host's
 * job has ended. 0: all done. */
static int conduct(struct fleet_job *j)
{
	for (;;) {
		size_t done = 0, waiting = 0;
		if (atomic_load(&j->f->cancel))
			return -ECANCELED;
		for (size_t i = 0; i < j->n; i++) {
			struct fleet_host *h = &j->hosts[i];
			if (!ended(h->state) && poll_host(j, h) < 0)
				return -ETIMEDOUT;
			if (ended(h->state) && strcmp(h->state, "done") != 0) {
				snprintf(j->error, sizeof(j->error),
					 "%s's job %lld ended %s: %.200s",
					 h->name, (long long)h->job, h->state,
					 h->error[0] ? h->error : "no reason");
				return -EIO;
			}
			done += strcmp(h->state, "done") == 0;
			waiting += waiting_at(h) == j->gates;
		}
		publish(j, j->gates);
		if (done == j->n)
			return 0;
		if (done && waiting) {
			snprintf(j->error, sizeof(j->error),
				 "the hosts did not run the same windows: some "
				 "ended while others waited at window %d",
				 j->gates);
			return -EPROTO;
		}
		if (waiting == j->n) {
			int rc = go_all(j, j->gates);
			if (rc < 0)
				return rc;
			j->gates++;
		}
		os_sleep_ns(POLL_NS);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* What the aggregate run says about its hosts (its probe's "fleet"). */
static json_t *fleet_record(struct fleet_job *j)
{
	json_t *hosts = json_array();
	int64_t sorted[FLEET_MAX_SKEWS];
	double med = 0, max = 0;

	memcpy(sorted, j->skews_ns, j->n_skews * sizeof(*sorted));
	qsort(sorted, j->n_skews, sizeof(*sorted), cmp_i64);
	if (j->n_skews) {
		med = (double)sorted[j->n_skews / 2] / 1e6;
		max = (double)sorted[j->n_skews - 1] / 1e6;
	}
	for (size_t i = 0; i < j->n; i++) {
		struct fleet_host *h = &j->hosts[i];
		json_array_append_new(
			hosts,
			json_pack("{s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:s, "
				  "s:f, s:f, s:f, s:f, s:f}",
				  "name", h->name, "url", h->peer.url, "job",
				  (json_int_t)h->job, "remote_run",
				  (json_int_t)h->remote_run, "run_id",
				  (json_int_t)h->local_run, "hostname",
				  h->clk.hostname, "os", h->clk.os, "version",
				  h->clk.version, "rtt_ms", h->clk.rtt_ms,
				  "offset_ms", h->clk.offset_ms,
				  "uncertainty_ms", h->clk.uncertainty_ms,
				  "start_skew_max_ms",
				  (double)h->skew_max_ns / 1e6,
				  "common_share_min", h->common_share_min));
	}
	return json_pack("{s:s, s:f, s:{s:f, s:f, s:I}, s:o, s:O?}",
			 "coordinator", j->f->hostname, "clock_bound_ms",
			 j->clock_bound_ms, "start_skew_ms", "median", med,
			 "max", max, "windows", (json_int_t)j->n_skews, "hosts",
			 hosts, "hosts_sweep", j->sweep);
}

/* The aggregate run: the first host's spec, probe and engine with the
 * hosts said; every host's warnings, each with its name. */
static int make_aggregate(struct fleet_job *j)
{
	struct job_spec s2 = *j->s;
	json_t *run0 = NULL, *spec, *probe, *warn = json_array(), *names;
	char *spec_t = NULL, *probe_t = NULL, *warn_t = NULL, host[256];
	size_t k;
	int rc;

	if ((rc = archive_run_json(j->a, j->hosts[0].local_run, &run0)) < 0)
		return rc;
	spec = json_deep_copy(json_object_get(run0, "spec"));
	probe = json_deep_copy(json_object_get(run0, "probe"));
	names = json_array();
	k = (size_t)snprintf(host, sizeof(host), "%zu hosts:", j->n);
	for (size_t i = 0; i < j->n; i++) {
		json_t *r = NULL, *w;
		size_t x;
		json_array_append_new(names, json_string(j->hosts[i].name));
		if (k < sizeof(host))
			k += (size_t)snprintf(host + k, sizeof(host) - k,
					      "%s %s", i ? "," : "",
					      j->hosts[i].name);
		if (archive_run_json(j->a, j->hosts[i].local_run, &r) < 0)
			continue;
		json_array_foreach(json_object_get(r, "warnings"), x, w)
			json_array_append_new(
				warn, json_sprintf("%s: %s", j->hosts[i].name,
						   json_string_value(w)));
		json_decref(r);
	}
	json_object_set_new(spec, "hosts", names);
	json_object_set_new(probe, "hostname", json_string(host));
	json_object_set_new(probe, "fleet", fleet_record(j));
	s2.target = (char *)json_string_value(json_object_get(run0, "target"));
	spec_t = json_dumps(spec, JSON_COMPACT);
	probe_t = json_dumps(probe, JSON_COMPACT);
	warn_t = json_dumps(warn, JSON_COMPACT);
	rc = spec_t && probe_t && warn_t && s2.target
		     ? archive_run_create(
			       j->a, j->id, &s2, spec_t, probe_t,
			       json_string_value(json_object_get(
				       json_object_get(run0, "engine"),
				       "target"))
				       ?: "?",
			       json_is_true(json_object_get(
				       json_object_get(run0, "engine"),
				       "direct")),
			       warn_t, &j->agg_run)
		     : -ENOMEM;
	free(spec_t);
	free(probe_t);
	free(warn_t);
	json_decref(spec);
	json_decref(probe);
	json_decref(warn);
	json_decref(run0);
	return rc;
}

int fleet_job_run(struct fleet_job *j)
{
	int rc;

	if ((rc = probe_all(j)) < 0)
		return rc;
	if ((rc = post_all(j)) < 0 || (rc = conduct(j)) < 0) {
		cancel_all(j);
		fetch_all(j, 1);
		return rc;
	}
	if ((rc = fetch_all(j, 0)) < 0)
		return rc;
	for (size_t i = 0; i < j->n; i++)
		if (!j->hosts[i].local_run) {
			snprintf(j->error, sizeof(j->error),
				 "%s ended done without a run",
				 j->hosts[i].name);
			return -EPROTO;
		}
	if ((rc = fleet_sum(j, 0)) < 0 || (rc = make_aggregate(j)) < 0 ||
	    (rc = fleet_sum(j, 1)) < 0)
		return rc;
	/* the job's run is its latest aggregate (a hosts_sweep's last) */
	return archive_job_set_run(j->a, j->id, j->agg_run);
}

void fleet_job_clear(struct fleet_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		json_decref(j->hosts[i].progress);
		archive_windows_free(j->hosts[i].win, j->hosts[i].n_win);
		os_wipe(j->hosts[i].peer.token, sizeof(j->hosts[i].peer.token));
	}
	json_decref(j->req);
	json_decref(j->sweep);
}
