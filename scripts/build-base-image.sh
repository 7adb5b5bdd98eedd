#!/usr/bin/env bash
# Builds a container base image from Debian's packages only, for machines that reach no container
# registry (Docker Hub's node image is then out of reach): `debootstrap --variant=minbase bookworm` into
# a temporary directory, from the Debian mirror this machine's apt already uses, then
# `tar | podman import`. The image holds ca-certificates (TLS to the CRMs and the commerce API) and
# Debian's nodejs and npm, which the Dockerfile's build stage needs to run `npm ci`; the Node 24 the
# image runs comes from the npm package `node` (see the Dockerfile), not from Debian (bookworm has 18).
#
#   scripts/build-base-image.sh [--rebuild] [image-name]     (default name: localhost/crm-sync-base:bookworm)
#
# Prints the image name on its last line. Skips the work when the image exists, unless --rebuild.
# Needs root (debootstrap, rootful podman).
set -euo pipefail

rebuild=0
name=localhost/crm-sync-base:bookworm
for argument in "$@"; do
  case "$argument" in
    --rebuild) rebuild=1 ;;
    -*) echo "Unknown option $argument (usage: $0 [--rebuild] [image-name])" >&2; exit 2 ;;
    *) name="$argument" ;;
  esac
done

if [ "$rebuild" -eq 0 ] && podman image exists "$name"; then
  echo "Base image $name exists (pass --rebuild to build it again)" >&2
  echo "$name"
  exit 0
fi

# The mirror apt uses here: the first Debian "main" archive in sources.list or its deb822 .sources files
# (never a host of our choosing: this machine may reach no other).
mirror=$(
  {
    grep -hE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; break } }'
    grep -hE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{ print $2 }'
  } | grep -E '/debian/?$' | head -n 1
)
if [ -z "$mirror" ]; then
  echo "Found no Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d: cannot build the base image" >&2
  exit 1
fi

workdir=$(mktemp -d /var/tmp/crm-sync-base.XXXXXX)
cleanup() { rm -rf "$workdir"; }
trap cleanup EXIT

echo "Building base image $name: debootstrap bookworm from $mirror" >&2
# Only ca-certificates through debootstrap: its own resolver fails on npm's ~200 node-* dependencies
# ("Failure while configuring base packages ... npm is at fault"); apt-get inside the new root orders them.
debootstrap --variant=minbase --include=ca-certificates bookworm "$workdir/root" "$mirror" >&2
echo "Installing nodejs and npm into the base with apt-get" >&2
DEBIAN_FRONTEND=noninteractive chroot "$workdir/root" apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive chroot "$workdir/root" apt-get install -y -qq --no-install-recommends nodejs npm >&2
chroot "$workdir/root" apt-get clean

# Smaller and reproducible-ish: no package lists or caches, no docs.
rm -rf "$workdir/root/var/lib/apt/lists/"* "$workdir/root/var/cache/apt/"*.bin "$workdir/root/var/cache/apt/archives/"*.deb \
  "$workdir/root/usr/share/doc/"* "$workdir/root/usr/share/man/"* "$workdir/root/usr/share/info/"*
# debootstrap copies the host's resolv.conf and hostname; podman provides both when a container runs.
rm -f "$workdir/root/etc/resolv.conf" "$workdir/root/etc/hostname"

tar --numeric-owner -C "$workdir/root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["/bin/bash"]' \
  - "$name" >&2
echo "$name"
