/*
 * probe_disk_win — the disk behind a Windows volume, for probe_win.c: which
 * physical disk the volume lies on (IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS:
 * "PhysicalDriveN"; none when it spans several) and what that disk says of
 * itself through IOCTL_STORAGE_QUERY_PROPERTY: StorageDeviceProperty
 * (device_model from its vendor and product strings, bus_type),
 * StorageDeviceSeekPenaltyProperty (rotational) and
 * StorageDeviceWriteCacheProperty (write_cache, in Linux's words). The disk
 * is opened with no access rights, which these queries accept: no
 * administrator needed. Best effort, as the rest of the probe: each query
 * fills its own fields and leaves the rest unknown.
 */
#include "probe_win.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <winioctl.h>

/* A NUL-terminated string at off inside the got bytes at buf, or NULL. */
static const char *desc_str(const char *buf, DWORD got, DWORD off)
{
	if (off == 0 || off >= got || !memchr(buf + off, '\0', got - off))
		return NULL;
	return buf + off;
}

/* The text of a STORAGE_BUS_TYPE; "" for BusTypeUnknown. */
static void bus_name(int bus, char *dst, size_t n)
{
	static const struct {
		int bus;
		const char *name;
	} names[] = {
		{ BusTypeScsi, "SCSI" },
		{ BusTypeAtapi, "ATAPI" },
		{ BusTypeAta, "ATA" },
		{ BusType1394, "1394" },
		{ BusTypeSsa, "SSA" },
		{ BusTypeFibre, "Fibre Channel" },
		{ BusTypeUsb, "USB" },
		{ BusTypeRAID, "RAID" },
		{ BusTypeiScsi, "iSCSI" },
		{ BusTypeSas, "SAS" },
		{ BusTypeSata, "SATA" },
		{ BusTypeSd, "SD" },
		{ BusTypeMmc, "MMC" },
		{ BusTypeVirtual, "Virtual" },
		{ BusTypeFileBackedVirtual, "Virtual (file)" },
		{ BusTypeSpaces, "Spaces" },
		{ BusTypeNvme, "NVMe" },
		{ BusTypeSCM, "SCM" },
		{ BusTypeUfs, "UFS" },
	};

	dst[0] = '\0';
	if (bus == BusTypeUnknown)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].bus == bus) {
			(void)probe_win_set_str(dst, n, names[i].name);
			return;
		}
	snprintf(dst, n, "BusType %d", bus);
}

/* IOCTL_STORAGE_QUERY_PROPERTY, standard query of id, into out[len]. */
static BOOL storage_query(HANDLE h, STORAGE_PROPERTY_ID id, void *out,
			  DWORD len, DWORD *got, const char *call)
{
	STORAGE_PROPERTY_QUERY q;

	memset(&q, 0, sizeof(q));
	q.PropertyId = id;
	q.QueryType = PropertyStandardQuery;
	*got = 0;
	return probe_win_traced(
		call, DeviceIoControl(h, IOCTL_STORAGE_QUERY_PROPERTY, &q,
				      sizeof(q), out, len, got, NULL));
}

/* device_model, firmware_rev and bus_type from the disk's
 * STORAGE_DEVICE_DESCRIPTOR. */
static void probe_descriptor(HANDLE h, struct probe *p)
{
	union {
		STORAGE_DEVICE_DESCRIPTOR d;
		char b[4096];
	} u;
	const char *vendor, *product;
	char v[256], m[256], model[520], *vt, *mt;
	DWORD got;

	if (!storage_query(
		    h, StorageDeviceProperty, &u, sizeof(u), &got,
		    "IOCTL_STORAGE_QUERY_PROPERTY(StorageDeviceProperty)") ||
	    got < offsetof(STORAGE_DEVICE_DESCRIPTOR, RawPropertiesLength))
		return;
	bus_name((int)u.d.BusType, p->bus_type, sizeof(p->bus_type));
	vendor = desc_str(u.b, got, u.d.VendorIdOffset);
	product = desc_str(u.b, got, u.d.ProductIdOffset);
	v[0] = m[0] = '\0';
	if (vendor)
		(void)probe_win_set_str(v, sizeof(v), vendor);
	if (product)
		(void)probe_win_set_str(m, sizeof(m), product);
	vt = probe_win_trim(v);
	mt = probe_win_trim(m);
	snprintf(model, sizeof(model), "%s%s%s", vt, *vt && *mt ? " " : "", mt);
	(void)probe_win_set_str(p->device_model, sizeof(p->device_model),
				model);
	/* the firmware revision, as the device reports it */
	if ((product = desc_str(u.b, got, u.d.ProductRevisionOffset))) {
		(void)probe_win_set_str(v, sizeof(v), product);
		(void)probe_win_set_str(p->firmware_rev,
					sizeof(p->firmware_rev),
					probe_win_trim(v));
	}
}

/* rotational and write_cache from the disk's seek penalty and cache. */
static void probe_disk_props(HANDLE h, struct probe *p)
{
	DEVICE_SEEK_PENALTY_DESCRIPTOR seek;
	STORAGE_WRITE_CACHE_PROPERTY cache;
	DWORD got;

	if (storage_query(h, StorageDeviceSeekPenaltyProperty, &seek,
			  sizeof(seek), &got,
			  "IOCTL_STORAGE_QUERY_PROPERTY(SeekPenalty)") &&
	    got >= offsetof(DEVICE_SEEK_PENALTY_DESCRIPTOR, IncursSeekPenalty) +
			    sizeof(seek.IncursSeekPenalty))
		p->rotational = seek.IncursSeekPenalty ? 1 : 0;
	/* the words of Linux's /sys/block/DISK/queue/write_cache */
	if (storage_query(h, StorageDeviceWriteCacheProperty, &cache,
			  sizeof(cache), &got,
			  "IOCTL_STORAGE_QUERY_PROPERTY(WriteCache)") &&
	    got >= offsetof(STORAGE_WRITE_CACHE_PROPERTY, WriteCacheEnabled) +
			    sizeof(cache.WriteCacheEnabled)) {
		if (cache.WriteCacheEnabled == WriteCacheEnabled)
			(void)probe_win_set_str(p->write_cache,
						sizeof(p->write_cache),
						"write back");
		else if (cache.WriteCacheEnabled == WriteCacheDisabled)
			(void)probe_win_set_str(p->write_cache,
						sizeof(p->write_cache),
						"write through");
	}
}

/* disk, device_model, bus_type, rotational, write_cache of disk n. */
void probe_win_disk(DWORD n, struct probe *p)
{
	char name[64];
	HANDLE h;

	snprintf(p->disk, sizeof(p->disk), "PhysicalDrive%lu",
		 (unsigned long)n);
	snprintf(name, sizeof(name), "\\\\.\\%s", p->disk);
	h = probe_win_open_device(name, "CreateFileW(PhysicalDrive)");
	if (h == INVALID_HANDLE_VALUE)
		return;
	probe_descriptor(h, p);
	probe_disk_props(h, p);
	CloseHandle(h);
}

/* The disk fields for the volume open at h, through its disk extents:
 * left unknown when the volume spans several disks. */
void probe_win_volume_disk(HANDLE h, struct probe *p)
{
	union {
		VOLUME_DISK_EXTENTS e;
		char b[sizeof(VOLUME_DISK_EXTENTS) + 31 * sizeof(DISK_EXTENT)];
	} u;
	DWORD got = 0;

	if (!probe_win_traced(
		    "IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS",
		    DeviceIoControl(h, IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS,
				    NULL, 0, &u, sizeof(u), &got, NULL)) ||
	    got < sizeof(VOLUME_DISK_EXTENTS) || u.e.NumberOfDiskExtents == 0)
		return;
	for (DWORD i = 1; i < u.e.NumberOfDiskExtents; i++)
		if (u.e.Extents[i].DiskNumber != u.e.Extents[0].DiskNumber)
			return;
	probe_win_disk(u.e.Extents[0].DiskNumber, p);
}
