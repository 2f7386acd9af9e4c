#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser test (/usr/bin/chromium); installs it when missing, as
# root or through passwordless sudo. Browser downloads by npm packages do not work on CI machines: the distribution's
# package does. Prints the browser's path.
set -euo pipefail
browser=/usr/bin/chromium
if [[ ! -x $browser ]]; then
  as_root() { if [[ $EUID -eq 0 ]]; then "$@"; else sudo -n "$@"; fi; }
  echo "installing chromium from Debian for the browser test" >&2
  # One install at a time, whichever test worker gets here first.
  exec 9>/tmp/git-remote-walrus-chromium.lock
  flock 9
  if [[ ! -x $browser ]]; then
    as_root apt-get update -qq >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
  fi
fi
echo "$browser"
