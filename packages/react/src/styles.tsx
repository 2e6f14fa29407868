/** Default look of the components: plain CSS on `kw-` classes, driven by CSS variables (see {@link Theme}). */
export const KEYWAY_CSS = `
.kw-root{--kw-primary:#2f5bea;--kw-on-primary:#fff;--kw-surface:#fff;--kw-text:#1c1e21;--kw-muted:#5f6670;--kw-border:#cfd4dc;--kw-error:#c62828;--kw-success:#1b7f3b;--kw-radius:8px;--kw-font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  box-sizing:border-box;width:100%;max-width:26rem;margin:0 auto;padding:1.5rem;background:var(--kw-surface);color:var(--kw-text);font-family:var(--kw-font);font-size:1rem;line-height:1.5;border:1px solid var(--kw-border);border-radius:var(--kw-radius)}
.kw-root *,.kw-root *::before,.kw-root *::after{box-sizing:inherit}
.kw-logo{display:block;max-height:3rem;max-width:100%;margin:0 auto 1rem}
.kw-title{font-size:1.35rem;margin:0 0 .25rem;font-weight:650}
.kw-subtitle,.kw-hint{color:var(--kw-muted);margin:0 0 .75rem;font-size:.925rem}
.kw-step,.kw-initial{display:flex;flex-direction:column;gap:.6rem}
.kw-label{font-weight:550;font-size:.925rem}
.kw-input,.kw-select{width:100%;min-height:2.75rem;padding:.5rem .75rem;font:inherit;color:inherit;background:var(--kw-surface);border:1px solid var(--kw-border);border-radius:var(--kw-radius)}
.kw-input[aria-invalid=true]{border-color:var(--kw-error)}
.kw-input-code{letter-spacing:.3em;font-variant-numeric:tabular-nums;font-size:1.2rem}
.kw-input:focus-visible,.kw-select:focus-visible,.kw-button:focus-visible,.kw-choice input:focus-visible{outline:3px solid var(--kw-primary);outline-offset:2px}
.kw-button{display:inline-flex;align-items:center;justify-content:center;gap:.5rem;min-height:2.75rem;padding:.5rem 1rem;font:inherit;font-weight:600;border-radius:var(--kw-radius);border:1px solid var(--kw-border);background:var(--kw-surface);color:var(--kw-text);cursor:pointer;width:100%}
.kw-button-primary{background:var(--kw-primary);border-color:var(--kw-primary);color:var(--kw-on-primary)}
.kw-button-link{border:none;background:none;color:var(--kw-primary);width:auto;align-self:center;min-height:2rem;text-decoration:underline}
.kw-button[disabled]{opacity:.55;cursor:not-allowed}
.kw-fieldset{border:none;padding:0;margin:0;display:flex;flex-direction:column;gap:.35rem}
.kw-fieldset legend{font-weight:550;font-size:.925rem;margin-bottom:.35rem}
.kw-choice{display:flex;align-items:center;gap:.5rem;padding:.5rem .75rem;border:1px solid var(--kw-border);border-radius:var(--kw-radius);cursor:pointer}
.kw-choice:has(input:checked){border-color:var(--kw-primary)}
.kw-checkbox{display:flex;align-items:center;gap:.5rem;font-size:.925rem}
.kw-divider{display:flex;align-items:center;gap:.75rem;color:var(--kw-muted);font-size:.85rem;margin:.5rem 0}
.kw-divider::before,.kw-divider::after{content:"";flex:1;border-top:1px solid var(--kw-border)}
.kw-alternatives{display:flex;flex-direction:column;gap:.5rem}
.kw-switch{margin:.25rem 0 0;text-align:center;color:var(--kw-muted);font-size:.925rem}.kw-switch .kw-button-link{padding:.25rem .35rem;font-size:inherit}
.kw-error{color:var(--kw-error);margin:0;font-size:.925rem}
.kw-status{margin:0;color:var(--kw-muted)}
.kw-success{color:var(--kw-success);font-weight:600}
.kw-rules ul{list-style:none;padding:0;margin:0;display:grid;gap:.15rem;font-size:.9rem}
.kw-rule{color:var(--kw-muted)}.kw-rule-met{color:var(--kw-success)}
.kw-totp{display:flex;flex-direction:column;align-items:center;gap:.5rem}
.kw-qr{width:180px;height:180px;image-rendering:pixelated;background:#fff;padding:6px;border-radius:var(--kw-radius)}
.kw-totp-key code{word-break:break-all}
.kw-recovery-codes{columns:2;padding:0;list-style:none;margin:0;font-family:ui-monospace,monospace}
.kw-spinner{display:inline-block;width:1em;height:1em;border:2px solid var(--kw-border);border-top-color:var(--kw-primary);border-radius:50%;animation:kw-spin .8s linear infinite;vertical-align:-.15em}
@keyframes kw-spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.kw-spinner{animation:none}}
.kw-dialog{position:fixed;inset:auto 1rem 1rem 1rem;max-width:32rem;margin:0 auto;z-index:1000;box-shadow:0 8px 30px rgba(0,0,0,.18)}
.kw-actions{display:flex;flex-wrap:wrap;gap:.5rem}.kw-actions .kw-button{flex:1 1 8rem}
.kw-visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
@media (max-width:480px){.kw-root{padding:1rem;border-left:none;border-right:none;border-radius:0}}
`;

/** The default stylesheet, hoisted into the document head once however many components render it (React 19). */
export function KeywayStyles() {
  return (
    <style href="keyway-react" precedence="low">
      {KEYWAY_CSS}
    </style>
  );
}
