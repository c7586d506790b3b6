// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_value.c - parsers for the values of command-line options
 *
 * Theory of operation: each function checks one kind of option value
 * completely (no trailing garbage, no overflow, no silent truncation) and
 * returns 0 or -1; the caller names the option in its error message. None
 * of them logs or exits, so they are easy to unit-test. Numbers are
 * decimal only and must start with a digit (strtoul() alone would accept
 * spaces and a minus sign).
 */

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "conf_internal.h"

/**
 * conf_ulong() - parse a decimal number in a range
 * @s:		text
 * @min:	smallest accepted value
 * @max:	largest accepted value
 * @out:	parsed value
 *
 * Return: 0 on success, -1 if @s is not a number in [@min, @max]
 */
int conf_ulong(const char *s, unsigned long min, unsigned long max,
	       unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;

	*out = v;
	return 0;
}

/**
 * conf_bytes() - parse a size in bytes, with an optional binary suffix
 * @s:		text: a decimal number, optionally followed by K, M or G
 *		(case-insensitive, powers of 1024)
 * @min:	smallest accepted value, in bytes
 * @max:	largest accepted value, in bytes
 * @out:	parsed value, in bytes
 *
 * Return: 0 on success, -1 if @s is not a size in [@min, @max]
 */
int conf_bytes(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;

	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		break;
	default:
		return -1;
	}

	if (*end && end[1])
		return -1;

	if (v > max / mult)
		return -1;
	v *= mult;

	if (v < min || v > max)
		return -1;

	*out = v;
	return 0;
}

/**
 * conf_inet() - parse an IPv4 or IPv6 address
 * @s:		text
 * @af:		set to AF_INET or AF_INET6
 * @addr:	output, room for a struct in6_addr
 *
 * Return: 0 on success, -1 if @s is not an address
 */
int conf_inet(const char *s, int *af, void *addr)
{
	if (inet_pton(AF_INET, s, addr) == 1) {
		*af = AF_INET;
		return 0;
	}

	if (inet_pton(AF_INET6, s, addr) == 1) {
		*af = AF_INET6;
		return 0;
	}

	return -1;
}

/**
 * conf_inet_prefix() - parse ADDR or ADDR/LEN
 * @s:		text
 * @af:		set to AF_INET or AF_INET6
 * @addr:	output, room for a struct in6_addr
 * @prefix_len:	set to LEN, or -1 if not given
 *
 * Return: 0 on success, -1 on malformed address or length
 */
int conf_inet_prefix(const char *s, int *af, void *addr, int *prefix_len)
{
	char buf[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	unsigned long len;
	size_t n;

	if (!slash) {
		*prefix_len = -1;
		return conf_inet(s, af, addr);
	}

	n = (size_t)(slash - s);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';

	if (conf_inet(buf, af, addr))
		return -1;

	if (conf_ulong(slash + 1, 0, *af == AF_INET ? 32 : 128, &len))
		return -1;

	*prefix_len = (int)len;
	return 0;
}

/**
 * conf_netmask() - parse an IPv4 netmask, dotted or as a prefix length
 * @s:		text: "255.255.255.0" or "24"
 * @prefix_len:	parsed prefix length
 *
 * Return: 0 on success, -1 if not a valid (contiguous) mask or length
 */
int conf_netmask(const char *s, int *prefix_len)
{
	struct in_addr mask;
	unsigned long len;
	uint32_t m;

	if (!conf_ulong(s, 0, 32, &len)) {
		*prefix_len = (int)len;
		return 0;
	}

	if (inet_pton(AF_INET, s, &mask) != 1)
		return -1;

	m = ntohl(mask.s_addr);
	if (m & (~m >> 1))	/* a one after a zero: not contiguous */
		return -1;

	*prefix_len = __builtin_popcount(m);
	return 0;
}

/**
 * conf_prefix_classful() - default prefix length for an IPv4 address
 * @a:		address
 *
 * Return: 8, 16 or 24 for class A, B or C addresses, 32 otherwise
 */
int conf_prefix_classful(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	if (!(h >> 31))
		return 8;
	if ((h >> 30) == 2)
		return 16;
	if ((h >> 29) == 6)
		return 24;
	return 32;
}

/**
 * conf_hexdigit() - value of one hexadecimal digit
 * @ch:		character
 *
 * Return: 0-15, or -1 if @ch is not a hexadecimal digit
 */
static int conf_hexdigit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/**
 * conf_mac() - parse a MAC address, six colon-separated hexadecimal bytes
 * @s:		text, e.g. "9a:55:9a:55:9a:55"
 * @mac:	output, ETH_ALEN bytes
 *
 * Return: 0 on success, -1 if malformed or multicast
 */
int conf_mac(const char *s, unsigned char *mac)
{
	unsigned char out[ETH_ALEN];
	int i;

	for (i = 0; i < ETH_ALEN; i++) {
		int hi = conf_hexdigit(s[0]), lo;

		if (hi < 0)
			return -1;
		lo = conf_hexdigit(s[1]);
		if (lo < 0) {
			/* a single digit */
			out[i] = (unsigned char)hi;
			s += 1;
		} else {
			out[i] = (unsigned char)(hi << 4 | lo);
			s += 2;
		}

		if (i < ETH_ALEN - 1) {
			if (*s != ':')
				return -1;
			s++;
		}
	}

	if (*s || (out[0] & 1))
		return -1;

	memcpy(mac, out, ETH_ALEN);
	return 0;
}

/**
 * conf_id() - parse a numeric user or group identifier
 * @s:		text
 * @id:		parsed value
 *
 * Return: 0 if @s is a number that fits an identifier, -1 otherwise
 */
static int conf_id(const char *s, unsigned long *id)
{
	/* (uid_t)-1 means "no change" to setresuid(): not a valid user */
	return conf_ulong(s, 0, (unsigned long)UINT32_MAX - 1, id);
}

/**
 * conf_runas() - parse --runas UID[:GID] or USER[:GROUP]
 * @s:		text
 * @uid:	resulting user identifier
 * @gid:	resulting group identifier: given, else the user's primary
 *		group, else equal to @uid for a user unknown to the system
 *
 * Return: 0 on success, -1 if a name is unknown or a number is invalid
 */
int conf_runas(const char *s, uid_t *uid, gid_t *gid)
{
	char user[LOGIN_NAME_MAX];
	const char *colon = strchr(s, ':');
	const struct passwd *pw;
	unsigned long id;
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	uid_t u;
	gid_t g;

	if (!n || n >= sizeof(user))
		return -1;
	memcpy(user, s, n);
	user[n] = '\0';

	if (!conf_id(user, &id)) {
		u = (uid_t)id;
		pw = getpwuid(u);
		g = pw ? pw->pw_gid : (gid_t)id;
	} else {
		pw = getpwnam(user);
		if (!pw)
			return -1;
		u = pw->pw_uid;
		g = pw->pw_gid;
	}

	if (colon) {
		const struct group *gr;

		if (!colon[1])
			return -1;
		if (!conf_id(colon + 1, &id)) {
			g = (gid_t)id;
		} else {
			gr = getgrnam(colon + 1);
			if (!gr)
				return -1;
			g = gr->gr_gid;
		}
	}

	*uid = u;
	*gid = g;
	return 0;
}

/**
 * conf_strcpy() - copy a string option value, refusing truncation
 * @dst:	destination
 * @size:	size of @dst
 * @s:		value
 *
 * Return: 0 on success, -1 if @s is empty or does not fit
 */
int conf_strcpy(char *dst, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= size)
		return -1;

	memcpy(dst, s, len + 1);
	return 0;
}

/**
 * conf_mcast_ports() - parse --mcast-ports
 * @arg:	"none", or a comma-separated list of FIRST[-LAST]
 * @ports:	ports, MCAST_PORTS_MAX entries, set
 * @n:		number of ports, set
 * @errbuf:	message on failure
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
int conf_mcast_ports(const char *arg, uint16_t *ports, unsigned int *n,
		     char *errbuf, size_t errlen)
{
	const char *p = arg;

	*n = 0;
	if (!strcmp(arg, "none"))
		return 0;

	for (;;) {
		unsigned long first, last;
		unsigned int i;
		char *end;

		first = strtoul(p, &end, 10);
		last = first;
		if (end != p && *end == '-')
			last = strtoul(end + 1, &end, 10);
		if (end == p || (*end && *end != ',') || !first ||
		    last > 65535 || last < first) {
			snprintf(errbuf, errlen,
				 "invalid port list '%s': none, or ports and ranges from 1 to 65535, separated by commas",
				 arg);
			return -1;
		}

		for (; first <= last; first++) {
			for (i = 0; i < *n && ports[i] != first; i++)
				;
			if (i < *n)
				continue;
			if (*n == MCAST_PORTS_MAX) {
				snprintf(errbuf, errlen,
					 "more than %d ports in '%s'",
					 MCAST_PORTS_MAX, arg);
				return -1;
			}
			ports[(*n)++] = (uint16_t)first;
		}

		if (!*end)
			return 0;
		p = end + 1;
	}
}
