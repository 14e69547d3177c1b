/*
 * cmd_import — `storbench import`: results of CrystalDiskMark, fio or
 * DiskSpd into DATA's archive, one run per file.
 *
 * Each file is read whole, its format detected unless --format names it,
 * parsed and stored (import.h); a file imported before (the same SHA-256)
 * is reported as such, not stored twice. A daemon may be serving DATA
 * meanwhile: the archive is SQLite's to share, so no lock is taken. One
 * line per file on stdout, or the reason on stderr; the exit status is 1
 * if any file failed.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/archive.h"
#include "cmd.h"
#include "import/import.h"
#include "platform/sys.h"

static const char usage_import[] =
	"usage: storbench import [--data DIR] [--format "
	"cdm|fio|diskspd|storbench] "
	"[--label L]... FILE...\n"
	"\n"
	"Stores CrystalDiskMark text, fio JSON or DiskSpd XML/text results, "
	"or storbench's\n"
	"own run documents (GET /api/v1/runs/{id}?format=storbench, "
	"storbench run --json),\n"
	"in DIR's archive (default ./var; a daemon on DIR may be running): a "
	"run per\n"
	"complete run in a file (a DiskSpd text file may hold several).\n"
	"  --data DIR          the archive (default ./var)\n"
	"  --format F          cdm, fio, diskspd or storbench (default: told "
	"from the file)\n"
	"  --label L           a label for every imported run (repeatable; "
	"no comma)\n";

/* Reads path whole into *buf (malloc'd). Returns 0 or a negative errno. */
static int slurp(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, k;
	char *b = NULL, *nb;

	if (!f)
		return -errno;
	do {
		if (n == cap || !b) {
			if (n > (64u << 20) ||
			    !(nb = realloc(b, cap = b ? cap * 2 : cap))) {
				free(b);
				fclose(f);
				return n > (64u << 20) ? -EFBIG : -ENOMEM;
			}
			b = nb;
		}
		k = fread(b + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	fclose(f);
	if (n > (64u << 20)) { /* a result file is not that big */
		free(b);
		return -EFBIG;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* storbench import [--data DIR] [--format F] [--label L]... FILE... */
int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "label", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *data = "./var", *format = NULL, *labels = NULL;
	char db[PATH_MAX], joined[2048] = "";
	struct archive *a = NULL;
	struct import_done done[IMPORT_MAX_RUNS];
	int c, failed = 0, err;

	umask(077); /* a new archive is the user's alone, as serve makes it */
	while ((c = getopt_long(argc, argv, ":d:f:l:h", opts, NULL)) != -1) {
		if (c == 'd')
			data = optarg;
		else if (c == 'f')
			format = optarg;
		else if (c == 'l' && strchr(optarg, ',')) {
			fprintf(stderr,
				"storbench import: --label %s: a label "
				"holds no comma (give --label once per "
				"label)\n",
				optarg);
			return 2;
		} else if (c == 'l') {
			/* the labels as import.h takes them: "a,b" */
			size_t k = strlen(joined);
			snprintf(joined + k, sizeof(joined) - k, "%s%s",
				 k ? "," : "", optarg);
			labels = joined;
		} else {
			cmd_bad_option("import", c, argv);
			fputs(usage_import, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind == argc) {
		fputs(usage_import, stderr);
		return 2;
	}
	{
		char why[160];
		if (import_check_args(labels, NULL, why, sizeof(why)) < 0) {
			/* import.h says "labels: …"; the flag is --label */
			fprintf(stderr, "storbench import: --%s%s\n",
				strncmp(why, "labels", 6) == 0 ? "label" : "",
				strncmp(why, "labels", 6) == 0 ? why + 6 : why);
			return 2;
		}
	}
	if ((err = sys_mkdir_private(data)) < 0 ||
	    snprintf(db, sizeof(db), "%s/storbench.db", data) >=
		    (int)sizeof(db) ||
	    (err = archive_open(db, &a)) < 0) {
		fprintf(stderr, "storbench import: archive in %s: %s\n", data,
			strerror(err < 0 ? -err : ENAMETOOLONG));
		return 1;
	}
	for (int i = optind; i < argc; i++) {
		const char *path = argv[i], *base = path;
		char *buf = NULL, why[256] = "";
		size_t len = 0, n = 0;
		int rc = slurp(path, &buf, &len);

		for (const char *p = path; *p; p++)
			if (sys_path_sep(*p)) /* '/', and '\\' on Windows */
				base = p + 1;
		if (rc < 0)
			snprintf(why, sizeof(why), "%s", strerror(-rc));
		else if ((rc = import_file(a, format, buf, len, base, labels,
					   done, &n, why, sizeof(why))) < 0 &&
			 !why[0])
			snprintf(why, sizeof(why), "the archive: %s",
				 strerror(-rc));
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", path, why);
			failed = 1;
		}
		for (size_t k = 0; rc == 0 && k < n; k++)
			printf("%s: %s run %lld (%s, %zu tests)\n", path,
			       done[k].duplicate ? "already imported as"
						 : "imported as",
			       (long long)done[k].id, done[k].tool,
			       done[k].tests);
		free(buf);
	}
	archive_close(a);
	return failed;
}
