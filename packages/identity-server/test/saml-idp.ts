import { randomUUID, webcrypto } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import * as x509 from '@peculiar/x509';
import { SignedXml } from 'xml-crypto';

const pem = (label: string, der: ArrayBuffer) => `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----\n`;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * A SAML 2.0 identity provider on loopback: takes an AuthnRequest by HTTP-Redirect binding, "signs the person in" and
 * answers with an auto-posting form carrying a Response whose Assertion is signed (RSA-SHA256, exclusive C14N).
 */
export async function startSamlIdp(email: string, moreAttributes: Record<string, string> = {}) {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name: 'CN=Test SAML IdP', notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + 86_400_000), keys, signingAlgorithm: alg });
  const certPem = cert.toString('pem');
  const keyPem = pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));

  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://idp');
    const raw = url.searchParams.get('SAMLRequest');
    if (url.pathname !== '/sso' || !raw) {
      res.writeHead(404).end();
      return;
    }
    const request = inflateRawSync(Buffer.from(raw, 'base64')).toString('utf8');
    const requestId = /\sID="([^"]+)"/.exec(request)![1]!;
    const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(request)![1]!;
    const audience = /<saml:Issuer[^>]*>([^<]+)<\/saml:Issuer>/.exec(request)![1]!;
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000).toISOString();
    const assertionId = `_${randomUUID()}`;
    const xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomUUID()}" Version="2.0" IssueInstant="${now.toISOString()}" Destination="${esc(acs)}" InResponseTo="${esc(requestId)}">` +
      `<saml:Issuer>${issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}"><saml:Issuer>${issuer}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(email)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${esc(requestId)}" NotOnOrAfter="${later}" Recipient="${esc(acs)}"/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${new Date(now.getTime() - 60_000).toISOString()}" NotOnOrAfter="${later}"><saml:AudienceRestriction><saml:Audience>${esc(audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${esc(email)}</saml:AttributeValue></saml:Attribute>` +
      Object.entries(moreAttributes).map(([name, value]) => `<saml:Attribute Name="${esc(name)}"><saml:AttributeValue>${esc(value)}</saml:AttributeValue></saml:Attribute>`).join('') +
      `</saml:AttributeStatement>` +
      `</saml:Assertion></samlp:Response>`;
    const sig = new SignedXml({
      privateKey: keyPem,
      publicCert: certPem,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    sig.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    });
    sig.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
    const response = Buffer.from(sig.getSignedXml()).toString('base64');
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<form method="post" action="${esc(acs)}"><input type="hidden" name="SAMLResponse" value="${response}"><input type="hidden" name="RelayState" value="${esc(url.searchParams.get('RelayState') ?? '')}"></form><script>document.forms[0].submit()</script>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/metadata`;
  const certB64 = certPem.replace(/-----[^-]+-----|\s/g, '');
  const metadataXml =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${issuer}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certB64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/sso"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`;
  return { entryPoint: `${base}/sso`, issuer, certPem, metadataXml, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Submits the auto-posting form of an IdP page the way the browser would. */
export async function submitAutoPost(html: string): Promise<Response> {
  const action = /action="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
  const fields = new URLSearchParams();
  for (const [tag] of html.matchAll(/<input[^>]*>/g)) fields.set(/name="([^"]+)"/.exec(tag)![1]!, (/value="([^"]*)"/.exec(tag)?.[1] ?? '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&amp;/g, '&'));
  return fetch(action, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
}
