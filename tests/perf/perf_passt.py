# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_passt.py - tests/perf/run --mode passt: the VM path

Theory of operation: the options are in tests/perf/run's --help. The run
installs what is missing (apt-get), builds the project, makes the rig's
host namespace (perf_rig.py), builds the guest and picks the accelerator
(perf_vm.py). Then, for each backend and MTU in turn, it starts every
peer with a guest of its own (perf_vm.Guests) and runs each measurement
(perf_vm_metrics.py) for every peer in turn, A B C A B C ..., --repeat
times, so that drift in the machine's load affects all peers alike; the
guests are stopped before the next backend or MTU starts. The host
side's sockets (the relays' and the clients') use one congestion control,
Linux's default unless --congestion says otherwise, whatever the machine
is set to: with BBR, the host sender's pacing timers send from whichever
process they interrupt, and a relay's CPU time then includes some of the
sender's work (doc/perf-notes/host-congestion-control.md). The table
(perf_table.py) has a row per backend and metric, a column per peer and
this project's ratio to each peer. Raw outputs, relay logs, the guests'
consoles, results.json and table.txt stay in the output directory.
"""

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys

import perf_metrics as M
import perf_vm as V
import perf_vm_metrics as VM
from perf_prep import install_missing, make
from perf_rig import Rig, RigError, catch_signals, loadavg
from perf_table import Layout, Results, Row, short, table

ROOT = V.ROOT
OURS = "passt"
NAMES = {"passt-current": "current", "passt-upstream": "upstream"}
METRICS = ("tcp", "latency", "latency-load", "cpu-rate", "transfer")
CPU_RATE = "1G"         # iperf3 -b of the cpu-rate rows: every relay and
                        # direction reaches it with a TCG guest
CONGESTION = "cubic"    # the host side's TCP congestion control: Linux's
                        # default, whatever this machine's is (--congestion)
PORT_BASE = 16001       # host ports: PORT_BASE + 10 * guest + k
TRANSFER = "128M"       # size of the sha256-checked transfers
TRANSFER_QUICK = "16M"
# command: Debian package
PACKAGES = {"iperf3": "iperf3", "sockperf": "sockperf", "socat": "socat",
            "qemu-system-x86_64": "qemu-system-x86",
            V.DEBIAN_PASST: "passt", "ip": "iproute2", "make": "make"}
RECORD_PACKAGES = {"perf": "linux-perf"}


def parse_args(argv):
    """Command line of the passt mode; returns the argparse namespace."""
    ap = argparse.ArgumentParser(prog="tests/perf/run --mode passt",
                                 add_help=False)
    ap.add_argument("--mode", choices=("passt",), default="passt")
    ap.add_argument("--backend", choices=("stream", "vhost-user", "both"),
                    default="both")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default=",".join(V.PEERS))
    ap.add_argument("--metrics", default=",".join(METRICS))
    ap.add_argument("--mtus", default="65520,1500")
    ap.add_argument("--accel", choices=("auto", "kvm", "tcg"),
                    default="auto")
    ap.add_argument("--transfer-size", default=None)
    ap.add_argument("--vcpus", type=int, default=1)
    ap.add_argument("--congestion", default=CONGESTION)
    ap.add_argument("--cpu-rate", default=CPU_RATE)
    ap.add_argument("--out")
    ap.add_argument("--ours", default=os.path.join(ROOT, "passt"))
    ap.add_argument("--upstream", default=None)
    ap.add_argument("--label", default="")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args(argv)
    if a.quick:
        a.seconds = 1
    a.backends = V.BACKENDS if a.backend == "both" else (a.backend,)
    a.peers = []
    for p in a.only.split(","):
        p = V.ALIASES.get(p.strip(), p.strip())
        if p not in V.PEERS:
            ap.error(f"unknown peer {p!r}: one of {', '.join(V.PEERS)}")
        if p not in a.peers:
            a.peers.append(p)
    a.peers.sort(key=V.PEERS.index)
    a.metrics = [m.strip() for m in a.metrics.split(",") if m.strip()]
    for m in a.metrics:
        if m not in METRICS:
            ap.error(f"unknown metric {m!r}: one of {', '.join(METRICS)}")
    try:
        a.mtus = [int(m) for m in a.mtus.split(",")]
        a.size = _bytes(a.transfer_size or
                        (TRANSFER_QUICK if a.quick else TRANSFER))
    except ValueError:
        ap.error("--mtus: numbers; --transfer-size: bytes, K, M or G")
    try:
        if M.rate_bps(a.cpu_rate) <= 0:
            raise ValueError
    except ValueError:
        ap.error("--cpu-rate: a positive rate such as 1G or 500M")
    if not re.fullmatch(r"[a-z0-9_]+", a.congestion):
        ap.error("--congestion: a name such as cubic or bbr")
    if a.seconds < 1 or a.repeat < 1 or a.size < 1 or a.vcpus < 1:
        ap.error("--seconds, --repeat, --transfer-size and --vcpus must "
                 "be positive")
    a.ours = os.path.abspath(a.ours)
    if a.upstream:
        a.upstream = os.path.abspath(a.upstream)
        if not os.access(a.upstream, os.X_OK):
            ap.error(f"--upstream: {a.upstream} is not an executable")
    return a


def _bytes(text):
    """A size such as 128M in bytes."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:].upper() in mult:
        return int(text[:-1]) * mult[text[-1:].upper()]
    return int(text)


def rows_for(args):
    """Rows of the table, in order: per backend, then metric and MTU."""
    rows = []
    m0 = args.mtus[0]
    for b in args.backends:
        if "tcp" in args.metrics:
            for mtu in args.mtus:
                for d, name in VM.DIRS.items():
                    for n in (1, 4):
                        rows.append(Row(
                            f"{b}:tcp:{d}:{mtu}:{n}",
                            f"{b}: TCP {name} MTU {mtu}, {n} stream"
                            + ("s" if n > 1 else ""), "Gbit/s", "higher"))
        if "latency" in args.metrics:
            for p in ("p50", "p99", "p99.9"):
                rows.append(Row(f"{b}:lat:{m0}:{p}",
                                f"{b}: TCP RTT 64 B host->guest->host, {p}",
                                "us", "lower", fmt="{:.1f}"))
        if "latency-load" in args.metrics:
            for p in ("p50", "p99", "p99.9"):
                rows.append(Row(f"{b}:latl:{m0}:{p}",
                                f"{b}: TCP RTT 64 B, host->guest bulk "
                                f"load, {p}", "us", "lower", fmt="{:.1f}"))
            rows.append(Row(f"{b}:latl:{m0}:bulk",
                            "  the load meanwhile", "Gbit/s", "higher"))
        if "tcp" in args.metrics:
            for mtu in args.mtus:
                for d, name in VM.DIRS.items():
                    rows.append(Row(f"{b}:cpu:{d}:{mtu}",
                                    f"{b}: relay CPU, TCP {name} MTU {mtu}",
                                    "s/GiB", "lower", fmt="{:.3f}"))
        if "cpu-rate" in args.metrics:
            for mtu in args.mtus:
                for d, name in VM.DIRS.items():
                    rows.append(Row(f"{b}:cpur:{d}:{mtu}",
                                    f"{b}: relay CPU, TCP {name} MTU {mtu} "
                                    f"at {args.cpu_rate}bit/s", "s/GiB",
                                    "lower", fmt="{:.3f}"))
        if "transfer" in args.metrics:
            mib = args.size >> 20
            for mtu in args.mtus:
                for d, name in VM.DIRS.items():
                    rows.append(Row(f"{b}:xfer:{mtu}:{d}",
                                    f"{b}: {mib} MiB {name} MTU {mtu}, "
                                    f"sha256 matched", "Gbit/s", "higher",
                                    ratio=False))
    return rows


def jobs_for(args, mtu, data):
    """Measurements of one backend and MTU, each for every peer in turn.

    Each job: (name, row keys it fills without the backend prefix,
    function(guest, repetition) -> perf_metrics.Result).
    """
    secs, jobs = args.seconds, []
    if "tcp" in args.metrics:
        for d, name in VM.DIRS.items():
            for n in (1, 4):
                keys = [f"tcp:{d}:{mtu}:{n}"]
                if n == 1:
                    keys.append(f"cpu:{d}:{mtu}")
                jobs.append((f"TCP {name} MTU {mtu} x{n}", keys,
                             lambda g, r, d=d, n=n: VM.tcp(
                                 args.rig, g, d, n, secs, r, args.record)))
    if "latency" in args.metrics and mtu == args.mtus[0]:
        jobs.append(("TCP RTT", [f"lat:{mtu}:{p}" for p in
                                 ("p50", "p99", "p99.9")],
                     lambda g, r: VM.latency(args.rig, g, secs, r)))
    if "latency-load" in args.metrics and mtu == args.mtus[0]:
        jobs.append(("TCP RTT, bulk load", [f"latl:{mtu}:{p}" for p in
                                            ("p50", "p99", "p99.9",
                                             "bulk")],
                     lambda g, r: VM.latency_load(args.rig, g, secs, r)))
    if "cpu-rate" in args.metrics:
        for d, name in VM.DIRS.items():
            jobs.append((f"CPU {name} MTU {mtu} at {args.cpu_rate}",
                         [f"cpur:{d}:{mtu}"],
                         lambda g, r, d=d: VM.tcp(
                             args.rig, g, d, 1, secs, r, args.record,
                             rate=args.cpu_rate)))
    if "transfer" in args.metrics:
        digest = VM.sha256_file(data)
        jobs.append((f"sha256 transfer MTU {mtu}",
                     [f"xfer:{mtu}:h2g", f"xfer:{mtu}:g2h"],
                     lambda g, r: VM.transfer(args.rig, g, data, digest, r)))
    return jobs


def run_group(args, guests, backend, mtu, data, results):
    """Start every peer's guest for a backend and MTU, measure, stop."""
    started, failed = {}, {}
    for k, p in enumerate(args.peers):
        if (p, backend) in args.unavailable:
            continue
        try:
            started[p] = guests.start(p, backend, mtu, PORT_BASE + 10 * k)
            print(f"# {p} {backend} MTU {mtu}: relay pid "
                  f"{started[p].pid}, QEMU pid {started[p].qemu.pid}",
                  flush=True)
        except RigError as e:
            print(f"# {p} {backend} MTU {mtu}: failed to start: {e}",
                  flush=True)
            failed[p] = f"failed to start: {e}"
    try:
        jobs = jobs_for(args, mtu, data)
        for name, keys, fn in jobs:
            keys = [f"{backend}:{k}" for k in keys]
            for rep in range(1, args.repeat + 1):
                for p in args.peers:
                    if (p, backend) in args.unavailable:
                        continue
                    g = started.get(p)
                    res = fn(g, rep) if g else \
                        M.Result(error=failed.get(p, "not started"))
                    results.add(keys, p, res)
                    print(f"[{backend} r{rep}] {name:<24} {p:<15} "
                          f"{short(res, keys[0])}", flush=True)
    finally:
        for g in started.values():
            guests.stop(g)


def prepare(args, outdir, notes):
    """Tools, build, the peers' binaries; note what some peers can't do.

    notes: filled with {(peer, row key prefix): why those cells are n/a}.
    Sets args.binaries ({peer: passt binary}) and args.unavailable
    ({(peer, backend)} not measured).
    """
    missing = install_missing(dict(PACKAGES, **(RECORD_PACKAGES
                                               if args.record else {})))
    needs = ["iperf3", "sockperf", "socat", "qemu-system-x86_64", "ip",
             "make"] + (["perf"] if args.record else [])
    for need in needs:
        if need in missing:
            raise RigError(f"{need} missing and could not be installed")
    if not args.no_build:
        make(ROOT, outdir, args.ours)
    elif not os.access(args.ours, os.X_OK):
        raise RigError(f"{args.ours} not found: run make or give --ours")
    args.binaries = {"passt": args.ours, "passt-current": args.upstream,
                     "passt-upstream": V.DEBIAN_PASST}
    args.unavailable = set()
    for p in args.peers:
        why = None
        if p == "passt-current" and not args.upstream:
            why = "no --upstream PATH (a passt built from upstream's sources)"
        elif p == "passt-upstream" and V.DEBIAN_PASST in missing:
            why = f"{V.DEBIAN_PASST} not installed"
        if why:
            notes[(p, "")] = why
            args.unavailable.update((p, b) for b in args.backends)
        elif "vhost-user" in args.backends:
            why = V.vhost_user_na(args.binaries[p])
            if why:
                notes[(p, "vhost-user:")] = why
                args.unavailable.add((p, "vhost-user"))


def _debian_version():
    """Version of Debian's passt package, or "?"."""
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "passt"],
                       capture_output=True, text=True, check=False)
    return p.stdout.strip() or "?"


def _data_file(outdir, size):
    """A file of size random bytes for the transfers; returns its path."""
    path = os.path.join(outdir, "transfer.bin")
    with open(path, "wb") as f:
        left = size
        while left > 0:
            f.write(os.urandom(min(left, 1 << 20)))
            left -= 1 << 20
    return path


def _default_congestion():
    """The machine's default TCP congestion control, as text."""
    try:
        with open("/proc/sys/net/ipv4/tcp_congestion_control",
                  encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def header(args, stamp, loads, guest):
    """The lines above the table."""
    maxcpus = (" (maxcpus 2: barriers kept)"
               if args.accel_name == "tcg" and args.vcpus < 2 else "")
    out = [f"# tests/perf/run --mode passt {stamp}: {os.uname().release}, "
           f"{os.cpu_count()} CPUs, {args.seconds} s per run, "
           f"{args.repeat} run(s) per cell (median)",
           f"# load average before {loads[0]}, after {loads[1]}",
           f"# accelerator: {args.accel_name.upper()} ({args.accel_why}); "
           f"guest: {guest}, {args.vcpus} vCPU{maxcpus}, {V.GUEST_MEM}, QEMU "
           f"-netdev stream or vhost-user (memfd)",
           f"# host side: TCP congestion control {args.congestion} "
           f"(this machine's default: {_default_congestion()})",
           f"# passt: {args.ours}"]
    if args.label:
        out.append(f"# {args.label}")
    if args.record:
        out.append("# --record: perf record ran during the 1-stream TCP "
                   "runs (slower, higher CPU): not a table to compare")
    if "passt-current" in args.peers and args.upstream:
        out.append(f"# passt-current: {args.upstream} (upstream's sources)")
    if "passt-upstream" in args.peers:
        out.append(f"# passt-upstream: {V.DEBIAN_PASST} (Debian's passt "
                   f"{_debian_version()})")
    out.append("# iperf3 and sockperf: clients on the host, servers in "
               "the guest (guest->host is iperf3 -R; RTT: full round trip)")
    out.append("# transfers: socat, a file to the guest and back (the "
               "guest connects to the host), sha256 checked both ways")
    return out


def measure(args, outdir, results, notes):
    """Everything between preparation and the table; returns the guest."""
    prepare(args, outdir, notes)
    args.rig.congestion = args.congestion
    args.rig.make_host_ns()
    img, guest = V.image(args.rig, os.path.join(ROOT, "build", "vm"))
    print(f"# guest: {guest}", flush=True)
    args.accel_name, args.accel_why = V.accel(args.rig, img, args.accel)
    print(f"# accelerator: {args.accel_name} ({args.accel_why})",
          flush=True)
    guests = V.Guests(args.rig, args.binaries, img, args.accel_name,
                      args.vcpus)
    data = _data_file(outdir, args.size) \
        if "transfer" in args.metrics else None
    try:
        for b in args.backends:
            for mtu in args.mtus:
                run_group(args, guests, b, mtu, data, results)
    finally:
        if data:
            os.unlink(data)
    return guest


def main(argv):
    """The passt mode: prepare, measure, print the table; exit status."""
    args = parse_args(argv)
    if os.geteuid() != 0:
        print("tests/perf/run: must run as root (it creates network "
              "namespaces)", file=sys.stderr)
        return 1
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = os.path.abspath(args.out or os.path.join(
        ROOT, "tests", "perf", "out", f"passt-{stamp}"))
    os.makedirs(outdir, exist_ok=True)
    catch_signals()
    args.rig = Rig(f"rlyv-{os.getpid()}-", outdir)
    results, notes = Results(), {}
    load0 = loadavg()
    try:
        guest = measure(args, outdir, results, notes)
    except KeyboardInterrupt:
        print("\n# interrupted: cleaning up", flush=True)
        return 130
    except RigError as e:
        print(f"# error: {e}", flush=True)
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        args.rig.cleanup()
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    out = header(args, stamp, (load0, loadavg()), guest)
    out += table(rows_for(args), results, notes,
                 Layout(args.peers, OURS, NAMES, args.repeat))
    out.append(f"# raw outputs: {outdir}")
    with open(os.path.join(outdir, "table.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    with open(os.path.join(outdir, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump({"seconds": args.seconds, "repeat": args.repeat,
                   "peers": args.peers, "mtus": args.mtus,
                   "backends": list(args.backends),
                   "accelerator": args.accel_name,
                   "samples": results.dump()}, f, indent=1)
    print()
    print("\n".join(out))
    return 0
