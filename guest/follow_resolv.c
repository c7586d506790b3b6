// SPDX-License-Identifier: GPL-2.0-or-later
/* follow_resolv.c - watch the host's resolver file
 *
 * Theory of operation: start-up read the DNS servers and the search list
 * from CONF_RESOLV_PATH (conf/conf.c). That file is usually replaced, not
 * rewritten (a new file renamed over it), and often a symbolic link to
 * one that is (systemd-resolved's /run/systemd/resolve/stub-resolv.conf,
 * NetworkManager's file under /run): a descriptor of the file would keep
 * the old one. So, before the sandbox closes, follow_resolv_init()
 * resolves the links, keeps a descriptor (O_PATH) of the directory the
 * file is in, and an inotify watch on that directory for a file of that
 * name written, moved in, created or deleted. When CONF_RESOLV_PATH itself
 * is a link, its own directory is watched too: the link replaced, pointing
 * elsewhere, is logged (paths don't resolve in the sandbox: the relay
 * goes on reading the old target).
 *
 * An event arms the debounce timer of follow_watch.c (follow_watch_kick());
 * when it fires, follow_resolv_update() opens the file again, beneath the
 * directory (openat(), without following links), reads it, and conf/
 * derives the DNS settings from it with start-up's rules
 * (conf_resolv_rederive()), which follow_apply() puts in force.
 *
 * The openat() is the only path lookup the relay makes once the sandbox
 * is in place, and it is confined twice (doc/security.md):
 *
 *   - the seccomp filter allows openat() only with this directory's
 *     descriptor as first argument and FOLLOW_RESOLV_FLAGS as flags (the
 *     rule below, filled in and enabled by follow_resolv_confined());
 *   - a Landlock domain (isolation/sandbox.c, before any thread but the
 *     main one exists) handles every file system access the kernel's ABI
 *     knows and allows only reading files beneath this directory: "../"
 *     or a link leading out of it is refused by the kernel.
 *
 * Without Landlock, the hole isn't opened: the directory and the watch are
 * closed, and the DNS settings stay those of start-up (logged at debug).
 *
 * Off with --no-follow-host, and when the command line fixed everything
 * the file would give (-D of both families or -D none, -S, --dns-host:
 * conf_resolv_followed()).
 *
 * A test build (SANDBOX_TEST_HOOK, "make hook") opens the name in
 * FOLLOW_RESOLV_TEST_NAME instead, if set: tests/integration/
 * resolver_follow.sh gives "../" names there, which seccomp lets through
 * and Landlock must refuse.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "follow.h"
#include "../conf/conf.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"
#include "../util/syscalls.h"

/* Flags of the openat() the seccomp filter allows, exactly */
#define FOLLOW_RESOLV_FLAGS	(O_RDONLY | O_CLOEXEC | O_NOFOLLOW |	\
				 O_NONBLOCK | O_NOCTTY)
/* Changes of the file's directory that concern the file */
#define FOLLOW_RESOLV_EVENTS	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
				 IN_DELETE)
/* inotify events read at once: each is a header and a name */
#define FOLLOW_RESOLV_EV_BUF	4096

/**
 * struct follow_resolv_state - the watched file
 * @dirfd:	directory the file is in (O_PATH), -1 if not followed
 * @ino:	inotify descriptor, -1 if none
 * @wd:		watch of @dirfd's directory
 * @wd_link:	watch of CONF_RESOLV_PATH's own directory, if it is a link
 * @pending:	the file changed since it was last read
 * @link_told:	the link's replacement was logged
 * @name:	file name in @dirfd
 * @link_name:	CONF_RESOLV_PATH's file name
 * @open_name:	name opened: @name, but in test builds (see above)
 */
static struct follow_resolv_state {
	int dirfd;
	int ino;
	int wd;
	int wd_link;
	bool pending;
	bool link_told;
	char name[NAME_MAX + 1];
	char link_name[NAME_MAX + 1];
	const char *open_name;
} fr = { .dirfd = -1, .ino = -1, .wd = -1, .wd_link = -1,
	 .open_name = fr.name };

/* Read again: openat() beneath the directory only, enabled, and its
 * descriptor filled in, by follow_resolv_confined() (not SYSCALLS(): the
 * descriptor is known at run time only)
 */
static struct syscalls_rule follow_resolv_rules[] = {
	SYSCALLS_CALL_IF("openat", "read the resolver file again, beneath "
			 "its directory (Landlock: only there)",
			 SYSCALLS_ARG_EQ(0, -1),
			 SYSCALLS_ARG_EQ(2, FOLLOW_RESOLV_FLAGS)),
};
static struct syscalls_list follow_resolv_list = {
	.modes = 0,
	.n = 1,
	.rules = follow_resolv_rules,
	.file = __FILE__,
};
static const struct syscalls_list *const follow_resolv_list_ptr
__attribute__((used, section("relay_syscalls"))) = &follow_resolv_list;

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
 * follow_resolv_close() - stop following the file
 * @c:		execution context
 */
static void follow_resolv_close(const struct ctx *c)
{
	if (fr.ino >= 0) {
		epoll_ctl(c->epollfd, EPOLL_CTL_DEL, fr.ino, NULL);
		close(fr.ino);
	}
	if (fr.dirfd >= 0)
		close(fr.dirfd);
	fr.ino = fr.dirfd = fr.wd = fr.wd_link = -1;
	fr.pending = false;
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
	if (follow_resolv_split(path, fr.link_name))
		return;
	fr.wd_link = inotify_add_watch(fr.ino, path, IN_CREATE | IN_MOVED_TO |
				       IN_ONLYDIR);
}

/**
 * follow_resolv_watch() - directory, watch, epoll: fr.name set
 * @c:		execution context
 * @dir:	the file's directory
 *
 * Return: 0 on success, negative errno on failure
 */
static int follow_resolv_watch(const struct ctx *c, const char *dir)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_FOLLOW_RESOLV };
	struct epoll_event ev = { .events = EPOLLIN };

	fr.dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fr.dirfd < 0)
		return -errno;
	fr.ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fr.ino < 0)
		return -errno;
	fr.wd = inotify_add_watch(fr.ino, dir, FOLLOW_RESOLV_EVENTS |
				  IN_ONLYDIR);
	if (fr.wd < 0)
		return -errno;
	follow_resolv_link();

	ref.fd = (uint32_t)fr.ino;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fr.ino, &ev))
		return -errno;
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
	if (follow_resolv_split(path, fr.name)) {
		debug("Not following %s: no file name", CONF_RESOLV_PATH);
		return 0;
	}

	ret = follow_resolv_watch(c, path);
	if (ret) {
		warn("Can't watch %s (%s): the DNS settings stay those of start-up",
		     CONF_RESOLV_PATH, strerror(-ret));
		follow_resolv_close(c);
		return ret;
	}

	debug("Following %s: %s in %s", CONF_RESOLV_PATH, fr.name, path);
#ifdef SANDBOX_TEST_HOOK
	if (getenv("FOLLOW_RESOLV_TEST_NAME")) {
		fr.open_name = getenv("FOLLOW_RESOLV_TEST_NAME");
		warn("Test build: reading %s instead", fr.open_name);
	}
#endif
	return 0;
}

/**
 * follow_resolv_dirfd() - directory the sandbox lets the relay read in
 *
 * Return: its descriptor, -1 if the resolver file isn't followed
 */
int follow_resolv_dirfd(void)
{
	return fr.dirfd;
}

/**
 * follow_resolv_confined() - the sandbox confined reads to the directory,
 *			      or couldn't
 * @landlocked:	a Landlock domain allows reading beneath it only
 *
 * Call before the seccomp filter is loaded: with @landlocked, it allows
 * openat() on the directory; without, the file isn't followed.
 */
void follow_resolv_confined(bool landlocked)
{
	if (fr.dirfd < 0)
		return;

	if (!landlocked) {
		debug("No Landlock: %s is not followed, the DNS settings stay those of start-up",
		      CONF_RESOLV_PATH);
		if (fr.ino >= 0)
			close(fr.ino);	/* closing removes it from epoll */
		close(fr.dirfd);
		fr.ino = fr.dirfd = fr.wd = fr.wd_link = -1;
		return;
	}

	follow_resolv_rules[0].arg[0].datum_a = (scmp_datum_t)fr.dirfd;
	follow_resolv_list.modes = SYSCALLS_RELAY;
}

/**
 * follow_resolv_pending() - did the file change since it was read?
 *
 * Return: true if it did
 */
bool follow_resolv_pending(void)
{
	return fr.pending;
}

/**
 * follow_resolv_update() - read the file again, derive the DNS settings
 * @c:		execution context
 * @ip4:	IPv4 settings derived now, DNS fields updated
 * @ip6:	IPv6 settings derived now, DNS fields updated
 *
 * The search list goes to follow_search_set(). A file that can't be
 * opened (gone, for now) leaves the settings as they are.
 */
void follow_resolv_update(const struct ctx *c, struct ip4_ctx *ip4,
			  struct ip6_ctx *ip6)
{
	static char buf[CONF_RESOLV_MAX + 1];
	char search[SEARCH_MAX][SEARCH_LEN_MAX + 1];
	int fd, i, n_search = follow_search_count(c);
	ssize_t n;

	fr.pending = false;
	if (fr.dirfd < 0)
		return;

	fd = (int)syscall(SYS_openat, fr.dirfd, fr.open_name,
			  FOLLOW_RESOLV_FLAGS);
	if (fd < 0) {
		debug("Can't open %s again: %s, DNS settings unchanged",
		      fr.open_name, strerror(errno));
		return;
	}
	do
		n = read(fd, buf, CONF_RESOLV_MAX);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0) {
		debug("Can't read %s again: %s, DNS settings unchanged",
		      fr.open_name, strerror(errno));
		return;
	}
	buf[n] = '\0';

	for (i = 0; i < n_search && i < SEARCH_MAX; i++)
		memcpy(search[i], follow_search_name(c, i), sizeof(search[i]));
	conf_resolv_rederive(c, buf, ip4, ip6, search, &n_search);
	follow_search_set(c, (const char (*)[SEARCH_LEN_MAX + 1])search,
			  n_search);
}

/**
 * follow_resolv_event() - one inotify event
 * @e:		the event
 *
 * Return: true if the file may have changed
 */
static bool follow_resolv_event(const struct inotify_event *e)
{
	if (e->mask & IN_Q_OVERFLOW)
		return true;
	if (!e->len)
		return false;
	if (e->wd == fr.wd && !strcmp(e->name, fr.name))
		return true;
	if (e->wd == fr.wd_link && !strcmp(e->name, fr.link_name) &&
	    !fr.link_told) {
		fr.link_told = true;
		warn("%s was replaced: if it points to another file now, restart to follow that one (the relay reads %s only)",
		     CONF_RESOLV_PATH, fr.name);
	}
	return false;
}

/**
 * follow_resolv_handler() - the file's directory changed: drain, settle
 * @c:		execution context
 */
void follow_resolv_handler(const struct ctx *c)
{
	char buf[FOLLOW_RESOLV_EV_BUF]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t n;

	(void)c;
	while ((n = read(fr.ino, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		while (p + sizeof(struct inotify_event) <= buf + n) {
			const struct inotify_event *e =
				(const struct inotify_event *)p;

			any |= follow_resolv_event(e);
			p += sizeof(*e) + e->len;
		}
	}

	if (any) {
		fr.pending = true;
		follow_watch_kick();
	}
}
