/**
 * Safe pieces of Mermaid `flowchart` syntax: node ids that no name can break, and quoted labels. Pure.
 *
 * @see https://mermaid.js.org/syntax/flowchart.html
 */

/**
 * Hands out Mermaid node ids. An id is `<prefix>_<name>` with every character outside `[A-Za-z0-9]`
 * replaced by `_`, so it can never be a keyword (`end`, `subgraph`), start an edge (`o`, `x`), or contain
 * syntax. Two names that sanitize alike get `_2`, `_3`, ...; the same name always gets the same id.
 */
export class MermaidIds {
  private readonly byKey = new Map<string, string>();
  private readonly taken = new Set<string>();

  /** The id of `name` in the namespace `prefix` (`[a-z]+`, e.g. `step`, `app`). */
  public id(prefix: string, name: string): string {
    if (!/^[a-z]+$/.test(prefix)) throw new Error(`mermaid id prefix must be lower-case letters, got '${prefix}'`);
    const key = `${prefix}\u0000${name}`;
    const known = this.byKey.get(key);
    if (known) return known;
    const base = `${prefix}_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
    let id = base;
    for (let n = 2; this.taken.has(id); n++) id = `${base}_${n}`;
    this.taken.add(id);
    this.byKey.set(key, id);
    return id;
  }
}

/**
 * A quoted Mermaid label made of `lines` (joined with `<br/>`). Characters that Mermaid or its HTML labels
 * would read as syntax (`"`, `#`, `<`, `>`, `` ` ``, `&`) are written as Mermaid entity codes (`#quot;`, `#35;`),
 * so any text is shown as written; inside quotes, brackets and parentheses are plain text. `&` is among them
 * because the label becomes HTML: rendered by mermaid-cli 11.12.0 (mermaid 11.17.2; 12.3.0 did the same), `a &amp; b` showed as `a & b`
 * (`npm run diagrams` renders what the program writes; test/plan/mermaid-render.test.ts renders these labels).
 */
export function mermaidLabel(...lines: string[]): string {
  return `"${lines.map(escapeLabelText).join('<br/>')}"`;
}

const ENTITIES: Readonly<Record<string, string>> = {
  '#': '#35;',
  '"': '#quot;',
  '<': '#lt;',
  '>': '#gt;',
  '`': '#96;',
  '&': '#38;',
};

function escapeLabelText(text: string): string {
  return text.replace(/[#"<>`&]/g, (c) => ENTITIES[c]);
}
