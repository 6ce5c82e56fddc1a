// The desktop app's composer routes (docs/composer.md, "In the window"): the window's own
// sessions on the hosted API that runs beside it under `loom up`, listed, started, read,
// cancelled and applied to the workspace. The session itself is the hosted API's object.
import { Type } from 'typebox';
import { COMPOSER_MODES, COMPOSER_STATUSES, ComposerEventSchema, ComposerSessionRequest } from './composer.ts';
import { StringEnum } from './schema-helpers.ts';

export const LocalComposerRequest = Type.Object(
  {
    prompt: ComposerSessionRequest.properties.prompt,
    files: ComposerSessionRequest.properties.files,
    mode: ComposerSessionRequest.properties.mode,
  },
  { additionalProperties: false, title: 'LocalComposerRequest' },
);

export const LocalComposerListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'At most this many, newest first; 50 by default.' })),
});

export const LocalComposerSummary = Type.Object(
  {
    sessionId: Type.String({ format: 'uuid' }),
    status: StringEnum(COMPOSER_STATUSES),
    mode: StringEnum(COMPOSER_MODES),
    prompt: Type.String({ description: 'Its first 500 characters.' }),
    edits: Type.Integer({ description: 'How many files it changes (so far).' }),
    error: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'LocalComposerSummary' },
);

export const LocalComposerList = Type.Object({ sessions: Type.Array(LocalComposerSummary) }, { title: 'LocalComposerList' });

export const LocalComposerEventsQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, description: 'Events after this `seq` (0 by default: from the first).' })),
});

export const LocalComposerEvents = Type.Object(
  { events: Type.Array(ComposerEventSchema, { description: 'At most 200, in order; ask again after the last for more.' }) },
  { title: 'LocalComposerEvents' },
);

export const LocalComposerApplyRequest = Type.Object(
  {
    partial: Type.Optional(Type.Boolean({ description: 'Apply the edits of a session that ended failed or cancelled (they may be half done).' })),
    dryRun: Type.Optional(Type.Boolean({ description: 'Check everything, write nothing.' })),
  },
  { additionalProperties: false, title: 'LocalComposerApplyRequest' },
);

export const LocalComposerApplied = Type.Object(
  {
    sessionId: Type.String({ format: 'uuid' }),
    dryRun: Type.Boolean(),
    edits: Type.Array(
      Type.Object({
        file: Type.String(),
        action: StringEnum(['created', 'modified', 'deleted', 'renamed'] as const),
        from: Type.Optional(Type.String()),
      }),
      { description: 'What was written (or, dry, would be).' },
    ),
  },
  { title: 'LocalComposerApplied' },
);
