// Insert Date: a Loom extension (ES module). `loom run-command insertDate.insert` inserts today's
// date (YYYY-MM-DD) at the cursor of the active document; `loom run-command insertDate.insert
// 2026-01-31T10:00:00Z` inserts that date instead. The edit goes through the editor's checks,
// like POST /api/editor/insert.
import { Extension, editor, registerCommand } from 'loom/extension';

/** YYYY-MM-DD of `when` (an ISO date or anything Date takes), in UTC. */
export function isoDate(when) {
  const date = when === undefined ? new Date() : new Date(when);
  if (Number.isNaN(date.getTime())) throw new Error(`Not a date: ${when}`);
  return date.toISOString().slice(0, 10);
}

export default class InsertDate extends Extension {
  activate() {
    registerCommand('insertDate.insert', async (when) => {
      const text = isoDate(when);
      const edit = await editor.insert(text);
      return { path: edit.path, inserted: text, at: edit.range.start };
    });
  }
}
