/*
 * wire — see wire.h: the baseline's descriptors and request, iperf3's
 * JSON, the measurement of both directions, and each result's efficiency
 * against them. Portable; the child and the name lookup are wire_<os>.c.
 */
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/log.h"

const struct field wire_baseline_fields[WIRE_N_FIELDS] = {
	{ .name = "host",
	  .type = FIELD_STRING,
	  .min = 1,
	  .max = 253,
	  .flags = FIELD_CLEAN,
	  .def_text = "the share's server",
	  .help = "where the iperf3 server (iperf3 -s) listens: the share's "
		  "server, by its name or one of its addresses" },
	{ .name = "port",
	  .type = FIELD_INT,
	  .min = 1,
	  .max = 65535,
	  .def = "5201",
	  .help = "the iperf3 server's TCP port" },
	{ .name = "duration_s",
	  .type = FIELD_INT,
	  .unit = "s",
	  .min = 1,
	  .max = 60,
	  .def = "5",
	  .help = "how long each direction is measured (iperf3 -t)" },
	{ .name = "streams",
	  .type = FIELD_INT,
	  .min = 1,
	  .max = 64,
	  .def = "1",
	  .help = "parallel TCP streams (iperf3 -P); SMB's queue depth uses "
		  "as many connections" },
};
_Static_assert(FIELDS_N(wire_baseline_fields) == WIRE_N_FIELDS,
	       "WIRE_N_FIELDS counts wire_baseline_fields");

/* A run's "wire" as a document carries it (api/openapi/schemas-wire.json,
 * Wire): the nullable ones may be absent or null. */
static const struct field wire_doc_fields[] = {
	{ "host", FIELD_STRING, .min = 1, .max = 253, .flags = FIELD_CLEAN },
	{ "port", FIELD_INT, .min = 1, .max = 65535 },
	{ "duration_s", FIELD_NUMBER, "s", .min = 0, .max = 3600 },
	{ "streams", FIELD_INT, .min = 1, .max = 64 },
	{ "to_server_mb_s", FIELD_NUMBER, "MB/s", .min = 0, .max = 1e9 },
	{ "from_server_mb_s", FIELD_NUMBER, "MB/s", .min = 0, .max = 1e9 },
	{ "measured_at", FIELD_STRING, .min = 19, .max = 20 },
	{ "to_server_retransmits", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "from_server_retransmits", FIELD_INT, .min = 0,
	  .max = FIELD_EXACT_MAX, .flags = FIELD_NULLABLE },
	{ "to_server_seconds", FIELD_NUMBER, "s", .min = 0, .max = 3600,
	  .flags = FIELD_NULLABLE },
	{ "from_server_seconds", FIELD_NUMBER, "s", .min = 0, .max = 3600,
	  .flags = FIELD_NULLABLE },
	{ "iperf", FIELD_STRING, .min = 1, .max = 32,
	  .flags = FIELD_NULLABLE | FIELD_CLEAN },
};

int wire_from_doc(json_t *run, char **out, struct field_error *e)
{
	json_t *w = json_object_get(run, "wire"), *keep;
	size_t n = FIELDS_N(wire_doc_fields);

	*out = NULL;
	if (!w)
		return 0;
	if (fields_check_members(wire_doc_fields, n, w, "wire", e) < 0)
		return -EINVAL;
	/* what the document describes (Wire), and nothing else */
	if (!(keep = fields_pick(wire_doc_fields, n, w, 1)))
		return -ENOMEM;
	*out = json_dumps(keep, JSON_COMPACT);
	json_decref(keep);
	return *out ? 0 : -ENOMEM;
}

int wire_from_request(json_t *root, const char *server, json_t **out,
		      struct field_error *e)
{
	json_t *b = json_object_get(root, "baseline"), *n = NULL;
	char why[300];
	int rc;

	*out = NULL;
	if (!b || json_is_null(b))
		return 0; /* null: none, as steady_state's */
	if (!wire_available(why, sizeof(why)))
		return field_fail(e, "baseline", "%s", why);
	if (!server)
		return field_fail(e, "baseline",
				  "only for an smb:// target: the TCP "
				  "throughput to its file server");
	if (json_is_array(json_object_get(root, "compare_with")))
		return field_fail(e, "baseline",
				  "not with compare_with: an interleaved job "
				  "has a file server per target");
	if ((rc = fields_check_object(wire_baseline_fields, WIRE_N_FIELDS, b,
				      "baseline", NULL, &n, e)) < 0)
		return rc;
	if (!json_object_get(n, "host")) {
		/* the share's server, first: {host, port, duration_s,
		 * streams}, as the job and the run's spec show it */
		json_t *h = json_pack("{s:s}", "host", server);
		if (!h || json_object_update(h, n) < 0) {
			json_decref(h);
			json_decref(n);
			return -ENOMEM;
		}
		json_decref(n);
		n = h;
	}
	if (!wire_same_server(json_string_value(json_object_get(n, "host")),
			      server, WIRE_RESOLVE_TIMEOUT_MS, why,
			      sizeof(why))) {
		json_decref(n);
		return field_fail(e, "baseline.host", "%s", why);
	}
	*out = n;
	return 0;
}

/* d's member m as a number, or -1. */
static double num(json_t *o, const char *m)
{
	json_t *v = json_object_get(o, m);

	return json_is_number(v) ? json_number_value(v) : -1;
}

int wire_parse_iperf(const char *text, struct wire_dir *d, char *err,
		     size_t len)
{
	json_t *root = json_loads(text, 0, NULL), *end, *rx, *tx;
	const char *msg;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->retransmits = -1;
	if (!json_is_object(root)) {
		snprintf(err, len, "iperf3's output is not JSON");
		rc = -EPROTO;
		goto out;
	}
	if ((msg = json_string_value(json_object_get(root, "error")))) {
		snprintf(err, len, "%s", msg);
		rc = -EIO;
		goto out;
	}
	end = json_object_get(root, "end");
	rx = json_object_get(end, "sum_received");
	tx = json_object_get(end, "sum_sent");
	if (num(rx, "bits_per_second") < 0 || num(rx, "seconds") <= 0) {
		snprintf(err, len,
			 "iperf3's output has no end.sum_received "
			 "(bits_per_second, seconds)");
		rc = -EPROTO;
		goto out;
	}
	d->mb_s = num(rx, "bits_per_second") / 8e6;
	d->seconds = num(rx, "seconds");
	d->bytes = (int64_t)num(rx, "bytes");
	if (json_is_integer(json_object_get(tx, "retransmits")))
		d->retransmits =
			json_integer_value(json_object_get(tx, "retransmits"));
	if ((msg = json_string_value(json_object_get(
		     json_object_get(root, "start"), "version"))))
		snprintf(d->version, sizeof(d->version), "%s",
			 strncmp(msg, "iperf ", 6) == 0 ? msg + 6 : msg);
out:
	json_decref(root);
	return rc;
}

int wire_measure(json_t *b, const atomic_int *cancel, json_t **out, char *err,
		 size_t len)
{
	const char *host = json_string_value(json_object_get(b, "host"));
	int port = (int)json_integer_value(json_object_get(b, "port"));
	int dur = (int)json_integer_value(json_object_get(b, "duration_s"));
	int streams = (int)json_integer_value(json_object_get(b, "streams"));
	struct wire_dir d[2];
	char *json = NULL, why[300], at[32];
	int rc = 0;

	*out = NULL;
	log_utc_now(at);
	for (int reverse = 0; reverse < 2 && rc == 0; reverse++) {
		if ((rc = wire_run_iperf(host, port, dur, streams, reverse,
					 cancel, &json, why, sizeof(why))) == 0)
			rc = wire_parse_iperf(json, &d[reverse], why,
					      sizeof(why));
		free(json);
		json = NULL;
		if (rc < 0 && rc != -ECANCELED)
			snprintf(err, len,
				 "baseline: iperf3 to %.100s port %d (%s) "
				 "failed: %.200s; no SMB test was run",
				 host, port,
				 reverse ? "server to client"
					 : "client to server",
				 why);
	}
	if (rc < 0)
		return rc;
	*out = json_pack(
		"{s:s, s:i, s:i, s:i, s:f, s:f, s:o, s:o, s:f, s:f, s:s, "
		"s:s?}",
		"host", host, "port", port, "duration_s", dur, "streams",
		streams, "to_server_mb_s", d[0].mb_s, "from_server_mb_s",
		d[1].mb_s, "to_server_retransmits",
		d[0].retransmits >= 0 ? json_integer(d[0].retransmits)
				      : json_null(),
		"from_server_retransmits",
		d[1].retransmits >= 0 ? json_integer(d[1].retransmits)
				      : json_null(),
		"to_server_seconds", d[0].seconds, "from_server_seconds",
		d[1].seconds, "measured_at", at, "iperf",
		d[0].version[0] ? d[0].version : NULL);
	return *out ? 0 : -ENOMEM;
}

/* The read fraction (0 … 1) of the run's test called name, from its
 * spec's tests, or -1. */
static double read_share(json_t *run, const char *name)
{
	json_t *tests = json_object_get(json_object_get(run, "spec"), "tests");
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t)
	{
		const char *n = json_string_value(json_object_get(t, "name"));
		json_t *p = json_object_get(t, "read_pct");
		if (n && strcmp(n, name) == 0 && json_is_number(p))
			return json_number_value(p) / 100;
	}
	return -1;
}

void wire_efficiency(json_t *run)
{
	json_t *w = json_object_get(run, "wire"), *t, *it;
	double to = num(w, "to_server_mb_s"), from = num(w, "from_server_mb_s");
	size_t i, j;

	if (!json_is_object(w) || to <= 0 || from <= 0)
		return;
	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		const char *rw = json_string_value(json_object_get(t, "rw"));
		const char *name =
			json_string_value(json_object_get(t, "test"));
		double r = !rw			     ? -1
			   : strcmp(rw, "read") == 0 ? 1
			   : strcmp(rw, "write") == 0
				   ? 0
				   : (strcmp(rw, "mix") == 0 && name
					      ? read_share(run, name)
					      : -1);
		if (r < 0)
			continue;
		json_array_foreach(json_object_get(t, "iterations"), j, it)
		{
			double mb = num(it, "mb_s");
			if (mb < 0)
				continue;
			json_object_set_new(
				it, "wire_efficiency",
				json_real(mb * r / from + mb * (1 - r) / to));
		}
	}
}
