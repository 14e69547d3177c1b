/*
 * presets — the registry: every preset of this build, one line each in
 * PRESETS below, in the order GET /api/v1/profiles lists them; the first is
 * a job's default. A preset is a table in its own file, preset_<name>.c
 * (preset.h), which the build picks up by its name.
 */
#include "preset.h"

#include <errno.h>
#include <string.h>

/* One line per preset: X(n) is the table preset_n of preset_n's file. */
#define PRESETS(X)                                                             \
	X(cdm_default)                                                         \
	X(cdm_peak)                                                            \
	X(cdm_realworld)                                                       \
	X(cdm3)                                                                \
	X(seq_sweep)                                                           \
	X(mailbox)                                                             \
	X(file_create)                                                         \
	X(custom)                                                              \
	X(cdm_nvme)                                                            \
	X(snia_iops)

#define DECLARE(n) extern const struct preset preset_##n;
#define ENTRY(n) &preset_##n,
PRESETS(DECLARE)
static const struct preset *const registry[] = { PRESETS(ENTRY) };

int preset_validate(const struct preset *p)
{
	if (!p || p->version != PRESET_VERSION || !p->name || !p->title ||
	    !p->kind || !p->run || !p->view || (p->n_tests && !p->tests) ||
	    (p->n_options && !p->options) || (p->summary && !p->summary_key))
		return -EINVAL;
	return 0;
}

const struct preset *preset_at(size_t i)
{
	return i < sizeof(registry) / sizeof(registry[0]) ? registry[i] : NULL;
}

const struct preset *preset_find(const char *name)
{
	const struct preset *p;

	for (size_t i = 0; name && (p = preset_at(i)) != NULL; i++)
		if (strcmp(p->name, name) == 0)
			return preset_validate(p) == 0 ? p : NULL;
	return NULL;
}

uint32_t preset_max_block(const struct preset *p)
{
	uint32_t m = 0;

	for (size_t i = 0; i < p->n_tests; i++)
		if (p->tests[i].block_size > m)
			m = p->tests[i].block_size;
	return m;
}
