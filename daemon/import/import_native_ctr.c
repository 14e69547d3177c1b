/*
 * import_native_ctr — a document's per-second host and device counters
 * (a sample's "host" and "device", archive_ctr.c) checked member by member
 * and kept as the JSON text the archive stores: only the members the
 * tables name, so nothing a document adds is stored and served again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "import_native.h"
#include "platform/fields.h"

#define PCT(n)                                                                 \
	{                                                                      \
		n, FIELD_NUMBER, "%", .min = 0, .max = 100,                    \
				      .flags = FIELD_NULLABLE                  \
	}
#define BYTES(n)                                                               \
	{                                                                      \
		n, FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,           \
				   .flags = FIELD_NULLABLE                     \
	}

static const struct field host_fields[] = {
	PCT("cpu_user_pct"),
	PCT("cpu_system_pct"),
	PCT("cpu_iowait_pct"),
	PCT("cpu_irq_pct"),
	PCT("cpu_steal_pct"),
	PCT("cpu_busy_pct"),
	PCT("core_busy_pct"),
	{ "core", FIELD_INT, .min = -1, .max = 1 << 20,
	  .flags = FIELD_NULLABLE },
	BYTES("mem_used_bytes"),
	BYTES("mem_cache_bytes"),
	BYTES("mem_dirty_bytes"),
	BYTES("mem_writeback_bytes"),
};

static const struct field device_fields[] = {
	{ "name", FIELD_STRING, .min = 1, .max = 31, .flags = FIELD_CLEAN },
	{ "read_iops", FIELD_NUMBER, "IOPS", .min = 0, .max = FIELD_EXACT_MAX },
	{ "write_iops", FIELD_NUMBER, "IOPS", .min = 0,
	  .max = FIELD_EXACT_MAX },
	{ "read_mb_s", FIELD_NUMBER, "MB/s", .min = 0, .max = FIELD_EXACT_MAX },
	{ "write_mb_s", FIELD_NUMBER, "MB/s", .min = 0,
	  .max = FIELD_EXACT_MAX },
	{ "reads", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "writes", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "read_bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX },
	{ "write_bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX },
	{ "in_flight", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "util_pct", FIELD_NUMBER, "%", .min = 0, .max = 100 },
	{ "wait_ms", FIELD_NUMBER, "ms", .min = 0, .max = FIELD_EXACT_MAX },
};

/* *text = o's device (and its members) checked and picked. */
static int device_of(json_t *o, const char *at, char **text,
		     struct field_error *e)
{
	json_t *members = json_object_get(o, "members"), *m, *out, *list;
	char path[160];
	size_t i;

	if (fields_check_members(device_fields, FIELDS_N(device_fields), o, at,
				 e) < 0)
		return -EINVAL;
	if (members && !json_is_array(members))
		return field_fail(e, at, "members must be a list");
	if (json_array_size(members) > 8)
		return field_fail(e, at, "more than 8 members");
	out = fields_pick(device_fields, FIELDS_N(device_fields), o, 0);
	list = json_array();
	json_array_foreach(members, i, m)
	{
		snprintf(path, sizeof(path), "%s.members[%zu]", at, i);
		if (fields_check_members(device_fields, FIELDS_N(device_fields),
					 m, path, e) < 0) {
			json_decref(out);
			json_decref(list);
			return -EINVAL;
		}
		json_array_append_new(list, fields_pick(device_fields,
							FIELDS_N(device_fields),
							m, 0));
	}
	json_object_set_new(out, "members", list);
	*text = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	return *text ? 0 : -ENOMEM;
}

int import_native_counters(json_t *s, const char *at, char **host,
			   char **device, struct field_error *e)
{
	json_t *h = json_object_get(s, "host"),
	       *d = json_object_get(s, "device");
	char path[128];
	int rc;

	*host = *device = NULL;
	if (h && !json_is_null(h)) {
		json_t *out;
		snprintf(path, sizeof(path), "%s.host", at);
		if (!json_is_object(h))
			return field_fail(e, path, "must be an object or null");
		if (fields_check_members(host_fields, FIELDS_N(host_fields), h,
					 path, e) < 0)
			return -EINVAL;
		out = fields_pick(host_fields, FIELDS_N(host_fields), h, 0);
		*host = json_dumps(out, JSON_COMPACT);
		json_decref(out);
		if (!*host)
			return -ENOMEM;
	}
	if (d && !json_is_null(d)) {
		snprintf(path, sizeof(path), "%s.device", at);
		if (!json_is_object(d))
			return field_fail(e, path, "must be an object or null");
		if ((rc = device_of(d, path, device, e)) < 0)
			return rc;
	}
	return 0;
}

void import_native_counters_free(struct archive_restore_sample *samples,
				 size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 2; c++)
			free((char *)samples[i].ctr[c]);
	free(samples);
}
