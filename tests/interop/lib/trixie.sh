# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/interop/lib/trixie.sh - a Debian 13 root with the clients users run
#
# Theory of operation: podman 5, QEMU 10 and libvirt 11 are not in Debian
# 12, but Debian 13's binary packages come from the same archive. The
# interop suite builds one Debian 13 ("trixie") root with debootstrap and
# installs the clients in it (trixie_ensure); the root is cached and rebuilt
# only when it is missing or its package list changed (a stamp file holds
# the list). The mirror is read at run time from the host's apt sources,
# so no host name is written into the tree.
#
# Commands run in that root through trixie_exec: a new mount namespace,
# the root bind-mounted onto itself, /proc, /sys (with its cgroup tree),
# /dev, /dev/pts, a fresh /dev/shm, /run and /tmp mounted in it, then
# pivot_root into it. pivot_root, not chroot: the kernel refuses a new user
# namespace to a chrooted process, and rootless podman and pasta need one.
# The caller's network namespace is kept: run trixie_exec under
# "ip netns exec" to put the clients in a namespace of the test's own.
#
# The relay under test reaches the root by bind mounts (TRIXIE_BINDS), so
# the root itself never holds a project binary and one root serves every
# build.
#
# Environment:
#   INTEROP_ROOT	where the root lives (default build/interop/trixie
#			at the top of the tree)
#   TRIXIE_MIRROR	Debian mirror URL (default: the host's apt sources)

TRIXIE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=tests/lib/apt.sh
. "$TRIXIE_TOP/tests/lib/apt.sh"

TRIXIE_ROOT=${INTEROP_ROOT:-$TRIXIE_TOP/build/interop/trixie}

# Packages of the root: the clients, Debian 13's passt as the control, and
# what the tests run inside
TRIXIE_PKGS="podman crun netavark aardvark-dns conmon uidmap catatonit
	     fuse-overlayfs slirp4netns passt
	     qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-clients
	     bats socat iproute2 iputils-ping procps jq busybox-static
	     coreutils util-linux ca-certificates"

# Bind mounts into the root for the next trixie_exec, "SRC:DST" each
TRIXIE_BINDS=()

# trixie_mirror() - print the Debian mirror the host's apt uses
# Return: 0 if one was found
trixie_mirror() {
	local url

	if [ -n "$TRIXIE_MIRROR" ]; then
		echo "$TRIXIE_MIRROR"
		return 0
	fi
	url=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	      awk '/^URIs:/ { for (i = 2; i <= NF; i++)
				if ($i !~ /security/) { print $i; exit } }')
	[ -z "$url" ] &&
		url=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
		      /etc/apt/sources.list 2>/dev/null)
	[ -n "$url" ] || return 1
	echo "$url"
}

# trixie_stamp() - print what the stamp file of a complete root holds
trixie_stamp() {
	# shellcheck disable=SC2086 # one line, words joined by one space
	echo "trixie minbase:" $TRIXIE_PKGS
}

# trixie_ensure() - build the root if it is missing or out of date
# $1: log file for debootstrap's and apt's output
# Return: 0 when the root is ready, 1 with a message on stderr otherwise
trixie_ensure() {
	local log=$1 mirror new start=$SECONDS

	[ -f "$TRIXIE_ROOT/.interop-stamp" ] &&
		[ "$(cat "$TRIXIE_ROOT/.interop-stamp")" = "$(trixie_stamp)" ] &&
		return 0

	if ! command -v debootstrap >/dev/null 2>&1 &&
	   ! apt_install "$log" debootstrap; then
		echo "trixie: can't install debootstrap (see $log)" >&2
		return 1
	fi
	if ! mirror=$(trixie_mirror); then
		echo "trixie: no Debian mirror in /etc/apt/sources.list*;" \
		     "set TRIXIE_MIRROR" >&2
		return 1
	fi

	new=$TRIXIE_ROOT.new
	rm -rf "$new" "$TRIXIE_ROOT"
	mkdir -p "$(dirname "$TRIXIE_ROOT")"
	echo "# trixie: building $TRIXIE_ROOT from $mirror"
	if ! debootstrap --variant=minbase trixie "$new" "$mirror" \
	     >"$log" 2>&1; then
		echo "trixie: debootstrap failed (see $log)" >&2
		return 1
	fi
	cp /etc/resolv.conf "$new/etc/resolv.conf"
	# Nothing inside may start services while packages are installed
	printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
	chmod 755 "$new/usr/sbin/policy-rc.d"
	# shellcheck disable=SC2086 # the package list is split into words
	if ! TRIXIE_ROOT=$new trixie_exec env DEBIAN_FRONTEND=noninteractive \
	     sh -c 'apt-get update -q &&
		    apt-get install -y -q --no-install-recommends "$@"' \
	     sh $TRIXIE_PKGS >>"$log" 2>&1; then
		echo "trixie: installing the clients failed (see $log)" >&2
		return 1
	fi
	trixie_stamp >"$new/.interop-stamp"
	mv "$new" "$TRIXIE_ROOT"
	echo "# trixie: ready in $((SECONDS - start)) s"
}

# trixie_exec() - run a command in the root, in a mount namespace of its own
# $@: command and arguments (run as root inside)
# Return: the command's exit status
#
# TRIXIE_BINDS (array of SRC:DST) are bind-mounted read-only at DST inside
# the root (a file over a file, a directory over a directory; DST is created
# if missing).
trixie_exec() {
	local binds="" b

	for b in "${TRIXIE_BINDS[@]}"; do
		binds="$binds${b}"$'\n'
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	TRIXIE_R=$TRIXIE_ROOT TRIXIE_B=$binds \
	unshare -m --propagation private -- bash -c '
		set -e
		r=$TRIXIE_R
		mount --bind "$r" "$r"
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
		mount -t tmpfs -o mode=755 run "$r/run"
		mkdir -p "$r/run/netns" "$r/run/lock"
		mount -t tmpfs -o mode=1777 tmp "$r/tmp"
		while IFS= read -r b; do
			[ -n "$b" ] || continue
			src=${b%%:*} dst=$r${b#*:}
			if [ -d "$src" ]; then
				mkdir -p "$dst"
			else
				mkdir -p "$(dirname "$dst")"
				[ -e "$dst" ] || : >"$dst"
			fi
			mount --bind "$src" "$dst"
			mount -o remount,bind,ro "$dst"
		done <<<"$TRIXIE_B"
		cd "$r"
		pivot_root . .
		umount -l .
		cd /
		exec "$@"
	' trixie "$@"
}
