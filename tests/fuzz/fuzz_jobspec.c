/*
 * fuzz_jobspec — the libFuzzer target of the job parser (jobspec_parse,
 * api/jobspec.c): any body must be accepted or refused, never crash, leak
 * or overrun. An accepted body leaves a complete spec. A refused one leaves
 * an empty spec and a problem with a detail that serialises: a 400 (403
 * for a target outside the allowed roots), or for an smb:// target, whose
 * check cannot run here, the status of the errno.
 *
 * Targets are checked on disk: the input names the sandbox of fuzz_env.h as
 * "@TMP@" ("@TMP@/a"), and the default target is DIR/scratch. Seeds:
 * tests/fuzz/corpus/jobspec/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "archive/archive.h"
#include "fuzz_env.h"

static char scratch[4200];
static int trace; /* FUZZ_TRACE=1: what each input got (seed checks) */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_env_init();
	snprintf(scratch, sizeof(scratch), "%s/scratch", fuzz_dir);
	trace = getenv("FUZZ_TRACE") != NULL;
	return 0;
}

/* Stops the run with what broke the contract (libFuzzer saves the input). */
static void broken(const char *what, const struct api_problem *p)
{
	fprintf(stderr,
		"fuzz_jobspec: %s (status %u, field \"%s\", detail \"%s\")\n",
		what, p->status, p->field, p->detail);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_spec s;
	struct api_problem p;
	struct api_resp resp = { 0 };
	char *body;
	size_t len;
	int rc;

	if (fuzz_env_subst(data, size, &body, &len) < 0)
		return 0;
	memset(&p, 0, sizeof(p));
	rc = jobspec_parse(body, len, scratch, &s, &p);
	if (trace)
		fprintf(stderr, "fuzz_jobspec: %d %u %s: %s\n", rc, p.status,
			p.field, rc ? p.detail : s.plan_json);
	if (rc == 0) {
		if (!s.profile || !s.target || !s.labels_json || !s.notes ||
		    !s.plan_json || !s.engine || s.size == 0 ||
		    s.iterations < 1)
			broken("accepted with an incomplete spec", &p);
		job_spec_clear(&s);
	} else {
		if (s.profile || s.target || s.labels_json || s.notes ||
		    s.plan_json || s.engine || s.options_json || s.smb_json)
			broken("refused but the spec is not empty", &p);
		/* 403: a target outside the allowed roots (confine.h) */
		if (!p.detail[0] ||
		    (rc == -EINVAL && p.status != 400 && p.status != 403) ||
		    (rc != -EINVAL && p.status != api_status_from_errno(rc)))
			broken("refused without a 400 problem", &p);
		api_send_problem(&resp, &p);
		if (!resp.body || resp.status != p.status)
			broken("the problem does not serialise", &p);
		free(resp.body);
	}
	free(body);
	return 0;
}
