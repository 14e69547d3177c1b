/*
 * probe — what a benchmark target is: the machine, the filesystem and the
 * device behind a path. A snapshot is taken when a run starts and stored with
 * it, so that a number in the archive always comes with what produced it.
 *
 * Sources (probe_linux.c): uname(2), statvfs(3), /proc/self/mountinfo (the
 * mount that holds the path: longest mount point that is a prefix of the real
 * path and has the path's st_dev), /sys/dev/block/MAJ:MIN (the block device,
 * resolved to its whole disk for a partition; model, firmware revision,
 * rotational, write_cache, I/O scheduler),
 * /proc/cpuinfo, sysconf(3), libblkid (the filesystem under a FUSE block
 * mount). Every field the machine does not tell is left empty ("" for strings,
 * -1 for numbers); the probe never fails for a missing detail.
 */
#ifndef STORBENCH_PROBE_H
#define STORBENCH_PROBE_H

#include <stdint.h>

struct probe {
	char hostname[256];
	char kernel[128];      /* uname -r */
	char fs_type[64];      /* by name, from mountinfo: "ext4", "xfs"; for
				  a FUSE block mount (ntfs-3g) the
				  filesystem on the device, from libblkid:
				  "ntfs" */
	char mount_type[64];   /* mountinfo's type when fs_type is not it
				  ("fuseblk"), else "" */
	int64_t fs_block_size; /* statvfs f_bsize, bytes */
	char mount_point[1024];
	char mount_options[1024]; /* per-mount and super options, comma list */
	char device[1024];	/* mount source, e.g. "/dev/vda1"; "" if none */
	char disk[128];		/* whole-disk name in /sys/block, e.g. "vda" */
	char device_model[256]; /* /sys/block/DISK/device/model, trimmed */
	int rotational;		/* 1, 0, or -1 when unknown */
	char write_cache[64];	/* /sys/block/DISK/queue/write_cache */
	char firmware_rev[64];	/* the device's firmware revision:
				   /sys/block/DISK/device/firmware_rev (NVMe)
				   or device/rev (SCSI, SATA); Windows'
				   STORAGE_DEVICE_DESCRIPTOR's
				   ProductRevision; "" unknown */
	char scheduler[64];	/* the I/O scheduler in use, the bracketed
				   one of /sys/block/DISK/queue/scheduler
				   ("none", "mq-deadline"); "" unknown, and
				   always on Windows, which has none */
	char bus_type[32];	/* the device's bus, as Windows names it
				   (IOCTL_STORAGE_QUERY_PROPERTY): "NVMe",
				   "SATA", "SAS", "SCSI", "iSCSI", "USB",
				   "Virtual", "RAID", "Spaces"; "" unknown
				   (and on Linux) */
	char volume_label[128]; /* the volume's label (Windows); "" */
	char fs_features[256];	/* what the filesystem does that changes
				   numbers, comma list: Windows'
				   GetVolumeInformation flags
				   ("compression", "sparse_files",
				   "integrity_streams", "block_cloning",
				   "dax"), and on any system "cow" or
				   "nocow" (probe_file_cow, probe_set_cow);
				   "" when it tells none */
	int64_t free_bytes;	/* statvfs f_bavail * f_frsize */
	int64_t total_bytes;	/* statvfs f_blocks * f_frsize */
	char cpu_model[256];	/* /proc/cpuinfo "model name" */
	int cpus;		/* online CPUs */
	int64_t memory_bytes;	/* physical memory */
	/* an SMB target (the smb back-end's probe; on Windows a share
	 * through Windows' own client, probe_share_win.c); "" / -1 for a
	 * local one */
	char smb_server[256];
	int smb_port; /* 0: the default, 445 */
	char smb_share[256];
	char smb_dialect[16]; /* negotiated: "SMB2_02" … "SMB3_11" */
	int smb_signing;      /* traffic after the tree connect: 1, 0, -1 */
	int smb_encryption;   /* 1, 0, -1 */
	int smb_ca; /* continuous availability: the handle is persistent or
		       the share is continuously available, 1, 0, or -1
		       unknown (Windows only: libsmbclient does not tell) */
};

/*
 * Fills *p for the directory or file at path. Returns 0, or a negative errno
 * when path itself cannot be resolved or statvfs fails (-ENOENT, -EACCES...).
 * Missing details are not errors (see above).
 */
int probe_path(const char *path, struct probe *p);

/*
 * probe_path for a local target: a directory, or a raw block device (then
 * this machine's fields, fs_type "raw", mount_point and device the device's
 * path, no filesystem details, free and total 0). The probe of a back-end
 * on local files (lfile.h).
 */
int probe_local(const char *target, struct probe *p);

/*
 * The filesystem holding path: bytes available to unprivileged users into
 * *free_bytes (f_bavail × f_frsize) and its size into *total_bytes
 * (f_blocks × f_frsize). Returns 0 or a negative errno (both left as they
 * were).
 */
int probe_space(const char *path, int64_t *free_bytes, int64_t *total_bytes);

/*
 * Copy-on-write: does an overwrite of the file's blocks put them in a new
 * place (btrfs, ZFS, ReFS with integrity streams), so that random writes
 * fragment the file and measure the filesystem's copy-on-write rather than
 * the device?
 */
enum probe_cow {
	PROBE_COW_NONE, /* not a copy-on-write filesystem, or not known */
	PROBE_COW_ON,	/* the file's data is copied on write */
	PROBE_COW_OFF,	/* a filesystem that copies on write, turned off
			   for this file: btrfs's NOCOW attribute (chattr +C,
			   mount -o nodatacow), ReFS without integrity
			   streams */
};

/*
 * What the file or directory at path does (a directory: what the files
 * made in it inherit). *fs (may be NULL) receives the filesystem's name
 * for ON and OFF ("btrfs", "zfs", "refs"; static), NULL for NONE. Never
 * fails: what cannot be asked is NONE. One implementation per system
 * (probe_linux.c: statfs's magic and FS_IOC_GETFLAGS; probe_win.c:
 * FSCTL_GET_INTEGRITY_INFORMATION).
 */
enum probe_cow probe_file_cow(const char *path, const char **fs);

/*
 * Sets p->fs_features' "cow" (ON) or "nocow" (OFF), dropping the other;
 * NONE drops both. The rest of the list is kept (probe_cow.c).
 */
void probe_set_cow(struct probe *p, enum probe_cow c);

#endif
