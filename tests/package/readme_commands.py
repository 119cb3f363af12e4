#!/usr/bin/env python3
# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
"""Runs README.md's "Install and use" commands as they are written, so that the text stays true.

Each block the README marks with `<!-- readme-test: NAME -->` is read from the README itself (never
from a copy), and run in a scratch directory:
  packages        every Debian package it names is installed (where dpkg exists);
  install         configure, build and install a copy of the source tree;
  cmake-consumer  the CMake file, with the README's minimal program as main.cpp, builds against the
                  installed package;
  pkg-config      the compiler command builds the same program through replicant.pc;
  tools           the tools' commands build and install replicant-tail, and its --help runs.
Two substitutions make the commands safe to run: `sudo ` is dropped, and the install prefix
`/usr/local` becomes the scratch prefix.

Usage: readme_commands.py <source root> <scratch directory>
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def fail(message):
    print(f"readme_commands: {message}", file=sys.stderr)
    sys.exit(1)


def marked_blocks(readme):
    """NAME -> the text of the fenced block that follows `<!-- readme-test: NAME -->`."""
    pattern = re.compile(r"<!-- readme-test: ([a-z-]+) -->\n```[a-z]*\n(.*?)```", re.S)
    return {name: body for name, body in pattern.findall(readme)}


def minimal_program(readme):
    """The README's complete minimal program: its first C++ block with a main()."""
    for body in re.findall(r"```cpp\n(.*?)```", readme, re.S):
        if "int main()" in body:
            return body
    fail("README.md has no C++ block with a main()")


def run_block(block, cwd, prefix, env):
    """Runs a block's commands in one shell that stops at the first failure."""
    script = block.replace("sudo ", "").replace("/usr/local", str(prefix))
    print(f"$ (in {cwd})\n{script}", flush=True)
    subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, check=True)


def check_packages(block):
    if not shutil.which("dpkg-query"):
        print("dpkg-query not found: the package list is not checked")
        return
    words = block.split()
    names = [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
    missing = [n for n in names
               if subprocess.run(["dpkg-query", "-W", "-f=${Status}", n], capture_output=True,
                                 text=True).stdout.strip() != "install ok installed"]
    if missing:
        fail(f"the README names Debian packages that are not installed here: {' '.join(missing)}")


def copy_sources(root, dest):
    """The files a clone has (tracked, and new ones not ignored), so builds of the root are not seen."""
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = root / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def main():
    if len(sys.argv) != 3:
        fail("usage: readme_commands.py <source root> <scratch directory>")
    root, scratch = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    readme = (root / "README.md").read_text()
    blocks = marked_blocks(readme)
    wanted = ["packages", "install", "cmake-consumer", "pkg-config", "tools"]
    if sorted(blocks) != sorted(wanted):
        fail(f"README.md marks the blocks {sorted(blocks)}, expected {sorted(wanted)}")

    shutil.rmtree(scratch, ignore_errors=True)
    source, prefix, consumer = scratch / "source", scratch / "prefix", scratch / "consumer"
    for d in (source, prefix, consumer):
        d.mkdir(parents=True)
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "share" / "pkgconfig"))

    check_packages(blocks["packages"])
    copy_sources(root, source)
    run_block(blocks["install"], source, prefix, env)

    (consumer / "main.cpp").write_text(minimal_program(readme))
    (consumer / "CMakeLists.txt").write_text(blocks["cmake-consumer"])
    subprocess.run(["cmake", "-S", ".", "-B", "build", f"-DCMAKE_PREFIX_PATH={prefix}"], cwd=consumer,
                   env=env, check=True)
    subprocess.run(["cmake", "--build", "build"], cwd=consumer, env=env, check=True)
    run_block(blocks["pkg-config"], consumer, prefix, env)
    if not (consumer / "shop_print").is_file():
        fail("the pkg-config command built no shop_print")

    run_block(blocks["tools"], source, prefix, env)
    tail = prefix / "bin" / "replicant-tail"
    if not tail.is_file():
        fail("the tools' commands installed no replicant-tail into <prefix>/bin")
    subprocess.run([str(tail), "--help"], check=True, stdout=subprocess.DEVNULL)
    print("readme_commands: every marked block of README.md ran")


if __name__ == "__main__":
    main()
