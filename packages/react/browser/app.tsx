/** The page the Chromium tests open: one scene per `?scene=` against the identity server given in `?api=`. */
import { createRoot } from 'react-dom/client';
import {
  ConfigurationProvider,
  Form,
  GDPRConsentDialog,
  KeywayProvider,
  Loaded,
  LoggedIn,
  LoggedOut,
  MultiFactorAuth,
  OrganizationSwitcher,
  useGDPRConsent,
  useKeyway,
} from '../src/index.js';

const params = new URLSearchParams(location.search);
const api = params.get('api')!;
const oid = params.get('oid')!;
const scene = params.get('scene') ?? 'otp';

function Account() {
  const { user, logout } = useKeyway();
  return (
    <section aria-label="Account">
      <p data-testid="who">
        {user?.personId} in {user?.orgId} by {user?.authenticatedMethods.join('+')}
      </p>
      <button type="button" onClick={() => void logout()}>
        Sign out
      </button>
    </section>
  );
}

function Consents() {
  const { consents } = useGDPRConsent();
  return <p data-testid="consents">{consents.map((c) => c.consent_level).join(',')}</p>;
}

const factors = { sso: [{ method: 'oidc', options: { provider: 'generic' }, label: 'Corp' }], passkey: ['otp_via_email', 'webauthn'], otp: ['otp_via_email'], password: ['password', 'otp_via_email'], mfa: ['otp_via_email'], orgs: ['otp_via_email'], consent: ['otp_via_email'] }[scene] as ['otp_via_email'];

function App() {
  return (
    <KeywayProvider oid={oid} baseURL={api} analytics={false} tokenStorageKey="keyway.docs.token">
      <ConfigurationProvider factors={factors}>
        <main style={{ padding: 16 }}>
          <Loaded fallback={<p>Loading…</p>}>
            {scene === 'mfa' ? (
              <MultiFactorAuth factors={['totp']} />
            ) : (
              <LoggedOut>
                <Form />
              </LoggedOut>
            )}
            <LoggedIn withFactors={scene === 'mfa' ? ['totp'] : []}>
              <Account />
              {scene === 'orgs' && <OrganizationSwitcher />}
              {scene === 'consent' && (
                <>
                  <GDPRConsentDialog />
                  <Consents />
                </>
              )}
            </LoggedIn>
          </Loaded>
        </main>
      </ConfigurationProvider>
    </KeywayProvider>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
