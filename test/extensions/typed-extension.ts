// An extension written in TypeScript against `loom/extension`'s types, as an author would:
// `npm run typecheck` compiles it, so the typed entry (package.json exports → extension.d.mts)
// resolves and says what extension.mjs gives. examples.test.ts runs the JavaScript examples.
import { editor, events, executeCommand, Extension, registerCommand, showNotification, type Disposable, type ExtensionContext } from 'loom/extension';

export default class Typed extends Extension {
  override activate(context: ExtensionContext): void {
    const command: Disposable = registerCommand('typed.stamp', async (label: string) => {
      const document = await editor.activeDocument();
      if (!document) return null;
      const edit = await editor.insert(`// ${label}\n`, { line: 1, column: 1 });
      await editor.replace({ startLine: 1, startColumn: 4, endLine: 1, endColumn: 4 + label.length }, label.toUpperCase());
      const { text } = await editor.getText(document.path);
      return { path: edit.path, version: edit.version, lines: text.split('\n').length };
    });
    context.subscriptions.push(
      command,
      events.on('file:save', (event) => void showNotification(`saved ${String(event.data['path'])}`)),
    );
    this.registerCommand('typed.twice', async () => [await executeCommand('typed.stamp', 'a'), await this.showNotification('done', { level: 'info' })]);
  }

  override deactivate(): void {}
}
