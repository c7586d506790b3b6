// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vu_msg.c - libFuzzer target: the vhost-user message stream
 *
 * Theory of operation
 *
 * The input is what a front-end sends on one connection: a sequence of
 * records, each one message, sent with its descriptors as the header's
 * ancillary data, then the connection is closed (fuzz_vu.c). Nothing is
 * fixed up: any request number, any flags, a size field that says more
 * or less than the payload that follows (so a message can be cut, run
 * into the next one, or claim more than any request takes), descriptors
 * where none belong and none where they do. Record:
 *
 *   byte 0	bits 0-3: descriptors to pass (0 to 15; the relay takes 8)
 *		bits 4-5: their kind: 0 eventfds; 1 the guest memory (a
 *		memfd of FUZZ_VU_MEM_SIZE bytes), then eventfds; 2 pipes
 *		(neither mappable nor eventfds); 3 the guest memory each
 *		bit 6: write 1 to each eventfd first (a kick already there)
 *		bit 7: send the header alone first, the payload separately
 *   byte 1	request
 *   byte 2	header flags (version in bits 0-1, bit 2 reply, bit 3
 *		need_reply)
 *   bytes 3-4	the header's size field, little-endian
 *   bytes 5-6	payload bytes taken from the input, little-endian (as
 *		many as are left, at most)
 *   payload
 *
 * At most FUZZ_MSG_MAX records and FUZZ_FDS_MAX descriptors per input.
 * Once the connection is gone, the relay must have closed every
 * descriptor it was given (checked by fuzz_vu_end()).
 */

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "fuzz_vu.h"
#include "../tools/lib/vu_client.h"

#define FUZZ_MSG_MAX	128	/* records per input */
#define FUZZ_FDS_MAX	64	/* descriptors per input */
#define FUZZ_REC_HDR	7

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fuzz_msg_fds() - make the descriptors of one record
 * @ctl:	record byte 0
 * @fds:	filled, up to 15
 *
 * Return: number made
 */
static unsigned int fuzz_msg_fds(uint8_t ctl, int *fds)
{
	unsigned int n = ctl & 0x0f, kind = (ctl >> 4) & 3, i;

	for (i = 0; i < n; i++) {
		int p[2];

		if ((kind == 1 && !i) || kind == 3) {
			fds[i] = dup(fuzz_vu_memfd());
		} else if (kind == 2 && !pipe2(p, O_CLOEXEC)) {
			close(p[1]);
			fds[i] = p[0];
		} else {
			fds[i] = fuzz_vu_eventfd();
			if (ctl & 0x40) {
				uint64_t one = 1;

				if (write(fds[i], &one, sizeof(one)) < 0)
					break;
			}
		}
		if (fds[i] < 0)
			break;
	}
	return i;
}

/**
 * fuzz_msg_send() - send one record as the front-end would
 * @fd:		socket
 * @ctl:	record byte 0
 * @hdr:	header: request, flags, size
 * @p:		payload
 * @len:	its length
 * @nfds:	descriptors still allowed this input, updated
 *
 * Nothing waits: the relay runs in this thread, and reads only once the
 * whole input is sent.
 *
 * Return: true if all of it was sent, false if our socket is full
 */
static bool fuzz_msg_send(int fd, uint8_t ctl, const uint32_t *hdr,
			  const uint8_t *p, size_t len, unsigned int *nfds)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)hdr, .iov_len = 12 },
		{ .iov_base = (void *)p, .iov_len = len },
	};
	int fds[15];
	unsigned int n = 0, i;
	ssize_t sent;

	if ((ctl & 0x0f) <= *nfds)
		n = fuzz_msg_fds(ctl, fds);
	*nfds -= n;

	if (ctl & 0x80) {
		sent = vuc_sendmsg(fd, iov, 1, fds, n, MSG_DONTWAIT);
		if (sent == 12 && len) {
			ssize_t more = vuc_sendmsg(fd, &iov[1], 1, NULL, 0,
						   MSG_DONTWAIT);

			sent = more < 0 ? 12 : 12 + more;
		}
	} else {
		sent = vuc_sendmsg(fd, iov, 2, fds, n, MSG_DONTWAIT);
	}

	for (i = 0; i < n; i++)
		close(fds[i]);
	return sent == (ssize_t)(12 + len);
}

/**
 * LLVMFuzzerTestOneInput() - one front-end connection, message by message
 * @data:	records
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nmsg = 0, nfds = FUZZ_FDS_MAX;
	size_t off = 0;
	int fd;

	fd = fuzz_vu_connect();

	while (size - off >= FUZZ_REC_HDR && nmsg++ < FUZZ_MSG_MAX) {
		const uint8_t *r = data + off;
		uint32_t hdr[3] = { r[1], r[2], (uint32_t)(r[3] | r[4] << 8) };
		size_t len = (size_t)(r[5] | r[6] << 8);

		off += FUZZ_REC_HDR;
		if (len > size - off)
			len = size - off;
		if (!fuzz_msg_send(fd, r[0], hdr, data + off, len, &nfds))
			break;
		off += len;
	}

	fuzz_vu_end(fd);
	fuzz_tick();
	return 0;
}
