/**
 * Container image references: `[registry[:port]/]repository[:tag][@algorithm:digest]`.
 *
 * @see https://github.com/distribution/reference/blob/main/reference.go (the grammar)
 */

const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const PATH_COMPONENT = /^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*$/;
const DIGESTS: Record<string, RegExp> = { sha256: /^[a-f0-9]{64}$/, sha512: /^[a-f0-9]{128}$/ };

/**
 * Returns why `image` is not a pinned, well-formed reference (`<what is wrong>; <the fix>`), or undefined.
 * Pinned means a tag other than `latest`, or a digest.
 */
export function imagePinProblem(image: string): string | undefined {
  if (image.trim() !== image || image === '') return 'is empty or has surrounding spaces; write the image reference exactly';
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const digest = at < 0 ? undefined : image.slice(at + 1);
  if (digest !== undefined) {
    const [algorithm, hex, ...rest] = digest.split(':');
    const expected = DIGESTS[algorithm];
    if (rest.length > 0 || hex === undefined || !expected) {
      return `has a malformed digest '@${digest}'; write '@sha256:' followed by 64 lower-case hex digits`;
    }
    if (!expected.test(hex)) {
      const want = algorithm === 'sha256' ? 64 : 128;
      return `has a malformed ${algorithm} digest (${hex.length} characters, ${want} lower-case hex digits expected); `
        + 'copy the full digest from the registry';
    }
  }
  const slash = name.lastIndexOf('/');
  const lastPart = name.slice(slash + 1);
  const colon = lastPart.indexOf(':');
  const tag = colon < 0 ? undefined : lastPart.slice(colon + 1);
  const repository = colon < 0 ? name : name.slice(0, slash + 1 + colon);
  const components = repository.split('/');
  // The first component is a registry host when it has a dot or a port, or is localhost; it may have upper case.
  const hasRegistry = components.length > 1 && (/[.:]/.test(components[0]) || components[0] === 'localhost');
  for (const c of hasRegistry ? components.slice(1) : components) {
    if (!PATH_COMPONENT.test(c)) {
      return `has an invalid repository path component '${c}'; use lower-case letters, digits and single separators ('.', '_', '-')`;
    }
  }
  if (tag !== undefined) {
    if (!TAG.test(tag)) return `has an invalid tag '${tag}'; a tag is up to 128 letters, digits, '_', '.' and '-'`;
    if (tag === 'latest') return "uses the tag 'latest', which moves; pin a version tag or a digest (@sha256:...)";
  } else if (digest === undefined) {
    return 'is not pinned: without a tag it pulls :latest, which moves; use a version tag or a digest (@sha256:...)';
  }
  return undefined;
}
