/*
 * backends_win — the back-ends of the Windows build, in the order the
 * default for a local directory is chosen (target.h): iocp, then psync
 * (blocking ReadFile / WriteFile worker threads, lfile_transfer); null is
 * never the default (it makes no files). There is no smb back-end on
 * Windows (issue 20): a share is reached by its UNC path as a local one.
 */
#include "target.h"

extern const struct tgt_ops tgt_iocp_ops;
extern const struct tgt_ops tgt_psync_ops;
extern const struct tgt_ops tgt_null_ops;

const struct tgt_ops *const tgt_backends[] = {
	&tgt_iocp_ops,
	&tgt_psync_ops,
	&tgt_null_ops,
	NULL,
};
