#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/fresh_root.sh - run a command in a fresh Debian 12, as a new user
#
# Usage: tests/fresh_root.sh [--root DIR] [--new] REPO [COMMAND...]
#   REPO: a git repository (path or URL) cloned to /root/passt inside,
#         as a new user would (a clean clone in root's 0700 home)
#   COMMAND: run by bash in /root/passt, as root (default: an
#         interactive shell); its exit status is this script's
#   --root DIR: where the Debian root lives (default
#         /var/tmp/passt-fresh-root); kept between runs, so that README's
#         two commands can be given one at a time
#   --new: build the root again even if DIR exists (and clone again)
#
# Example, README's two commands on a machine that has seen nothing:
#   tests/fresh_root.sh --new . "$(sed -n '/^apt-get update/p' README.md)"
#   tests/fresh_root.sh . make check
#
# Theory of operation: "debootstrap --variant=minbase bookworm" gives a
# Debian 12 with nothing this project installed (no git, no python3, no
# compiler): the honest place to check that README's commands and every
# test install what they need. The mirror is the host's (read from its apt
# sources at run time) and so are the apt sources written inside.
#
# Every command runs in a mount namespace of its own, entered with
# pivot_root, not chroot: the kernel refuses new user namespaces to a
# chrooted process, and pasta's first step is to make one. Inside: /proc,
# /sys, /sys/fs/cgroup, /dev and /dev/pts from the host, a fresh /dev/shm,
# a tmpfs /run with /run/netns a shared mount (for "ip netns add"), and
# /tmp the root's own directory (kept, so that a run's leftovers can be
# seen afterwards). The environment is a login's (HOME, PATH, LANG, TERM),
# not the caller's. The network namespace is the host's, as on a real
# machine. When the command ends, its mount namespace goes, and with it
# the mounts of the network namespaces it made.

set -eu

root=/var/tmp/passt-fresh-root
new=
while [ $# -gt 0 ]; do
	case $1 in
	--root)		root=$2; shift 2 ;;
	--root=*)	root=${1#--root=}; shift ;;
	--new)		new=1; shift ;;
	-h|--help)	sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--)		shift; break ;;
	-*)		echo "fresh_root: unknown option $1" >&2; exit 2 ;;
	*)		break ;;
	esac
done
if [ $# -lt 1 ]; then
	echo "Usage: $0 [--root DIR] [--new] REPO [COMMAND...]" >&2
	exit 2
fi
repo=$1
shift
[ -d "$repo" ] && repo=$(cd "$repo" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "fresh_root: must run as root" >&2
	exit 1
fi

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/apt.sh
. "$top/tests/lib/apt.sh"

# mirror() - print the Debian mirror of the host's apt sources
mirror() {
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	  awk '/^URIs:/ { for (i = 2; i <= NF; i++)
				if ($i !~ /security/) print $i }'
	  awk '$1 == "deb" && $2 !~ /security/ { print $2 }' \
		/etc/apt/sources.list 2>/dev/null
	} | head -n 1
}

# build() - debootstrap a minimal Debian 12 into $root
build() {
	local m log=$root.log start=$SECONDS

	command -v debootstrap >/dev/null 2>&1 ||
		apt_install "$log" debootstrap || {
			echo "fresh_root: can't install debootstrap" \
			     "(see $log)" >&2
			exit 1
		}
	m=$(mirror)
	if [ -z "$m" ]; then
		echo "fresh_root: no mirror in the host's apt sources" >&2
		exit 1
	fi
	rm -rf "$root"
	echo "# fresh_root: debootstrap bookworm from $m into $root"
	if ! debootstrap --variant=minbase bookworm "$root" "$m" \
	     >"$log" 2>&1; then
		echo "fresh_root: debootstrap failed (see $log)" >&2
		exit 1
	fi
	# The host's apt sources, as a machine installed from that mirror
	rm -f "$root/etc/apt/sources.list"
	if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
		cp /etc/apt/sources.list.d/*.sources \
		   "$root/etc/apt/sources.list.d/"
	else
		cp /etc/apt/sources.list "$root/etc/apt/sources.list"
	fi
	echo "# fresh_root: built in $((SECONDS - start)) s"
}

[ -n "$new" ] || [ ! -x "$root/bin/bash" ] && build
cp /etc/resolv.conf "$root/etc/resolv.conf"
if [ -n "$new" ] || [ ! -d "$root/root/passt" ]; then
	rm -rf "$root/root/passt"
	git clone -q "$repo" "$root/root/passt"
	echo "# fresh_root: cloned $repo" \
	     "($(git -C "$root/root/passt" log -1 --format=%h))"
fi

# shellcheck disable=SC2016 # expanded by the inner shell
FRESH_R=$root unshare -m --propagation private -- bash -c '
	set -e
	r=$FRESH_R
	mount --bind "$r" "$r"
	mount --rbind /proc "$r/proc"
	mount --bind /sys "$r/sys"
	mount --rbind /sys/fs/cgroup "$r/sys/fs/cgroup"
	mount --bind /dev "$r/dev"
	mount --bind /dev/pts "$r/dev/pts"
	mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
	mount -t tmpfs -o mode=755 run "$r/run"
	mkdir -p "$r/run/netns" "$r/run/lock"
	mount --bind "$r/run/netns" "$r/run/netns"
	mount --make-shared "$r/run/netns"
	cd "$r"
	mkdir -p .oldroot
	pivot_root . .oldroot
	umount -l /.oldroot
	rmdir /.oldroot
	cd /root/passt
	set -- env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
	       PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	       bash ${1+-c "$*"}
	exec "$@"
' fresh_root "$@"
