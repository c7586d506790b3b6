# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/apt.sh - install the Debian packages a test needs
#
# Theory of operation: the suite installs what it runs (README command 2
# needs no other step), so that any test passes by itself on a fresh Debian
# 12 that has seen only README command 1, whatever ran before it. A test
# names the commands it runs (rig_need, tests/lib/rig.sh); apt_need_cmds
# installs the package of each one that is missing, from one table,
# APT_CMD_PKGS, shared with tests/run. A package with no command to look
# for (a library, a runtime) is installed by the test with apt_install.
#
# A machine may be installing something else at the same time (an
# unattended upgrade, another job): apt_install waits for apt's lock
# (apt's DPkg::Lock::Timeout), retries once after updating the package
# lists, and leaves the whole apt output in a log for the failure message.
#
# Environment:
#   NO_APT		if set, install nothing (apt_install fails)
#   APT_LOCK_WAIT	seconds to wait for apt's lock (default 600)

# command -> Debian package, for every command a test runs that Debian 12's
# minimal installation (debootstrap --variant=minbase) lacks
APT_CMD_PKGS="ip:iproute2 ss:iproute2 tc:iproute2 nstat:iproute2
	      bridge:iproute2 socat:socat iperf3:iperf3 jq:jq
	      sysctl:procps pgrep:procps pkill:procps ps:procps
	      ping:iputils-ping sha256sum:coreutils timeout:coreutils
	      setpriv:util-linux prlimit:util-linux strace:strace
	      setcap:libcap2-bin useradd:passwd
	      nsenter:util-linux unshare:util-linux
	      systemd-analyze:systemd busybox:busybox-static
	      python3:python3 tshark:tshark
	      qemu-system-x86_64:qemu-system-x86 zstd:zstd
	      clang:clang debootstrap:debootstrap
	      dpkg-buildpackage:dpkg-dev dh:debhelper dh_apparmor:dh-apparmor
	      apparmor_parser:apparmor pkg-config:pkg-config
	      cc:gcc nm:binutils"

# apt_install() - install packages, waiting for apt's lock
# $1: log file for apt's output
# $2...: packages
# Return: 0 if apt-get installed them, 1 otherwise (also with NO_APT, not
# root, or no apt-get)
apt_install() {
	local log=$1 lock
	shift

	[ -z "$NO_APT" ] && [ "$(id -u)" = 0 ] &&
		command -v apt-get >/dev/null 2>&1 || return 1
	lock="DPkg::Lock::Timeout=${APT_LOCK_WAIT:-600}"
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o "$lock" \
		"$@" ||
	  { apt-get update -q -o "$lock" &&
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o "$lock" \
		"$@"; }
	} >"$log" 2>&1
}

# apt_cmd_pkg() - print the Debian package of a command (APT_CMD_PKGS)
# $1: command
# Return: 0 if the table has it
apt_cmd_pkg() {
	local pair

	for pair in $APT_CMD_PKGS; do
		[ "${pair%%:*}" = "$1" ] || continue
		echo "${pair#*:}"
		return 0
	done
	return 1
}

# apt_need_cmds() - install the packages of missing commands
# $1: log file for apt's output
# $2...: commands
# Return: 0 if every command is there afterwards. Prints a "#" line naming
# what it installs; a missing command the table doesn't know is left
# missing (the caller says so).
apt_need_cmds() {
	local log=$1 c p pkgs=''
	shift

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		p=$(apt_cmd_pkg "$c") || continue
		case " $pkgs " in
		*" $p "*) ;;
		*) pkgs="$pkgs $p" ;;
		esac
	done
	if [ -n "$pkgs" ]; then
		echo "# installing Debian packages:$pkgs (log: $log)"
		mkdir -p "$(dirname "$log")"
		# shellcheck disable=SC2086 # a list of packages
		apt_install "$log" $pkgs
	fi
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || return 1
	done
}
