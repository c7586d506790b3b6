# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_vm_metrics.py - one measurement of one relay and its guest

Theory of operation: as perf_metrics.py, for a perf_vm.Guest: each
function runs one measurement and returns a perf_metrics.Result for rows
keyed "BACKEND:METRIC:...". The servers run in the guest all along
(tests/vm/guest_perf.sh); every client runs in the rig's host namespace
and connects to a port the relay forwards (the guest's half of the
transfers connects to the host instead). guest->host ("g2h") is iperf3
-R: the guest's server sends. Relay CPU time is read from /proc/PID/task
while the client runs, as the pasta mode does; what the guest did in a
TCP run (its packets, bytes per packet, virtio interrupts, CPU share)
comes from its statistics server before and after, into TAG.guest.txt,
for looking at, not for the table. Raw outputs stay in the
rig's output directory, named after the row, the peer and the repetition.

No timing assertions: a measurement reports numbers, never judges them.
"""

import hashlib
import os
import signal
import subprocess
import time

import perf_metrics as M
import perf_vm as V
from perf_rig import RigError

DIRS = {"g2h": "guest->host", "h2g": "host->guest"}
SOCAT_BUF = 262144      # socat's read and write size, as the guest's
TRANSFER_SECS = 30      # a transfer's floor of time, beyond MIN_RATE
MIN_RATE = 1 << 20      # bytes per second a transfer may take at worst
READY_SECS = 30         # guest's receiver or sender to listen
RESET_SECS = 40         # the guest's iperf3 server replaced (guest_perf.sh)
# what an iperf3 client prints when the server is held by an earlier test:
# "busy", or a reset if the server closed before reading the client's
# cookie, and the reset came before its answer
IPERF_BUSY = ("the server is busy running a test",
              "unable to receive control message: Connection reset by peer")
RECORD_LIMIT = 1.0      # --record: symbols above this % in the summary
RECORD_STOP_SECS = 30   # perf writing its file after SIGINT
RECORD_EVENTS = ("context-switches", "syscalls:sys_enter_epoll_wait",
                 "syscalls:sys_enter_recvmsg", "syscalls:sys_enter_recvfrom",
                 "syscalls:sys_enter_sendmsg", "syscalls:sys_enter_sendto",
                 "syscalls:sys_enter_write", "syscalls:sys_enter_writev",
                 "syscalls:sys_enter_read", "syscalls:sys_enter_readv",
                 "syscalls:sys_enter_epoll_ctl",
                 "syscalls:sys_enter_timerfd_settime",
                 "raw_syscalls:sys_enter")


def _tag(key, g, rep):
    """File name stem for a raw output."""
    return f"{key.replace(':', '-')}.{g.peer}.r{rep}"


def _record_start(rig, g, tag):
    """perf record -g of the relay into TAG.perf.data, and perf stat of
    its system calls and context switches into TAG.perf-stat.txt.

    Returns the two perf processes.
    """
    out = os.path.join(rig.outdir, tag)
    pid = str(g.pid)
    return [rig.spawn(None, ["perf", "record", "-q", "-g", "-o",
                             f"{out}.perf.data", "-p", pid],
                      f"{tag}.perf.log"),
            rig.spawn(None, ["perf", "stat", "-e", ",".join(RECORD_EVENTS),
                             "-o", f"{out}.perf-stat.txt", "-p", pid],
                      f"{tag}.perf-stat.log")]


def _record_stop(rig, recs, tag):
    """Stop the perf processes (SIGINT: perf stat prints its counts only
    then), then summarise the profile: TAG.perf.txt, the symbols above
    RECORD_LIMIT % of the samples."""
    for rec in recs:
        rec.send_signal(signal.SIGINT)
        try:
            rec.wait(timeout=RECORD_STOP_SECS)
        except subprocess.TimeoutExpired:
            pass
        rig.end(rec)
    data = os.path.join(rig.outdir, f"{tag}.perf.data")
    rig.run(None, ["perf", "report", "-i", data, "--stdio", "--no-children",
                   "--sort", "dso,symbol", "--percent-limit",
                   str(RECORD_LIMIT), "-g", "none"], f"{tag}.perf.txt", 120)


def _guest_counters(rig, g, tag):
    """The guest's counters from its statistics server (guest_perf.sh):
    {name: int} with "IFACE:rx_bytes", "IFACE:rx_packets", "IFACE:tx_bytes",
    "IFACE:tx_packets" for each interface but lo, "irq:NAME" for each
    interrupt line (summed over CPUs), "cpu:FIELD" for /proc/stat's cpu
    line, "TcpExt:NAME" for /proc/net/netstat's TCP counters; {} if the
    server can't be reached.
    """
    rc, out = rig.run(rig.host_ns, ["socat", "-u",
                                    f"TCP:{g.fwd_addr}:{g.ports['stats']}",
                                    "STDOUT"], tag + ".guest-raw.txt", 10)
    if rc != 0:
        return {}
    c = {}
    names = None
    cpu_fields = ("user", "nice", "system", "idle", "iowait", "irq",
                  "softirq", "steal")
    for ln in out.splitlines():
        head, _, rest = ln.partition(":")
        f = rest.split()
        name = head.strip()
        if name == "TcpExt" and names is None:
            names = f
            continue
        if name == "TcpExt":
            c.update({f"TcpExt:{k}": int(v) for k, v in zip(names, f)})
        elif ln.startswith("cpu "):
            for k, v in zip(cpu_fields, ln.split()[1:]):
                c[f"cpu:{k}"] = int(v)
        elif (len(f) >= 16 and name != "lo" and f[0].isdigit() and
              not name.endswith("Ext")):
            c[f"{name}:rx_bytes"] = int(f[0])
            c[f"{name}:rx_packets"] = int(f[1])
            c[f"{name}:tx_bytes"] = int(f[8])
            c[f"{name}:tx_packets"] = int(f[9])
        elif name and f and f[0].isdigit() and "virtio" in rest:
            counts = [int(x) for x in f if x.isdigit()]
            c[f"irq:{f[-1]}"] = sum(counts)
    return c


def _guest_report(before, after, tag, outdir):
    """Write what the guest did during a run (differences of its
    counters) into TAG.guest.txt: packets and bytes per interface, bytes
    per packet, interrupts per virtio line, the TCP counters that moved,
    and its CPU's busy share."""
    if not before or not after:
        return
    d = {k: after[k] - before.get(k, 0) for k in after}
    lines = []
    for k in sorted(d):
        if k.endswith(":rx_packets") or k.endswith(":tx_packets"):
            b = d[k.replace("packets", "bytes")]
            per = b / d[k] if d[k] else 0
            lines.append(f"{k} {d[k]} bytes {b} per-packet {per:.0f}")
    for k in sorted(d):
        if k.startswith("irq:") or (k.startswith("TcpExt:") and d[k]):
            lines.append(f"{k} {d[k]}")
    cpu = {k[4:]: v for k, v in d.items() if k.startswith("cpu:")}
    total = sum(cpu.values())
    if total:
        busy = total - cpu.get("idle", 0) - cpu.get("iowait", 0)
        lines.append("cpu busy {:.1f} % (user {:.1f}, system {:.1f}, "
                     "softirq {:.1f}, irq {:.1f})".format(
                         100 * busy / total,
                         100 * cpu.get("user", 0) / total,
                         100 * cpu.get("system", 0) / total,
                         100 * cpu.get("softirq", 0) / total,
                         100 * cpu.get("irq", 0) / total))
    with open(os.path.join(outdir, tag + ".guest.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def _iperf_busy(out):
    """Does iperf3 client output @out say the guest's server is held?"""
    return any(sig in out for sig in IPERF_BUSY)


def _iperf_reset(rig, g, tag):
    """Replace the guest's iperf3 server (guest_perf.sh, VT_RESET): one
    whose last test never ended for it answers every client "busy".

    Returns None once the new server listens, else the error text.
    """
    rc, out = rig.run(rig.host_ns, ["socat", "-u",
                                    f"TCP:{g.fwd_addr}:{g.ports['reset']}",
                                    "STDOUT"], tag + ".reset.log",
                      RESET_SECS)
    if rc == 0 and out.strip() == "ok":
        return None
    return ("iperf3 server busy, and its reset failed: "
            + (out.strip()[-200:] or f"socat status {rc}"))


def tcp(rig, g, direction, streams, secs, rep, record=False, rate=None):
    """iperf3 TCP throughput, receiver's rate; relay CPU per GiB.

    Rows: BACKEND:tcp:DIR:MTU:STREAMS (Gbit/s) and, for one stream,
    BACKEND:cpu:DIR:MTU (relay CPU seconds per GiB received). With
    @record, a 1-stream run (paced or not) also records the relay's
    profile (perf record -g) and counts its system calls and context
    switches (perf stat), which slows it: such runs are for looking at,
    not for the table. With @rate (iperf3 -b), one row only:
    BACKEND:cpur:DIR:MTU, the relay CPU per GiB with every peer moving
    the same data at the same pace, flagged if a peer fell short of it
    (as the pasta mode's cpu-rate rows). If the guest's iperf3 server
    says it is busy, it is reset and the run made once more (TAG.retry),
    flagged.
    """
    key = f"{g.backend}:tcp:{direction}:{g.mtu}:{streams}"
    if rate:
        key = f"{g.backend}:cpur:{direction}:{g.mtu}"
    err = g.dead()
    if err:
        return M.Result(error=err)
    cli = ["iperf3", "-c", g.fwd_addr, "-p", str(g.ports["iperf"]),
           "-t", str(secs), "-P", str(streams), "-i", "1", "-J",
           "--connect-timeout", "5000"]
    if rate:
        cli += ["-b", rate]
    if direction == "g2h":
        cli.append("-R")
    tag = _tag(key, g, rep)
    reset = None
    for retry in (False, True):
        if retry:
            err = _iperf_reset(rig, g, tag)
            if err:
                return M.Result(error=err)
            tag, reset = tag + ".retry", "iperf3 server reset"
        recs = (_record_start(rig, g, tag) if record and streams == 1
                else None)
        counters = _guest_counters(rig, g, tag + ".before")
        t0 = rig.cpu_seconds(g.pid)
        rc, out = rig.run(rig.host_ns, cli, tag + ".client.log",
                          secs + M.SLACK)
        cpu = rig.cpu_seconds(g.pid) - t0 if not g.dead() else None
        _guest_report(counters, _guest_counters(rig, g, tag + ".after"),
                      tag, rig.outdir)
        if recs:
            _record_stop(rig, recs, tag)
        if rc is None or not _iperf_busy(out):
            break
    if rc is None:
        return M.Result(error=f"iperf3 client timed out after "
                              f"{secs + M.SLACK} s")
    data, err = M.iperf_json(out)
    if err:
        return M.Result(error=err)
    end = data["end"]["sum_received"]
    if rate:
        return _flagged(M.paced_cpu(key, end, cpu, rate, g.dead()), reset)
    values = {key: end["bits_per_second"] / 1e9}
    if streams == 1 and cpu is not None and end["bytes"] > 0:
        values[f"{g.backend}:cpu:{direction}:{g.mtu}"] = \
            cpu / (end["bytes"] / M.GIB)
    stalled = M.stalled_secs(data)
    return _flagged(M.Result(values, f"{stalled} s near 0" if stalled
                             else None, g.dead()), reset)


def _flagged(res, flag):
    """@res with @flag (if any) added to its cell flag."""
    if flag:
        res.flag = f"{res.flag}; {flag}" if res.flag else flag
    return res


def latency(rig, g, secs, rep, tag=None):
    """sockperf TCP ping-pong, 64 bytes, host client, guest server.

    Rows: BACKEND:lat:MTU:p50, :p99, :p99.9 (microseconds, full round
    trip). @tag names the client's log, if not this row's.
    """
    key = f"{g.backend}:lat:{g.mtu}"
    err = g.dead()
    if err:
        return M.Result(error=err)
    cli = ["sockperf", "ping-pong", "--tcp", "-i", g.fwd_addr,
           "-p", str(g.ports["sockperf"]), "-m", "64", "-t", str(secs),
           "--full-rtt"]
    rc, out = rig.run(rig.host_ns, cli, (tag or _tag(key, g, rep)) +
                      ".client.log", secs + M.SLACK)
    if rc != 0:
        return M.Result(error=f"sockperf exited with status {rc}: "
                              + out.strip()[-200:])
    st, err = M.sockperf_stats(out)
    if err:
        return M.Result(error=err)
    return M.Result({f"{key}:{p}": st[p] for p in ("p50", "p99", "p99.9")},
                    None, g.dead())


def latency_load(rig, g, secs, rep):
    """Round trip while a bulk flow fills the path toward the guest.

    An iperf3 client on the host sends to the guest's server for the
    whole measurement; after M.LOAD_RAMP seconds, sockperf ping-pong
    measures the round trip of 64-byte messages for @secs seconds: the
    answers go toward the guest behind the bulk flow's frames, so this is
    how long an interactive flow waits in the relay's queues and the
    guest socket's. Rows: BACKEND:latl:MTU:p50, :p99, :p99.9
    (microseconds) and BACKEND:latl:MTU:bulk (the bulk flow's rate
    meanwhile, Gbit/s: a relay that moves less bulk data queues less).
    A busy iperf3 server in the guest is reset, and the measurement made
    once more (TAG.retry), flagged.
    """
    key = f"{g.backend}:latl:{g.mtu}"
    tag = _tag(key, g, rep)
    err = g.dead()
    if err:
        return M.Result(error=err)
    res = _latency_load(rig, g, secs, rep, key, tag)
    if res is not None:
        return res
    err = _iperf_reset(rig, g, tag)
    if err:
        return M.Result(error=err)
    res = _latency_load(rig, g, secs, rep, key, tag + ".retry")
    if res is None:
        return M.Result(error="iperf3 (bulk): the server still busy "
                              "after a reset")
    return _flagged(res, "iperf3 server reset")


def _latency_load(rig, g, secs, rep, key, tag):
    """One measurement of latency_load(), its raw outputs named @tag.

    Returns its Result, or None if the guest's iperf3 server was busy.
    """
    bulk_secs = secs + 2 * M.LOAD_RAMP + 1
    bulk = rig.spawn(rig.host_ns, ["iperf3", "-c", g.fwd_addr, "-p",
                                   str(g.ports["iperf"]), "-t",
                                   str(int(bulk_secs)), "-J",
                                   "--connect-timeout", "5000"],
                     f"{tag}.bulk-client.log")
    try:
        time.sleep(M.LOAD_RAMP)
        if bulk.poll() is not None:
            with open(bulk.log, encoding="utf-8", errors="replace") as f:
                if _iperf_busy(f.read()):
                    return None
            return M.Result(error=f"iperf3 (bulk) exited with status "
                                  f"{bulk.returncode}, see {bulk.log}")
        res = latency(rig, g, secs, rep, tag)
        try:
            bulk.wait(timeout=bulk_secs + M.SLACK)
        except subprocess.TimeoutExpired:
            pass
    finally:
        rig.end(bulk)
    if res.error:
        return res
    values = {f"{key}:{k.rsplit(':', 1)[1]}": v
              for k, v in res.values.items()}
    flag, berr = M.bulk_rate(bulk.log, f"{key}:bulk", values)
    return M.Result(values, flag, berr or g.dead())


def sha256_file(path):
    """The sha256 of a file, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _socat(rig, g, src, dst, tag, size):
    """Run socat -u in the host namespace; returns seconds taken."""
    limit = TRANSFER_SECS + size // MIN_RATE
    t0 = time.monotonic()
    rc, out = rig.run(rig.host_ns, ["socat", "-u", "-b", str(SOCAT_BUF),
                                    src, dst], tag, limit)
    if rc != 0:
        raise RigError(f"socat {src} {dst}: "
                       + (f"status {rc}: {out.strip()[-200:]}"
                          if rc is not None else f"not done in {limit} s"))
    return time.monotonic() - t0


def transfer(rig, g, data, digest, rep):
    """A file to the guest and back, each way checked by sha256.

    data: the file; digest: its sha256 (hex). The guest hashes what it
    got and sends it back to a receiver on the host's loopback, through
    the gateway address (tests/vm/guest_perf.sh); the host hashes what
    returns. Rows: BACKEND:xfer:MTU:h2g and BACKEND:xfer:MTU:g2h, socat's
    rate in Gbit/s (the sender's time to the guest, the receiver's time
    back); a hash that differs is the cell's error.
    """
    key = f"{g.backend}:xfer"
    err = g.dead()
    if err:
        return M.Result(error=err)
    size = os.path.getsize(data)
    g.transfers += 1
    n = g.transfers
    tag = _tag(f"{key}:{g.mtu}", g, rep)
    back = os.path.join(rig.outdir, f"{tag}.bin")
    values = {}
    try:
        g.result(f"ready{n}", READY_SECS)
        dt = _socat(rig, g, f"OPEN:{data}",
                    f"TCP:{g.fwd_addr}:{g.ports['down']}",
                    f"{tag}.down.log", size)
        got = g.result(f"down{n}", TRANSFER_SECS + size // MIN_RATE).split()
        if got != [digest, str(size)]:
            return M.Result(error=f"host->guest: the guest got {got[-1]} "
                                  f"bytes, sha256 {got[0][:12]}..., sent "
                                  f"{size}, {digest[:12]}...")
        values[f"{key}:{g.mtu}:h2g"] = size * 8 / dt / 1e9
        dt = _socat(rig, g, f"TCP-LISTEN:{V.GUEST_PORTS['up']},bind="
                    f"127.0.0.1,reuseaddr", f"CREATE:{back}",
                    f"{tag}.up.log", size)
        g.result(f"up{n}", READY_SECS)
        back_digest = sha256_file(back)
        if back_digest != digest:
            return M.Result(values, None,
                            f"guest->host: got {os.path.getsize(back)} "
                            f"bytes, sha256 {back_digest[:12]}..., sent "
                            f"{size}, {digest[:12]}...")
        values[f"{key}:{g.mtu}:g2h"] = size * 8 / dt / 1e9
    except RigError as e:
        return M.Result(values, None, str(e))
    finally:
        if os.path.exists(back):
            os.unlink(back)
    return M.Result(values, None, g.dead())
