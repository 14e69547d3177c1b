/*
 * report_machine — the machines and the jobs behind a report: each run's
 * probe (host, OS, CPU, memory, device, file system, …) side by side, and
 * each run's spec, the job's parameters as the run stores them, as JSON
 * another admin can read and resend.
 *
 * Runs that share a probe (the same JSON) share a column, and runs that
 * share a spec share a <pre>, so a side of twenty runs of one machine is
 * one column and one spec, not twenty.
 */
#include "report_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "presets/preset.h"

#define MAX_COLS 6 /* probe columns a table holds; more make more tables */

/* The probe's fields in the order an admin reads them, with their names;
 * a field no probe has is left out, and fields not listed come after. */
static const char *const fields[][2] = {
	{ "hostname", "host" },
	{ "os", "OS" },
	{ "kernel", "kernel" },
	{ "cpu_model", "CPU" },
	{ "cpus", "CPUs" },
	{ "memory_bytes", "memory (B)" },
	{ "device", "device" },
	{ "disk", "disk" },
	{ "device_model", "device model" },
	{ "device_firmware", "device firmware" },
	{ "rotational", "rotational" },
	{ "write_cache", "write cache" },
	{ "scheduler", "I/O scheduler" },
	{ "fs_type", "file system" },
	{ "fs_block_size", "cluster size (B)" },
	{ "fs_features", "file system features" },
	{ "mount_point", "mount point" },
	{ "mount_type", "mount type" },
	{ "mount_options", "mount options" },
	{ "total_bytes", "volume size (B)" },
	{ "free_bytes", "free (B)" },
	{ "comment", "comment" },
	{ "smb", "SMB share" },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* Groups runs by the compact JSON of member key: an array of
 * {"json": the member, "ids": [run ids]} in order of first appearance. */
static json_t *group_by(json_t *runs, const char *key)
{
	json_t *groups = json_array(), *r;
	size_t i;

	json_array_foreach(runs, i, r)
	{
		json_t *v = json_object_get(r, key), *g;
		char *text = json_dumps(v ? v : json_null(),
					JSON_COMPACT | JSON_SORT_KEYS |
						JSON_ENCODE_ANY);
		size_t k;
		int found = 0;
		if (!text)
			continue;
		json_array_foreach(groups, k, g)
		{
			if (strcmp(json_string_value(
					   json_object_get(g, "text")),
				   text) == 0) {
				json_array_append(json_object_get(g, "ids"),
						  json_object_get(r, "id"));
				found = 1;
				break;
			}
		}
		if (!found)
			json_array_append_new(
				groups, json_pack("{s:O?, s:s, s:[O]}", "json",
						  v, "text", text, "ids",
						  json_object_get(r, "id")));
		free(text);
	}
	return groups;
}

static void run_ids(struct report_buf *b, json_t *ids)
{
	json_t *id;
	size_t i;

	report_raw(b, json_array_size(ids) > 1 ? "runs " : "run ");
	json_array_foreach(ids, i, id)
	{
		if (i)
			report_raw(b, ", ");
		report_value(b, id);
	}
}

/* Is key one of the listed fields? */
static int listed(const char *key)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (strcmp(fields[i][0], key) == 0)
			return 1;
	return 0;
}

static void probe_row(struct report_buf *b, json_t *groups, size_t from,
		      size_t to, const char *key, const char *name)
{
	int any = 0;

	for (size_t c = from; c < to; c++) {
		json_t *v = json_object_get(
			json_object_get(json_array_get(groups, c), "json"),
			key);
		any |= v && !json_is_null(v);
	}
	if (!any)
		return;
	report_raw(b, "<tr><th>");
	report_text(b, name);
	report_raw(b, "</th>");
	for (size_t c = from; c < to; c++) {
		report_raw(b, "<td>");
		report_value(b,
			     json_object_get(
				     json_object_get(json_array_get(groups, c),
						     "json"),
				     key));
		report_raw(b, "</td>");
	}
	report_raw(b, "</tr>\n");
}

static void probe_tables(struct report_buf *b, json_t *groups)
{
	size_t n = json_array_size(groups);

	for (size_t from = 0; from < n; from += MAX_COLS) {
		size_t to = from + MAX_COLS < n ? from + MAX_COLS : n;
		json_t *g, *v;
		const char *key;
		report_raw(b, "<table class=\"probes\"><thead><tr>"
			      "<th>probe</th>");
		for (size_t c = from; c < to; c++) {
			report_raw(b, "<th>");
			run_ids(b, json_object_get(json_array_get(groups, c),
						   "ids"));
			report_raw(b, "</th>");
		}
		report_raw(b, "</tr></thead><tbody>\n");
		for (size_t f = 0; f < N_FIELDS; f++)
			probe_row(b, groups, from, to, fields[f][0],
				  fields[f][1]);
		/* what the list does not name, once per key */
		for (size_t c = from; c < to; c++) {
			g = json_object_get(json_array_get(groups, c), "json");
			json_object_foreach(g, key, v)
			{
				int seen = 0;
				for (size_t e = from; e < c && !seen; e++)
					seen = json_object_get(
						       json_object_get(
							       json_array_get(
								       groups,
								       e),
							       "json"),
						       key) != NULL;
				if (!listed(key) && !seen)
					probe_row(b, groups, from, to, key,
						  key);
			}
		}
		report_raw(b, "</tbody></table>\n");
	}
}

/* A POST /api/v1/jobs body that runs spec's job again on target: the
 * spec with the request's names (direct, engine; an SMB session's
 * credential beside its knobs), without what only a run states (its
 * interleave: a rerun is of one target; an SMB baseline's figures; a
 * preset's tests, which the preset makes again). NULL
 * for an import: another tool ran it. */
static json_t *rerun_request(json_t *spec, const char *target)
{
	const struct preset *pr;
	json_t *req, *smb, *v;

	if (!json_is_object(spec) || json_object_get(spec, "imported") ||
	    !target || !(req = json_deep_copy(spec)))
		return NULL;
	/* a preset's tests come from it (and its options): only a preset
	 * whose request carries tests takes them */
	pr = preset_find(json_string_value(json_object_get(req, "profile"))
				 ?: "");
	if (!pr || !(pr->flags & PRESET_TESTS))
		json_object_del(req, "tests");
	json_object_del(req, "interleave");
	json_object_del(req, "direct_requested");
	json_object_del(req, "engine_requested");
	json_object_set_new(req, "target", json_string(target));
	if ((v = json_object_get(spec, "direct_requested")))
		json_object_set(req, "direct", v);
	v = json_object_get(spec, "engine_requested");
	if (json_is_string(v) && strcmp(json_string_value(v), "default"))
		json_object_set(req, "engine", v);
	if (json_is_object(smb = json_object_get(req, "smb"))) {
		if ((v = json_object_get(smb, "credential")))
			json_object_set(req, "credential", v);
		json_object_del(smb, "credential");
		json_object_del(smb, "baseline");
	}
	return req;
}

/* The request that runs group g's job again, on its first run's target. */
static void rerun(struct report_buf *b, json_t *g, json_t *runs)
{
	json_t *id = json_array_get(json_object_get(g, "ids"), 0), *r, *req;
	const char *target = NULL;
	char *text;
	size_t j;

	json_array_foreach(runs, j, r)
	{
		if (json_equal(json_object_get(r, "id"), id))
			target =
				json_string_value(json_object_get(r, "target"));
	}
	if (!(req = rerun_request(json_object_get(g, "json"), target)))
		return;
	text = json_dumps(req, JSON_INDENT(2));
	json_decref(req);
	report_raw(b, "<p>To run it again, on ");
	report_text(b, target);
	report_raw(b, " (a daemon that allows it): <code>curl -X POST -H "
		      "'Content-Type: application/json' -d @job.json "
		      "http://HOST:8080/api/v1/jobs</code> with job.json:</p>"
		      "\n<pre class=\"rerun\">");
	if (!text)
		b->err = -ENOMEM;
	report_text(b, text);
	free(text);
	report_raw(b, "</pre>\n");
}

void report_machines(struct report_buf *b, json_t *runs)
{
	json_t *probes = group_by(runs, "probe"),
	       *specs = group_by(runs, "spec"), *g;
	size_t i;

	report_raw(b, "<h2 id=\"machines\">Machines</h2>\n");
	if (!json_array_size(probes))
		report_raw(b, "<p>No run's probe is in this archive.</p>\n");
	else
		probe_tables(b, probes);
	report_raw(b, "<h2 id=\"specs\">Job specs</h2>\n<p>Each run's job "
		      "as the run stores it, then the <code>POST "
		      "/api/v1/jobs</code> request that runs it again (one "
		      "target of an interleaved job; an SMB baseline left "
		      "out). An imported run's spec says what the other tool "
		      "ran.</p>\n");
	json_array_foreach(specs, i, g)
	{
		char *text = json_dumps(json_object_get(g, "json"),
					JSON_INDENT(2) | JSON_ENCODE_ANY);
		json_t *id, *r;
		size_t k, j;
		report_raw(b, "<h3>");
		run_ids(b, json_object_get(g, "ids"));
		/* the targets of the runs with this spec, each once */
		json_array_foreach(json_object_get(g, "ids"), k, id)
		{
			json_array_foreach(runs, j, r)
			{
				if (!json_equal(json_object_get(r, "id"), id))
					continue;
				report_raw(b, k ? ", " : ": target ");
				report_text(b,
					    json_string_value(json_object_get(
						    r, "target")));
				break;
			}
		}
		report_raw(b, "</h3>\n<pre>");
		if (!text)
			b->err = -ENOMEM;
		report_text(b, text);
		free(text);
		report_raw(b, "</pre>\n");
		rerun(b, g, runs);
	}
	json_decref(probes);
	json_decref(specs);
}
