// SPDX-License-Identifier: GPL-2.0-or-later
/* gen_seeds_stream.c - seeds of fuzz_stream
 *
 * Theory of operation
 *
 * gen_stream() writes guest streams in fuzz_stream's record format (see
 * fuzz_stream.c): valid frames (an ARP request for the gateway, an ICMP
 * echo request to it) with their length prefixes, whole, a byte at a
 * time, and with prefixes cut across chunks; then the framing cases the
 * relay must survive: lengths 0, 1 and 13, a frame one byte longer than
 * the largest (skipped), one of exactly the skip limit, a length of
 * 0xffffffff and one just beyond the skip limit (both close the
 * connection), and a frame cut by the end of the input.
 */

#include <stdint.h>
#include <string.h>

#include "fuzz_build.h"
#include "gen_seeds.h"

/* stream/stream.c's limits: the largest frame, the longest one skipped */
#define GEN_FRAME_MAX		(14 + 4 + 65535)
#define GEN_SKIP_MAX		(16 * GEN_FRAME_MAX)

static uint8_t gen_in[8192];
static size_t gen_len;

/**
 * gen_chunk() - append a record: a chunk of literal bytes
 * @data:	bytes
 * @len:	1 to 16384
 */
static void gen_chunk(const uint8_t *data, size_t len)
{
	if (len <= 0x80) {
		gen_in[gen_len++] = (uint8_t)(len - 1);
	} else {
		gen_in[gen_len++] = (uint8_t)(0x80 | (len - 1) >> 8);
		gen_in[gen_len++] = (uint8_t)(len - 1);
	}
	memcpy(gen_in + gen_len, data, len);
	gen_len += len;
}

/**
 * gen_filler() - append a record: a chunk of filler bytes (0xff)
 * @len:	1 to 0x3f0000
 */
static void gen_filler(size_t len)
{
	gen_in[gen_len++] = (uint8_t)(0xc0 + ((len - 1) >> 16));
	gen_in[gen_len++] = (uint8_t)((len - 1) >> 8);
	gen_in[gen_len++] = (uint8_t)(len - 1);
}

/**
 * gen_prefix() - append a record: a length prefix alone
 * @len:	the length it says
 */
static void gen_prefix(uint32_t len)
{
	uint8_t p[4];

	fz_put32(p, len);
	gen_chunk(p, 4);
}

/**
 * gen_framed() - a frame with its length prefix
 * @out:	output
 * @f:		frame
 * @len:	its length
 *
 * Return: bytes written
 */
static size_t gen_framed(uint8_t *out, const uint8_t *f, size_t len)
{
	fz_put32(out, (uint32_t)len);
	memcpy(out + 4, f, len);
	return 4 + len;
}

/**
 * gen_arp() - an ARP request for the gateway, with its prefix
 * @out:	output
 *
 * Return: bytes written
 */
static size_t gen_arp(uint8_t *out)
{
	static const uint8_t hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };
	uint8_t f[14 + 28];

	fz_eth(f, fz_bcast_mac, fz_guest_mac, FZ_ETH_ARP);
	memcpy(f + 14, hdr, sizeof(hdr));
	memcpy(f + 22, fz_guest_mac, 6);
	memcpy(f + 28, fz_guest4, 4);
	memset(f + 32, 0, 6);
	memcpy(f + 38, fz_gw4, 4);
	return gen_framed(out, f, sizeof(f));
}

/**
 * gen_ping() - an ICMP echo request to the gateway, with its prefix
 * @out:	output
 *
 * Return: bytes written
 */
static size_t gen_ping(uint8_t *out)
{
	static uint8_t f[FZ_FRAME_MAX];
	static const uint8_t body[12] = { 0x12, 0x34, 0, 1, 'p', 'i', 'n',
					  'g', 0, 1, 2, 3 };
	size_t n = fz_icmp(f, 0, fz_guest4, fz_gw4, 64, 8, 0, body,
			   sizeof(body));

	return gen_framed(out, f, n);
}

/**
 * gen_out() - write the input built so far as a seed, start a new one
 * @name:	seed name
 */
static void gen_out(const char *name)
{
	gen_write("fuzz_stream", name, gen_in, gen_len);
	gen_len = 0;
}

/**
 * gen_stream() - seeds of fuzz_stream
 */
void gen_stream(void)
{
	uint8_t two[512], arp[64];
	size_t n, a, i;

	a = gen_arp(arp);
	n = gen_arp(two);
	n += gen_ping(two + n);

	gen_chunk(two, n);
	gen_out("two_frames");

	for (i = 0; i < a; i++)
		gen_chunk(arp + i, 1);
	gen_out("bytewise");

	gen_chunk(two, 2);			/* prefix cut after 2 bytes */
	gen_chunk(two + 2, a - 2 + 3);		/* and the next after 3 */
	gen_chunk(two + a + 3, n - a - 3);
	gen_out("prefix_split");

	gen_prefix(0);
	gen_prefix(1);
	gen_chunk((const uint8_t *)"x", 1);
	gen_prefix(13);
	gen_chunk(arp + 4, 13);
	gen_chunk(arp, a);
	gen_out("short_lengths");

	gen_prefix(GEN_FRAME_MAX + 1);		/* skipped */
	gen_filler(GEN_FRAME_MAX + 1);
	gen_chunk(arp, a);
	gen_out("long_skipped");

	gen_prefix(GEN_SKIP_MAX);		/* the longest skipped */
	gen_filler(GEN_SKIP_MAX);
	gen_chunk(arp, a);
	gen_out("skip_max");

	gen_chunk(arp, a);
	gen_prefix(GEN_SKIP_MAX + 1);		/* closes */
	gen_chunk(arp, a);
	gen_out("beyond_skip");

	gen_chunk(arp, a);
	gen_prefix(0xffffffff);			/* closes */
	gen_chunk(arp, a);
	gen_out("huge_length");

	gen_chunk(arp, a);
	gen_chunk(two, a + 10);			/* cut by the end */
	gen_out("cut_at_end");
}
