# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_table.py - the benchmark's samples and its table

Theory of operation: a Row is one line of the final table (a metric, its
unit, which way is better); Results collects every measurement's samples
per (row key, peer) and gives their median; table() lays the rows out, a
column per peer, "n/a" with a numbered footnote where there is no number
(why: a static note of the mode, or the first error), cell flags (stalls,
short rates) after the number, and a last column with this project's
ratio to each peer (ours / theirs). Both modes of tests/perf/run print
with it.
"""

import statistics

from perf_metrics import STALL_SHARE


class Layout:
    """Who the columns are.

    peers: column order; ours: the peer the ratios are of; names: how the
    ratio column names each other peer; repeat: runs per cell.
    """

    def __init__(self, peers, ours, names, repeat):
        self.peers = peers
        self.ours = ours
        self.names = names
        self.repeat = repeat


class Row:
    """One row of the table: a metric, its unit, which way is better."""

    def __init__(self, key, label, unit, better, ratio=True, fmt="{:.2f}"):
        self.key = key
        self.label = label
        self.unit = unit
        self.better = better
        self.ratio = ratio
        self.fmt = fmt



class Results:
    """Samples per (row key, peer): numbers, cell flags, errors."""

    def __init__(self):
        self.nums = {}
        self.flags = {}
        self.errors = {}

    def add(self, keys, peer, res):
        """Record a perf_metrics.Result for the rows it was meant to fill.

        A flag goes to the first row only (e.g. a stall flags the
        throughput, not the CPU time of the same run).
        """
        for k in keys:
            if k in res.values and res.values[k] is not None:
                self.nums.setdefault((k, peer), []).append(res.values[k])
            elif res.error is None:
                continue
            if res.flag and k == keys[0]:
                self.flags.setdefault((k, peer), []).append(res.flag)
            if res.error:
                self.errors.setdefault((k, peer), []).append(res.error)

    def value(self, key, peer):
        """Median of the numbers, or None."""
        v = self.nums.get((key, peer))
        return statistics.median(v) if v else None

    def dump(self):
        """All samples, for results.json."""
        out = {}
        for (k, p), v in self.nums.items():
            out.setdefault(k, {}).setdefault(p, {})["values"] = v
        for (k, p), v in self.flags.items():
            out.setdefault(k, {}).setdefault(p, {})["flags"] = v
        for (k, p), v in self.errors.items():
            out.setdefault(k, {}).setdefault(p, {})["errors"] = v
        return out


def short(res, row_key):
    """One-line summary of a result for the progress output."""
    if row_key not in res.values:
        return f"n/a: {res.error}"
    s = f"{res.values[row_key]:.3g}"
    extra = [f"{'cpu s/GiB' if k.startswith('cpu:') else k.split(':')[-1]}"
             f" {v:.3g}" for k, v in res.values.items() if k != row_key]
    if extra:
        s += " (" + ", ".join(extra) + ")"
    if res.flag:
        s += f" [{res.flag}]"
    if res.error:
        s += f" [error: {res.error}]"
    return s


def _cell(row, peer, results, static, note, repeat):
    """The text of one peer's cell: number, flags, footnote marks."""
    v = results.value(row.key, peer)
    errs = results.errors.get((row.key, peer), [])
    flags = results.flags.get((row.key, peer), [])
    if v is None:
        text = "n/a"
        if static:
            text += note(f"{peer}: {static}")
        elif errs:
            text += note(f"{peer}: {errs[0]}")
        return text
    text = row.fmt.format(v)
    if flags and repeat > 1:
        text += f" ({flags[0]} in {len(flags)}/{repeat})"
    elif flags:
        text += f" ({flags[0]})"
    if errs:
        text += note(f"{peer}: {errs[0]}")
    return text


def _ratios(row, results, layout):
    """The ratio column of one row: "xR name" for each other peer."""
    ours = results.value(row.key, layout.ours)
    rel = []
    if not row.ratio or ours is None:
        return ""
    for p in layout.peers:
        theirs = results.value(row.key, p)
        if p == layout.ours or theirs is None:
            continue
        name = layout.names.get(p, p)
        rel.append(f"x{ours / theirs:.2f} {name}" if theirs
                   else f"(0 for {name})")
    return ", ".join(rel)


def table(rows, results, notes, layout, tail=()):
    """The final table as text lines.

    notes: {(peer, row key prefix): why those cells have no number};
    tail: lines printed after the footnotes (e.g. goals).
    """
    peers = layout.peers
    ratios = layout.ours in peers and len(peers) > 1
    foot = {}

    def note(text):
        foot.setdefault(text, len(foot) + 1)
        return f"[{foot[text]}]"

    head = ["metric", "unit", "better"] + peers
    if ratios:
        head.append(f"{layout.ours} / peer")
    body = []
    for row in rows:
        cells = [row.label, row.unit, row.better]
        for p in peers:
            static = next((t for (pp, pre), t in notes.items()
                           if pp == p and row.key.startswith(pre)), None)
            cells.append(_cell(row, p, results, static, note,
                               layout.repeat))
        if ratios:
            cells.append(_ratios(row, results, layout))
        body.append(cells)

    widths = [max(len(r[c]) for r in [head] + body)
              for c in range(len(head))]

    def fmt_row(r):
        # text columns left-aligned, numbers right-aligned
        return "  ".join(
            c.ljust(w) if i < 3 or i == len(peers) + 3 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    lines = [fmt_row(head), "  ".join("-" * w for w in widths)]
    lines.extend(fmt_row(r) for r in body)
    for text, n in foot.items():
        lines.append(f"[{n}] {text}")
    lines.extend(tail)
    if any("near 0" in f[0] for f in results.flags.values()):
        lines.append(f"(N s near 0): seconds of the run below "
                     f"{STALL_SHARE:.0%} of its median rate (stalls)")
    return lines
