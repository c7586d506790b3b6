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
# Inside, /sys/fs/cgroup is a cgroup2 mount of its own: crun refuses the
# hybrid layout (v1 controllers plus an empty v2 tree) of some hosts, and
# Debian 13 expects the unified hierarchy anyway. Nothing there has
# controllers (they stay with v1), so a container gets no limits, which
# the tests never need.
#
# Once the packages are in, trixie_setup prepares what the podman tests
# need (lib/trixie_setup.sh, run inside; its own stamp, so that a change
# of it does not rebuild the root): an unprivileged user (TRIXIE_USER)
# with a subordinate range of 65536 UIDs and GIDs, containers.conf for a
# host without systemd, an override file (TRIXIE_RELAY_CONF, through
# CONTAINERS_CONF_OVERRIDE) that names TRIXIE_RELAY_DIR, where a test binds
# the relay's pasta, first in podman's helper_binaries_dir, the files for
# podman run by root of a user namespace (TRIXIE_NS_BASE, TRIXIE_NS_HOME),
# and the tar file of an image (TRIXIE_IMAGE_TAR) made of the root's own
# Debian packages (TRIXIE_IMAGE_PKGS and what they depend on), which the
# tests import into a storage of their own, so that nothing is pulled.
#
# A test that needs the same namespaces for several commands (podman's
# state in /run, libvirtd) opens a session (trixie_session_start): the
# root in a mount and a PID namespace of their own, with catatonit as PID
# 1, which later commands join (trixie_session); ending it
# (trixie_session_stop) kills whatever is left in it.
#
# Environment:
#   INTEROP_ROOT	where the root lives (default build/interop/trixie
#			at the top of the tree)
#   TRIXIE_MIRROR	Debian mirror URL (default: the host's apt sources)
#   TRIXIE_LOCK_WAIT	seconds to wait for another run building the root
#			(default 900)

TRIXIE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=tests/lib/apt.sh
. "$TRIXIE_TOP/tests/lib/apt.sh"

TRIXIE_ROOT=${INTEROP_ROOT:-$TRIXIE_TOP/build/interop/trixie}

# Packages of the root: the clients, Debian 13's passt as the control, and
# what the tests run inside (nftables: netavark runs nft for podman's
# bridge networks)
TRIXIE_PKGS="podman crun netavark aardvark-dns conmon uidmap catatonit
	     fuse-overlayfs slirp4netns passt nftables
	     qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-clients
	     bats socat iproute2 iputils-ping procps jq busybox-static
	     coreutils util-linux ca-certificates"

# Bind mounts into the root for the next trixie_exec: "SRC:DST" each,
# read-only, or "SRC:DST:rw"
TRIXIE_BINDS=()

# What trixie_setup prepares (tests/interop/lib/trixie_setup.sh)
TRIXIE_SETUP=$TRIXIE_TOP/tests/interop/lib/trixie_setup.sh
TRIXIE_USER=interop		# unprivileged podman user, UID 1000
TRIXIE_UID=1000
TRIXIE_SUBID=100000		# its subordinate range: 100000-165535
TRIXIE_NS_BASE=200000		# root of a user namespace: 200000-265535
TRIXIE_NS_HOME=/home/nsroot	# its home, podman storage in it
# shellcheck disable=SC2034 # for the tests
TRIXIE_IMAGE=localhost/interop:latest
TRIXIE_IMAGE_TAR=/opt/interop/image.tar
TRIXIE_RELAY_DIR=/opt/relay	# where tests bind the relay's pasta
TRIXIE_RELAY_CONF=/etc/containers/interop-relay.conf
# Packages (with what they depend on) of the image's root file system
TRIXIE_IMAGE_PKGS="base-files base-passwd busybox-static coreutils dash
		   iproute2 socat"

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
	# shellcheck disable=SC2086 # one line: the list split into words
	echo "trixie minbase:" $TRIXIE_PKGS
}

# trixie_ensure() - build the root if it is missing or out of date, and
# prepare it for the tests (trixie_setup) if that is not done yet
# $1: log file for debootstrap's and apt's output
# Return: 0 when the root is ready, 1 with a message on stderr otherwise
#
# Several test runs may share one root: the first builds it while the
# others wait (TRIXIE_ROOT.lock, up to TRIXIE_LOCK_WAIT seconds, default
# 900).
trixie_ensure() {
	local log=$1 fd rc

	mkdir -p "$(dirname "$TRIXIE_ROOT")" || return 1
	exec {fd}>"$TRIXIE_ROOT.lock" || return 1
	if ! flock -w "${TRIXIE_LOCK_WAIT:-900}" "$fd"; then
		echo "trixie: $TRIXIE_ROOT.lock still held after" \
		     "${TRIXIE_LOCK_WAIT:-900} s" >&2
		exec {fd}>&-
		return 1
	fi
	trixie_ensure_locked "$log"
	rc=$?
	exec {fd}>&-
	return $rc
}

# trixie_ensure_locked() - trixie_ensure(), once the lock is held
# $1: log file
trixie_ensure_locked() {
	local log=$1

	if [ ! -f "$TRIXIE_ROOT/.interop-stamp" ] ||
	   [ "$(cat "$TRIXIE_ROOT/.interop-stamp")" != "$(trixie_stamp)" ]; then
		trixie_build "$log" || return 1
	fi
	[ -f "$TRIXIE_ROOT/.interop-setup" ] &&
		[ "$(cat "$TRIXIE_ROOT/.interop-setup")" = \
		  "$(trixie_setup_stamp)" ] && return 0
	trixie_setup "$log"
}

# trixie_build() - build the root with debootstrap, install the packages
# $1: log file for debootstrap's and apt's output
# Return: 0 when the root is ready, 1 with a message on stderr otherwise
trixie_build() {
	local log=$1 mirror new start=$SECONDS

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

	# Built aside: the old root stays until the new one is complete
	new=$TRIXIE_ROOT.new
	rm -rf "$new"
	echo "# trixie: building $TRIXIE_ROOT from $mirror"
	if ! debootstrap --variant=minbase trixie "$new" "$mirror" \
	     >"$log" 2>&1; then
		echo "trixie: debootstrap failed (see $log)" >&2
		rm -rf "$new"
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
		rm -rf "$new"
		return 1
	fi
	trixie_stamp >"$new/.interop-stamp"
	rm -rf "$TRIXIE_ROOT"
	mv "$new" "$TRIXIE_ROOT"
	echo "# trixie: packages ready in $((SECONDS - start)) s"
}

# trixie_setup() - prepare the root for the podman tests: run
# tests/interop/lib/trixie_setup.sh inside it (see there)
# $1: log file
# Return: 0 when done, 1 with a message on stderr otherwise
trixie_setup() {
	local log=$1 start=$SECONDS
	local TRIXIE_BINDS=("$TRIXIE_SETUP:/run/interop-setup.sh")

	rm -f "$TRIXIE_ROOT/.interop-setup"
	# shellcheck disable=SC2086 # the package list is split into words
	if ! trixie_exec env U="$TRIXIE_USER" UID_="$TRIXIE_UID" \
	     SUB="$TRIXIE_SUBID" NSB="$TRIXIE_NS_BASE" \
	     NSHOME="$TRIXIE_NS_HOME" RDIR="$TRIXIE_RELAY_DIR" \
	     RCONF="$TRIXIE_RELAY_CONF" IMG_TAR="$TRIXIE_IMAGE_TAR" \
	     bash /run/interop-setup.sh $TRIXIE_IMAGE_PKGS >>"$log" 2>&1; then
		echo "trixie: preparing the root for podman failed" \
		     "(see $log)" >&2
		return 1
	fi
	trixie_setup_stamp >"$TRIXIE_ROOT/.interop-setup"
	echo "# trixie: set up for the tests in $((SECONDS - start)) s"
}

# trixie_setup_stamp() - print what the setup stamp of a prepared root holds:
# a change of the setup script or of its settings prepares it again
trixie_setup_stamp() {
	# shellcheck disable=SC2086 # one line: the list split into words
	echo "setup $(sha256sum <"$TRIXIE_SETUP" | cut -c 1-16)" \
	     "$TRIXIE_USER $TRIXIE_UID $TRIXIE_SUBID $TRIXIE_NS_BASE" \
	     "$TRIXIE_NS_HOME $TRIXIE_RELAY_DIR $TRIXIE_RELAY_CONF" \
	     "$TRIXIE_IMAGE_TAR" $TRIXIE_IMAGE_PKGS
}

# trixie_exec() - run a command in the root, in a mount namespace of its own
# $@: command and arguments (run as root inside)
# Return: the command's exit status
#
# TRIXIE_BINDS (array of SRC:DST, or SRC:DST:rw) are bind-mounted at DST
# inside the root, read-only unless ":rw" follows (a file over a file, a
# directory over a directory; DST is created if missing).
#
# With TRIXIE_NETNS set, the command runs in that network namespace (ip
# netns exec), else in the caller's. With TRIXIE_PIDNS set, the command is
# also PID 1 of a new PID namespace:
# when it exits, every process it left behind is killed. With
# TRIXIE_PIDFILE set, the command's PID (as the caller sees it) is written
# there before it starts.
trixie_exec() {
	local binds="" b pidns=() netns=()

	for b in "${TRIXIE_BINDS[@]}"; do
		binds="$binds${b}"$'\n'
	done
	[ -n "$TRIXIE_PIDNS" ] && pidns=(-p --fork)
	[ -n "$TRIXIE_NETNS" ] && netns=(ip netns exec "$TRIXIE_NETNS")
	# shellcheck disable=SC2016 # expanded by the inner bash
	TRIXIE_R=$TRIXIE_ROOT TRIXIE_B=$binds TRIXIE_P=$TRIXIE_PIDFILE \
	"${netns[@]}" unshare -m "${pidns[@]}" --propagation private -- bash -c '
		set -e
		r=$TRIXIE_R
		# Before /proc is replaced: our PID as the caller sees it
		read -r pid _ </proc/self/stat
		mount --bind "$r" "$r"
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
		mount -t tmpfs -o mode=755 run "$r/run"
		mkdir -p "$r/run/netns" "$r/run/lock"
		mount -t tmpfs -o mode=1777 tmp "$r/tmp"
		mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup"
		while IFS= read -r b; do
			[ -n "$b" ] || continue
			src=${b%%:*} dst=${b#*:} mode=ro
			case $dst in
			*:rw) dst=${dst%:rw} mode=rw ;;
			esac
			dst=$r$dst
			if [ -d "$src" ]; then
				mkdir -p "$dst"
			else
				mkdir -p "$(dirname "$dst")"
				[ -e "$dst" ] || : >"$dst"
			fi
			mount --bind "$src" "$dst"
			[ "$mode" = rw ] || mount -o remount,bind,ro "$dst"
		done <<<"$TRIXIE_B"
		[ -z "$TRIXIE_P" ] || echo "$pid" >"$TRIXIE_P"
		unset TRIXIE_R TRIXIE_B TRIXIE_P
		cd "$r"
		pivot_root . .
		umount -l .
		cd /
		exec "$@"
	' trixie "$@"
}

# Session started by trixie_session_start: PID of its first process (as
# we see it), and of the unshare command behind it
TRIXIE_SESSION=
TRIXIE_SESSION_JOB=

# trixie_session_start() - start a long-lived session in the root: a mount
# and a PID namespace (TRIXIE_PIDNS) that later commands join with
# trixie_session, with TRIXIE_BINDS, in TRIXIE_NETNS or the caller's
# network namespace
# $1: file for the session's PID
# Return: 0 once the session is ready (TRIXIE_SESSION set), 1 otherwise
#
# What commands leave running in the session (podman's pause process,
# conmon, libvirtd, QEMU) is killed with it by trixie_session_stop. /run
# and /tmp are the session's own, so podman's state lasts from one
# command to the next. The session's first process is catatonit (podman's
# init, in the root), which reaps the processes left to it, as a real PID
# 1 would: libvirt waits for a daemonized QEMU to be reaped.
trixie_session_start() {
	local pidfile=$1 i init=(/usr/bin/sleep infinity)

	# An init that reaps what is left to it (daemons' children)
	[ -x "$TRIXIE_ROOT/usr/bin/catatonit" ] &&
		init=(/usr/bin/catatonit -P)
	rm -f "$pidfile"
	TRIXIE_PIDNS=1 TRIXIE_PIDFILE=$pidfile trixie_exec "${init[@]}" &
	TRIXIE_SESSION_JOB=$!
	for i in $(seq 100); do
		TRIXIE_SESSION=$(cat "$pidfile" 2>/dev/null)
		[ -n "$TRIXIE_SESSION" ] &&
			[ "$(readlink "/proc/$TRIXIE_SESSION/exe" 2>/dev/null)" \
			  = "${init[0]}" ] && return 0
		kill -0 "$TRIXIE_SESSION_JOB" 2>/dev/null || break
		sleep 0.1
	done
	echo "trixie: the session did not start (after $((i / 10)) s)" >&2
	trixie_session_stop
	return 1
}

# trixie_session() - run a command in the session, as root there
# $@: command and arguments
# Return: the command's exit status
trixie_session() {
	nsenter -t "$TRIXIE_SESSION" -m -p -n -r -w "$@"
}

# trixie_session_stop() - end the session: everything in it is killed
trixie_session_stop() {
	local i

	[ -n "$TRIXIE_SESSION_JOB" ] || return 0
	[ -n "$TRIXIE_SESSION" ] && kill -KILL "$TRIXIE_SESSION" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$TRIXIE_SESSION_JOB" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$TRIXIE_SESSION_JOB" 2>/dev/null
	wait "$TRIXIE_SESSION_JOB" 2>/dev/null
	TRIXIE_SESSION=
	TRIXIE_SESSION_JOB=
	return 0
}
