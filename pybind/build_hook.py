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


# Go flags of every go command gopy runs (it reads the package's types
# through "go list -export", then links the extension with "go build
# -buildmode=c-shared"):
#
#   -buildmode=c-shared  the package list compiles with the extension's
#       code generation (-shared), so that the link reuses those compiles
#       instead of compiling every package a second time: half the cold
#       build. (gopy's first, plain "go build ./pybind" then stops at once,
#       saying c-shared needs a main package, and gopy goes on: that build
#       is only a warm-up.)
#   -tags=arrow_json_stdlib  arrow-go's JSON (of arrays and schemas, which
#       the extension does not use) through encoding/json instead of
#       goccy/go-json, a large package to compile.
EXTENSION_GOFLAGS = ["-buildmode=c-shared", "-tags=arrow_json_stdlib"]


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
        began, cpu_began = time.monotonic(), children_cpu()
        with tempfile.TemporaryDirectory() as tools:
            # gopy formats its output with goimports, which must be on PATH;
            # go.mod pins both tools. They compile (without GOFLAGS below,
            # which would make them shared libraries) while the Go core
            # does: the core's last packages leave a core idle.
            with open(os.path.join(tools, "build.log"), "w+") as tools_log:
                tools_build = subprocess.Popen(
                    ["go", "build", "-o", tools, "golang.org/x/tools/cmd/goimports", "github.com/go-python/gopy"],
                    cwd=root, env=env, stdout=tools_log, stderr=subprocess.STDOUT)
                core_env = dict(env, PATH=tools + os.pathsep + env.get("PATH", ""))
                core_env.setdefault("CGO_ENABLED", "1")
                core_env["GOFLAGS"] = " ".join(filter(None, [env.get("GOFLAGS", ""), *EXTENSION_GOFLAGS]))
                try:
                    compile_core(root, out, core_env)
                finally:
                    status = tools_build.wait()
                if status != 0:
                    tools_log.seek(0)
                    raise RuntimeError("compiling gopy and goimports failed:\n" + tools_log.read())
            say("generating and linking the extension module (gopy)")
            run([os.path.join(tools, "gopy"), "build", f"-vm={sys.executable}", f"-output={out.relative_to(root)}",
                 "-name=native", "-no-make", "./pybind"], root, core_env)
        say(f"extension built in {time.monotonic() - began:.0f} s ({children_cpu() - cpu_began:.0f} s of CPU)")
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


def compile_core(root, out, env):
    """Compile every package of the extension as gopy's link will (env's
    GOFLAGS), counting them as they are done: gopy's own go commands say
    nothing until the end, and this is most of the build. A main package
    that imports ./pybind is built for that, as a shared library thrown
    away; gopy's commands then find every package compiled."""
    listed = subprocess.run(["go", "list", "-deps", "./pybind"], cwd=root, env=env, check=True,
                            capture_output=True, text=True).stdout.split()
    total = len(listed)
    warm = out / "_warm"
    warm.mkdir()
    (warm / "main.go").write_text(
        "// Package main imports the extension's package, to compile it and its dependencies.\n"
        "package main\n\nimport _ \"github.com/macroscope-hpc/macroscope/pybind\"\n\nfunc main() {}\n")
    say(f"compiling the Go core: {total} packages (minutes the first time, seconds later)")
    began = last = time.monotonic()
    cpu_began = children_cpu()
    done = 0
    # go build -v names each package as it is compiled, on standard error.
    proc = subprocess.Popen(["go", "build", "-v", "-o", os.devnull, "./" + warm.relative_to(root).as_posix()],
                            cwd=root, env=env, stderr=subprocess.PIPE, text=True)
    names = set(listed)
    other = []
    for line in proc.stderr:
        line = line.rstrip("\n")
        if line in names:
            done += 1
            now = time.monotonic()
            if now - last >= 10:
                last = now
                say(f"compiled {done} of {total} packages ({now - began:.0f} s)")
        elif line and not line.startswith("github.com/macroscope-hpc/macroscope/build/"):
            other.append(line)
            print(line, flush=True)
    if proc.wait() != 0:
        raise RuntimeError("compiling the Go core failed:\n" + "\n".join(other[-40:]))
    say(f"compiled {done} packages in {time.monotonic() - began:.0f} s, {children_cpu() - cpu_began:.0f} s of CPU"
        f" ({total - done} already compiled)")


def children_cpu():
    """The CPU seconds of the processes this one started and waited for."""
    t = os.times()
    return t.children_user + t.children_system


def say(message):
    """Report progress. The Makefile shows the lines that start so while pip
    works quietly; a plain "pip install ." captures the hook's output (it
    shows it with -v, or when the build fails), so the line also goes to
    the terminal pip runs in, if any (MACROSCOPE_BUILD_TTY=0: not)."""
    line = f"macroscope build: {message}"
    print(line, flush=True)
    if os.environ.get("MACROSCOPE_BUILD_TTY", "1") != "0":
        try:
            # On a line of its own, which pip's spinner then ends.
            with open("/dev/tty", "w") as tty:
                tty.write("\n" + line)
        except OSError:
            pass  # no terminal: CI, a notebook's pip


def run(cmd, cwd, env):
    """Run cmd, saying every 15 s that it still works: compiling the Go core
    takes minutes the first time, which should not look like a hang."""
    say(" ".join(cmd))
    began, cpu_began = time.monotonic(), children_cpu()
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
    say(f"done in {time.monotonic() - began:.0f} s, {children_cpu() - cpu_began:.0f} s of CPU")
