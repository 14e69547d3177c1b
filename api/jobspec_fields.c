/*
 * jobspec_fields — the job's field descriptors (jobspec_fields, fields.h):
 * one table that validates a job request (jobspec.c), lists a job's fields
 * in GET /api/v1/profiles and writes them into the OpenAPI document. The
 * profile and engine choices are filled once from the presets and from
 * every system's back-end names (target.h: tgt_engine_names), so that the
 * document is the same on Linux and Windows. jobspec_get reads one field
 * of a request through its descriptor, for jobspec.c and jobspec_plan.c.
 */
#include "api.h"

#include <pthread.h>

#include "archive/archive.h"
#include "fleet/fleet.h"
#include "jobs/jobsession.h"
#include "jobs/plan.h"
#include "jobs/steady.h"
#include "platform/fields.h"
#include "presets/preset.h"
#include "targets/target.h"
#include "wire/wire.h"

#define MAX_SIZE (64ULL << 40)
#define MAX_CHOICES 32

/* profile and engine: the names of this build's presets and back-ends,
 * filled once (choices_init) */
static const char *profiles[MAX_CHOICES + 1];
static const char *engines[MAX_CHOICES + 1];

static const struct field label = {
	.type = FIELD_STRING, .min = 1, .max = 64, .flags = FIELD_CLEAN
};
static const struct field other_target = { .type = FIELD_DIR };
static const struct field host_count = {
	.type = FIELD_INT, .min = 1, .max = 64, .unit = "1"
};
static const struct field host_name = {
	.type = FIELD_STRING, .min = 1, .max = 64, .flags = FIELD_CLEAN
};
static const struct field test = { .type = FIELD_OBJECT,
				   .sub = plan_test_fields,
				   .n_sub = PLAN_N_TEST_FIELDS };

const struct field jobspec_fields[] = {
	{ .name = "target",
	  .type = FIELD_DIR,
	  .def_text = "DATA/scratch, the daemon's scratch folder",
	  .help = "an existing directory under an allowed root (DATA/scratch, "
		  "or one given with --allow) where storbench creates its own "
		  "test file and removes it afterwards; or a raw block device "
		  "allowed with --allow-device (presets of tests only); or a "
		  "directory on an allowed share: smb://server[:port]/share/dir"
		  " (no user or password in the URL), or storbench.exe's "
		  "\\\\server\\share\\dir (Windows' SMB client); resolved" },
	{ .name = "compare_with",
	  .type = FIELD_LIST,
	  .item = &other_target,
	  .min_items = 1,
	  .max_items = JOB_MAX_SIDES - 1,
	  .flags = FIELD_NULLABLE,
	  .def_text = "none (null): a job of one target",
	  .help = "an interleaved comparison job: more targets (each as "
		  "target is; the same directory again is an A/A series) "
		  "that run the same tests in alternating order round after "
		  "round (A B, B A, …; iterations is the number of rounds), "
		  "each round on a freshly made test file; one run per "
		  "target, compared by a paired test over the rounds; for "
		  "the profiles that are a list of tests, on directories or "
		  "shares, not raw devices" },
	{ .name = "hosts",
	  .type = FIELD_LIST,
	  .item = &host_name,
	  .min_items = 1,
	  .max_items = 64,
	  .flags = FIELD_NULLABLE | FIELD_UNIQUE,
	  .def_text = "null: a job of this host",
	  .help = "a multi-host job: the peers (POST /api/v1/peers) that run "
		  "it together, this daemon as \"self\"; each host is sent "
		  "the job without hosts and checks it itself (its target "
		  "under its own allowed roots, its credential), every "
		  "measured window starts at one time on every host, and "
		  "the job's run is the aggregate over the window where "
		  "every host measured (IOPS and MB/s summed, percentiles "
		  "from the merged histograms) beside each host's own run; "
		  "the profiles that are lists of tests (cdm-*, custom, "
		  "seq-sweep), without steady_state or compare_with" },
	{ .name = "hosts_sweep",
	  .type = FIELD_LIST,
	  .item = &host_count,
	  .min_items = 1,
	  .max_items = 64,
	  .flags = FIELD_NULLABLE | FIELD_UNIQUE,
	  .def_text = "null: every host once",
	  .help = "with hosts: host counts, ascending, each at most the "
		  "number of hosts; the job runs once per count with the "
		  "first that many hosts, each an aggregate run of its own "
		  "(the knee: aggregate IOPS against p99 as hosts are "
		  "added)" },
	{ .name = "clock_bound_ms",
	  .type = FIELD_NUMBER,
	  .unit = "ms",
	  .min = 0.1,
	  .max = 1000,
	  .flags = FIELD_NULLABLE,
	  .def = "5",
	  .help = "with hosts: the most a host's clock may be off this "
		  "daemon's (the measured offset plus its uncertainty, half "
		  "the best of five round trips) for the job to start" },
	{ .name = "peer_timeout_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 1,
	  .max = 600,
	  .flags = FIELD_NULLABLE,
	  .def = "10",
	  .help = "with hosts: a host that does not answer this long has "
		  "failed, and the job with it" },
	{ .name = "fleet",
	  .type = FIELD_OBJECT,
	  .sub = fleet_member_fields,
	  .n_sub = FLEET_N_MEMBER_FIELDS,
	  .flags = FIELD_NULLABLE,
	  .def_text = "null",
	  .help = "set by a multi-host job's coordinator on the job it "
		  "sends each host (not for users): the job waits before "
		  "each measured window for the coordinator's start" },
	{ .name = "profile",
	  .type = FIELD_ENUM,
	  .choices = profiles,
	  .def_text = "the first profile GET /api/v1/profiles lists",
	  .help = "a profile name from GET /api/v1/profiles" },
	{ .name = "size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 8 << 20,
	  .max = (double)MAX_SIZE,
	  .step = 1 << 20,
	  .def_text = "the profile's",
	  .help = "the test file's size; it must fit in the target's free "
		  "space less the reserve (10 % of the filesystem unless "
		  "--reserve says otherwise), and on a raw device in the "
		  "device" },
	{ .name = "iterations",
	  .type = FIELD_INT,
	  .min = 1,
	  .max = 100,
	  .def_text = "the profile's; for an interleaved job (compare_with) "
		      "10 rounds, or the profile's if more",
	  .help = "runs of each test; the best is the headline; in an "
		  "interleaved job, its rounds" },
	{ .name = "duration_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0.5,
	  .max = 3600,
	  .def_text = "the profile's",
	  .help = "the measured window of each iteration" },
	{ .name = "interval_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0,
	  .max = 3600,
	  .def_text = "the profile's",
	  .help = "a pause between tests" },
	{ .name = "labels",
	  .type = FIELD_LIST,
	  .item = &label,
	  .min_items = 0,
	  .max_items = 32,
	  .flags = FIELD_UNIQUE,
	  .def = "[]",
	  .help = "tags for grouping and comparing runs" },
	{ .name = "notes",
	  .type = FIELD_STRING,
	  .min = 0,
	  .max = 4096,
	  .def = "\"\"",
	  .help = "free text kept with the run" },
	{ .name = "tests",
	  .type = FIELD_LIST,
	  .item = &test,
	  .min_items = 1,
	  .max_items = PLAN_MAX_TESTS,
	  .help = "the tests of the profile that takes them, run in order: "
		  "required with it, refused with any other; at most 64 "
		  "counting every sweep point" },
	{ .name = "engine",
	  .type = FIELD_ENUM,
	  .choices = engines,
	  .def_text = "io_uring on Linux, iocp on Windows; psync where that "
		      "cannot be set up",
	  .help = "the I/O back-end of a local target: io_uring (Linux), "
		  "iocp (Windows: overlapped I/O on a completion port), psync "
		  "(one thread per queue slot doing positioned blocking reads "
		  "and writes) or null (no I/O: the engine's own cost); a "
		  "back-end of the other system is refused; refused with an "
		  "smb:// target, which runs on smb" },
	{ .name = "direct",
	  .type = FIELD_BOOL,
	  .def = "true",
	  .help = "open the test file with O_DIRECT (true) or measure "
		  "buffered I/O (false; refused on an SMB target)" },
	{ .name = "data",
	  .type = FIELD_ENUM,
	  .choices = plan_data_names,
	  .def = "\"random\"",
	  .help = "what writes carry, for every test: \"random\" "
		  "(incompressible, never repeated), \"zeros\" or \"repeat\" "
		  "(one 4 KiB block)" },
	{ .name = "ramp_s",
	  .type = FIELD_NUMBER,
	  .unit = "s",
	  .min = 0,
	  .max = 3600,
	  .def = "0",
	  .help = "I/O before each measured window, counted nowhere, for "
		  "every time-based test" },
	STEADY_PRECONDITION_FIELD("\"none\"; a test's own precondition wins"),
	STEADY_STATE_FIELD("null; a test's own steady_state wins"),
	{ .name = "options",
	  .type = FIELD_OBJECT,
	  .help = "the profile's options (its fields in GET "
		  "/api/v1/profiles)" },
	{ .name = "credential",
	  .type = FIELD_STRING,
	  .min = 1,
	  .max = 64,
	  .flags = FIELD_CLEAN,
	  .help = "the name of a stored credential (POST /api/v1/credentials): "
		  "required with an smb:// target, refused with a local one, "
		  "optional with storbench.exe's \\\\server\\share\\dir (the "
		  "job connects the share with it, else as the daemon)" },
	{ .name = "smb",
	  .type = FIELD_OBJECT,
	  .sub = jobsession_smb_fields,
	  .n_sub = JOBSESSION_N_SMB_FIELDS,
	  .help = "SMB protocol knobs, for an smb:// target" },
	{ .name = "baseline",
	  .type = FIELD_OBJECT,
	  .sub = wire_baseline_fields,
	  .n_sub = WIRE_N_FIELDS,
	  .flags = FIELD_NULLABLE,
	  .def_text = "null (none)",
	  .help = "for an smb:// target: an iperf3 server (iperf3 -s) on the "
		  "file server; the TCP throughput to it is measured both "
		  "ways before the tests, stored on the run, and each result "
		  "gets its wire_efficiency (not in storbench.exe); shown "
		  "back normalized as the job's smb.baseline" },
};
const size_t jobspec_n_fields = FIELDS_N(jobspec_fields);

static pthread_once_t choices_once = PTHREAD_ONCE_INIT;

static void choices_init(void)
{
	const struct preset *p;
	size_t n = 0;

	for (size_t i = 0; n < MAX_CHOICES && (p = preset_at(i)); i++)
		profiles[n++] = p->name;
	/* every system's: one document for all (tgt_engine_names) */
	for (n = 0; n < MAX_CHOICES && tgt_engine_names[n]; n++)
		engines[n] = tgt_engine_names[n];
}

void jobspec_init(void)
{
	pthread_once(&choices_once, choices_init);
}

int jobspec_get(json_t *root, const char *name, json_t **out,
		struct field_error *e)
{
	json_t *v = json_object_get(root, name);

	*out = NULL;
	return v ? field_check(
			   fields_find(jobspec_fields, jobspec_n_fields, name),
			   v, name, out, e)
		 : 0;
}
