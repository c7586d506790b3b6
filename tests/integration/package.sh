#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/package.sh - the Debian package (make deb)
#
# Rig: no network namespace. apparmor (apparmor_parser, to check the
# profile) is installed with apt-get first if missing; the package's build
# dependencies are make deb's to install (make deb-deps).
#
#   build: "make deb" builds build-deb/passt-relay_VERSION_ARCH.deb from the
#     tree (reused if no file of the tree is newer), installing the build
#     dependencies it lacks (on a fresh machine: debhelper, dh-apparmor);
#   build dependencies named: with one that apt-get can't install (a
#     control file naming a package that doesn't exist, NO_APT set), make
#     deb-deps fails, naming it and the apt-get command;
#   build dependencies installed: in a throw-away root (below) without
#     dh-apparmor, make deb-deps installs it, and dpkg-checkbuilddeps is
#     satisfied afterwards;
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
#
# The package is built from the tree (build-deb/): the relay under test
# (RELAY) never runs, so make sanitize skips the script (tests/run
# --relay-only).
# tests/run: independent of RELAY

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

DEBIAN_PASST=passt	# Debian's package ours replaces
NO_SUCH_PKG=passt-relay-test-no-such-package	# in no archive
LIMIT=600

rig_init

DEB=
ROOT=$RIG_TMP/root
INSTALL_OUT=

# prerequisites() - test: install what checking the package needs
prerequisites() {
	apt_need_cmds "$RIG_TMP/apt.log" apparmor_parser ||
		rig_fail "can't install apparmor: $(tail -n 1 "$RIG_TMP/apt.log")"
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
	grep '^make deb: ' "$RIG_TMP/deb.log" | rig_indent
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
		[ -z "$1" ] || cp "$1" "$R/tmp/pkg.deb"
		[ ! -s "$2" ] || cp "$2" "$R/tmp/debian-passt.deb"
		# No manual page index update in there: it takes long
		rm -f "$R/var/lib/man-db/auto-update"
		eval "$3"' "$ROOT" "$DEB" "$RIG_TMP/debian-passt.deb" "$1"
}

# deps_named() - test: a build dependency apt-get can't install is named
deps_named() {
	local ctl=$RIG_TMP/control out

	sed "s/^Build-Depends: /&$NO_SUCH_PKG (>= 1), /" \
		"$RIG_ROOT/contrib/debian/control" >"$ctl" || return 1
	grep -q "$NO_SUCH_PKG" "$ctl" ||
		rig_fail "no Build-Depends in contrib/debian/control" ||
		return 1
	out=$(make -s -C "$RIG_ROOT" deb-deps DEB_CONTROL="$ctl" NO_APT=1 \
	      2>&1) && rig_fail "make deb-deps succeeded: $out" && return 1
	rig_log "$(tr '\n' ';' <<<"$out")"
	grep -q "missing build dependencies: .*$NO_SUCH_PKG" <<<"$out" ||
		rig_fail "the package is not named: $out" || return 1
	grep -q "apt-get install .*$NO_SUCH_PKG" <<<"$out" ||
		rig_fail "no apt-get command given: $out"
}

# deps_installed() - test: make deb-deps installs a missing build
# dependency (dh-apparmor, removed from the throw-away root)
deps_installed() {
	local out

	mkdir -p "$RIG_TMP/tree/contrib/debian" &&
		cp "$RIG_ROOT/Makefile" "$RIG_TMP/tree/" &&
		cp "$RIG_ROOT/contrib/debian/control" \
		   "$RIG_TMP/tree/contrib/debian/" || return 1
	# shellcheck disable=SC2016 # expanded in the root's shell
	out=$(TREE=$RIG_TMP/tree in_root '
		cp -r "$TREE" "$R/tmp/tree"
		ctl=/tmp/tree/contrib/debian/control
		chroot "$R" dpkg -r dh-apparmor >/dev/null 2>&1 || true
		echo "removed: $(chroot "$R" dpkg-checkbuilddeps $ctl 2>&1)"
		rc=0
		chroot "$R" make -s -C /tmp/tree deb-deps \
			>"$R/tmp/make.out" 2>&1 || rc=$?
		grep "^make deb\|^E:" "$R/tmp/make.out" || true
		echo "make: $rc"
		chroot "$R" dpkg-checkbuilddeps $ctl 2>&1 && echo satisfied
	' 2>&1)
	rig_log "$(tr '\n' ';' <<<"$out")"
	grep -q "^removed: .*Unmet build dependencies: dh-apparmor" \
		<<<"$out" || rig_fail "dh-apparmor not removed:" \
			"$(tr '\n' ' ' <<<"$out")" || return 1
	grep -q "^make deb: installing build dependencies: dh-apparmor$" \
		<<<"$out" || rig_fail "make deb-deps did not install it:" \
			"$(tr '\n' ' ' <<<"$out")" || return 1
	{ grep -qx "make: 0" <<<"$out" && grep -qx satisfied <<<"$out"; } ||
		rig_fail "not satisfied after make deb-deps:" \
			 "$(tr '\n' ' ' <<<"$out")"
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

rig_run "package: apparmor (to check the profile) installed" prerequisites
rig_run "package: make deb installs its build dependencies, builds passt-relay" \
	build
rig_run "package: make deb names a build dependency it can't install, and the apt-get command" \
	deps_named
rig_run "package: make deb installs a missing build dependency (dh-apparmor, in a throw-away root)" \
	deps_installed
rig_run "package: dpkg-deb -c lists passt, pasta, manual pages, AppArmor profile; replaces passt" \
	contents
rig_run "package: AppArmor profile for /usr/bin/passt parses (apparmor_parser -Q)" \
	apparmor
rig_run "package: dpkg -i in a throw-away root replaces Debian's passt; installed pasta --version runs" \
	install
rig_summary
