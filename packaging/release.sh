#!/usr/bin/env bash
# Builds a Conductor Bridge release on macOS: a universal (arm64 + x86_64)
# binary with cgo (the menu bar needs Cocoa), "Conductor Bridge.app" around
# it, signed with the hardened runtime, notarized and stapled, zipped for a
# GitHub release, and the Homebrew cask for that zip.
#
#   packaging/release.sh                      # version from the tag on HEAD
#   VERSION=1.2.0 CODESIGN_IDENTITY="Developer ID Application: … (TEAMID)" \
#     NOTARY_PROFILE=conductor-bridge packaging/release.sh
#
# Everything is driven by these environment variables:
#
#   VERSION             release version, no leading v (default: the exact
#                       tag on HEAD without its v; required if HEAD has none)
#   BUILD               CFBundleVersion (default: git rev-list --count HEAD)
#   OUT_DIR             where the .app, zip and cask go (default: dist)
#   GITHUB_REPO         owner/name whose releases host the zip
#                       (default: conductor-bridge/conductor-bridge)
#   GO                  the go command (default: go)
#   GO_LDFLAGS          extra linker flags (default: -s -w)
#   MACOSX_DEPLOYMENT_TARGET  oldest macOS the cgo code targets (default:
#                       12.0, the bundle's LSMinimumSystemVersion)
#   CODESIGN_IDENTITY   "Developer ID Application: Name (TEAMID)"; unset:
#                       no signing, and so no notarization
#   NOTARY_PROFILE      a keychain profile made with `xcrun notarytool
#                       store-credentials`; or else all three of:
#   APPLE_ID            the Apple ID that notarizes
#   APPLE_TEAM_ID       its team id
#   APPLE_APP_PASSWORD  an app-specific password for it
#                       (none of these: no notarization)
set -euo pipefail

die() { echo "release.sh: $*" >&2; exit 1; }
step() { printf '\n==> %s\n' "$*"; }

if [ "$(uname -s)" != "Darwin" ]; then
  die "this builds the signed macOS release and runs on macOS only (it needs cgo for Cocoa, lipo, codesign, notarytool, ditto).
On Linux, build a test bundle instead: go run ./packaging -o dist -test-build -zip -cask dist/conductor-bridge.rb"
fi

cd "$(dirname "$0")/.."

GO="${GO:-go}"
OUT_DIR="${OUT_DIR:-dist}"
GITHUB_REPO="${GITHUB_REPO:-conductor-bridge/conductor-bridge}"
GO_LDFLAGS="${GO_LDFLAGS:--s -w}"
export MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-12.0}"
CODESIGN_IDENTITY="${CODESIGN_IDENTITY:-}"
NOTARY_PROFILE="${NOTARY_PROFILE:-}"
APPLE_ID="${APPLE_ID:-}"
APPLE_TEAM_ID="${APPLE_TEAM_ID:-}"
APPLE_APP_PASSWORD="${APPLE_APP_PASSWORD:-}"

if [ -z "${VERSION:-}" ]; then
  tag="$(git describe --tags --exact-match 2>/dev/null)" ||
    die "HEAD has no tag: tag the release (git tag v1.2.0) or set VERSION"
  VERSION="${tag#v}"
fi
BUILD="${BUILD:-$(git rev-list --count HEAD)}"

for tool in "$GO" lipo ditto xcrun; do
  command -v "$tool" >/dev/null || die "$tool not found (install Go and the Xcode command line tools)"
done

APP="$OUT_DIR/Conductor Bridge.app"
ZIP="$OUT_DIR/Conductor-Bridge-$VERSION.zip"
CASK="$OUT_DIR/conductor-bridge.rb"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/conductor-bridge-release.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT_DIR"

echo "Conductor Bridge $VERSION (build $BUILD) → $OUT_DIR"

# 1. One binary per architecture, with cgo: systray draws the menu bar with
#    Cocoa. Go passes -arch to clang, so both build on either kind of Mac.
for arch in arm64 amd64; do
  step "go build darwin/$arch"
  CGO_ENABLED=1 GOOS=darwin GOARCH="$arch" "$GO" build -trimpath \
    -ldflags "$GO_LDFLAGS -X main.buildVersion=$VERSION" \
    -o "$WORK/conductor-bridge-$arch" ./app
done

step "lipo: universal binary"
lipo -create -output "$WORK/conductor-bridge" "$WORK/conductor-bridge-arm64" "$WORK/conductor-bridge-amd64"
lipo -info "$WORK/conductor-bridge"

# 2. The bundle: Info.plist, icon, PkgInfo, the binary (checked as Mach-O).
step "bundle"
"$GO" run ./packaging -o "$OUT_DIR" -binary "$WORK/conductor-bridge" \
  -version "$VERSION" -build "$BUILD" -repo "$GITHUB_REPO"

# 3. Sign with the hardened runtime and a secure timestamp, both required
#    for notarization. The bundle's signature covers its main executable.
signed=false
if [ -n "$CODESIGN_IDENTITY" ]; then
  step "codesign"
  codesign --force --options runtime --timestamp --sign "$CODESIGN_IDENTITY" "$APP"
  codesign --verify --strict --verbose=2 "$APP"
  signed=true
else
  step "codesign: SKIPPED (CODESIGN_IDENTITY is unset): the app is unsigned and Gatekeeper will block it on other Macs"
fi

# 4. Notarize (Apple scans the signed app), then staple the ticket to the
#    app so Gatekeeper accepts it offline.
#
# notary runs notarytool with whichever credentials were given. (A
# function, not an array of arguments: macOS's bash 3.2 with set -u calls
# an empty array unbound.)
notary_auth=""
if [ -n "$NOTARY_PROFILE" ]; then
  notary_auth=profile
elif [ -n "$APPLE_ID" ] && [ -n "$APPLE_TEAM_ID" ] && [ -n "$APPLE_APP_PASSWORD" ]; then
  notary_auth=apple-id
fi
notary() {
  local cmd="$1"
  shift
  if [ "$notary_auth" = profile ]; then
    xcrun notarytool "$cmd" "$@" --keychain-profile "$NOTARY_PROFILE"
  else
    xcrun notarytool "$cmd" "$@" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" --password "$APPLE_APP_PASSWORD"
  fi
}
if ! $signed; then
  step "notarize: SKIPPED (only a signed app can be notarized)"
elif [ -z "$notary_auth" ]; then
  step "notarize: SKIPPED (set NOTARY_PROFILE, or APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD)"
else
  step "notarize (this waits for Apple, usually a few minutes)"
  ditto -c -k --keepParent "$APP" "$WORK/notarize.zip"
  # --wait returns once Apple has decided; the JSON says what it decided.
  result="$(notary submit "$WORK/notarize.zip" --wait --output-format json)" ||
    die "notarytool submit failed: $result"
  echo "$result"
  if ! grep -q '"status"[[:space:]]*:[[:space:]]*"Accepted"' <<<"$result"; then
    id="$(sed -n 's/.*"id"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' <<<"$result")"
    if [ -n "$id" ]; then
      notary log "$id" >&2 || true
    fi
    die "notarization was not accepted (log above)"
  fi
  step "staple"
  xcrun stapler staple "$APP"
  xcrun stapler validate "$APP"
  spctl --assess --type execute --verbose=2 "$APP"
fi

# 5. The release zip, made after stapling so it carries the ticket. ditto
#    keeps the bundle's modes, symlinks and extended attributes, as Finder's
#    Archive Utility expects.
step "zip"
rm -f "$ZIP"
ditto -c -k --keepParent "$APP" "$ZIP"

# 6. The cask for exactly this zip (its sha256), from packaging/cask.rb.tmpl.
step "cask"
"$GO" run ./packaging -cask-zip "$ZIP" -cask "$CASK" -version "$VERSION" -repo "$GITHUB_REPO"

step "done"
ls -lh "$ZIP" "$CASK"
echo "Upload $ZIP to the GitHub release v$VERSION of $GITHUB_REPO, then commit $CASK to the Homebrew tap."
$signed || echo "Note: this build is unsigned; do not publish it."
