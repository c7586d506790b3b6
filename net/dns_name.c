// SPDX-License-Identifier: GPL-2.0-or-later
/* dns_name.c - domain names in DNS wire format, for DHCP, DHCPv6 and NDP
 *
 * Theory of operation: the domain search list and the client's name go to
 * the guest in three protocols (DHCP option 119, DHCPv6 option 24, the
 * router advertisement's DNSSL option), all in the wire format of RFC 1035
 * section 3.1: each label preceded by its length, a zero-length root
 * label at the end, no compression. Names that are invalid (an empty or
 * over-long label, over 255 bytes) or that do not fit are left out whole,
 * never cut.
 */

#include <string.h>

#include "dns_name.h"
#include "../guest/follow.h"
#include "../util/util.h"

#define DNS_NAME_MAX		255	/* RFC 1035, 2.3.4 */
#define DNS_LABEL_MAX		63

/**
 * dns_name_encode() - encode a domain name in DNS wire format (RFC 1035)
 * @out:	where the encoded name goes
 * @size:	bytes available at @out
 * @name:	dotted domain name, a trailing dot is allowed
 *
 * Return: bytes written, root label included, 0 if @name is empty,
 *	   invalid (empty or long label, longer than 255 bytes) or does not
 *	   fit
 */
size_t dns_name_encode(uint8_t *out, size_t size, const char *name)
{
	size_t n = 0;

	if (!*name || *name == '.')
		return 0;

	while (*name) {
		const char *dot = strchr(name, '.');
		size_t llen = dot ? (size_t)(dot - name) : strlen(name);

		if (!llen || llen > DNS_LABEL_MAX)
			return 0;
		/* Length byte, label, and the final root label */
		if (n + 1 + llen + 1 > MIN(size, DNS_NAME_MAX))
			return 0;

		out[n++] = (uint8_t)llen;
		memcpy(out + n, name, llen);
		n += llen;

		name += llen;
		if (*name == '.')
			name++;
	}

	out[n++] = 0;
	return n;
}

/**
 * dns_search_encode() - encode the domain search list in force
 * @c:		execution context (search list: follow_search_name())
 * @out:	where the encoded names go, one after the other
 * @size:	bytes available at @out
 * @ends:	set on return: offset just past each encoded name
 *
 * Names that are invalid or do not fit are skipped.
 *
 * Return: number of names encoded; their total length is ends[n - 1]
 */
size_t dns_search_encode(const struct ctx *c, uint8_t *out, size_t size,
			 size_t ends[SEARCH_MAX])
{
	int i, count = follow_search_count(c);
	size_t len = 0, n = 0;

	for (i = 0; i < count && i < SEARCH_MAX; i++) {
		const char *name = follow_search_name(c, i);
		size_t l;

		if (!memchr(name, '\0', SEARCH_LEN_MAX + 1))
			continue;
		l = dns_name_encode(out + len, size - len, name);
		if (!l)
			continue;
		len += l;
		ends[n++] = len;
	}
	return n;
}
