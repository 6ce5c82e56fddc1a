// The products the hosted API offers builds of, and their platforms: plain names, no schemas,
// so that the CLI's option help loads nothing else. schemas.ts re-exports them.

export const PRODUCT_IDS = ['ide', 'omni', 'cli'] as const;
export const PLATFORMS = ['windows', 'macos', 'linux'] as const;
export type ProductId = (typeof PRODUCT_IDS)[number];
export type Platform = (typeof PLATFORMS)[number];
