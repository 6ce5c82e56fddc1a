// Generated sections of a hand-written Markdown file: what lies between
// `<!-- generated: NAME … -->` and `<!-- end generated: NAME -->` is written by a script from
// the project's tables; the prose around it is the author's.

const SECTION = /<!-- generated: ([a-z-]+)([^>]*)-->\n([\s\S]*?)\n?<!-- end generated: \1 -->/g;

/** The generated sections of `text`, by name. */
export function sectionsOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(SECTION)].map((match) => [match[1]!, match[3]!]));
}

/** `text` with each named section's content replaced; throws when a section has no markers. */
export function fillSections(text: string, sections: Record<string, string>, file: string): string {
  const present = sectionsOf(text);
  for (const name of Object.keys(sections)) {
    if (!present.has(name)) throw new Error(`${file} has no generated section "${name}" (<!-- generated: ${name} --> … <!-- end generated: ${name} -->)`);
  }
  return text.replace(SECTION, (whole, name: string, note: string) =>
    name in sections ? `<!-- generated: ${name}${note}-->\n${sections[name]}\n<!-- end generated: ${name} -->` : whole,
  );
}
