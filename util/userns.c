// SPDX-License-Identifier: GPL-2.0-or-later
/* userns.c - which user namespace we are in, and ID maps for a child's
 *
 * Theory of operation
 *
 * A process is in the initial user namespace when /proc/self/uid_map maps
 * every ID onto itself in one line ("0 0 4294967295"). In any other user
 * namespace (root of "unshare -r", a rootless user's namespace with a
 * subordinate ID range) only the IDs listed in its maps exist: switching
 * to another one (as the --runas default, nobody, would) fails with
 * EINVAL, and so does mapping it into a child namespace.
 *
 * userns_map_child() gives a user namespace that pasta created the IDs it
 * can have. Root (effective UID 0) maps every ID of its own namespace onto
 * itself: all of them in the initial namespace, just 0 after "unshare -r".
 * That needs CAP_SETUID and CAP_SETGID over our namespace; if the kernel
 * refuses, or for an unprivileged caller, the caller's own UID and GID
 * become root inside, after setgroups() is denied there, as the kernel
 * requires for that. If even that is refused, the command runs with
 * unmapped IDs (the overflow user): we warn and go on, as its network
 * namespace works all the same.
 *
 * Both functions also tell how many group IDs, counted from 0, exist in
 * the namespace (the child's, or ours), for the ICMP echo socket range
 * (ping_group_range) that pasta sets there.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "userns.h"
#include "log.h"

/* Most lines in an ID map (the kernel's UID_GID_MAP_MAX_EXTENTS) */
#define USERNS_EXTENTS_MAX	340
/* Longest line: three 10-digit numbers, two spaces, a newline */
#define USERNS_LINE_MAX		34
#define USERNS_MAP_BUF		(USERNS_EXTENTS_MAX * USERNS_LINE_MAX + 1)
/* The whole ID range, the one line of the initial namespace's maps */
#define USERNS_RANGE_ALL	4294967295U

/**
 * struct userns_extent - one line of an ID map
 * @inside:	first ID in the namespace
 * @outside:	first ID in the parent namespace
 * @count:	number of IDs
 */
struct userns_extent {
	unsigned int inside;
	unsigned int outside;
	unsigned int count;
};

static char userns_buf[USERNS_MAP_BUF];	/* map text, read or written */

/**
 * userns_map_read() - read one of our ID maps
 * @name:	"uid_map" or "gid_map"
 * @ext:	extents, USERNS_EXTENTS_MAX entries
 *
 * Return: number of extents, 0 if the map can't be read
 */
static size_t userns_map_read(const char *name, struct userns_extent *ext)
{
	char path[64];
	size_t n = 0;
	const char *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, userns_buf, sizeof(userns_buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	userns_buf[len] = '\0';

	for (p = userns_buf; *p && n < USERNS_EXTENTS_MAX; n++) {
		int used = 0;

		if (sscanf(p, "%u %u %u%n", &ext[n].inside, &ext[n].outside,
			   &ext[n].count, &used) != 3)
			break;
		p += used;
		while (*p == '\n' || *p == ' ')
			p++;
	}

	return n;
}

/**
 * userns_span() - how many IDs from 0 up a map has without a gap
 * @ext:	extents
 * @n:		number of extents
 *
 * Return: count of IDs 0, 1, ... mapped
 */
static unsigned int userns_span(const struct userns_extent *ext, size_t n)
{
	unsigned int next = 0;
	size_t i;

	/* Extents need not be sorted: start over after each one found */
	for (i = 0; i < n; i++) {
		if (ext[i].inside != next || !ext[i].count)
			continue;
		if (ext[i].count > USERNS_RANGE_ALL - next)
			return USERNS_RANGE_ALL;
		next += ext[i].count;
		i = (size_t)-1;
	}

	return next;
}

/**
 * userns_initial() - are we in the initial user namespace?
 *
 * Return: true if our UID map is the identity over every ID
 */
bool userns_initial(void)
{
	struct userns_extent ext[USERNS_EXTENTS_MAX];
	size_t n = userns_map_read("uid_map", ext);

	return n == 1 && !ext[0].inside && !ext[0].outside &&
	       ext[0].count == USERNS_RANGE_ALL;
}

/**
 * userns_own_gid_span() - group IDs from 0 up that exist in our namespace
 *
 * Return: their count, 1 if our map can't be read (0 exists for root)
 */
unsigned int userns_own_gid_span(void)
{
	struct userns_extent ext[USERNS_EXTENTS_MAX];
	size_t n = userns_map_read("gid_map", ext);

	return n ? userns_span(ext, n) : 1;
}

/**
 * userns_write() - write a string to a /proc file of a process
 * @pid:	process, 0 for ourselves
 * @name:	file below /proc/PID/
 * @s:		what to write, in one write() as the kernel wants for maps
 *
 * Return: 0 on success, -1 with errno set on failure
 */
int userns_write(pid_t pid, const char *name, const char *s)
{
	size_t len = strlen(s);
	char path[64];
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%i/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	close(fd);
	if (n >= 0 && (size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return n < 0 ? -1 : 0;
}

/**
 * userns_copy_map() - map the IDs of one of our maps onto themselves
 * @pid:	child in the new user namespace
 * @name:	"uid_map" or "gid_map"
 * @span:	set to the count of IDs from 0 up mapped, on success
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int userns_copy_map(pid_t pid, const char *name, unsigned int *span)
{
	struct userns_extent ext[USERNS_EXTENTS_MAX];
	size_t n = userns_map_read(name, ext), i, off = 0;

	if (!n) {
		errno = ENOENT;
		return -1;
	}

	for (i = 0; i < n; i++) {
		int w = snprintf(userns_buf + off, sizeof(userns_buf) - off,
				 "%u %u %u\n", ext[i].inside, ext[i].inside,
				 ext[i].count);

		if (w < 0 || (size_t)w >= sizeof(userns_buf) - off) {
			errno = E2BIG;
			return -1;
		}
		off += (size_t)w;
	}

	*span = userns_span(ext, n);
	return userns_write(pid, name, userns_buf);
}

/**
 * userns_map_self() - make our own UID and GID root in the child's namespace
 * @pid:	child in the new user namespace
 * @uid_done:	the UID map is written already
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int userns_map_self(pid_t pid, bool uid_done)
{
	char map[USERNS_LINE_MAX + 8];

	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)geteuid());
	if (!uid_done && userns_write(pid, "uid_map", map))
		return -1;
	if (userns_write(pid, "setgroups", "deny") && errno != ENOENT)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)getegid());
	return userns_write(pid, "gid_map", map);
}

/**
 * userns_map_child() - give a new user namespace the IDs we can map
 * @pid:	a process in the namespace, which we created
 * @what:	the command it runs, for messages
 *
 * Return: count of group IDs from 0 up mapped there, 0 if none
 */
unsigned int userns_map_child(pid_t pid, const char *what)
{
	unsigned int uspan = 0, gspan = 0;
	bool uid_done = false;

	if (!geteuid()) {
		uid_done = !userns_copy_map(pid, "uid_map", &uspan);
		if (uid_done && !userns_copy_map(pid, "gid_map", &gspan)) {
			debug("mapped %u user and %u group IDs onto "
			      "themselves for %s", uspan, gspan, what);
			return gspan;
		}
		debug_perror("can't map our IDs onto themselves for %s, "
			     "mapping our own UID and GID only", what);
	}

	if (!userns_map_self(pid, uid_done))
		return 1;

	warn_perror("can't map UID %u and GID %u to root in the user "
		    "namespace of %s: it runs as the overflow user instead",
		    (unsigned int)geteuid(), (unsigned int)getegid(), what);
	return 0;
}
