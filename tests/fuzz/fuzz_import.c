/*
 * fuzz_import — the libFuzzer target of one import format: any bytes must
 * parse or be refused through import_parse (the importer, then the names
 * and ranges every run is checked against), never crash, leak or overrun.
 * tests/fuzz/run builds it once per target with clang,
 * -DIMPORT_FORMAT="cdm" (fio, diskspd: XML or text by its content).
 */
#include <stddef.h>
#include <stdint.h>

#include "import/import.h"

#ifndef IMPORT_FORMAT
#error "build with -DIMPORT_FORMAT=\"cdm\" (or \"fio\", \"diskspd\")"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_runs runs;
	char err[256];

	if (import_parse(IMPORT_FORMAT, (const char *)data, size, &runs, err,
			 sizeof(err)) == 0)
		import_runs_free(&runs);
	return 0;
}
