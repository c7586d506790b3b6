/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig_io.h - the migration state stream: records, checksum, bounds
 *
 * See migrate/mig_io.c for the theory of operation and doc/migration.md
 * for the format.
 */
#ifndef MIGRATE_MIG_IO_H
#define MIGRATE_MIG_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Stream header: magic, major and minor version, reserved (zero) */
#define MIG_MAGIC		"RELAYMIG"
#define MIG_MAGIC_LEN		8
#define MIG_HDR_LEN		16
#define MIG_VERSION_MAJOR	1
#define MIG_VERSION_MINOR	0

/* Record header: type, flags (u16 each), payload length (u32) */
#define MIG_REC_HDR_LEN		8
#define MIG_REC_OPTIONAL	0x0001	/* unknown type: skip, don't refuse */
#define MIG_REC_FLAGS		MIG_REC_OPTIONAL

/* Record types */
#define MIG_REC_GUEST		1	/* the guest's MAC and addresses */
#define MIG_REC_TCP_CONN	2	/* one TCP connection */
#define MIG_REC_TCP_DATA	3	/* its queued data */
#define MIG_REC_END		0x7fff	/* count and checksum, last */

/* Records other than data ones are at most this long */
#define MIG_REC_SMALL_MAX	1024
/* The END record's payload: records before it, CRC-32 */
#define MIG_END_LEN		8

/* A read or write of the stream waits at most this long */
#define MIG_IO_TIMEOUT_MS	10000

/* Buffered output and input */
#define MIG_OUT_BUF		(64 * 1024)
#define MIG_IN_BUF		(64 * 1024)
#define MIG_WHY_LEN		160

/**
 * struct mig_out - a state being written
 * @fd:		where to (a pipe from the front-end)
 * @len:	bytes in @buf
 * @crc:	CRC-32 of everything written so far
 * @records:	records written so far
 * @bytes:	bytes written so far
 * @err:	first error, negative errno; 0 if none
 * @buf:	output buffer
 */
struct mig_out {
	int fd;
	size_t len;
	uint32_t crc;
	uint32_t records;
	uint64_t bytes;
	int err;
	uint8_t buf[MIG_OUT_BUF];
};

/**
 * struct mig_rec - a record header, as read
 * @type:	MIG_REC_*
 * @flags:	MIG_REC_OPTIONAL
 * @len:	payload length
 * @at:		offset of the header in the stream
 */
struct mig_rec {
	uint16_t type;
	uint16_t flags;
	uint32_t len;
	uint64_t at;
};

/**
 * struct mig_in - a state being read
 * @fd:		where from, -1 when reading @mem
 * @mem:	the whole state in memory (fuzzing, unit tests), or NULL
 * @mem_len:	its length
 * @pos:	bytes consumed so far
 * @crc:	CRC-32 of the bytes consumed so far
 * @records:	record headers read so far
 * @minor:	minor version of the writer
 * @check_only:	validate, apply nothing (sections look at this)
 * @blen:	bytes in @buf
 * @boff:	bytes of @buf consumed
 * @why:	what was wrong, for the log: first failure only
 * @buf:	input buffer (reading @fd)
 */
struct mig_in {
	int fd;
	const uint8_t *mem;
	size_t mem_len;
	uint64_t pos;
	uint32_t crc;
	uint32_t records;
	uint16_t minor;
	bool check_only;
	size_t blen;
	size_t boff;
	char why[MIG_WHY_LEN];
	uint8_t buf[MIG_IN_BUF];
};

/**
 * struct mig_buf - fields of one record, encoded or decoded (big-endian)
 * @p:		bytes
 * @size:	their number
 * @pos:	next field
 * @bad:	a field went past @size (decoding: the record is short)
 */
struct mig_buf {
	uint8_t *p;
	size_t size;
	size_t pos;
	bool bad;
};

uint32_t mig_crc32(uint32_t crc, const void *p, size_t len);

void mig_out_init(struct mig_out *o, int fd);
void mig_out_bytes(struct mig_out *o, const void *p, size_t len);
void mig_out_rec(struct mig_out *o, uint16_t type, uint32_t len);
void mig_out_small(struct mig_out *o, uint16_t type, const struct mig_buf *b);
int mig_out_end(struct mig_out *o);

void mig_in_init(struct mig_in *in, int fd, const uint8_t *mem,
		 size_t mem_len);
int __attribute__((format(printf, 2, 3)))
mig_in_fail(struct mig_in *in, const char *fmt, ...);
int mig_in_header(struct mig_in *in);
int mig_in_rec(struct mig_in *in, struct mig_rec *r);
int mig_in_read(struct mig_in *in, void *p, size_t len);
int mig_in_skip(struct mig_in *in, uint64_t len);
int mig_in_end(struct mig_in *in, const struct mig_rec *r);
int mig_in_small(struct mig_in *in, const struct mig_rec *r, const char *what,
		 size_t known, uint8_t *buf, struct mig_buf *b);

void mig_put_u8(struct mig_buf *b, uint8_t v);
void mig_put_u16(struct mig_buf *b, uint16_t v);
void mig_put_u32(struct mig_buf *b, uint32_t v);
void mig_put_bytes(struct mig_buf *b, const void *p, size_t len);
uint8_t mig_get_u8(struct mig_buf *b);
uint16_t mig_get_u16(struct mig_buf *b);
uint32_t mig_get_u32(struct mig_buf *b);
void mig_get_bytes(struct mig_buf *b, void *p, size_t len);

#endif /* MIGRATE_MIG_IO_H */
