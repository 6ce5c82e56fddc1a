// API versions and path prefixes of the hosted API (docs/api.md, "Paths" and "Versions").

export const API_VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The current path prefix, the deprecated unversioned alias and the docs mirror. */
export const API_PREFIX = '/api/v1';
export const DEPRECATED_PREFIX = '/api';
export const DOCS_MIRROR_PREFIX = '/docs/api/v1';

/** Headers on every response of the unversioned `/api` path. */
export const DEPRECATION_HEADERS = {
  deprecation: 'true',
  sunset: 'Sat, 31 Dec 2028 23:59:59 GMT',
} as const;
