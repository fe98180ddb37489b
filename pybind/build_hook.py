"""Compile the Go core into the one gopy extension module of the wheel.

gopy generates CPython bindings for the Go package ./pybind and builds them
into a shared library; this hook runs it and places the generated modules
under macroscope/_native/ in the wheel.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class GopyBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        root = pathlib.Path(self.root)
        # gopy must write inside the module (its go build needs go.mod). A
        # directory per build lets builds run side by side; "_" keeps it out
        # of "go ./..." patterns.
        (root / "build").mkdir(exist_ok=True)
        out = pathlib.Path(tempfile.mkdtemp(prefix="_gopy_", dir=root / "build"))
        self._out = out
        env = dict(os.environ)
        with tempfile.TemporaryDirectory() as tools:
            # gopy formats its output with goimports, which must be on PATH;
            # go.mod pins it as a tool, so build that version.
            run(["go", "build", "-o", tools, "golang.org/x/tools/cmd/goimports"], root, env)
            env["PATH"] = tools + os.pathsep + env.get("PATH", "")
            env.setdefault("CGO_ENABLED", "1")
            run(["go", "tool", "gopy", "build", f"-vm={sys.executable}", f"-output={out.relative_to(root)}",
                 "-name=native", "-no-make", "./pybind"], root, env)
        libs = list(out.glob("_native*.so")) + list(out.glob("_native*.pyd"))
        if not libs:
            raise RuntimeError(f"gopy produced no extension module in {out}")
        for name in ["__init__.py", "go.py", "pybind.py"]:
            build_data["force_include"][str(out / name)] = f"macroscope/_native/{name}"
        for lib in libs:
            build_data["force_include"][str(lib)] = f"macroscope/_native/{lib.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version, build_data, artifact_path):
        out = getattr(self, "_out", None)
        if out is not None:
            shutil.rmtree(out, ignore_errors=True)


def say(message):
    # The Makefile shows the lines that start so while pip works quietly.
    print("macroscope build:", message, flush=True)


def run(cmd, cwd, env):
    """Run cmd, saying every 15 s that it still works: compiling the Go core
    takes minutes the first time, which should not look like a hang."""
    say(" ".join(cmd))
    began = time.monotonic()
    done = threading.Event()

    def heartbeat():
        while not done.wait(15):
            say(f"still compiling ({time.monotonic() - began:.0f} s)")

    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    try:
        subprocess.run(cmd, cwd=cwd, env=env, check=True)
    finally:
        done.set()
    say(f"done in {time.monotonic() - began:.0f} s")
