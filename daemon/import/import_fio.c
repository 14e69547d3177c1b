/*
 * import_fio — fio's JSON output (--output-format=json or json+), fio 2.x
 * and 3.x, into struct import_run (import.h).
 *
 * What varies: text before the JSON (fio prints warnings first); 3.x keys
 * in nanoseconds (lat_ns, bw_bytes) against 2.x microseconds and KiB/s
 * (lat, bw); "job options" against "global options"; group_reporting (a
 * "jobs" entry then stands for numjobs processes); a key given twice
 * ("filename"). Each job and direction that moved data is one test, named
 * by the job (plus "read"/"write" in rw); its block size, queue depth,
 * numjobs and read share come from the options. fio 2.x often prints no
 * options: the block size is then derived where the numbers make it exact,
 * else it is unknown (0, served as null, a warning names the tests); the
 * rest are fio's defaults (a warning says so), and the file or device is
 * unknown — never the job's name (a job: import_fio_job.c; its latencies:
 * import_fio_lat.c). With --status-interval the file holds a report per
 * interval and the final one last: the final one is the run
 * (import_fio_report.c; a warning counts the interim ones skipped). fio
 * --client output is a run per client and one for their sum
 * (import_fio_client.c).
 *
 * Every number, read or derived, is checked against its range
 * (import_check); an error names the job and the key
 * ("jobs[2] (randread) read.runtime: …"), JSON having no lines to name.
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

int import_fio_runs(const char *buf, size_t len, struct import_runs *out,
		    char *err, size_t err_len, int *line)
{
	json_t *root, *jobs, *clients, *j, *g;
	struct import_fio_tally ty = { 0 };
	struct import_run *r;
	const char *ver;
	size_t i;
	int rc, interim;

	*line = 0;
	if ((rc = import_fio_last_report(buf, len, &root, &interim, err,
					 err_len, line)) < 0)
		return rc;
	ver = json_string_value(json_object_get(root, "fio version"));
	jobs = json_object_get(root, "jobs");
	clients = json_object_get(root, "client_stats");
	g = json_object_get(root, "global options");
	if (!ver || strncmp(ver, "fio-", 4) != 0 ||
	    (!json_is_array(jobs) && !json_is_array(clients))) {
		snprintf(err, err_len,
			 "not fio JSON output: no \"fio version\" and "
			 "\"jobs\" (or \"client_stats\")");
		rc = -EINVAL;
	} else if (!json_is_array(jobs)) {
		rc = import_fio_clients(root, ver, clients, interim, out, err,
					err_len);
	} else if (!(r = import_fio_new_run(root, ver, out))) {
		rc = -ENOMEM;
	} else {
		json_array_foreach(jobs, i, j)
		{
			if ((rc = import_fio_job(json_is_object(g) ? g : NULL,
						 j, "jobs", i, r, &ty, err,
						 err_len)) < 0)
				break;
		}
		if (rc == 0)
			rc = import_fio_finish(r, &ty, interim, err, err_len);
	}
	json_decref(root);
	return rc;
}

int import_fio_sniff(const char *buf, size_t len)
{
	return import_holds(buf, len, "\"fio version\"");
}
