/*
 * backends_linux — the back-ends of the Linux build, in the order the
 * default for a local directory is chosen (target.h): io_uring, then psync
 * where io_uring cannot be set up; null and smb are never the default (null
 * makes no files, smb claims smb:// targets).
 */
#include "smb.h"
#include "target.h"

extern const struct tgt_ops tgt_uring_ops;
extern const struct tgt_ops tgt_psync_ops;
extern const struct tgt_ops tgt_null_ops;

const struct tgt_ops *const tgt_backends[] = {
	&tgt_uring_ops, &tgt_psync_ops, &tgt_null_ops, &tgt_smb_ops, NULL,
};
