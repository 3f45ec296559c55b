#!/usr/bin/env bash
# Installs the Debian packages some tests and extras need, when they are missing: bubblewrap and
# libseccomp2 (the jail that every execution of model-written code runs in: misled-tests), chromium
# (the browser tests open the HTML report in it, headless, over the DevTools pipe), libcairo2 (PNG
# pictures through cairosvg, the `png` extra) and a font for both. Needs root (CI runs as root);
# without root it names what is missing and leaves the rest to you.
set -euo pipefail
packages=()
command -v bwrap >/dev/null 2>&1 || packages+=(bubblewrap)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || packages+=(libseccomp2)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
ldconfig -p 2>/dev/null | grep -q 'libcairo\.so\.2' || packages+=(libcairo2)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || packages+=(fonts-dejavu-core)
if [ ${#packages[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages: ${packages[*]} (install them as root: apt-get install ${packages[*]})" >&2
  exit 0
fi
echo "== apt-get install ${packages[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
