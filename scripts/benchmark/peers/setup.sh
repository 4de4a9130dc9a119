#!/usr/bin/env bash
# Installs what the batch benchmark's peers need, idempotently (run as root).
#   scripts/benchmark/peers/setup.sh
#
# Interpreter: Debian's /usr/bin/python3, the only one with PyGObject (python3-gi). Selenium
# comes from PyPI into a venv built on it with --system-site-packages (so `gi` stays visible;
# Debian 12 refuses a system-wide pip install, PEP 668). Peers and the orchestrator run with
# that venv's python3; its path is printed last and is what scripts/benchmark/batch.py uses.
# The venv lives outside the repo: $PAGEHEIGHT_BENCH_VENV, default ~/.cache/pageheight-bench/venv.
set -euo pipefail

PACKAGES=(webkit2gtk-driver chromium chromium-driver python3-gi gir1.2-webkit2-4.1 xvfb
          iproute2 util-linux python3-venv fonts-dejavu-core)
VENV="${PAGEHEIGHT_BENCH_VENV:-$HOME/.cache/pageheight-bench/venv}"

missing=()
for package in "${PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
    echo "Debian packages: all present" >&2
fi

if [[ ! -x "$VENV/bin/python3" ]]; then
    mkdir -p "$(dirname "$VENV")"
    /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
if ! "$VENV/bin/python3" -c 'import selenium' 2>/dev/null; then
    "$VENV/bin/python3" -m pip install -q --disable-pip-version-check selenium >&2
fi
"$VENV/bin/python3" -c 'import gi, selenium; gi.require_version("WebKit2", "4.1"); from gi.repository import WebKit2' \
    || { echo "venv check failed" >&2; exit 1; }

for tool in /usr/bin/WebKitWebDriver /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser \
            /usr/bin/chromium /usr/bin/chromedriver /usr/bin/Xvfb /usr/bin/unshare /usr/sbin/ip; do
    [[ -x "$tool" ]] || { echo "missing after install: $tool" >&2; exit 1; }
done
echo "selenium $("$VENV/bin/python3" -c 'import selenium; print(selenium.__version__)'), $(chromium --version 2>/dev/null), WebKitGTK $(dpkg-query -W -f='${Version}' libwebkit2gtk-4.1-0)" >&2
echo "$VENV/bin/python3"
