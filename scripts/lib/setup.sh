# Sourced by scripts/pageheight, scripts/test and scripts/bench: installs the Debian packages
# pageheight needs when any is missing (apt-get update first), and puts Swift on PATH.
# Fonts: the fixture heights depend on DejaVu (the default sans and serif faces here; -extra adds
# its light, condensed and math faces, which this image had only through Java), Noto Sans
# Mono (the default monospace face once installed: a plain-text page is 1458 px with it, 1215
# with DejaVu Sans Mono), Liberation and Noto CJK (Chinese, Japanese and Korean text: without a
# CJK face it falls back to whatever font a machine happens to have, or to empty boxes);
# installing the same packages everywhere makes CI and a fresh machine alike. They are also the
# only fonts pageheight renders with by default (--fonts pinned): the list is repeated in
# Sources/PageHeightCore/Fonts/PinnedFonts.swift, and a unit test keeps the two equal. After them
# the faces that stand in for a phone's fonts under --device (URW's base 35, Roboto, Noto), seen
# only by a device's pages: Sources/PageHeightCore/Fonts/DeviceFonts.swift lists them.
set -euo pipefail

# libglvnd-core-dev: the EGL vendor interface that libPageHeightEGL.so implements. libsoup-3.0-dev:
# the HTTP server of `pageheight serve` (WebKitGTK depends on it; named because we call it).
# bubblewrap and xdg-dbus-proxy: WebKit's sandbox around each web process (WebProcessSandbox.swift),
# on by default.
PAGEHEIGHT_PACKAGES=(libwebkit2gtk-4.1-dev libglib2.0-dev libglvnd-core-dev libsoup-3.0-dev pkg-config xvfb xauth dbus-daemon
                     bubblewrap xdg-dbus-proxy
                     fonts-dejavu-core fonts-dejavu-extra fonts-liberation2 fonts-noto-mono fonts-noto-cjk
                     fonts-urw-base35 fonts-crosextra-carlito fonts-roboto-unhinted fonts-noto-core)
# chromium: the check report's test opens the HTML report in headless Chromium. Not for running
# pageheight: the Containerfile's image sets PAGEHEIGHT_SETUP=runtime and goes without it.
PAGEHEIGHT_TEST_PACKAGES=(chromium)

pageheight_install() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "pageheight: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  fi
}

# PAGEHEIGHT_SETUP=runtime (the Containerfile's last stage): the packages pageheight runs with,
# and nothing else: no test tools, no Swift (the binary carries its runtime).
if [ "${PAGEHEIGHT_SETUP:-}" = runtime ]; then
  pageheight_install "${PAGEHEIGHT_PACKAGES[@]}"
  return 0 2>/dev/null || exit 0
fi
pageheight_install "${PAGEHEIGHT_PACKAGES[@]}" "${PAGEHEIGHT_TEST_PACKAGES[@]}"

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || { echo "pageheight: the Swift toolchain (6.x) is not on PATH" >&2; exit 1; }

# SwiftPM warns about pkg-config's -pthread on every build; drop that one line.
pageheight_filter() { grep --line-buffered -v -e "prohibited flag" -e "use of .mktemp. is dangerous" || true; }

# The release binary, with the Swift runtime and Foundation linked in: the process then touches
# only the parts it uses and has fewer relocations to write (one job's tree peak on the 185 corpus
# pages, quick rule: 305 -> 297 MB). Progress goes to stderr.
pageheight_build_release() {
    (cd "$PAGEHEIGHT_ROOT" && swift build -c release --static-swift-stdlib --product pageheight 2>&1 | pageheight_filter >&2)
    pageheight_build_egl release
}

# The EGL our web processes open (Sources/egl-vendor, see DriverlessEGL.swift): a C library of
# its own, built with the toolchain's clang next to the executables of configuration $1 (debug,
# release), where pageheight looks for it. Not a SwiftPM product: SwiftPM links every library it
# builds against the Swift runtime, which would then load into every web process.
pageheight_build_egl() {
    local bin compiler
    bin="$(cd "$PAGEHEIGHT_ROOT" && swift build -c "$1" --show-bin-path)"
    mkdir -p "$bin"
    compiler="$(dirname "$(command -v swift)")/clang"
    [ -x "$compiler" ] || compiler=cc
    "$compiler" -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
        -o "$bin/libPageHeightEGL.so" "$PAGEHEIGHT_ROOT/Sources/egl-vendor/vendor.c"
}

PAGEHEIGHT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PAGEHEIGHT_ROOT
