// What a language server says in Markdown (a hover: the symbol's type in a fenced block, its
// documentation in prose), as elements built from text: fenced blocks become <pre><code>,
// `code spans` <code>, blank lines split paragraphs, and everything else stays the literal
// text it is. Nothing the server sends is ever parsed as HTML.
import { h } from '../dom.ts';

/**
 * Markdown as safe elements.
 *
 * @example
 *   tooltip.append(renderMarkdown('```typescript\nfunction add(a: number): number\n```\nAdds.'));
 */
export function renderMarkdown(markdown: string): HTMLElement {
  const root = h('div', { class: 'markdown' });
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  const endParagraph = () => {
    const text = paragraph.join(' ').trim();
    paragraph = [];
    if (text) root.append(h('p', {}, ...inline(text)));
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const fence = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (fence) {
      endParagraph();
      const code: string[] = [];
      for (index += 1; index < lines.length && !lines[index]!.trimStart().startsWith(fence[1]!); index++) code.push(lines[index]!);
      root.append(h('pre', {}, h('code', fence[2] ? { 'data-language': fence[2] } : {}, code.join('\n'))));
      continue;
    }
    if (/^\s*(---+|\*\*\*+)\s*$/.test(line)) {
      endParagraph();
      root.append(h('hr', {}));
      continue;
    }
    if (line.trim() === '') endParagraph();
    else paragraph.push(line.replace(/^#+\s+/, '').replace(/\s*\\$/, ''));
  }
  endParagraph();
  return root;
}

/** A paragraph's text with its `code spans` as <code>, and *emphasis* marks dropped. */
function inline(text: string): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  const pattern = /`([^`]+)`/g;
  let last = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > last) parts.push(plain(text.slice(last, match.index)));
    parts.push(h('code', {}, match[1]!));
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(plain(text.slice(last)));
  return parts;
}

function plain(text: string): string {
  // JSDoc in TypeScript's hovers: *@param* `a` — the marks, not the words, go.
  return text.replace(/\*\*?([^*\s][^*]*)\*\*?/g, '$1');
}
