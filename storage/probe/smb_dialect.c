/*
 * smb_dialect — the SMB dialects by name (smb_dialect.h).
 */
#include "smb_dialect.h"

#include <string.h>

const char *const smb_dialects[] = { "SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02",
				     "SMB3_11" };
const int smb_n_dialects = 5;

int smb_dialect_index(const char *name)
{
	for (int i = 0; i < smb_n_dialects; i++)
		if (strcmp(name, smb_dialects[i]) == 0)
			return i;
	return -1;
}

const char *smb_dialect_of_version(unsigned major, unsigned minor,
				   unsigned revision)
{
	if (major == 2 && minor == 0)
		return smb_dialects[0];
	if (major == 2 && minor == 1)
		return smb_dialects[1];
	if (major == 3 && minor == 0)
		return smb_dialects[revision == 2 ? 3 : 2];
	if (major == 3 && minor == 1)
		return smb_dialects[4];
	return "";
}
