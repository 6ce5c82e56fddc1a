// The scopes and grant types of the hosted API's OAuth (docs/auth.md): plain names, no schemas,
// so that what only needs the names (the CLI's option help) loads nothing else. auth.ts re-exports them.

/** Every scope, what it grants and which flows may ask for it. */
export const SCOPES = {
  openid: { meaning: 'ID token', authorizationCode: true, clientCredentials: false },
  profile: { meaning: 'user name', authorizationCode: true, clientCredentials: false },
  email: { meaning: 'user email', authorizationCode: true, clientCredentials: false },
  'read:downloads': { meaning: 'list downloads', authorizationCode: true, clientCredentials: true },
  'read:models': { meaning: 'list models', authorizationCode: true, clientCredentials: true },
  'read:health': { meaning: 'health check', authorizationCode: true, clientCredentials: true },
  'write:feedback': { meaning: 'submit feedback', authorizationCode: true, clientCredentials: true },
  'write:composer': { meaning: 'create composer sessions', authorizationCode: true, clientCredentials: false },
  'read:tab': { meaning: 'tab completion', authorizationCode: true, clientCredentials: false },
} as const satisfies Record<string, { meaning: string; authorizationCode: boolean; clientCredentials: boolean }>;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];
export const CLIENT_CREDENTIALS_SCOPES = ALL_SCOPES.filter((s) => SCOPES[s].clientCredentials);

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

export function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(value);
}
