/*
 * import_fio_client — fio's client/server output (fio --client host1
 * --client host2 … --output-format=json) into runs (import.h,
 * import_fio_clients): "client_stats" holds each client's jobs, read as
 * import_fio.c reads a job, and fio's "All clients" sum of them.
 */
#include "import.h"
#include "platform/utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define ALL_CLIENTS "All clients" /* fio's name for the clients' sum */

/* Whether client_stats entry e is fio's sum of the clients. */
static int is_sum(json_t *e)
{
	const char *name = json_string_value(json_object_get(e, "jobname"));

	return name && strcmp(name, ALL_CLIENTS) == 0;
}

/* The host of client_stats entry e; NULL for the sum (or none named,
 * which the first pass refuses). */
static const char *client_host(json_t *e)
{
	return is_sum(e) ? NULL
			 : json_string_value(json_object_get(e, "hostname"));
}
/* The client of client_stats entry e (not the sum) as the file tells
 * them apart, into name: its host, and where another client has the same
 * host (two fio servers on one machine), its port too ("host:port"). */
static void client_name(json_t *clients, json_t *e, char *name, size_t len)
{
	const char *h = client_host(e);
	json_int_t port = json_integer_value(json_object_get(e, "port"));
	json_t *c;
	size_t i;

	snprintf(name, len, "%s", h);
	json_array_foreach(clients, i, c)
	{
		const char *o = client_host(c);
		char p[24];
		if (o && strcmp(o, h) == 0 &&
		    json_integer_value(json_object_get(c, "port")) != port) {
			/* a label is at most 64 bytes: the host cut */
			snprintf(p, sizeof(p), "%lld", (long long)port);
			snprintf(name, len, "%.*s:%s",
				 (int)(len - 2 - strlen(p)), h, p);
			return;
		}
	}
}

/* The run of client name among out->v[from …], or out->n. */
static size_t client_run(const struct import_runs *out, size_t from,
			 const char *name)
{
	while (from < out->n && strcmp(out->v[from].label, name))
		from++;
	return from;
}

/* The options a client's job e ran with: g's (its "global options") under
 * its own "job options"; a new reference, or NULL when it has neither. */
static json_t *options_of(json_t *g, json_t *e)
{
	json_t *o = json_object_get(e, "job options"), *all;

	if (!g && !o)
		return NULL;
	if (!(all = g ? json_deep_copy(g) : json_object()))
		return NULL;
	if (o)
		json_object_update(all, o);
	return all;
}

/*
 * The "All clients" entry e as a job: fio prints it without options; when
 * every client's job ran with the same options (opts[k], its global ones
 * under its own), they are the sum's too (else it has fio's defaults, and
 * a warning says so). A new reference, or NULL.
 */
static json_t *sum_entry(json_t *const *opts, size_t n, json_t *e,
			 struct import_fio_tally *ty)
{
	json_t *out;

	for (size_t k = 0; k < n; k++)
		if (!opts[k] || !json_equal(opts[0], opts[k])) {
			ty->differ = 1;
			return json_copy(e);
		}
	if (!(out = json_copy(e)))
		return NULL;
	if (n)
		json_object_set(out, "job options", opts[0]);
	return out;
}

int import_fio_clients(json_t *root, const char *ver, json_t *clients,
		       int interim, struct import_runs *out, char *err,
		       size_t err_len)
{
	json_t *gl = json_object_get(root, "global options"), *e, *port;
	json_t **opts;
	struct import_fio_tally ty[IMPORT_MAX_RUNS] = { 0 };
	size_t first = out->n, hosts = 0, jobs = 0, i, k;
	char name[sizeof(out->v[0].label)];
	struct import_run *r;
	int rc = 0;

	json_array_foreach(clients, i, e)
	{
		const char *h = client_host(e);
		if (is_sum(e))
			continue; /* the sum: after the hosts */
		if (!h || !*h || utf8_has_control(h) || strlen(h) > 63) {
			snprintf(err, err_len,
				 "client_stats[%zu]: \"hostname\" must name "
				 "the host in 1 … 63 bytes without control "
				 "characters",
				 i);
			return -EINVAL;
		}
		port = json_object_get(e, "port");
		if (port &&
		    (!json_is_integer(port) || json_integer_value(port) < 1 ||
		     json_integer_value(port) > 65535)) {
			snprintf(err, err_len,
				 "client_stats[%zu]: \"port\" must be a "
				 "whole number 1 … 65535",
				 i);
			return -EINVAL;
		}
		client_name(clients, e, name, sizeof(name));
		if (client_run(out, first, name) < out->n)
			continue;
		if (out->n + 2 > IMPORT_MAX_RUNS ||
		    !(r = import_fio_new_run(root, ver, out))) {
			snprintf(err, err_len,
				 "more than %d fio clients in one file",
				 IMPORT_MAX_RUNS - 1);
			return -EINVAL;
		}
		snprintf(r->host, sizeof(r->host), "%s", h);
		snprintf(r->label, sizeof(r->label), "%s", name);
		hosts++;
	}
	if (!(opts = calloc(json_array_size(clients) + 1, sizeof(*opts))))
		return -ENOMEM;
	json_array_foreach(clients, i, e)
	{
		json_t *g = json_is_object(gl) ? gl : NULL;
		if (!is_sum(e)) {
			client_name(clients, e, name, sizeof(name));
			k = client_run(out, first, name);
			if (json_is_array(gl) && json_array_size(gl) == hosts)
				g = json_array_get(gl, k - first);
			opts[jobs++] = options_of(g, e);
		} else if (!(r = import_fio_new_run(root, ver, out))) {
			snprintf(err, err_len, "more than %d runs in one file",
				 IMPORT_MAX_RUNS);
			rc = -EINVAL;
			break;
		} else {
			k = out->n - 1; /* the sum: a run of its own, last */
			g = NULL;	/* its options are the clients' */
			snprintf(r->label, sizeof(r->label), "all-clients");
			snprintf(r->comment, sizeof(r->comment),
				 "the sum of %zu fio clients", hosts);
		}
		e = is_sum(e) ? sum_entry(opts, jobs, e, &ty[k - first])
			      : json_incref(e);
		rc = e ? import_fio_job(g, e, "client_stats", i, &out->v[k],
					&ty[k - first], err, err_len)
		       : -ENOMEM;
		json_decref(e);
		if (rc < 0)
			break;
	}
	for (k = 0; k < jobs; k++)
		json_decref(opts[k]);
	free(opts);
	for (k = first; k < out->n && rc == 0; k++)
		rc = import_fio_finish(&out->v[k], &ty[k - first], interim, err,
				       err_len);
	return rc;
}
