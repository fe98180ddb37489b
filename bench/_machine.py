"""The machine a benchmark ran on, printed with its results: the same code
runs at different speeds on different processors of one class (the
aggregation kernels differ between AMD Zen and Intel Xeon), so a figure
means little without the processor beside it, and the load beside that."""

import os
import platform


def cpu_model():
    """The processor's model name, from /proc/cpuinfo ("?" elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def describe():
    """One line: system, processor, cores, memory and load average."""
    mem = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        mem = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError):
        pass
    load = ""
    try:
        load = ", load average %.1f %.1f %.1f" % os.getloadavg()
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {cpu_model()}, {os.cpu_count()} cores{mem}{load}"
