/*
 * backends_win — the back-ends of the Windows build, in the order the
 * default for a local directory is chosen (target.h): iocp, then psync
 * (blocking ReadFile / WriteFile worker threads, lfile_transfer); null is
 * never the default (it makes no files). There is no smb back-end on
 * Windows: a share is a path, \\server\share\dir, that iocp and psync reach
 * through Windows' own SMB client (sys.h, confine.h), so the SMB children
 * (smb.h) are never spawned here.
 */
#include <stdio.h>

#include "smb.h"
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

int smb_child_main(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr,
		"storbench %s: this build has no SMB back-end (storbench.exe "
		"reaches shares through Windows' own client)\n",
		argv[0]);
	return 2;
}
