// SPDX-License-Identifier: GPL-2.0-or-later
/* follow_resolv.c - the host's resolver file, as it changes
 *
 * Theory of operation: start-up read the DNS servers and the search list
 * from CONF_RESOLV_PATH (conf/conf.c). That file is usually replaced, not
 * rewritten (a new file renamed over it), and often a symbolic link to
 * one that is (systemd-resolved's /run/systemd/resolve/stub-resolv.conf,
 * NetworkManager's file under /run): a descriptor of the file would keep
 * the old one. So, before the sandbox closes, follow_resolv_init()
 * resolves the links, opens the directory the file is in (O_PATH) and an
 * inotify watch on it, for a file of that name written, moved in, created
 * or deleted. When CONF_RESOLV_PATH itself is a link, its own directory is
 * watched too: the link replaced, pointing elsewhere, is logged (paths
 * don't resolve in the sandbox: the reader goes on with the old target).
 *
 * The relay never opens the file again itself: once the sandbox has
 * dropped privileges, isolation/resolv_reader.c hands the directory and
 * the watch to a process of its own (follow_resolv_src()), which reads the
 * file whenever the watch reports a change and sends its text back over a
 * socket pair (follow_resolv_attach()), a datagram per reading
 * (enum follow_resolv_msg). The relay keeps neither the directory nor the
 * watch: its seccomp filter and its view of the file system are those of
 * a relay that doesn't follow the file (doc/security.md).
 *
 * A text received arms the debounce timer of follow_watch.c
 * (follow_watch_kick()); when it fires, follow_resolv_update() derives the
 * DNS settings from the last text with start-up's rules
 * (conf_resolv_rederive()), which follow_apply() puts in force.
 *
 * Off with --no-follow-host, and when the command line fixed everything
 * the file would give (-D of both families or -D none, -S, --dns-host:
 * conf_resolv_followed()).
 *
 * A test build (SANDBOX_TEST_HOOK, "make hook") has the reader open the
 * name in FOLLOW_RESOLV_TEST_NAME instead, if set: tests/integration/
 * resolver_follow.sh gives "../" names there, which the reader's seccomp
 * rule lets through and its Landlock domain must refuse.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "follow.h"
#include "../conf/conf.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"

/* Changes of the file's directory that concern the file */
#define FOLLOW_RESOLV_EVENTS	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
				 IN_DELETE)

/**
 * struct follow_resolv_state - the followed file, on the relay's side
 * @src:	what the reader gets; descriptors -1 if not followed
 * @sock:	the reader's socket, -1 if none
 * @pending:	a text arrived since the last was derived from
 * @link_told:	the link's replacement was logged
 * @text:	the last text received, NUL-terminated
 */
static struct follow_resolv_state {
	struct follow_resolv_src src;
	int sock;
	bool pending;
	bool link_told;
	char text[CONF_RESOLV_MAX + 1];
} fr = { .src = { .dirfd = -1, .ino = -1, .wd = -1, .wd_link = -1,
		  .open_name = fr.src.name },
	 .sock = -1 };

/**
 * follow_resolv_split() - directory and name of a path
 * @path:	absolute path, modified: cut after its directory
 * @name:	set to the file name, NAME_MAX + 1 bytes
 *
 * Return: 0 on success, -1 if @path has no usable name
 */
static int follow_resolv_split(char *path, char *name)
{
	char *slash = strrchr(path, '/');
	size_t len;

	if (!slash)
		return -1;
	len = strlen(slash + 1);
	if (!len || len > NAME_MAX)
		return -1;
	memcpy(name, slash + 1, len + 1);
	if (slash == path)
		slash[1] = '\0';	/* the root directory */
	else
		*slash = '\0';
	return 0;
}

/**
 * follow_resolv_mounted() - is a file a mount point of its own?
 * @path:	absolute path, links resolved
 *
 * A file bind-mounted over the resolver file (ip netns exec does it, from
 * /etc/netns/NAME/) lives in the mount namespace of start-up only: once
 * the sandbox left it and it went, a look-up beneath the directory finds
 * the file underneath. Mount IDs tell: statx(), STATX_MNT_ID.
 *
 * Return: true if @path is on another mount than its directory
 */
static bool follow_resolv_mounted(const char *path)
{
	char dir[PATH_MAX];
	struct statx f, d;
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return false;
	slash = strrchr(dir, '/');
	if (!slash)
		return false;
	slash[slash == dir] = '\0';	/* "/" stays "/" */

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &f) ||
	    statx(AT_FDCWD, dir, 0, STATX_MNT_ID, &d) ||
	    !(f.stx_mask & d.stx_mask & STATX_MNT_ID))
		return false;
	return f.stx_mnt_id != d.stx_mnt_id;
}

/**
 * follow_resolv_close() - close the directory and the watch, if open
 */
static void follow_resolv_close(void)
{
	if (fr.src.ino >= 0)
		close(fr.src.ino);
	if (fr.src.dirfd >= 0)
		close(fr.src.dirfd);
	fr.src.ino = fr.src.dirfd = fr.src.wd = fr.src.wd_link = -1;
}

/**
 * follow_resolv_link() - CONF_RESOLV_PATH is a link: watch its directory
 */
static void follow_resolv_link(void)
{
	char path[PATH_MAX];
	struct stat st;

	if (lstat(CONF_RESOLV_PATH, &st) || !S_ISLNK(st.st_mode))
		return;

	memcpy(path, CONF_RESOLV_PATH, sizeof(CONF_RESOLV_PATH));
	if (follow_resolv_split(path, fr.src.link_name))
		return;
	fr.src.wd_link = inotify_add_watch(fr.src.ino, path,
					   IN_CREATE | IN_MOVED_TO |
					   IN_ONLYDIR);
}

/**
 * follow_resolv_watch() - the directory and its watch: fr.src.name set
 * @dir:	the file's directory
 *
 * Return: 0 on success, negative errno on failure
 */
static int follow_resolv_watch(const char *dir)
{
	fr.src.dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fr.src.dirfd < 0)
		return -errno;
	fr.src.ino = inotify_init1(IN_CLOEXEC);
	if (fr.src.ino < 0)
		return -errno;
	fr.src.wd = inotify_add_watch(fr.src.ino, dir, FOLLOW_RESOLV_EVENTS |
				      IN_ONLYDIR);
	if (fr.src.wd < 0)
		return -errno;
	follow_resolv_link();
	return 0;
}

/**
 * follow_resolv_init() - watch the resolver file (before the sandbox)
 * @c:		execution context, follow_watch_init() done
 *
 * Failure leaves the DNS settings of start-up in force, with a warning;
 * a missing file, too (nothing was read from it), logged at debug.
 *
 * Return: 0 on success or when off, negative errno on failure
 */
int follow_resolv_init(const struct ctx *c)
{
	char path[PATH_MAX];
	int ret;

	if (c->no_follow_host || !conf_resolv_followed(c))
		return 0;

	if (!realpath(CONF_RESOLV_PATH, path)) {
		debug("Not following %s: %s", CONF_RESOLV_PATH,
		      strerror(errno));
		return 0;
	}
	if (follow_resolv_mounted(path)) {
		debug("Not following %s: %s is mounted on its own (a bind mount, as ip netns exec makes), which the sandbox can't see again",
		      CONF_RESOLV_PATH, path);
		return 0;
	}
	if (follow_resolv_split(path, fr.src.name)) {
		debug("Not following %s: no file name", CONF_RESOLV_PATH);
		return 0;
	}

	ret = follow_resolv_watch(path);
	if (ret) {
		warn("Can't watch %s (%s): the DNS settings stay those of start-up",
		     CONF_RESOLV_PATH, strerror(-ret));
		follow_resolv_close();
		return ret;
	}

	debug("Following %s: %s in %s", CONF_RESOLV_PATH, fr.src.name, path);
#ifdef SANDBOX_TEST_HOOK
	if (getenv("FOLLOW_RESOLV_TEST_NAME")) {
		fr.src.open_name = getenv("FOLLOW_RESOLV_TEST_NAME");
		warn("Test build: the reader opens %s instead",
		     fr.src.open_name);
	}
#endif
	return 0;
}

/**
 * follow_resolv_src() - what the reader needs, if the file is followed
 *
 * Return: the directory, the watch and the names; NULL if not followed
 */
const struct follow_resolv_src *follow_resolv_src(void)
{
	return fr.src.dirfd >= 0 ? &fr.src : NULL;
}

/**
 * follow_resolv_attach() - the reader runs, or couldn't be started
 * @c:		execution context
 * @fd:		our end of its socket pair, negative errno on failure
 *
 * Either way, the relay gives the directory and the watch up: the reader
 * has its own copies.
 */
void follow_resolv_attach(const struct ctx *c, int fd)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_FOLLOW_RESOLV };
	struct epoll_event ev = { .events = EPOLLIN };

	follow_resolv_close();
	if (fd < 0) {
		warn("Can't start the reader of %s (%s): the DNS settings stay those of start-up",
		     CONF_RESOLV_PATH, strerror(-fd));
		return;
	}

	ref.fd = (uint32_t)fd;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev)) {
		warn("Can't watch the reader of %s (%s): the DNS settings stay those of start-up",
		     CONF_RESOLV_PATH, strerror(errno));
		close(fd);	/* the reader exits: nobody reads it */
		return;
	}
	fr.sock = fd;
}

/**
 * follow_resolv_pending() - did a new text arrive since the last update?
 *
 * Return: true if one did
 */
bool follow_resolv_pending(void)
{
	return fr.pending;
}

/**
 * follow_resolv_update() - derive the DNS settings from the last text
 * @c:		execution context
 * @ip4:	IPv4 settings derived now, DNS fields updated
 * @ip6:	IPv6 settings derived now, DNS fields updated
 *
 * The search list goes to follow_search_set().
 */
void follow_resolv_update(const struct ctx *c, struct ip4_ctx *ip4,
			  struct ip6_ctx *ip6)
{
	static char buf[CONF_RESOLV_MAX + 1];	/* the parser cuts it up */
	char search[SEARCH_MAX][SEARCH_LEN_MAX + 1];
	int i, n_search = follow_search_count(c);

	if (!fr.pending)
		return;
	fr.pending = false;
	memcpy(buf, fr.text, sizeof(buf));

	for (i = 0; i < n_search && i < SEARCH_MAX; i++)
		memcpy(search[i], follow_search_name(c, i), sizeof(search[i]));
	conf_resolv_rederive(c, buf, ip4, ip6, search, &n_search);
	follow_search_set(c, (const char (*)[SEARCH_LEN_MAX + 1])search,
			  n_search);
}

/**
 * follow_resolv_msg() - one message of the reader
 * @msg:	the message
 * @len:	its length, at least 1
 *
 * Return: true if it is a new text of the file
 */
static bool follow_resolv_msg(const char *msg, size_t len)
{
	int err = 0;

	if (len >= 1 + sizeof(err))
		memcpy(&err, msg + 1, sizeof(err));

	switch (msg[0]) {
	case FOLLOW_RESOLV_TEXT:
		memcpy(fr.text, msg + 1, len - 1);
		fr.text[len - 1] = '\0';
		return true;
	case FOLLOW_RESOLV_ERROR:
		debug("Can't read %s again: %s, DNS settings unchanged",
		      fr.src.open_name, strerror(err));
		break;
	case FOLLOW_RESOLV_LINK:
		if (fr.link_told)
			break;
		fr.link_told = true;
		warn("%s was replaced: if it points to another file now, restart to follow that one (%s is read)",
		     CONF_RESOLV_PATH, fr.src.name);
		break;
	case FOLLOW_RESOLV_OPEN:
		debug("No Landlock domain for the reader of %s (%s): its seccomp filter and empty root confine it",
		      CONF_RESOLV_PATH, strerror(err));
		break;
	default:
		debug("Reader of %s: unknown message %i", CONF_RESOLV_PATH,
		      msg[0]);
		break;
	}
	return false;
}

/**
 * follow_resolv_handler() - messages from the reader: drain, settle
 * @c:		execution context
 */
void follow_resolv_handler(const struct ctx *c)
{
	static char msg[1 + CONF_RESOLV_MAX];
	bool any = false;
	ssize_t n;

	while ((n = read(fr.sock, msg, sizeof(msg))) > 0)
		any |= follow_resolv_msg(msg, (size_t)n);

	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		warn("The reader of %s stopped (%s): the DNS settings stay as they are",
		     CONF_RESOLV_PATH, n ? strerror(errno) : "exited");
		epoll_ctl(c->epollfd, EPOLL_CTL_DEL, fr.sock, NULL);
		close(fr.sock);
		fr.sock = -1;
	}

	if (any) {
		fr.pending = true;
		follow_watch_kick();
	}
}
