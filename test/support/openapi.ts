// Checks both OpenAPI documents share.
type Json = Record<string, any>;

/** Every `$ref` in the document that points at nothing. */
export function unresolvedRefs(document: Json): string[] {
  const missing: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = value
          .replace(/^#\//, '')
          .split('/')
          .reduce<any>((at, part) => at?.[part], document);
        if (target === undefined) missing.push(value);
      } else visit(value);
    }
  };
  visit(document);
  return missing;
}
