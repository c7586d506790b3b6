# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/interop/lib/podman.sh - podman 5 from the Debian 13 root, in the
# rig's host namespace, with this relay's pasta as its helper
#
# Theory of operation: sourced after tests/lib/rig.sh and
# tests/interop/lib/trixie.sh, once the rig's host namespace exists.
# pm_start opens a session in the root (trixie_session_start) inside that
# namespace, with the relay's binary bound at TRIXIE_RELAY_DIR/pasta, the
# test's shared directory (PM_SHARE) at /share and the test's resolver
# configuration (PM_RESOLV) over /etc/resolv.conf, and readies podman for
# one of two users:
#   rootless	the unprivileged user TRIXIE_USER with its subordinate
#		range: podman makes its own user namespace
#   userns	root of a user namespace (IDs TRIXIE_NS_BASE... outside,
#		65536 of them) with a mount namespace of its own, as podman
#		runs nested in a container: pasta is the network it can
#		use there (containers.conf: netns = "pasta")
# In both, podman's storage is a tmpfs of the session, the image
# (TRIXIE_IMAGE) is imported into it from the root's tar file, and
# everything podman leaves running dies with the session (pm_stop).
#
# pm runs a command as that user, with CONTAINERS_CONF_OVERRIDE naming the
# relay's directory first for helper binaries (PM_PASTA=relay, default), or
# without it, so that podman runs Debian 13's own /usr/bin/pasta
# (PM_PASTA=debian), the control.

PM_MODE=
PM_PASTA=${PM_PASTA:-relay}
PM_SHARE=
PM_RESOLV=
PM_NS_ANCHOR=		# PID (in the session) of the user namespace's anchor
PM_RELAY_BIN=
PM_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# pm_init() - after rig_init and rig_host_ns: the shared directory, the
# resolver file, the relay binary, the root
# $1: log file for building the root
# Return: 0 if the root is ready, else 1 with a FAIL line
pm_init() {
	PM_RELAY_BIN=$(readlink -f "$RELAY")
	PM_SHARE=$RIG_TMP/share
	PM_RESOLV=$RIG_TMP/resolv.conf
	mkdir -p "$PM_SHARE" && chmod 755 "$PM_SHARE" || return 1
	echo "nameserver 127.0.0.53" >"$PM_RESOLV"
	cp "$RIG_ROOT/tests/interop/lib/container.sh" "$PM_SHARE/" &&
		chmod 644 "$PM_SHARE/container.sh" || return 1
	if ! trixie_ensure "$1"; then
		echo "FAIL: prerequisites: the Debian 13 root is not ready" \
		     "(see $1)"
		return 1
	fi
}

# pm_start() - test step: a session for podman as one of the users
# $1: rootless or userns
pm_start() {
	# shellcheck disable=SC2034 # read by trixie_exec
	local mode=$1 TRIXIE_NETNS=$RIG_HOSTNS out
	# shellcheck disable=SC2034 # read by trixie_exec
	local TRIXIE_BINDS=("$PM_RELAY_BIN:$TRIXIE_RELAY_DIR/pasta"
			    "$PM_SHARE:/share" "$PM_RESOLV:/etc/resolv.conf")

	rig_persist
	PM_MODE=$mode
	trixie_session_start "$RIG_TMP/session.pid" \
		2>>"$RIG_TMP/session.log" ||
		rig_fail "can't start a session in the root" || return 1
	rig_defer trixie_session_stop
	if [ "$mode" = rootless ]; then
		pm_prepare_rootless || return 1
	else
		pm_prepare_userns || return 1
	fi
	out=$(pm podman import -q --change CMD=/bin/sh "$TRIXIE_IMAGE_TAR" \
	      "$TRIXIE_IMAGE" 2>&1) ||
		rig_fail "podman import: $out" || return 1
	out=$(tail -n 1 <<<"$out")
	rig_log "podman $(pm podman version -f '{{.Client.Version}}')" \
		"$mode, image ${out:7:12}"
}

# pm_prepare_rootless() - runtime directory and storage of the podman user
pm_prepare_rootless() {
	local u=$TRIXIE_USER id=$TRIXIE_UID st

	st=/home/$u/.local/share/containers
	trixie_session sh -c "
		mkdir -p /run/user/$id $st &&
		chown $u: /run/user/$id /home/$u/.local \
			/home/$u/.local/share $st &&
		chmod 700 /run/user/$id &&
		mount -t tmpfs -o mode=700,uid=$id,gid=$id storage $st" ||
		rig_fail "can't prepare the podman user's directories"
}

# pm_prepare_userns() - the user namespace whose root runs podman: an
# anchor process holds it and its mount namespace (fresh /run)
pm_prepare_userns() {
	local b=$TRIXIE_NS_BASE _

	trixie_session sh -c "
		mount -t tmpfs -o mode=700,uid=$b,gid=$b storage \
			$TRIXIE_NS_HOME/storage" ||
		rig_fail "can't mount the storage of the namespace's root" ||
		return 1
	# shellcheck disable=SC2016 # expanded in the session
	trixie_session sh -c 'echo $$ >/run/userns.pid
		exec unshare --user --mount --map-users='"$b,0,65536"' \
		--map-groups='"$b,0,65536"' --setuid 0 --setgid 0 -- \
		sh -c "mount -t tmpfs -o mode=755 run /run &&
		       mkdir /run/lock && exec sleep infinity"' \
		</dev/null >>"$RIG_TMP/session.log" 2>&1 &
	for _ in $(seq 50); do
		PM_NS_ANCHOR=$(trixie_session cat /run/userns.pid 2>/dev/null)
		[ -n "$PM_NS_ANCHOR" ] &&
			trixie_session test -d "/proc/$PM_NS_ANCHOR/root/run/lock" \
			2>/dev/null && return 0
		sleep 0.1
	done
	rig_fail "the user namespace for podman did not start" \
		 "($(tail -n 2 "$RIG_TMP/session.log" | tr '\n' ' '))"
}

# pm_stop() - end the session (everything podman left running dies)
pm_stop() {
	trixie_session_stop
	PM_NS_ANCHOR=
}

# pm() - run a command as the session's podman user
# $@: command and arguments
pm() {
	local env=(PATH="$PM_PATH" PODMAN_IGNORE_CGROUPSV1_WARNING=1 TERM=dumb)

	[ "$PM_PASTA" = relay ] &&
		env+=(CONTAINERS_CONF_OVERRIDE="$TRIXIE_RELAY_CONF")
	if [ "$PM_MODE" = rootless ]; then
		trixie_session setpriv --reuid="$TRIXIE_UID" \
			--regid="$TRIXIE_UID" --init-groups \
			env -i "${env[@]}" HOME="/home/$TRIXIE_USER" \
			USER="$TRIXIE_USER" LOGNAME="$TRIXIE_USER" \
			XDG_RUNTIME_DIR="/run/user/$TRIXIE_UID" "$@"
	else
		trixie_session nsenter -t "$PM_NS_ANCHOR" -U -m -r -w \
			env -i "${env[@]}" HOME="$TRIXIE_NS_HOME" \
			CONTAINERS_CONF=/etc/containers/interop-userns.conf \
			CONTAINERS_STORAGE_CONF=/etc/containers/interop-userns-storage.conf \
			"$@"
	fi
}

# pm_run() - podman run --rm, bounded, output (both streams) on stdout;
# the session's /share is the container's too (read-only)
# $@: podman run arguments (options, the image, the command)
pm_run() {
	pm timeout -k 5 60 podman run --rm -v /share:/share:ro "$@" 2>&1
}

# pm_bg() - start a container in the background (podman run -d), removed
# at cleanup; /share as with pm_run
# $1: name
# $2...: podman run arguments (options, the image, the command)
pm_bg() {
	local name=$1 out
	shift

	out=$(pm timeout -k 5 60 podman run -d --name "$name" \
	      -v /share:/share:ro "$@" 2>&1) ||
		rig_fail "podman run $*: $(tail -n 3 <<<"$out" | tr '\n' ' ')" ||
		return 1
	rig_defer "pm_rm '$name'"
}

# pm_rm() - remove a container, if the session still runs
# $1: name
pm_rm() {
	[ -z "$TRIXIE_SESSION" ] || pm podman rm -f -t 0 "$1" >/dev/null 2>&1
	return 0
}

# pm_logs() - a container's output so far
# $1: name
pm_logs() {
	pm podman logs "$1" 2>&1
}

# pm_log_has() - does a container's output hold a line matching a pattern?
# $1: name
# $2: grep -E pattern
pm_log_has() {
	pm_logs "$1" | grep -Eq "$2"
}

# pm_wait_ready() - wait (up to 20 s) for a container to print READY
# $1: name
pm_wait_ready() {
	rig_poll 20 pm_log_has "$1" '^READY' && return 0
	rig_fail "container $1 not ready after 20 s:" \
		 "$(pm_logs "$1" | tail -n 5 | tr '\n' ' ')"
}

# pm_pasta_pid() - the pasta podman started for a container
# $1: container name
# Prints the PID (as seen from here); 1 if none is found
pm_pasta_pid() {
	local key p

	key=$(pm podman inspect -f '{{.NetworkSettings.SandboxKey}}' "$1") ||
		return 1
	[ -n "$key" ] || return 1
	for p in /proc/[0-9]*; do
		tr '\0' '\n' 2>/dev/null <"$p/cmdline" |
			grep -qxF -- "$key" || continue
		echo "${p#/proc/}"
		return 0
	done
	return 1
}

# pm_is_relay() - is a process running this relay's binary?
# $1: PID
pm_is_relay() {
	[ "$(stat -L -c %d:%i "/proc/$1/exe" 2>/dev/null)" = \
	  "$(stat -L -c %d:%i "$PM_RELAY_BIN")" ]
}
