#!/usr/bin/env bash
# Makes sure a Kubernetes control plane can run here: installs what it needs from Debian and builds
# kube-apiserver, kube-controller-manager and kube-scheduler from Debian's `kubernetes` source package
# (no Kubernetes binaries are packaged for bookworm). The binaries are cached outside the repository,
# keyed by the source package version, so only the first run on a machine pays for the build.
# Prints the directory holding the three binaries as its last line of standard output.
#
# Env: GRW_CACHE_DIR overrides the cache root (default ~/.cache/git-remote-walrus).
set -euo pipefail

readonly K8S_SOURCE_VERSION='1.20.5+really1.20.2-1.1+deb12u1'
readonly K8S_GIT_VERSION='v1.20.2'
readonly CACHE_ROOT="${GRW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/git-remote-walrus}"
readonly CACHE="$CACHE_ROOT/kubernetes-$K8S_SOURCE_VERSION"
readonly BIN="$CACHE/bin"
readonly BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubectl)
readonly RUN_PACKAGES=(etcd-server openssl iptables conntrack iproute2 nginx-light)
readonly BUILD_PACKAGES=(golang-1.19-go golang-github-modern-go-reflect2-dev rsync make tar gzip xz-utils)
readonly GO_ROOT=/usr/lib/go-1.19

say() { echo "k8s-build: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

binaries_cached() {
  local b
  for b in "${BINARIES[@]}"; do [[ -x "$BIN/$b" ]] || return 1; done
}

missing_packages() {
  local p
  for p in "$@"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == 'install ok installed' ]] || echo "$p"
  done
}

# Runs a noisy command quietly; on failure shows its output so the reason is never hidden.
quietly() {
  local log
  log="$(mktemp)"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    say "ERROR: failed: $*"
    return 1
  fi
  rm -f "$log"
}

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo -n "$@" || die "need root (or passwordless sudo) to run: $*"; fi
}

# apt-get source needs a deb-src entry for the archive the machine already installs from.
ensure_deb_src() {
  local list=/etc/apt/sources.list.d/git-remote-walrus-deb-src.sources
  [[ -f "$list" ]] && return 0
  local deb822 one_line entries=''
  shopt -s nullglob
  for deb822 in /etc/apt/sources.list.d/*.sources; do
    [[ "$deb822" == "$list" ]] && continue
    # Copy each enabled Debian stanza that serves binary packages, as a source stanza.
    entries+="$(awk 'BEGIN { RS = ""; ORS = "\n\n" }
      /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && /(^|\n)URIs:[^\n]*debian/ && !/(^|\n)Enabled: *no/ {
        sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$deb822")"
  done
  for one_line in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$one_line" ]] || continue
    entries+="$(awk '$1 == "deb" && /debian/ { $1 = "deb-src"; print }' "$one_line")"$'\n'
  done
  shopt -u nullglob
  [[ -n "${entries//[$'\n' ]/}" ]] || die "no Debian archive found in the apt sources to add a deb-src entry for"
  if grep -q '^Types:' <<<"$entries"; then
    as_root tee "$list" >/dev/null <<<"$entries"
  else
    list="${list%.sources}.list"
    as_root tee "$list" >/dev/null <<<"$entries"
  fi
  say "added $list"
  APT_UPDATED=''
}

APT_UPDATED=''
apt_install() {
  (($# > 0)) || return 0
  say "installing from Debian: $*"
  if [[ -z "$APT_UPDATED" ]]; then
    quietly as_root apt-get update -qq
    APT_UPDATED=1
  fi
  # Keep package maintainer scripts from starting services (etcd-server ships one); the tests run their own etcd.
  local policy=/usr/sbin/policy-rc.d restore=''
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
    as_root chmod +x "$policy"
    restore=1
  fi
  local rc=0
  quietly as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" || rc=$?
  if [[ -n "$restore" ]]; then as_root rm -f "$policy"; fi
  ((rc == 0)) || die "could not install from Debian: $*"
}

build() {
  local started work src
  started="$(now)"
  mkdir -p "$CACHE"
  work="$(mktemp -d "$CACHE/build.XXXXXX")"
  # Leave nothing half-built behind, whatever happens.
  trap 'rm -rf "$work"' EXIT

  say "fetching the kubernetes $K8S_SOURCE_VERSION source package"
  ensure_deb_src
  if [[ -z "$APT_UPDATED" ]]; then quietly as_root apt-get update -qq; APT_UPDATED=1; fi
  (cd "$work" && quietly apt-get source --download-only "kubernetes=$K8S_SOURCE_VERSION")
  src="$work/gopath/src/k8s.io/kubernetes"
  mkdir -p "$src"
  local tarball
  tarball="$(ls "$work"/kubernetes_*.orig.tar.* | head -n1)" || die "the source package has no upstream tarball"
  tar -xf "$tarball" -C "$src" --strip-components=1
  [[ -d "$src/vendor" && -d "$src/cmd/kube-apiserver" ]] || die "unexpected layout in $tarball"

  # The vendored reflect2 v1.0.1 reads runtime internals that changed in Go 1.18; v1.0.2 is API-compatible.
  local reflect2=/usr/share/gocode/src/github.com/modern-go/reflect2
  [[ -f "$reflect2/reflect2.go" ]] || die "golang-github-modern-go-reflect2-dev did not install $reflect2"
  rm -f "$src"/vendor/github.com/modern-go/reflect2/*.go
  cp "$reflect2"/*.go "$src/vendor/github.com/modern-go/reflect2/"

  export PATH="$GO_ROOT/bin:$PATH" GOPATH="$work/gopath" GO111MODULE=off CGO_ENABLED=0 GOPROXY=off \
    GOFLAGS='' GOCACHE="$work/go-build"
  local step
  step="$(now)"
  say "generating pkg/generated/openapi (the release tarball leaves it out)"
  (cd "$src" && quietly make gen_openapi)
  say "openapi generated in $(since "$step")s"

  step="$(now)"
  say "compiling ${BINARIES[*]} (takes a few minutes on 2 cores)"
  local ldflags="-s -w -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitVersion=$K8S_GIT_VERSION"
  ldflags+=" -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitMajor=1"
  ldflags+=" -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitMinor=20"
  ldflags+=" -X k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version.gitVersion=$K8S_GIT_VERSION"
  mkdir -p "$work/bin"
  (cd "$src" && quietly go build -ldflags "$ldflags" -o "$work/bin/" \
    ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler ./cmd/kube-proxy ./cmd/kubectl)
  say "compiled in $(since "$step")s"

  rm -rf "$BIN"
  mv "$work/bin" "$BIN"
  rm -rf "$work"
  trap - EXIT
  say "built and cached in $(since "$started")s: $BIN"
}

main() {
  local started
  started="$(now)"
  command -v dpkg-query >/dev/null || die "this needs a Debian system (dpkg-query not found)"
  mkdir -p "$CACHE_ROOT"
  # One build per machine at a time: parallel test runs wait for the first one's cache.
  exec 9>"$CACHE_ROOT/kubernetes-build.lock"
  flock 9

  local need=()
  mapfile -t need < <(missing_packages "${RUN_PACKAGES[@]}")
  if binaries_cached; then
    apt_install "${need[@]}"
    say "cached binaries found in $(since "$started")s: $BIN"
  else
    mapfile -t -O "${#need[@]}" need < <(missing_packages "${BUILD_PACKAGES[@]}")
    apt_install "${need[@]}"
    build
  fi
  command -v etcd >/dev/null || die "etcd is not on PATH after installing etcd-server"
  echo "$BIN"
}

main "$@"
