/*
 * archive_facts — what a run ran on and under, without its results: the
 * members of the run document (GET /api/v1/runs/{id}) that say what
 * machine, filesystem, device, back-end and job produced its numbers, read
 * in one indexed lookup. What changed between two runs (compare_changed)
 * reads it for every run of every side, so it leaves out the tests'
 * iterations, which a run in full (archive_run_json) reads.
 */
#include <errno.h>

#include "archive_int.h"

int archive_run_facts(struct archive *a, int64_t id, json_t **out)
{
	/* engine as archive_run_json serves it; steady: the tests with a
	 * steady state, in the order they ran, each reached or not */
	return archive_query_one(
		a,
		"SELECT id, profile, spec AS spec_json, probe AS probe_json,"
		" json_object('version', engine_version, 'target',"
		"  engine_target, 'direct',"
		"  json(CASE direct WHEN 0 THEN 'false' ELSE 'true' END))"
		"  AS engine_json,"
		" (SELECT json_group_array(json_object('test', c.test, 'rw',"
		"   c.rw, 'reached',"
		"   json_extract(c.record, '$.steady_state.reached')))"
		"  FROM test_conditions c WHERE c.run_id=runs.id AND"
		"  json_type(c.record, '$.steady_state') IS NOT NULL)"
		"  AS steady_json"
		" FROM runs WHERE id=?",
		id, out);
}
