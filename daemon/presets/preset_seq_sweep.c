/*
 * preset_seq_sweep — sequential MB/s against block size: a block-size sweep
 * read, then the same sweep written, at one queue depth and thread count,
 * on one test file (planrun). The run page draws MB/s over block size.
 */
#include "preset.h"

#include <errno.h>
#include <stdio.h>

#include "planrun.h"

static const struct field block_size = {
	.type = FIELD_BYTES,
	.unit = "B",
	.min = 512,
	.max = PLAN_MAX_BLOCK,
	.step = 512,
	.help = "a block size, a multiple of 512 bytes"
};

static const struct field options[] = {
	{ .name = "block_sizes",
	  .type = FIELD_LIST,
	  .item = &block_size,
	  .min_items = 1,
	  .max_items = 32,
	  .flags = FIELD_UNIQUE,
	  .def = "[4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, "
		 "1048576, 2097152, 4194304]",
	  .help = "the block sizes of the sweep (4 KiB … 4 MiB)" },
	{ .name = "queue_depth",
	  .type = FIELD_INT,
	  .unit = "I/Os",
	  .min = 1,
	  .max = WL_MAX_QUEUE_DEPTH,
	  .def = "8",
	  .help = "I/Os in flight per thread at every point" },
	{ .name = "threads",
	  .type = FIELD_INT,
	  .unit = "threads",
	  .min = 1,
	  .max = WL_MAX_THREADS,
	  .def = "1",
	  .help = "engine threads at every point" },
};

/* The sweep's two tests, read then written, from the normalized options. */
static int check(struct preset_req *rq)
{
	json_t *bs = json_object_get(rq->options, "block_sizes");
	json_int_t q =
		json_integer_value(json_object_get(rq->options, "queue_depth"));
	json_int_t t =
		json_integer_value(json_object_get(rq->options, "threads"));
	char name[32];

	snprintf(name, sizeof(name), "SEQ Q%lldT%lld", (long long)q,
		 (long long)t);
	rq->tests =
		json_pack("[{s:s, s:s, s:i, s:O, s:I, s:I},"
			  " {s:s, s:s, s:i, s:O, s:I, s:I}]",
			  "name", name, "pattern", "sequential", "read_pct",
			  100, "block_size", bs, "queue_depth", q, "threads", t,
			  "name", name, "pattern", "sequential", "read_pct", 0,
			  "block_size", bs, "queue_depth", q, "threads", t);
	return rq->tests ? 0 : -ENOMEM;
}

const struct preset preset_seq_sweep = {
	.version = PRESET_VERSION,
	.name = "seq-sweep",
	.title = "Sequential read and write against block size",
	.kind = "seq-sweep",
	.flags = PRESET_RAW_DEVICE | PRESET_INTERLEAVE | PRESET_STEADY,
	.defaults = { .size = 1ULL << 30, .iterations = 3, .duration_s = 5 },
	.options = options,
	.n_options = FIELDS_N(options),
	.check = check,
	.plan_field = "options.block_sizes",
	.slots_field = "options.queue_depth",
	.run = planrun_run,
	.view = "sweep",
};
