#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/package.sh - the Debian package (make deb)
#
# Rig: no network namespace. The Debian packages needed to build and check
# the package (debhelper, dh-apparmor, dpkg-dev, apparmor) are installed
# with apt-get first; one that can't be is a failure that names it.
#
#   build: "make deb" builds build-deb/passt-relay_VERSION_ARCH.deb from the
#     tree (reused if no file of the tree is newer);
#   contents (dpkg-deb -c): /usr/bin/passt, /usr/bin/pasta -> passt,
#     /usr/bin/pesto, the manual pages passt.1, pasta.1 and pesto.1, the
#     AppArmor profile /etc/apparmor.d/usr.bin.passt and its abstractions
#     passt and pasta;
#     fields: Conflicts, Replaces and Provides passt;
#   AppArmor: the profile, as installed, parses (apparmor_parser -Q: this
#     kernel has no AppArmor to load it into);
#   install: in a throw-away root (an overlay over / in a mount namespace
#     of its own, discarded at the end) that has Debian's passt installed,
#     "dpkg -i" replaces it: passt-relay installed, passt gone with its
#     files (passt.avx2, qrap; it owns none of them any more, and purging
#     it leaves ours alone), the profile ours; the installed pasta
#     --version names pasta and our version, and passt --version too.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

# Debian packages this test needs: package:command or package:path
NEEDS="debhelper:dh dh-apparmor:/usr/bin/dh_apparmor dpkg-dev:dpkg-buildpackage
       apparmor:apparmor_parser libseccomp-dev:/usr/include/seccomp.h
       libcap-ng-dev:/usr/include/cap-ng.h pkg-config:pkg-config"
DEBIAN_PASST=passt	# Debian's package ours replaces
LIMIT=600

rig_init

DEB=
ROOT=$RIG_TMP/root
INSTALL_OUT=

# have() - is a command or a file there?
# $1: command name or absolute path
have() {
	case $1 in
	/*) [ -e "$1" ] ;;
	*)  command -v "$1" >/dev/null 2>&1 ;;
	esac
}

# prerequisites() - test: install what building and checking need
prerequisites() {
	local pair missing='' still='' log=$RIG_TMP/apt.log

	for pair in $NEEDS; do
		have "${pair#*:}" || missing="$missing ${pair%%:*}"
	done
	[ -z "$missing" ] && return 0
	rig_log "installing:$missing"
	# shellcheck disable=SC2086 # a list of packages
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		-o DPkg::Lock::Timeout=300 $missing ||
	  { apt-get update -q -o DPkg::Lock::Timeout=300 &&
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		-o DPkg::Lock::Timeout=300 $missing; }; } >"$log" 2>&1
	for pair in $NEEDS; do
		have "${pair#*:}" || still="$still ${pair%%:*}"
	done
	[ -z "$still" ] ||
		rig_fail "can't install Debian packages:$still ($(tail -n 1 \
			  "$log"))"
}

# deb_built() - print the path of the first package in build-deb/, if any
deb_built() {
	local f

	for f in "$RIG_ROOT"/build-deb/passt-relay_*.deb; do
		[ -e "$f" ] && echo "$f"
		return 0
	done
}

# build() - test: make deb, or reuse a package newer than the tree
build() {
	local newer

	DEB=$(deb_built)
	if [ -n "$DEB" ]; then
		newer=$(cd "$RIG_ROOT" && find . \( -path ./.git -o \
			-path './build*' -o -path ./tests/out \) -prune -o \
			-type f -newer "$DEB" -print -quit)
		[ -z "$newer" ] && rig_log "reusing $DEB" && return 0
	fi
	timeout "$LIMIT" nice -n 10 make -C "$RIG_ROOT" deb \
		>"$RIG_TMP/deb.log" 2>&1 ||
		rig_fail "make deb failed: $(tail -n 3 "$RIG_TMP/deb.log" |
					    tr '\n' ' ')" || return 1
	DEB=$(deb_built)
	[ -n "$DEB" ] || rig_fail "make deb made no package"
}

# contents() - test: the package's files and relations
contents() {
	local list f field

	[ -n "$DEB" ] || rig_fail "no package" || return 1
	list=$(dpkg-deb -c "$DEB" | awk '{ $1 = $2 = $3 = $4 = $5 = ""
					   sub(/^ +/, ""); print }')
	for f in ./usr/bin/passt "./usr/bin/pasta -> passt" ./usr/bin/pesto \
		 ./usr/share/man/man1/passt.1.gz \
		 ./usr/share/man/man1/pesto.1.gz \
		 "./usr/share/man/man1/pasta.1.gz -> passt.1.gz" \
		 ./etc/apparmor.d/usr.bin.passt \
		 ./etc/apparmor.d/abstractions/passt \
		 ./etc/apparmor.d/abstractions/pasta; do
		grep -qxF "$f" <<<"$list" ||
			rig_fail "dpkg-deb -c: no $f" || return 1
	done
	for field in Conflicts Replaces Provides; do
		dpkg-deb -f "$DEB" "$field" | grep -qw "$DEBIAN_PASST" ||
			rig_fail "$field doesn't name $DEBIAN_PASST:" \
				 "$(dpkg-deb -f "$DEB" "$field")" || return 1
	done
	rig_log "$(grep -c . <<<"$list") entries; Provides:" \
		"$(dpkg-deb -f "$DEB" Provides)"
}

# apparmor() - test: the installed profile parses
apparmor() {
	local x=$RIG_TMP/x out

	dpkg-deb -x "$DEB" "$x" || rig_fail "dpkg-deb -x failed" || return 1
	# Our abstractions first, the system's (tunables, base) after
	apparmor_parser -Q -I "$x/etc/apparmor.d" \
		"$x/etc/apparmor.d/usr.bin.passt" >"$RIG_TMP/aa.out" 2>&1 ||
		rig_fail "apparmor_parser -Q: $(grep -v '^Cache read' \
			  "$RIG_TMP/aa.out" | tr '\n' ' ')" || return 1
	apparmor_parser -Q -p -I "$x/etc/apparmor.d" \
		"$x/etc/apparmor.d/usr.bin.passt" >"$RIG_TMP/aa.out" 2>&1
	grep -q "^profile passt /usr/bin/passt " "$RIG_TMP/aa.out" ||
		rig_fail "no profile for /usr/bin/passt"
}

# in_root() - run a script in the throw-away root, which it makes
# $1: script (bash), run with the root as $R; the package is /tmp/pkg.deb
#     inside, Debian's passt package /tmp/debian-passt.deb
in_root() {
	mkdir -p "$ROOT"
	# shellcheck disable=SC2016 # expanded by the shell unshare starts
	unshare -m --propagation private bash -c '
		set -e
		R=$0/merged
		mount -t tmpfs tmpfs "$0"
		mkdir "$0/upper" "$0/work" "$R"
		mount -t overlay overlay \
			-o "lowerdir=/,upperdir=$0/upper,workdir=$0/work" "$R"
		mount --rbind /dev "$R/dev"
		mount -t proc proc "$R/proc"
		mount -t tmpfs tmpfs "$R/tmp"
		cp "$1" "$R/tmp/pkg.deb"
		[ -z "$2" ] || cp "$2" "$R/tmp/debian-passt.deb"
		# No manual page index update in there: it takes long
		rm -f "$R/var/lib/man-db/auto-update"
		eval "$3"' "$ROOT" "$DEB" "$RIG_TMP/debian-passt.deb" "$1"
}

# install() - test: dpkg -i in a throw-away root replaces Debian's passt
install() {
	local out v

	v=$(dpkg-deb -f "$DEB" Version)
	if [ ! -s "$RIG_TMP/debian-passt.deb" ]; then
		cp /var/cache/apt/archives/"$DEBIAN_PASST"_*.deb \
			"$RIG_TMP/debian-passt.deb" 2>/dev/null ||
			(cd "$RIG_TMP" && apt-get download -q \
			 -o DPkg::Lock::Timeout=300 "$DEBIAN_PASST" \
			 >"$RIG_TMP/download.log" 2>&1 &&
			 mv "$DEBIAN_PASST"_*.deb debian-passt.deb) ||
			rig_fail "can't get Debian's $DEBIAN_PASST package:" \
				 "$(tail -n 1 "$RIG_TMP/download.log")" ||
			return 1
	fi
	# shellcheck disable=SC2016 # expanded in the root's shell
	out=$(in_root '
		export DEBIAN_FRONTEND=noninteractive
		chroot "$R" dpkg-query -W -f="\${Status}\n" passt 2>/dev/null |
			grep -q "ok installed" ||
			chroot "$R" dpkg -i /tmp/debian-passt.deb >/dev/null
		echo "before: $(chroot "$R" dpkg-query -W \
			-f="\${Package} \${Version} \${Status}" passt)"
		chroot "$R" dpkg -i /tmp/pkg.deb 2>&1 | sed "s/^/dpkg: /"
		echo "passt: $(chroot "$R" dpkg-query -W \
			-f="\${Status}" passt 2>&1)"
		# Removed, not purged, as any replaced package with a postrm;
		# purging it leaves our files alone
		echo "owns: $(chroot "$R" dpkg-query -L passt 2>/dev/null |
			grep -c /)"
		chroot "$R" dpkg --purge passt >/dev/null 2>&1
		echo "purged: $(chroot "$R" dpkg-query -W -f="\${Status}" \
			passt 2>&1 | grep -c "ok installed\|config-files")"
		echo "relay: $(chroot "$R" dpkg-query -W \
			-f="\${Version} \${Status}" passt-relay 2>&1)"
		echo "audit: $(chroot "$R" dpkg --audit 2>&1 | wc -l)"
		for f in /usr/bin/passt.avx2 /usr/bin/qrap; do
			[ ! -e "$R$f" ] || echo "left: $f"
		done
		echo "profile: $(grep -c "this relay" \
			"$R/etc/apparmor.d/usr.bin.passt")"
		echo "pasta: $(chroot "$R" pasta --version | head -n 1)"
		echo "passt: $(chroot "$R" passt --version | head -n 1)"
		echo "link: $(chroot "$R" readlink /usr/bin/pasta)"
	' 2>&1)
	rig_log "$(grep -v '^dpkg: ' <<<"$out" | tr '\n' ';')"
	INSTALL_OUT=$out
	says "^relay: $v install ok installed$" "passt-relay not installed:" \
		"$(tr '\n' ' ' <<<"$out" | tail -c 400)" || return 1
	! says "^passt: .*ok installed" || rig_fail "Debian's passt still" \
		"installed" || return 1
	! says "^left: " || rig_fail "Debian's files left:" \
		"$(grep '^left: ' <<<"$out")" || return 1
	says "^owns: 0$" "Debian's passt still owns files" || return 1
	says "^purged: 0$" "Debian's passt can't be purged" || return 1
	says "^audit: 0$" "dpkg --audit reports problems" || return 1
	says "^profile: [1-9]" "the AppArmor profile is not ours" || return 1
	says "^pasta: pasta $v( |$)" "installed pasta --version:" \
		"$(grep '^pasta: ' <<<"$out")" || return 1
	says "^passt: passt $v( |$)" "installed passt --version:" \
		"$(grep '^passt: ' <<<"$out")"
}

# says() - does a line of the install's report match?
# $1: extended regular expression
# $2...: failure reason, if given (else just the status)
says() {
	local re=$1
	shift

	grep -qE "$re" <<<"$INSTALL_OUT" && return 0
	[ $# -eq 0 ] || rig_fail "$@"
	return 1
}

rig_run "package: Debian packages to build and check it installed" \
	prerequisites
rig_run "package: make deb builds passt-relay" build
rig_run "package: dpkg-deb -c lists passt, pasta, manual pages, AppArmor profile; replaces passt" \
	contents
rig_run "package: AppArmor profile for /usr/bin/passt parses (apparmor_parser -Q)" \
	apparmor
rig_run "package: dpkg -i in a throw-away root replaces Debian's passt; installed pasta --version runs" \
	install
rig_summary
