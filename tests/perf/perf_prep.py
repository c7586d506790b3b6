# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_prep.py - before a benchmark: its tools and the build

Theory of operation: install_missing() installs the Debian packages of the
commands a mode needs (apt-get, with an update and a second try if the
first install fails) and says which are still missing; make() builds the
project, keeping make's output in the run's output directory and showing
its last lines if it fails. Both modes of tests/perf/run use them.
"""

import os
import shutil
import subprocess
import sys

from perf_rig import RigError

MAKE_TAIL = 15          # lines of a failed make's output shown


def have(cmd):
    """True if a command (name or absolute path) exists."""
    if cmd.startswith("/"):
        return os.access(cmd, os.X_OK)
    return shutil.which(cmd) is not None


def install_missing(packages):
    """apt-get install what's missing; returns the commands still missing.

    packages: {command: Debian package}.
    """
    missing = [c for c in packages if not have(c)]
    if not missing:
        return []
    pkgs = sorted({packages[c] for c in missing})
    print(f"# installing {' '.join(pkgs)} (apt-get)", flush=True)
    cmd = ["apt-get", "install", "-y", "-q"] + pkgs
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(cmd, env=env, check=False,
                      stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, check=False,
                       stdout=subprocess.DEVNULL)
        subprocess.run(cmd, env=env, check=False, stdout=subprocess.DEVNULL)
    return [c for c in packages if not have(c)]


def make(root, outdir, ours):
    """make -C root, output in outdir/make.log; RigError if it fails.

    ours: the binary the run measures, named in the error (--no-build
    measures it as it is).
    """
    log = os.path.join(outdir, "make.log")
    print("# make (log: make.log)", flush=True)
    with open(log, "w", encoding="utf-8") as f:
        rc = subprocess.run(["make", "-C", root], stdout=f,
                            stderr=subprocess.STDOUT, check=False).returncode
    if rc != 0:
        with open(log, encoding="utf-8", errors="replace") as f:
            tail = f.readlines()[-MAKE_TAIL:]
        sys.stdout.write("".join("#   " + t for t in tail))
        raise RigError(f"make failed (status {rc}); use --no-build to "
                       f"measure the existing {ours}")
    if not os.access(ours, os.X_OK):
        raise RigError(f"{ours} not found: run make or give --ours")
