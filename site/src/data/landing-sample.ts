// The landing page's example: commands a reader runs after `npm start` (the local Keyway API on port 8787 and its
// development organization), and the answer they print. site/test/landing-sample.test.ts runs the commands with curl
// and jq against a real identity server and compares the answer with `output`.
export const command = `TOKEN=$(curl -s -X POST http://localhost:8787/persons/anonymous \\
  -H 'Keyway-OrgID: org_keyway_dev' -H 'Content-Type: application/json' \\
  -d '{}' | jq -r .result.token)

curl -s -X POST http://localhost:8787/token/validate \\
  -H 'Keyway-OrgID: org_keyway_dev' -H 'Content-Type: application/json' \\
  -d "{\\"token\\": \\"$TOKEN\\"}" | jq`;

export const output = `{
  "result": {
    "valid": true,
    "expires_in_seconds": 3598,
    "expires_at": "2026-11-25T13:18:11.000Z"
  }
}`;
