/*
 * archive_ctr — a second's host and device counters (storage/probe/hostctr.h)
 * as the JSON objects stored in samples.host and samples.device (schema 10) and
 * served as they are by the samples route, the event stream's "sample" event
 * and the run document. Fields and units: docs/api.md ("Samples"). Rates are
 * over the engine's second (length_s), so a device's IOPS sits beside the
 * engine's for the same span; the counters' own interval is within a
 * millisecond or two of it.
 */
#include <math.h>

#include "archive.h"

/* A number rounded to 3 decimals: the counters are not more exact. */
static json_t *num(double v)
{
	return json_real(round(v * 1000) / 1000);
}

json_t *archive_ctr_host(const struct hostctr_sample *c)
{
	json_t *o;

	if (!c || !(c->have & (HOSTCTR_CPU | HOSTCTR_MEM)))
		return NULL;
	o = json_object();
	if (c->have & HOSTCTR_CPU) {
		json_object_set_new(o, "cpu_user_pct", num(c->cpu_user));
		json_object_set_new(o, "cpu_system_pct", num(c->cpu_system));
		json_object_set_new(o, "cpu_iowait_pct", num(c->cpu_iowait));
		json_object_set_new(o, "cpu_irq_pct", num(c->cpu_irq));
		json_object_set_new(o, "cpu_steal_pct", num(c->cpu_steal));
		json_object_set_new(o, "cpu_busy_pct", num(c->cpu_busy));
		json_object_set_new(o, "core_busy_pct", num(c->core_busy));
		json_object_set_new(o, "core", json_integer(c->core));
	}
	if (c->have & HOSTCTR_MEM) {
		json_object_set_new(o, "mem_used_bytes",
				    json_integer((json_int_t)c->mem_used));
		json_object_set_new(o, "mem_cache_bytes",
				    json_integer((json_int_t)c->mem_cache));
		json_object_set_new(o, "mem_dirty_bytes",
				    json_integer((json_int_t)c->mem_dirty));
		json_object_set_new(o, "mem_writeback_bytes",
				    json_integer((json_int_t)c->mem_writeback));
	}
	return o;
}

/* One device's object; length_s > 0. */
static json_t *dev_json(const struct hostctr_dev *d, double length_s)
{
	return json_pack(
		"{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
		"name", d->name, "read_iops", num((double)d->reads / length_s),
		"write_iops", num((double)d->writes / length_s), "read_mb_s",
		num((double)d->read_bytes / 1e6 / length_s), "write_mb_s",
		num((double)d->write_bytes / 1e6 / length_s), "reads",
		(json_int_t)d->reads, "writes", (json_int_t)d->writes,
		"read_bytes", (json_int_t)d->read_bytes, "write_bytes",
		(json_int_t)d->write_bytes, "in_flight",
		(json_int_t)d->in_flight, "util_pct", num(d->util_pct),
		"wait_ms", num(d->wait_ms));
}

json_t *archive_ctr_device(const struct hostctr_sample *c, double length_s)
{
	json_t *o, *m;

	if (!c || !(c->have & HOSTCTR_DEV))
		return NULL;
	if (length_s <= 0)
		length_s = 1;
	if (!(o = dev_json(&c->dev, length_s)))
		return NULL;
	m = json_array();
	for (unsigned i = 0; i < c->n_members; i++)
		json_array_append_new(m, dev_json(&c->members[i], length_s));
	json_object_set_new(o, "members", m);
	return o;
}
