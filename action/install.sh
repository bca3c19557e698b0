#!/usr/bin/env bash
# Installs ownerlint for the GitHub Action (action.yml), in two steps around `actions/cache`:
#
#   install.sh plan     decides what to install and sets the step's outputs: for a release, the
#                       archive's URL and its sha256 from the release's checksum file, and the
#                       cache key (version, target and sha256, so a re-published archive is
#                       fetched again); for an unreleased ref, a key from the digest of the source.
#   install.sh install  on a cache miss: downloads the archive, checks it against that sha256,
#                       and unpacks the binary into $OWNERLINT_ROOT/bin; or, for an unreleased
#                       ref, builds it with `cargo install --locked`.
#
# A release is the `version` input, or the action's own ref when it is a version tag (vX.Y.Z).
# Downloads come from $OWNERLINT_RELEASES_URL (for a mirror or GitHub Enterprise Server), by
# default https://github.com/OWNER/REPO/releases/download, over https only: plain http is taken
# only from this machine (127.0.0.1, localhost, [::1]), where nothing on the network can alter it.
#
# The environment (action.yml's `env:`): INPUT_VERSION, ACTION_REF, ACTION_REPOSITORY,
# WORKFLOW_REPOSITORY, ACTION_PATH, OWNERLINT_ROOT; RUNNER_OS and RUNNER_ARCH as the runner sets
# them; on install, the plan's outputs as PLAN_RELEASE, PLAN_VERSION, PLAN_TARGET, PLAN_ARCHIVE,
# PLAN_URL and PLAN_SHA256.
set -euo pipefail

# Said on standard error, which the runner reads for workflow commands too, so that a message
# from inside a command substitution reaches the log.
fail() {
  echo "::error title=ownerlint install::$*" >&2
  exit 1
}

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "$1=$2" >>"$GITHUB_OUTPUT"
  fi
}

# sha256sum on Linux and Windows' Git Bash, shasum on macOS.
if command -v sha256sum >/dev/null; then
  sha256=(sha256sum)
elif command -v shasum >/dev/null; then
  sha256=(shasum -a 256)
else
  fail "neither sha256sum nor shasum is on PATH: ownerlint cannot check what it downloads"
fi

digest_of() {
  local line
  line="$("${sha256[@]}" "$1")"
  echo "${line%% *}"
}

# The action's ref and repository. A remote action is unpacked at
# .../_actions/OWNER/REPO/REF, which names them even where the expressions github.action_ref and
# github.action_repository are empty or name an enclosing action (in a composite action used by
# another); for `uses: ./` the repository is the workflow's own.
if [[ ${ACTION_PATH:-} =~ [/\\]_actions[/\\]([^/\\]+)[/\\]([^/\\]+)[/\\]([^/\\]+)$ ]]; then
  ACTION_REPOSITORY="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
  ACTION_REF="${BASH_REMATCH[3]}"
elif [ -z "${ACTION_REPOSITORY:-}" ]; then
  ACTION_REPOSITORY="${WORKFLOW_REPOSITORY:-}"
fi

# What ref the action was used at, in words for the log.
ref_in_words() {
  if [ -n "${ACTION_REF:-}" ]; then
    echo "ref ${ACTION_REF}"
  else
    echo "the action's own checkout (uses: ./)"
  fi
}

# The release version to install, or nothing for an unreleased ref.
release_version() {
  local version="${INPUT_VERSION:-}"
  if [ -n "$version" ]; then
    version="${version#v}"
    if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
      fail "the version input '${INPUT_VERSION}' is not a release version: give one such as 0.1.0, or leave it empty to use the action's own ref"
    fi
    echo "$version"
  elif [[ ${ACTION_REF:-} =~ ^v([0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?)$ ]]; then
    echo "${BASH_REMATCH[1]}"
  fi
}

# The release target built for this runner (runner.os, runner.arch).
release_target() {
  case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) echo x86_64-unknown-linux-musl ;;
    Linux/ARM64) echo aarch64-unknown-linux-musl ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) fail "ownerlint releases have no build for ${RUNNER_OS:-an unknown OS} on ${RUNNER_ARCH:-an unknown architecture} (runner.os, runner.arch): run the job on Linux, macOS or Windows on X64, or Linux or macOS on ARM64" ;;
  esac
}

# curl's options for the release host, into curl_options: https only, and its redirects
# (GitHub's to its download host) https only; plain http only to this machine, without following
# redirects away from it.
set_curl_options() {
  local base="$1"
  if [[ $base =~ ^https:// ]]; then
    curl_options=(--location --proto "=https" --proto-redir "=https")
  elif [[ $base =~ ^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/.*)?$ ]]; then
    curl_options=(--proto "=http")
  else
    fail "OWNERLINT_RELEASES_URL '$base' is not an https:// URL (plain http is taken only from 127.0.0.1 or localhost): give the https address of the releases, e.g. https://github.com/OWNER/ownerlint/releases/download"
  fi
}

# Download $1 to the file $2; on failure say what was asked for and what the host answered.
download() {
  local url="$1" file="$2" status
  set_curl_options "$url"
  status="$(curl --fail --silent --show-error "${curl_options[@]}" --retry 3 --connect-timeout 30 \
    --max-time 600 --output "$file" --write-out '%{http_code}' -- "$url")" || {
    if [ "${status:-000}" = 404 ]; then
      fail "$url was not found (HTTP 404): there is no such release or no archive for this runner; check the version input and the release's assets"
    fi
    fail "could not download $url (HTTP ${status:-000}): see curl's message above"
  }
}

plan() {
  local version
  version="$(release_version)"
  if [ -z "$version" ]; then
    # Cached by the digest of what `cargo install` builds from, so that a branch's cache follows
    # its commits instead of keeping the first build for ever.
    local source inputs=() input
    for input in Cargo.toml Cargo.lock build.rs src rules data; do
      if [ -e "$ACTION_PATH/$input" ]; then
        inputs+=("$input")
      fi
    done
    if [ "${#inputs[@]}" -eq 0 ]; then
      fail "$ACTION_PATH holds no ownerlint source (Cargo.toml, src/): the action cannot build ownerlint there; use a release tag (vX.Y.Z) or the version input"
    fi
    source="$(cd "$ACTION_PATH" && find "${inputs[@]}" -type f -print0 |
      LC_ALL=C sort -z | xargs -0 "${sha256[@]}" | "${sha256[@]}")"
    echo "$(ref_in_words) is not a release: ownerlint is built from source on a cache miss"
    output release false
    output cache-key "ownerlint-source-${RUNNER_OS:-}-${RUNNER_ARCH:-}-${source%% *}"
    return
  fi
  local target archive base url
  target="$(release_target)"
  case "$target" in
    *-windows-*) archive="ownerlint-$version-$target.zip" ;;
    *) archive="ownerlint-$version-$target.tar.gz" ;;
  esac
  if [ -z "${ACTION_REPOSITORY:-}" ] && [ -z "${OWNERLINT_RELEASES_URL:-}" ]; then
    fail "the action's repository is not known (github.action_repository is empty): set OWNERLINT_RELEASES_URL to the address of its releases"
  fi
  base="${OWNERLINT_RELEASES_URL:-https://github.com/${ACTION_REPOSITORY:-}/releases/download}"
  base="${base%/}"
  # Checked before anything is downloaded.
  set_curl_options "$base"
  url="$base/v$version/$archive"
  local work line expected name
  work="$(mktemp -d)"
  download "$url.sha256" "$work/checksum"
  # sha256sum's format: `HEX  NAME`, or `HEX *NAME` for a file read as binary.
  read -r expected name <"$work/checksum" || true
  rm -rf "$work"
  name="${name%$'\r'}"
  expected="$(echo "$expected" | tr 'A-F' 'a-f')"
  if ! [[ $expected =~ ^[0-9a-f]{64}$ ]] || [ "${name#\*}" != "$archive" ]; then
    fail "$url.sha256 is not a checksum of $archive (expected one line: the sha256 in hex, two spaces, $archive)"
  fi
  echo "ownerlint $version for $target: $url (sha256 $expected)"
  output release true
  output version "$version"
  output target "$target"
  output archive "$archive"
  output url "$url"
  output sha256 "$expected"
  output cache-key "ownerlint-$version-$target-$expected"
}

install_release() {
  local actual folder binary
  # Global, for the trap that removes it however the script ends.
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  download "$PLAN_URL" "$work/$PLAN_ARCHIVE"
  actual="$(digest_of "$work/$PLAN_ARCHIVE")"
  if [ "$actual" != "$PLAN_SHA256" ]; then
    fail "$PLAN_URL has sha256 $actual, but $PLAN_URL.sha256 says $PLAN_SHA256: the download is corrupt or was altered, so nothing was installed; try again, and report it if it persists"
  fi
  mkdir "$work/unpacked"
  case "$PLAN_ARCHIVE" in
    *.zip)
      if command -v unzip >/dev/null; then
        unzip -q "$work/$PLAN_ARCHIVE" -d "$work/unpacked"
      else
        powershell -NoProfile -Command "Expand-Archive -LiteralPath '$work/$PLAN_ARCHIVE' -DestinationPath '$work/unpacked'"
      fi
      binary=ownerlint.exe
      ;;
    *)
      tar -xzf "$work/$PLAN_ARCHIVE" -C "$work/unpacked"
      binary=ownerlint
      ;;
  esac
  folder="$work/unpacked/ownerlint-$PLAN_VERSION-$PLAN_TARGET"
  if [ ! -f "$folder/$binary" ] || [ -L "$folder/$binary" ]; then
    fail "$PLAN_ARCHIVE holds no file ownerlint-$PLAN_VERSION-$PLAN_TARGET/$binary: it is not an ownerlint release archive"
  fi
  # Moved into place whole, so that an interrupted install leaves no half-written binary.
  mkdir -p "$OWNERLINT_ROOT/bin"
  cp "$folder/$binary" "$OWNERLINT_ROOT/bin/.$binary.partial"
  chmod 755 "$OWNERLINT_ROOT/bin/.$binary.partial"
  mv -f "$OWNERLINT_ROOT/bin/.$binary.partial" "$OWNERLINT_ROOT/bin/$binary"
  echo "installed ownerlint $PLAN_VERSION ($PLAN_ARCHIVE, sha256 $actual) into $OWNERLINT_ROOT/bin"
}

install_from_source() {
  echo "$(ref_in_words) is not a release: building ownerlint from source (about 5 minutes); use a release tag (vX.Y.Z) or the version input to install in seconds"
  cargo install --locked --path "$ACTION_PATH" --root "$OWNERLINT_ROOT"
}

case "${1:-}" in
  plan) plan ;;
  install)
    if [ "${PLAN_RELEASE:-}" = true ]; then
      install_release
    else
      install_from_source
    fi
    ;;
  *) fail "usage: install.sh plan|install" ;;
esac
