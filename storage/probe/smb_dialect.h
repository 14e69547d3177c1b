/*
 * smb_dialect — the SMB dialects by name, as smb.conf, smbstatus and a
 * run's probe (probe.h: smb_dialect) name them. The probe names a share's
 * dialect with them on both systems (Windows numbers it, probe_share_win.c);
 * the smb back-end's session knobs (min_protocol, max_protocol) are checked
 * against them (targets/smb.h). No I/O.
 */
#ifndef STORBENCH_SMB_DIALECT_H
#define STORBENCH_SMB_DIALECT_H

/* SMB dialects, oldest first, as smb.conf and smbstatus name them:
 * "SMB2_02" … "SMB3_11" (SMB 2.0.2 … SMB 3.1.1). */
extern const char *const smb_dialects[];
extern const int smb_n_dialects;

/* Index of name in smb_dialects, or -1. */
int smb_dialect_index(const char *name);

/* The name of the dialect numbered major.minor.revision (2.0.2 "SMB2_02",
 * 2.1 "SMB2_10", 3.0 "SMB3_00", 3.0.2 "SMB3_02", 3.1.1 "SMB3_11"; Windows'
 * FILE_REMOTE_PROTOCOL_INFO numbers them so), or "" for another. */
const char *smb_dialect_of_version(unsigned major, unsigned minor,
				   unsigned revision);

#endif
