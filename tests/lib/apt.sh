# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/apt.sh - install the Debian packages a test needs
#
# Theory of operation: the suite installs what it runs (README command 2
# needs no other step), but a machine may be installing something else at
# the same time (an unattended upgrade, another job): apt-get then finds
# its lock held and used to fail at once. apt_install waits for the lock
# (apt's DPkg::Lock::Timeout), retries once after updating the package
# lists, and leaves the whole apt output in a log for the failure message.
#
# Environment:
#   NO_APT		if set, install nothing (apt_install fails)
#   APT_LOCK_WAIT	seconds to wait for apt's lock (default 600)

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
