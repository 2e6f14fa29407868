export { createDocsServer, startDocsServer, type DocsServerOptions, type StartedDocsServer } from './server.js';
export { resolvePath, type Resolution } from './resolve.js';
export { contentSecurityPolicy, cacheControl, SECURITY_HEADERS } from './headers.js';
export { readSite, scriptSources, type SiteFile } from './site-files.js';
