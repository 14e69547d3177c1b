/*
 * import_parse — see import.h: a result file's format told from its content
 * (import_detect) and the file parsed by its format's importer into runs
 * whose text is UTF-8, whose tests have one name per direction and whose
 * numbers are in their ranges (import_parse). Apart from import.c, which
 * holds the ranges and the helpers every importer calls, so that no
 * importer and this file call each other.
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/utf8.h"

/* Is buf meant as storbench's own run document: a JSON object naming a
 * uuid, an engine and tests, and not fio's? Not parsed here: its importer
 * parses it once and says where it breaks. */
static int is_native(const char *buf, size_t len)
{
	size_t i = strspn(buf, " \t\r\n");

	return i < len && buf[i] == '{' && import_holds(buf, len, "\"uuid\"") &&
	       import_holds(buf, len, "\"engine\"") &&
	       import_holds(buf, len, "\"tests\"") &&
	       !import_holds(buf, len, "\"fio version\"");
}

/*
 * The other tools' formats, in the order a file's content is tried against
 * them: the first whose sniff takes it is its format (a fio JSON naming
 * CrystalDiskMark in a path is fio's: cdm's sniff leaves it; a DiskSpd file
 * whose path names CrystalDiskMark is taken for CrystalDiskMark's, and
 * imports with ?format=diskspd). A new importer is its parser file and one
 * line here.
 */
static const struct import_format formats[] = {
	{ "cdm", "crystaldiskmark", import_cdm_sniff, import_cdm, NULL },
	{ "fio", "fio", import_fio_sniff, NULL, import_fio_runs },
	{ "diskspd", "diskspd", import_diskspd_sniff, NULL,
	  import_diskspd_runs },
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

const struct import_format *import_format_find(const char *name)
{
	for (size_t i = 0; name && i < N_FORMATS; i++)
		if (strcmp(name, formats[i].name) == 0)
			return &formats[i];
	return NULL;
}

void import_formats_text(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_FORMATS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", formats[i].name);
	if (used < len)
		snprintf(buf + used, len - used, " or storbench");
}

const char *import_detect(const char *buf, size_t len)
{
	if (is_native(buf, len))
		return "storbench";
	for (size_t i = 0; i < N_FORMATS; i++)
		if (formats[i].sniff(buf, len))
			return formats[i].name;
	return NULL;
}

/*
 * The text a parser kept from the file (a comment, an OS line, a path, a
 * job name) becomes JSON in the archive, and JSON holds only UTF-8: a byte
 * that is not (a Latin-1 comment, a name cut in the middle of a character)
 * becomes '?', rather than failing the import or storing a run no answer
 * could carry.
 */
static void text_fit(struct import_run *r)
{
	char *const fields[] = { r->tool,    r->version,     r->date,
				 r->os,	     r->comment,     r->host,
				 r->profile, r->drive,	     r->target,
				 r->fs_type, r->write_cache, r->test_line,
				 r->mode };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		utf8_sanitize(fields[i]);
	for (size_t i = 0; i < r->n_warn; i++)
		utf8_sanitize(r->warn[i]);
	for (size_t i = 0; i < r->n; i++) {
		utf8_sanitize(r->t[i].name);
		utf8_sanitize(r->t[i].rw);
		utf8_sanitize(r->t[i].pattern);
	}
}

/* Is the name and direction of test i taken by a test before it? */
static int name_taken(const struct import_run *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(r->t[j].name, r->t[i].name) == 0 &&
		    strcmp(r->t[j].rw, r->t[i].rw) == 0)
			return 1;
	return 0;
}

/*
 * A run holds one test per name and direction (a comparison matches tests
 * by them): a repeat gets " #2", " #3" … — fio without group_reporting
 * prints a job entry per process of numjobs, all of one name, and a name
 * cut to its field's size can meet another.
 */
static void names_unique(struct import_run *r)
{
	for (size_t i = 1; i < r->n; i++) {
		char base[sizeof(r->t[i].name)];
		snprintf(base, sizeof(base), "%s", r->t[i].name);
		for (int k = 2; name_taken(r, i); k++) {
			snprintf(r->t[i].name, sizeof(r->t[i].name),
				 "%.80s #%d", base, k);
			utf8_sanitize(r->t[i].name); /* the cut may split a
							character */
		}
	}
}

int import_parse(const char *format, const char *buf, size_t len,
		 struct import_runs *out, char *err, size_t err_len)
{
	const struct import_format *f = import_format_find(format);
	struct import_run *r;
	int line = 0, rc;

	*out = (struct import_runs){ 0 };
	if (!f)
		rc = -EOPNOTSUPP;
	else if (f->many)
		rc = f->many(buf, len, out, err, err_len, &line);
	else
		rc = (r = import_runs_add(out))
			     ? f->one(buf, len, r, err, err_len, &line)
			     : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < out->n; i++) {
		text_fit(&out->v[i]);
		names_unique(&out->v[i]);
		rc = import_check_run(&out->v[i], err, err_len);
	}
	if (rc < 0)
		import_runs_free(out);
	if (rc != -EOPNOTSUPP)
		return rc;
	snprintf(err, err_len,
		 "%s results cannot be imported by this version "
		 "yet (CrystalDiskMark text, fio JSON and DiskSpd "
		 "XML can)",
		 strcmp(format, "diskspd") == 0 ? "DiskSpd text" : format);
	return -EOPNOTSUPP;
}
