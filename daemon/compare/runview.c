/*
 * runview — see runview.h.
 */
#include "runview.h"

#include <errno.h>
#include <string.h>

#include "archive/archive.h"
#include "presets/preset.h"
#include "wire/wire.h"

/*
 * Scaling efficiency of thread and queue-depth sweeps: for each point,
 * (IOPS_n / IOPS_first) ÷ (n / first), with the best iteration's IOPS and
 * the first point of the same sweep and direction as the base. 1.0 is
 * linear scaling.
 */
static void sweep_efficiency(json_t *tests)
{
	size_t i, j;
	json_t *t, *b = NULL;

	json_array_foreach(tests, i, t)
	{
		json_t *sw = json_object_get(t, "sweep");
		const char *field =
			json_string_value(json_object_get(sw, "field"));
		const char *group =
			json_string_value(json_object_get(sw, "group"));
		const char *rw = json_string_value(json_object_get(t, "rw"));
		if (!field || !group || !rw ||
		    (strcmp(field, "threads") &&
		     strcmp(field, "queue_depth")) ||
		    json_number_value(json_object_get(t, field)) !=
			    json_number_value(json_object_get(sw, "value")))
			continue; /* not swept in this row (a mailbox log) */
		json_array_foreach(tests, j, b)
		{
			json_t *bs = json_object_get(b, "sweep");
			if (j > i)
				break;
			if (json_equal(json_object_get(bs, "group"),
				       json_object_get(sw, "group")) &&
			    json_equal(json_object_get(bs, "field"),
				       json_object_get(sw, "field")) &&
			    strcmp(json_string_value(json_object_get(b, "rw")),
				   rw) == 0)
				break; /* the first point of this sweep */
		}
		{
			double v0 = json_number_value(json_object_get(
				json_object_get(b, "sweep"), "value"));
			double v =
				json_number_value(json_object_get(sw, "value"));
			double i0 = json_number_value(json_object_get(
				json_object_get(b, "best"), "iops"));
			double iv = json_number_value(json_object_get(
				json_object_get(t, "best"), "iops"));
			if (v0 > 0 && v > 0 && i0 > 0)
				json_object_set_new(
					sw, "efficiency",
					json_real((iv / i0) / (v / v0)));
		}
	}
}

int runview_json(struct archive *a, int64_t id, json_t **out)
{
	const struct preset *p;
	json_t *run;
	int rc = archive_run_json(a, id, &run);

	*out = NULL;
	if (rc < 0)
		return rc;
	sweep_efficiency(json_object_get(run, "tests"));
	wire_efficiency(run);
	p = preset_find(json_string_value(json_object_get(run, "profile")));
	if (p && p->summary)
		json_object_set_new(
			run, p->summary_key,
			p->summary(json_object_get(run, "tests"),
				   json_object_get(json_object_get(run, "spec"),
						   "options")));
	*out = run;
	return 0;
}

int runview_document(struct archive *a, int64_t id, json_t **out)
{
	int rc = runview_json(a, id, out);

	if (rc == 0 && (rc = archive_run_raw(a, id, *out)) == 0 &&
	    json_object_set_new(*out, "document",
				json_pack("{s:s, s:i, s:s}", "format",
					  "storbench-run", "version", 1,
					  "storbench", STORBENCH_VERSION)) < 0)
		rc = -ENOMEM;
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}
