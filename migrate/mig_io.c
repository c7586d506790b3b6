// SPDX-License-Identifier: GPL-2.0-or-later
/* mig_io.c - the migration state stream: records, checksum, bounds
 *
 * Theory of operation
 *
 * The state a source passt hands to a target (through the front-end's
 * pipe, vhost-user SET_DEVICE_STATE_FD) is a byte stream of our own
 * format (doc/migration.md): a 16-byte header (magic, major and minor
 * version), then records, each an 8-byte header (type, flags, payload
 * length) and its payload, and an END record last, which carries the
 * number of records before it and a CRC-32 of every byte before its
 * payload. Numbers are big-endian, fields are encoded one by one
 * (struct mig_buf), never as C structures.
 *
 * Writing (struct mig_out) is buffered; the pipe is written with a
 * timeout, and the first error sticks, so that a source can write all its
 * records and look at the result once. Reading (struct mig_in) comes from
 * the pipe, also with a timeout, or from memory (the fuzz target, unit
 * tests), through the same checks. The reader trusts nothing: a record
 * header has known flags only and a length its reader checks against its
 * type; a bad byte anywhere is found by the checksum at the end at the
 * latest; bytes after the END record, or a stream that ends before it,
 * are errors. Each failure records one message saying what was wrong and
 * at which offset, for the log.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mig_io.h"
#include "../util/syscalls.h"

/* System calls after start-up: the front-end's pipe, with timeouts
 * (migration is vhost-user's only)
 */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_CALL("read", "the state, from the front-end's pipe"),
	 SYSCALLS_CALL("write", "the state, to the front-end's pipe"),
	 SYSCALLS_CALL("poll|ppoll", "wait for the pipe, with a deadline"),
	 SYSCALLS_CALL("restart_syscall", "a poll() stopped (SIGSTOP, a "
		       "debugger) goes on through it"),
	 SYSCALLS_CALL_IF("fcntl", "the pipe's flags",
			  SYSCALLS_ARG_EQ(1, F_GETFL)),
	 SYSCALLS_CALL_IF("fcntl", "the pipe, non-blocking",
			  SYSCALLS_ARG_EQ(1, F_SETFL)));

/**
 * mig_crc32() - CRC-32 (IEEE 802.3, reflected), continued
 * @crc:	CRC so far (0 to start)
 * @p:		bytes
 * @len:	their number
 *
 * Return: the CRC including @p
 */
uint32_t mig_crc32(uint32_t crc, const void *p, size_t len)
{
	static uint32_t table[256];
	const uint8_t *b = p;
	size_t i;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t v = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				v = (v & 1) ? 0xedb88320U ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
	}

	crc = ~crc;
	for (i = 0; i < len; i++)
		crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/**
 * mig_wait() - wait until a descriptor can be read or written
 * @fd:		descriptor
 * @events:	POLLIN or POLLOUT
 *
 * Return: 0 when ready, -ETIMEDOUT, or other -errno
 */
static int mig_wait(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, MIG_IO_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/**
 * mig_nonblock() - make a descriptor non-blocking: waits are poll()'s
 * @fd:		descriptor
 */
static void mig_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags >= 0 && !(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/**
 * mig_out_flush() - write the buffered bytes to the pipe
 * @o:		stream
 */
static void mig_out_flush(struct mig_out *o)
{
	size_t done = 0;

	while (!o->err && done < o->len) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			o->err = mig_wait(o->fd, POLLOUT);
			continue;
		}
		if (n <= 0)
			o->err = n < 0 ? -errno : -EPIPE;
		else
			done += (size_t)n;
	}
	o->len = 0;
}

/**
 * mig_out_init() - start writing a state
 * @o:		stream
 * @fd:		where to
 */
void mig_out_init(struct mig_out *o, int fd)
{
	uint8_t h[MIG_HDR_LEN] = { 0 };
	struct mig_buf b = { .p = h, .size = sizeof(h) };

	o->fd = fd;
	o->len = 0;
	o->crc = 0;
	o->records = 0;
	o->bytes = 0;
	o->err = 0;
	mig_nonblock(fd);

	mig_put_bytes(&b, MIG_MAGIC, MIG_MAGIC_LEN);
	mig_put_u16(&b, MIG_VERSION_MAJOR);
	mig_put_u16(&b, MIG_VERSION_MINOR);
	mig_put_u32(&b, 0);
	mig_out_bytes(o, h, sizeof(h));
}

/**
 * mig_out_bytes() - write bytes
 * @o:		stream
 * @p:		bytes
 * @len:	their number
 */
void mig_out_bytes(struct mig_out *o, const void *p, size_t len)
{
	const uint8_t *s = p;

	o->crc = mig_crc32(o->crc, p, len);
	o->bytes += len;
	while (len && !o->err) {
		size_t n = sizeof(o->buf) - o->len;

		if (n > len)
			n = len;
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		s += n;
		len -= n;
		if (o->len == sizeof(o->buf))
			mig_out_flush(o);
	}
}

/**
 * mig_out_rec() - write a record header: its payload follows
 * @o:		stream
 * @type:	MIG_REC_*
 * @len:	payload length
 */
void mig_out_rec(struct mig_out *o, uint16_t type, uint32_t len)
{
	uint8_t h[MIG_REC_HDR_LEN];
	struct mig_buf b = { .p = h, .size = sizeof(h) };

	mig_put_u16(&b, type);
	mig_put_u16(&b, 0);
	mig_put_u32(&b, len);
	mig_out_bytes(o, h, sizeof(h));
	o->records++;
}

/**
 * mig_out_small() - write a whole record of encoded fields
 * @o:		stream
 * @type:	MIG_REC_*
 * @b:		fields, @b->pos bytes of them
 */
void mig_out_small(struct mig_out *o, uint16_t type, const struct mig_buf *b)
{
	mig_out_rec(o, type, (uint32_t)b->pos);
	mig_out_bytes(o, b->p, b->pos);
}

/**
 * mig_out_end() - write the END record, flush
 * @o:		stream
 *
 * Return: 0 if the whole state was written, or the first error
 */
int mig_out_end(struct mig_out *o)
{
	uint8_t e[MIG_END_LEN] = { 0 };
	struct mig_buf b = { .p = e, .size = sizeof(e) };
	uint32_t records = o->records, crc;

	mig_out_rec(o, MIG_REC_END, sizeof(e));
	crc = o->crc;
	mig_put_u32(&b, records);
	mig_put_u32(&b, crc);
	mig_out_bytes(o, e, sizeof(e));
	mig_out_flush(o);
	return o->err;
}

/**
 * mig_in_init() - start reading a state
 * @in:		stream
 * @fd:		where from, -1 to read @mem instead
 * @mem:	the state, in memory, if @fd is -1
 * @mem_len:	its length
 */
void mig_in_init(struct mig_in *in, int fd, const uint8_t *mem,
		 size_t mem_len)
{
	in->fd = fd;
	in->mem = mem;
	in->mem_len = mem_len;
	in->pos = 0;
	in->crc = 0;
	in->records = 0;
	in->minor = 0;
	in->check_only = false;
	in->blen = in->boff = 0;
	in->why[0] = '\0';
	if (fd >= 0)
		mig_nonblock(fd);
}

/**
 * mig_in_fail() - record what is wrong with the state, at this offset
 * @in:		stream
 * @fmt:	message
 * @...:	its arguments
 *
 * The first message stays: later ones are consequences.
 *
 * Return: -EPROTO
 */
int mig_in_fail(struct mig_in *in, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (in->why[0])
		return -EPROTO;
	n = snprintf(in->why, sizeof(in->why), "at byte %llu: ",
		     (unsigned long long)in->pos);
	if (n < 0 || (size_t)n >= sizeof(in->why))
		return -EPROTO;
	va_start(ap, fmt);
	vsnprintf(in->why + n, sizeof(in->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/**
 * mig_in_fill() - refill the input buffer from the pipe
 * @in:		stream, reading a descriptor, buffer consumed
 *
 * Return: bytes now in the buffer, 0 at the end of the stream, -errno
 */
static ssize_t mig_in_fill(struct mig_in *in)
{
	for (;;) {
		ssize_t n = read(in->fd, in->buf, sizeof(in->buf));
		int rc;

		if (n >= 0) {
			in->blen = (size_t)n;
			in->boff = 0;
			return n;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if ((rc = mig_wait(in->fd, POLLIN)))
			return rc;
	}
}

/**
 * mig_in_get() - take the next bytes of the stream
 * @in:		stream
 * @p:		destination, NULL to skip them
 * @len:	their number
 *
 * Return: 0, or -EPROTO if the stream ends first, other -errno
 */
static int mig_in_get(struct mig_in *in, uint8_t *p, uint64_t len)
{
	while (len) {
		const uint8_t *src;
		size_t n;

		if (in->fd < 0) {
			if (in->pos >= in->mem_len)
				goto short_stream;
			src = in->mem + in->pos;
			n = in->mem_len - (size_t)in->pos;
		} else {
			if (in->boff == in->blen) {
				ssize_t r = mig_in_fill(in);

				if (r < 0) {
					mig_in_fail(in, "can't read the state: %s",
						    strerror((int)-r));
					return (int)r;
				}
				if (!r)
					goto short_stream;
			}
			src = in->buf + in->boff;
			n = in->blen - in->boff;
			in->boff += n < len ? n : (size_t)len;
		}

		if (n > len)
			n = (size_t)len;
		in->crc = mig_crc32(in->crc, src, n);
		if (p) {
			memcpy(p, src, n);
			p += n;
		}
		in->pos += n;
		len -= n;
	}
	return 0;

short_stream:
	return mig_in_fail(in, "the state ends before its END record "
			   "(truncated?)");
}

/**
 * mig_in_read() - read bytes of a record's payload
 * @in:		stream
 * @p:		destination
 * @len:	their number
 *
 * Return: 0, or negative errno (why recorded)
 */
int mig_in_read(struct mig_in *in, void *p, size_t len)
{
	return mig_in_get(in, p, len);
}

/**
 * mig_in_skip() - skip bytes of a record's payload
 * @in:		stream
 * @len:	their number
 *
 * Return: 0, or negative errno (why recorded)
 */
int mig_in_skip(struct mig_in *in, uint64_t len)
{
	return mig_in_get(in, NULL, len);
}

/**
 * mig_in_header() - read and check the stream header
 * @in:		stream
 *
 * A different major version is refused; a newer minor one is read as far
 * as we know it (doc/migration.md, "Versions").
 *
 * Return: 0, or negative errno (why recorded)
 */
int mig_in_header(struct mig_in *in)
{
	uint8_t h[MIG_HDR_LEN];
	struct mig_buf b = { .p = h, .size = sizeof(h) };
	uint16_t major;
	int rc;

	if ((rc = mig_in_get(in, h, sizeof(h))))
		return rc;
	if (memcmp(h, MIG_MAGIC, MIG_MAGIC_LEN) != 0)
		return mig_in_fail(in, "not a state of this relay (bad "
				   "magic): from another implementation?");
	b.pos = MIG_MAGIC_LEN;
	major = mig_get_u16(&b);
	in->minor = mig_get_u16(&b);
	if (major != MIG_VERSION_MAJOR)
		return mig_in_fail(in, "state version %u.%u, this relay "
				   "reads version %u.x only", major,
				   in->minor, MIG_VERSION_MAJOR);
	if (mig_get_u32(&b))
		return mig_in_fail(in, "reserved header field not zero");
	return 0;
}

/**
 * mig_in_rec() - read the next record header
 * @in:		stream
 * @r:		filled
 *
 * Return: 0, or negative errno (why recorded)
 */
int mig_in_rec(struct mig_in *in, struct mig_rec *r)
{
	uint8_t h[MIG_REC_HDR_LEN];
	struct mig_buf b = { .p = h, .size = sizeof(h) };
	int rc;

	r->at = in->pos;
	if ((rc = mig_in_get(in, h, sizeof(h))))
		return rc;
	in->records++;
	r->type = mig_get_u16(&b);
	r->flags = mig_get_u16(&b);
	r->len = mig_get_u32(&b);
	if (r->flags & ~MIG_REC_FLAGS)
		return mig_in_fail(in, "record of type %u with unknown flags "
				   "%#x", r->type, r->flags);
	return 0;
}

/**
 * mig_in_end() - check the END record, and that nothing follows it
 * @in:		stream, its header just read
 * @r:		that header
 *
 * Return: 0, or negative errno (why recorded)
 */
int mig_in_end(struct mig_in *in, const struct mig_rec *r)
{
	uint32_t crc = in->crc, records = in->records - 1, want_records;
	uint8_t e[MIG_END_LEN] = { 0 };
	struct mig_buf b = { .p = e, .size = sizeof(e) };
	int rc;

	if (r->len != MIG_END_LEN)
		return mig_in_fail(in, "END record of %u bytes, expected %u",
				   r->len, MIG_END_LEN);
	if ((rc = mig_in_get(in, e, sizeof(e))))
		return rc;
	want_records = mig_get_u32(&b);
	if (mig_get_u32(&b) != crc)
		return mig_in_fail(in, "checksum mismatch: the state was "
				   "corrupted on the way");
	if (want_records != records)
		return mig_in_fail(in, "%u records, the END record says %u",
				   records, want_records);

	/* The end of the stream must follow */
	if (in->fd < 0) {
		if (in->pos != in->mem_len)
			return mig_in_fail(in, "data after the END record");
		return 0;
	}
	if (in->boff < in->blen)
		return mig_in_fail(in, "data after the END record");
	rc = (int)mig_in_fill(in);
	if (rc < 0)
		return mig_in_fail(in, "can't read the end of the state: %s",
				   strerror(-rc));
	if (rc > 0)
		return mig_in_fail(in, "data after the END record");
	return 0;
}

/**
 * mig_in_small() - read a record of fixed fields, check its length
 * @in:		stream, the record's header just read
 * @r:		that header
 * @what:	the record, for messages
 * @known:	its length in our version
 * @buf:	MIG_REC_SMALL_MAX bytes, filled with the payload
 * @b:		set up to decode them
 *
 * A writer of our minor version or an older one writes exactly @known
 * bytes; a newer one may append fields, which we skip (doc/migration.md).
 *
 * Return: 0, or negative errno (why recorded)
 */
int mig_in_small(struct mig_in *in, const struct mig_rec *r, const char *what,
		 size_t known, uint8_t *buf, struct mig_buf *b)
{
	bool newer = in->minor > MIG_VERSION_MINOR;
	int rc;

	if (r->len < known || (!newer && r->len != known) ||
	    r->len > MIG_REC_SMALL_MAX)
		return mig_in_fail(in, "%s record of %u bytes, expected %zu",
				   what, r->len, known);
	if ((rc = mig_in_read(in, buf, r->len)))
		return rc;
	b->p = buf;
	b->size = r->len;
	b->pos = 0;
	b->bad = false;
	return 0;
}

/**
 * mig_put_u8() - encode an 8-bit field
 * @b:		fields
 * @v:		value
 */
void mig_put_u8(struct mig_buf *b, uint8_t v)
{
	mig_put_bytes(b, &v, 1);
}

/**
 * mig_put_u16() - encode a 16-bit field, big-endian
 * @b:		fields
 * @v:		value
 */
void mig_put_u16(struct mig_buf *b, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	mig_put_bytes(b, x, sizeof(x));
}

/**
 * mig_put_u32() - encode a 32-bit field, big-endian
 * @b:		fields
 * @v:		value
 */
void mig_put_u32(struct mig_buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };

	mig_put_bytes(b, x, sizeof(x));
}

/**
 * mig_put_bytes() - encode bytes as they are
 * @b:		fields
 * @p:		bytes
 * @len:	their number
 */
void mig_put_bytes(struct mig_buf *b, const void *p, size_t len)
{
	if (b->bad || len > b->size - b->pos) {
		b->bad = true;
		return;
	}
	memcpy(b->p + b->pos, p, len);
	b->pos += len;
}

/**
 * mig_get_bytes() - decode bytes as they are
 * @b:		fields
 * @p:		destination (zeroes if the record is too short)
 * @len:	their number
 */
void mig_get_bytes(struct mig_buf *b, void *p, size_t len)
{
	if (b->bad || len > b->size - b->pos) {
		b->bad = true;
		memset(p, 0, len);
		return;
	}
	memcpy(p, b->p + b->pos, len);
	b->pos += len;
}

/**
 * mig_get_u8() - decode an 8-bit field
 * @b:		fields
 *
 * Return: value, 0 past the end
 */
uint8_t mig_get_u8(struct mig_buf *b)
{
	uint8_t v;

	mig_get_bytes(b, &v, 1);
	return v;
}

/**
 * mig_get_u16() - decode a 16-bit big-endian field
 * @b:		fields
 *
 * Return: value, 0 past the end
 */
uint16_t mig_get_u16(struct mig_buf *b)
{
	uint8_t x[2];

	mig_get_bytes(b, x, sizeof(x));
	return (uint16_t)(x[0] << 8 | x[1]);
}

/**
 * mig_get_u32() - decode a 32-bit big-endian field
 * @b:		fields
 *
 * Return: value, 0 past the end
 */
uint32_t mig_get_u32(struct mig_buf *b)
{
	uint8_t x[4];

	mig_get_bytes(b, x, sizeof(x));
	return (uint32_t)x[0] << 24 | (uint32_t)x[1] << 16 |
	       (uint32_t)x[2] << 8 | x[3];
}
