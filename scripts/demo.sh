#!/usr/bin/env bash
# The main job on the embedded local network, with stock git: create a repository on chain, push every ref of a
# git repository to it (packs to Walrus, refs to Sui), clone it back, and prove the clone is identical.
# Usage: npm run demo [-- /path/to/a/git/repository]   (default: this checkout)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source_repo=$(cd "${1:-$root}" && git rev-parse --show-toplevel)
export PATH="$root:$PATH"   # git finds git-remote-walrus and `git walrus` in the checkout
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name="demo-$(date +%Y%m%d-%H%M%S)"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

git clone --quiet --mirror "$source_repo" "$work/source.git"
cd "$work/source.git"
refs=$(git for-each-ref | wc -l)
echo "Pushing $source_repo ($refs refs) to a new repository '$name' on the ${GIT_WALRUS_NETWORK:-local} network."

step git walrus init "$name"
url=$(git walrus init "$name" | tail -n 1)

step git push --mirror "$url"
git push --mirror "$url"

step git clone --mirror "$url" clone.git
git clone --mirror "$url" "$work/clone.git"

step git walrus verify "$url" --deep
git walrus verify "$url" --deep

# Byte-for-byte: the same refs at the same object ids, and every object present and valid.
git for-each-ref --format='%(objectname) %(refname)' > "$work/source.refs"
git -C "$work/clone.git" for-each-ref --format='%(objectname) %(refname)' > "$work/clone.refs"
diff -u "$work/source.refs" "$work/clone.refs"
git -C "$work/clone.git" fsck --full --no-dangling --strict
echo
echo "OK: the clone from $url has all $refs refs at the same commits, and git fsck is clean."
