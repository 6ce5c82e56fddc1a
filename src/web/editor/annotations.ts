// Marks the transactions that bring in what happened elsewhere (an edit made through the API,
// a reload from disk): they are not the user's typing, so they are neither sent back to the
// server nor kept in the undo history, and they never start a completion.
import { Annotation } from '@codemirror/state';

export const remoteEdit = Annotation.define<boolean>();
