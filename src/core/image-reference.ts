/**
 * Image references as a build key names them. Pure.
 *
 * The kubelet reports what a container runs as `status.containerStatuses[].imageID`: the repository and the digest
 * it pulled (`docker.io/library/node@sha256:…`), with a `docker-pullable://` scheme from some runtimes. A tag moves; a
 * digest names the bytes that ran, so a build key names an image by its digest where one is known.
 */

const BY_DIGEST = /^([^\s@]+)@(sha256:[0-9a-f]{64})$/;

/** `repository@sha256:…` from a kubelet's imageID, or null when it names no digest (a local image, an unknown runtime). */
export function imageByDigest(imageID: string | undefined): string | null {
  const reference = (imageID ?? '').replace(/^[a-z-]+:\/\//, '');
  return BY_DIGEST.test(reference) ? reference : null;
}

/** The digest an image reference pins (`node@sha256:…` → `sha256:…`), or null when it names a tag. */
export function pinnedDigest(reference: string): string | null {
  return /@(sha256:[0-9a-f]{64})$/.exec(reference.trim())?.[1] ?? null;
}
