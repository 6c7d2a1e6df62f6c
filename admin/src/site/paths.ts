/** Addresses of the public pages (spec §2: outside the organization prefix). */
export const PUBLIC_PATHS = { terms: '/legal/terms-of-service', privacy: '/legal/privacy-policy', faq: '/help/faq', blog: '/blog' } as const;
