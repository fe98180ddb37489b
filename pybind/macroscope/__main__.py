"""macroscope <command> [flags] [arguments]: the command line.

The console script ``macroscope`` that pip installs and ``python -m
macroscope`` run Macroscope's one command line, written in Go (the package
cmd/macroscope/cli, which ``go run ./cmd/macroscope`` runs as well): this
module hands it the arguments through the extension module, and the same
commands, flags, output and exit statuses follow. Run ``macroscope help``
for the commands, ``macroscope <command> --help`` for a command's flags.

The command runs on a goroutine of its own while Python waits for it, so
that Ctrl-C reaches Python: the command is then asked to stop at its next
check (of the read, the search for the significant levels, the layout)
and says so; the exit status is 130. A second Ctrl-C leaves at once.
"""

from __future__ import annotations

import json
import os
import sys

from . import _bridge, _parquet

_POLL_MS = 100

#: The exit status of an interrupted command (128 + SIGINT), as the Go
#: program returns it.
INTERRUPTED = 130


def main(argv=None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) and
    return its exit status: 0 done, 1 a failure, 2 bad usage, 130
    interrupted. Its report goes to the process's standard output and
    error."""
    args = sys.argv[1:] if argv is None else [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in argv]
    # What Python has buffered goes out before the command writes.
    sys.stdout.flush()
    sys.stderr.flush()
    run = _bridge.call(_bridge.native.StartCommand, json.dumps(args))
    try:
        while not _bridge.call(run.Wait, _POLL_MS):
            _parquet.serve()  # the command's Parquet tables
    except KeyboardInterrupt:
        _bridge.call(run.Cancel)
        try:
            while not _bridge.call(run.Wait, _POLL_MS):
                _parquet.serve()
        except KeyboardInterrupt:
            # A second Ctrl-C: the command did not stop in time.
            print("macroscope: interrupted", file=sys.stderr, flush=True)
            os._exit(INTERRUPTED)
    return _bridge.call(run.Status)


if __name__ == "__main__":
    sys.exit(main())
