import { DOMParser } from '@xmldom/xmldom';
import { badRequest } from '../http/errors.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
}

/** Reads entity id, HTTP-Redirect single sign-on URL and signing certificates from SAML 2.0 IdP metadata. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const errors: string[] = [];
  const doc = new DOMParser({ errorHandler: (level: string, msg: unknown) => void (level !== 'warning' && errors.push(String(msg))) }).parseFromString(xml, 'text/xml');
  if (errors.length || !doc?.documentElement) throw badRequest('idp_metadata_xml is not well-formed XML');
  const entity = doc.getElementsByTagNameNS(MD, 'EntityDescriptor')[0];
  const idp = doc.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!entity || !idp) throw badRequest('IdP metadata needs an EntityDescriptor with an IDPSSODescriptor');
  const entityId = entity.getAttribute('entityID');
  if (!entityId) throw badRequest('IdP metadata has no entityID');
  const sso = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService')).find((s) => s.getAttribute('Binding') === REDIRECT);
  const ssoUrl = sso?.getAttribute('Location');
  if (!ssoUrl) throw badRequest('IdP metadata has no SingleSignOnService with the HTTP-Redirect binding');
  const certificates = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor'))
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')))
    .map((c) => (c.textContent ?? '').replace(/\s+/g, ''))
    .filter(Boolean)
    .map((b64) => `-----BEGIN CERTIFICATE-----\n${b64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`);
  if (!certificates.length) throw badRequest('IdP metadata has no signing certificate');
  return { entityId, ssoUrl, certificates };
}
