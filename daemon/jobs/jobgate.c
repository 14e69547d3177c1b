/*
 * jobgate — a member of a multi-host job: the job its host's daemon runs
 * for a coordinator (daemon/fleet), which starts every host's windows
 * together. Before each measured window the member waits at a gate (its
 * windows are numbered from 0), shown as progress.gate; the coordinator,
 * once every host waits at the same gate, gives each a start time on the
 * wall clock (POST /api/v1/jobs/{id}/go), and the engine opens its start
 * gate at that time (engine_opts.start_at_ns). A member left waiting
 * longer than its gate_timeout_s stops itself: its coordinator is gone.
 */
#include "jobrun.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "os/os.h"

/* How often a waiting member looks for its start: a start is given at
 * least the coordinator's margin (tens of ms) ahead. */
#define GATE_POLL_NS 2000000ULL

static json_t *member(struct job_run *jr)
{
	if (!jr->member && jr->s->fleet_json)
		jr->member = json_loads(jr->s->fleet_json, 0, NULL);
	return jr->member;
}

const char *job_member_host(struct job_run *jr)
{
	return json_string_value(json_object_get(member(jr), "host"));
}

int jobrun_live_go(struct jobrun_live *l, int64_t id, int gate, int64_t at_ns,
		   int *waiting)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&l->mu);
	*waiting = -1;
	if (l->current == id && id > 0) {
		*waiting = l->prog.gate;
		rc = l->prog.gate == gate ? 0 : -EAGAIN;
		if (rc == 0) {
			l->go_gate = gate;
			l->go_at_ns = at_ns;
		}
	}
	pthread_mutex_unlock(&l->mu);
	return rc;
}

int job_gate(struct job_run *jr, int64_t *start_at_ns)
{
	struct jobrun_live *l = jr->live;
	json_t *m = member(jr);
	double timeout_s =
		json_number_value(json_object_get(m, "gate_timeout_s"));
	uint64_t deadline;
	int gate = jr->gates, rc = 0;
	char phase[sizeof(l->prog.phase)];

	*start_at_ns = 0;
	if (!m)
		return 0;
	if (!(timeout_s > 0))
		timeout_s = 60;
	deadline = os_now_ns() + (uint64_t)(timeout_s * 1e9);
	pthread_mutex_lock(&l->mu);
	l->prog.gate = gate;
	l->go_gate = -1;
	/* not measuring yet: waiting for the other hosts */
	snprintf(phase, sizeof(phase), "%s", l->prog.phase);
	snprintf(l->prog.phase, sizeof(l->prog.phase), "waiting");
	pthread_mutex_unlock(&l->mu);
	jobrun_live_publish(l, 1);
	for (;;) {
		pthread_mutex_lock(&l->mu);
		if (l->go_gate == gate) {
			*start_at_ns = l->go_at_ns;
			l->prog.gate = -1;
			snprintf(l->prog.phase, sizeof(l->prog.phase), "%s",
				 phase);
			pthread_mutex_unlock(&l->mu);
			break;
		}
		pthread_mutex_unlock(&l->mu);
		if (atomic_load(jr->cancel)) {
			rc = -ECANCELED;
			break;
		}
		if (os_now_ns() > deadline) {
			snprintf(jr->error, sizeof(jr->error),
				 "no start for window %d from the coordinator "
				 "(%s, its job %lld) within %.0f s: the job "
				 "stopped itself",
				 gate,
				 json_string_value(
					 json_object_get(m, "coordinator"))
					 ?: "?",
				 (long long)json_integer_value(
					 json_object_get(m, "job")),
				 timeout_s);
			rc = -ETIMEDOUT;
			break;
		}
		os_sleep_ns(GATE_POLL_NS);
	}
	if (rc < 0) {
		pthread_mutex_lock(&l->mu);
		l->prog.gate = -1;
		snprintf(l->prog.phase, sizeof(l->prog.phase), "%s", phase);
		pthread_mutex_unlock(&l->mu);
	}
	jr->gates++;
	return rc;
}
