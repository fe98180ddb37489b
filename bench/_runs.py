"""Running one measured process, for the benchmarks that time tools in
their own processes (bench/compare.py, bench/table.py,
bench/paje_vs_pjdump.py): its wall-clock time, its CPU time (user +
system, its children included) and its peak resident memory, from
os.wait4; stopped, and said so, past a timeout or past a memory limit for
its whole process group (the machine is shared: a tool that would need more
is stopped rather than left to push the others into swap or the OOM
killer)."""

from __future__ import annotations

import dataclasses
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
# GNU time forks the command from a small process: the command's peak RSS
# is then its own. Started from this Python process directly, a command's
# ru_maxrss starts at Python's resident size, which Linux carries across
# exec (tens of MB: the whole figure of a small tool).
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


@dataclasses.dataclass
class Result:
    wall: float         # seconds, start to exit
    cpu: float          # user + system seconds of the process and its waited-for children
    rss: int            # peak resident bytes (of the largest process of the tree)
    code: int           # exit code, -9 when stopped here
    out: str
    err: str


def group_rss(pgid):
    """The resident bytes of every process of the process group pgid."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:              # field 5 of stat: the process group
            total += int(fields[21]) * PAGE     # field 24: resident pages
    return total


def run(cmd, env=None, timeout=None, max_rss=None, keep_stdout=True):
    """Run cmd in a new session and measure it (a Result). Past timeout
    seconds, or past max_rss bytes resident in the whole group, the group
    is killed and err says why."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as peak:
        if TIME:
            cmd = [TIME, "-q", "-f", "%M", "-o", peak.name, *cmd]
        began = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out if keep_stdout else subprocess.DEVNULL, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        killed = []

        def kill():
            killed.append(True)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        over = []
        ended = threading.Event()

        def watch():
            while not ended.wait(0.25):
                rss = group_rss(proc.pid)
                if max_rss and rss > max_rss:
                    over.append((rss, time.perf_counter() - began))
                    kill()
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            ended.set()
            if timer:
                timer.cancel()
        took = time.perf_counter() - began
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode(errors="replace")
        errors = err.read().decode(errors="replace")
        if over:
            rss, when = over[0]
            errors += (f"\nstopped: over the memory limit ({rss / 1e9:.1f} GB resident after {when:.0f} s; "
                       f"--max-rss {max_rss / 1e9:g} GB)")
            code = code or -9
        elif killed:
            errors += f"\ntimed out after {timeout:.0f} s (--timeout)"
            code = code or -9
        rss = usage.ru_maxrss * 1024
        if TIME:
            # GNU time writes "Command exited with non-zero status N" before the figure
            lines = peak.read().split()
            if lines and lines[-1].isdigit():
                rss = int(lines[-1]) * 1024
        return Result(took, usage.ru_utime + usage.ru_stime, rss, code, text, errors)


def reason(errors, code):
    """The line of stderr that says why a run failed."""
    lines = [ln.strip() for ln in errors.strip().splitlines() if ln.strip()]
    for line in reversed(lines):
        if not line.startswith(("File ", "^", "~")) and "Traceback" not in line:
            return line[:200]
    return f"exit code {code}"


def best_median(values):
    """(the least, the median) of values: the best run says what the code
    can do, the median what a user of a loaded machine sees."""
    values = list(values)
    return min(values), statistics.median(values)
