#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/interop/lib/trixie_setup.sh - prepare the Debian 13 root for the
# podman tests (run inside the root, as root, by trixie_setup)
#
# Usage (inside the root): trixie_setup.sh PACKAGE...
#   PACKAGE	packages of the image's root file system
#
# Theory of operation: podman needs, on a host without systemd, a user with
# subordinate IDs, containers.conf without systemd's cgroup manager and
# journal, and an image it never has to pull. This script makes all of it
# from what the root already holds (no network): the user and its ranges,
# the configuration files, and the image's root file system, copied from
# the files of the named packages and of every package they depend on
# (dpkg -L), with busybox's applets for the commands none of them has. The
# tar file is what the tests import (podman import) into a storage of
# their own, so that the root itself stays as this script leaves it. It
# may run again over its own result.
#
# Environment (from tests/interop/lib/trixie.sh):
#   U, UID_	the podman user and its UID
#   SUB		first subordinate ID of that user (65536 of them)
#   NSB		first ID outside of the user namespace whose root runs
#		podman too (65536 of them)
#   NSHOME	that root's home, its podman storage below
#   RDIR	where tests bind the relay's pasta
#   RCONF	containers.conf override naming RDIR first for helpers
#   IMG_TAR	where the image's tar file goes

set -e

id "$U" >/dev/null 2>&1 || useradd -m -u "$UID_" -s /bin/bash "$U"
echo "$U:$SUB:65536" >/etc/subuid
echo "$U:$SUB:65536" >/etc/subgid
mkdir -p /etc/containers "$RDIR" "$(dirname "$IMG_TAR")"

cat >/etc/containers/containers.conf <<EOF
# No systemd here: cgroups without it, events and logs to files
[containers]
log_driver = "k8s-file"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF

cat >"$RCONF" <<EOF
# Loaded last (CONTAINERS_CONF_OVERRIDE): podman finds pasta here first
[engine]
helper_binaries_dir = ["$RDIR", "/usr/local/libexec/podman",
	"/usr/local/lib/podman", "/usr/libexec/podman", "/usr/lib/podman"]
EOF

# Root of a user namespace (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF): no
# cgroup is writable there, and pasta is the network podman can use there
cat >/etc/containers/interop-userns.conf <<EOF
[containers]
cgroups = "disabled"
log_driver = "k8s-file"
netns = "pasta"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
cat >/etc/containers/interop-userns-storage.conf <<EOF
[storage]
driver = "overlay"
graphroot = "$NSHOME/storage"
runroot = "/run/containers/storage"
EOF
mkdir -p "$NSHOME/storage"
chown -R "$NSB:$NSB" "$NSHOME"

# The image: the packages and what they depend on, from this root
pkgs=$(apt-cache depends --recurse --installed --no-recommends \
	--no-suggests --no-conflicts --no-breaks --no-replaces \
	--no-enhances "$@" | grep -v '^[ <]' | sort -u)
d=$(mktemp -d)
list=$(mktemp)
for p in $pkgs; do
	dpkg -L "$p"
done | grep '^/.' | sort -u | while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		echo "${f#/}"
	fi
done >"$list"
tar -C / --no-recursion -cf - -T "$list" | tar -C "$d" -xf -
for l in bin sbin lib lib64; do
	[ -e "$d/$l" ] || ln -s "usr/$l" "$d/$l"
done
mkdir -p "$d/usr/local/bin" "$d/etc" "$d/root" "$d/home"
mkdir -p "$d/tmp" "$d/var/tmp"
chmod 1777 "$d/tmp" "$d/var/tmp"
for a in $(busybox --list); do
	[ -e "$d/usr/bin/$a" ] || [ -e "$d/usr/sbin/$a" ] ||
		ln -s /usr/bin/busybox "$d/usr/local/bin/$a"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$d/etc/passwd"
printf 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >>"$d/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$d/etc/group"
tar -C "$d" -cf "$IMG_TAR" .
chmod 644 "$IMG_TAR"
rm -rf "$d" "$list"
echo "image: $(du -h "$IMG_TAR" | cut -f1), packages: $(echo "$pkgs" | wc -l)"
