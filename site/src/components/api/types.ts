/** What the generator serializes into each operation page for the try-it panel (site/plugins/api-reference/render.ts). */
export interface TryItOperation {
  method: string;
  path: string;
  /** Security schemes of the first alternative of the contract: OrgId, ApiKey, UserToken, ClientBasic, OAuth2AccessToken… */
  security: string[];
  parameters: { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required: boolean; example?: string }[];
  contentType?: string;
  body?: string;
}
