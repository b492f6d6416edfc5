/**
 * The documents behind YAML text this program wrote, so that validating the output does not parse it again.
 *
 * `renderYaml` remembers, for each text its fast path wrote, a JSON copy of the documents it wrote. That path
 * only takes plain JSON data (plain objects and arrays without shared references, strings, finite numbers,
 * booleans and null), whose YAML reads back as exactly that data; a test parses every file of the generated
 * trees and compares it with what is remembered here. The key is the exact text, so text that was edited,
 * joined or written any other way is simply not found and gets parsed.
 */

/** Most texts remembered; past that the oldest are forgotten (a long test run renders many trees). */
const MAX_REMEMBERED = 5000;

const remembered = new Map<string, readonly unknown[]>();

/** Records that `text` is the YAML of `documents` (plain JSON data); keeps a copy, so later edits do not leak in. */
export function rememberRendered(text: string, documents: readonly unknown[]): void {
  if (remembered.has(text)) return;
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  remembered.set(text, JSON.parse(JSON.stringify(documents)) as unknown[]);
}

/** The documents `text` was rendered from, in order; undefined when this process did not render it. */
export function renderedDocuments(text: string): readonly unknown[] | undefined {
  return remembered.get(text);
}
