// SPDX-License-Identifier: GPL-2.0-or-later
/* pcap.c - capture of guest-side frames to a pcap file (-p/--pcap)
 *
 * Theory of operation
 *
 * pcap_init() creates (or empties) the file once at start-up, before
 * privileges are dropped, without following a symbolic link at its path
 * (outfile.c), and writes the classic libpcap global header:
 * microsecond timestamps, host byte order (readers detect it from the
 * magic number), link type Ethernet, snapshot length PCAP_SNAPLEN.
 *
 * tap/tap.c calls pcap_frame() for every frame from the guest and
 * pcap_frames() for every batch of frames handed to the guest. Each
 * record is a 16-byte record header followed by the frame; a batch is
 * one writev() with the record headers and the caller's own buffers, so
 * frames are not copied. All records of one call share one timestamp
 * (CLOCK_REALTIME, read once).
 *
 * A failed or short write (disk full, file system error) would leave a
 * record cut in the middle, and every record after it unreadable: the
 * capture stops there, with a warning, and the relay carries on.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "pcap.h"
#include "outfile.h"
#include "log.h"
#include "util.h"
#include "syscalls.h"

/* System calls after start-up: frames appended to the capture file */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("writev", "records and their frames, to the file"),
	 SYSCALLS_CALL("clock_gettime", "record times, if the vDSO can't"));

#define PCAP_MAGIC		0xa1b2c3d4	/* microsecond timestamps */
#define PCAP_VERSION_MAJOR	2
#define PCAP_VERSION_MINOR	4
#define PCAP_LINKTYPE_ETHERNET	1

/* Buffers in one writev(): a header and the frame's buffers per record */
#define PCAP_IOV_MAX		1024
/* Records in one writev() */
#define PCAP_BATCH		(PCAP_IOV_MAX / 2)

/**
 * struct pcap_file_hdr - libpcap global header
 * @magic:	PCAP_MAGIC, in our byte order
 * @major:	format version, major
 * @minor:	format version, minor
 * @thiszone:	offset of timestamps from UTC, always 0
 * @sigfigs:	timestamp accuracy, always 0
 * @snaplen:	longest captured length of a record
 * @linktype:	PCAP_LINKTYPE_ETHERNET
 */
struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

/**
 * struct pcap_rec_hdr - libpcap record header
 * @ts_sec:	timestamp, seconds
 * @ts_usec:	timestamp, microseconds
 * @caplen:	bytes of the frame stored in the file
 * @len:	length of the frame
 */
struct pcap_rec_hdr {
	uint32_t ts_sec;
	uint32_t ts_usec;
	uint32_t caplen;
	uint32_t len;
};

static int pcap_fd = -1;			/* capture file, -1 if none */
static struct pcap_rec_hdr pcap_rec[PCAP_BATCH];
static struct iovec pcap_iov[PCAP_IOV_MAX];

/**
 * pcap_init() - create the capture file and write its global header
 * @path:	file to create or truncate
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int pcap_init(const char *path)
{
	const struct pcap_file_hdr h = {
		.magic		= PCAP_MAGIC,
		.major		= PCAP_VERSION_MAJOR,
		.minor		= PCAP_VERSION_MINOR,
		.snaplen	= PCAP_SNAPLEN,
		.linktype	= PCAP_LINKTYPE_ETHERNET,
	};
	int fd, ret;

	fd = outfile_open(path, O_WRONLY, S_IRUSR | S_IWUSR);
	if (fd < 0) {
		err("can't create capture file %s: %s%s", path,
		    outfile_strerror(fd), fd == -EACCES || fd == -ENOENT ?
		    " (check the directory and its permissions)" : "");
		return fd;
	}

	if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		ret = errno ? -errno : -EIO;
		err("can't write the header of capture file %s: %s", path,
		    strerror(-ret));
		close(fd);
		return ret;
	}

	pcap_fd = fd;
	info("Saving packet capture to %s", path);
	return 0;
}

/**
 * pcap_active() - is a capture running?
 *
 * Return: true if frames are being recorded
 */
bool pcap_active(void)
{
	return pcap_fd >= 0;
}

/**
 * pcap_stop() - a write failed: stop capturing, keep the file as it is
 * @why:	errno of the failure, 0 for a short write
 */
static void pcap_stop(int why)
{
	warn("capture file write failed (%s), capture stopped",
	     why ? strerror(why) : "short write, disk full?");
	close(pcap_fd);
	pcap_fd = -1;
}

/**
 * pcap_write() - write the records gathered in pcap_iov
 * @niov:	buffers used in pcap_iov
 * @total:	bytes they hold
 */
static void pcap_write(size_t niov, size_t total)
{
	ssize_t n;

	if (!niov)
		return;

	do
		n = writev(pcap_fd, pcap_iov, (int)niov);
	while (n < 0 && errno == EINTR);

	if (n < 0)
		pcap_stop(errno);
	else if ((size_t)n != total)
		pcap_stop(0);
}

/**
 * pcap_now() - current wall clock time for record headers
 * @ts:		filled with the time
 */
static void pcap_now(struct timespec *ts)
{
	if (clock_gettime(CLOCK_REALTIME, ts))
		memset(ts, 0, sizeof(*ts));
}

/**
 * pcap_frames() - record frames, given as groups of buffers
 * @iov:		@nframes groups of @bufs_per_frame buffers, one
 *			group per frame, starting with the Ethernet header
 * @bufs_per_frame:	buffers per frame
 * @nframes:		number of frames
 */
void pcap_frames(const struct iovec *iov, size_t bufs_per_frame,
		 size_t nframes)
{
	size_t niov = 0, nrec = 0, total = 0, i, j;
	struct timespec ts;

	if (pcap_fd < 0 || !bufs_per_frame ||
	    bufs_per_frame + 1 > PCAP_IOV_MAX)
		return;

	pcap_now(&ts);

	for (i = 0; i < nframes && pcap_fd >= 0; i++) {
		const struct iovec *f = iov + i * bufs_per_frame;
		struct pcap_rec_hdr *h;
		size_t len = 0, room;

		if (niov + 1 + bufs_per_frame > PCAP_IOV_MAX ||
		    nrec == PCAP_BATCH) {
			pcap_write(niov, total);
			niov = nrec = total = 0;
			if (pcap_fd < 0)
				return;
		}

		for (j = 0; j < bufs_per_frame; j++)
			len += f[j].iov_len;

		h = &pcap_rec[nrec++];
		h->ts_sec = (uint32_t)ts.tv_sec;
		h->ts_usec = (uint32_t)(ts.tv_nsec / 1000);
		h->len = (uint32_t)len;
		h->caplen = (uint32_t)MIN(len, (size_t)PCAP_SNAPLEN);
		pcap_iov[niov].iov_base = h;
		pcap_iov[niov++].iov_len = sizeof(*h);
		total += sizeof(*h);

		/* Longer frames are cut at the snapshot length */
		room = h->caplen;
		for (j = 0; j < bufs_per_frame && room; j++) {
			size_t l = MIN(f[j].iov_len, room);

			if (!l)
				continue;
			pcap_iov[niov].iov_base = f[j].iov_base;
			pcap_iov[niov++].iov_len = l;
			total += l;
			room -= l;
		}
	}

	if (pcap_fd >= 0)
		pcap_write(niov, total);
}

/**
 * pcap_frame() - record one frame from a single buffer
 * @frame:	frame, starting with the Ethernet header
 * @len:	its length
 */
void pcap_frame(const uint8_t *frame, size_t len)
{
	struct iovec iov = { .iov_base = (void *)frame, .iov_len = len };

	pcap_frames(&iov, 1, 1);
}
