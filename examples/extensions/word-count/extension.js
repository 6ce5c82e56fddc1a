// Word Count: a Loom extension (CommonJS). `loom run-command wordCount.count` counts the words of
// the active document, shows the count as a notification and answers it.
const { Extension, editor } = require('loom/extension');

/** Words as a writer counts them: runs of letters, digits, apostrophes and hyphens. */
function countWords(text) {
  return (text.match(/[\p{L}\p{N}'’-]+/gu) ?? []).length;
}

module.exports = class WordCount extends Extension {
  activate() {
    this.registerCommand('wordCount.count', async () => {
      const document = await editor.activeDocument();
      if (!document) {
        await this.showNotification('Word Count: no document is open.', { level: 'warning' });
        return { path: null, words: 0 };
      }
      const { path, text } = await editor.getText();
      const words = countWords(text);
      await this.showNotification(`${path}: ${words} ${words === 1 ? 'word' : 'words'}`);
      return { path, words };
    });
  }
};
