// The request samples of an operation for the values typed into its try-it panel (a chunk loaded once the reader
// opens try-it): the build's request model with those values, printed by the same functions as the build's samples.
import { curlSample, DEV_ORG_ID, fetchSample, goSample, pythonSample, sdkSample, type RequestModel } from '../../../plugins/api-reference/samples';
import type { TryItValues } from './tryItValues';
import type { RequestSample, TryItOperation } from './types';

/** The request try-it would send, as a request model: typed credentials, parameters and body over the written ones. */
export function modelWith(model: RequestModel, op: TryItOperation, typed: TryItValues): RequestModel {
  const { credentials: c, values } = typed;
  const value = (p: TryItOperation['parameters'][number]) => (values[`${p.in}:${p.name}`] ?? '').trim();
  let target = op.path;
  const query = new URLSearchParams();
  const headerParams: RequestModel['headers'] = [];
  for (const p of op.parameters) {
    const v = value(p);
    if (p.in === 'path') target = target.replace(`{${p.name}}`, v ? encodeURIComponent(v) : p.name.toUpperCase());
    else if (p.in === 'query' && v) query.append(p.name, v);
    else if (p.in === 'header' && v) headerParams.push({ name: p.name, value: [v] });
  }
  const qs = query.toString();
  const headers = model.headers
    .filter((h) => !op.parameters.some((p) => p.in === 'header' && p.name === h.name))
    .map((h) => {
      const variable = h.value.find((part): part is { variable: string; hint: string } => typeof part !== 'string')?.variable;
      if (h.name === 'Keyway-OrgID' && c.orgId?.trim()) return { ...h, value: [c.orgId.trim()] };
      if (h.name === 'Keyway-API-Key' && c.apiKey?.trim()) return { ...h, value: [c.apiKey.trim()] };
      if (variable === 'KEYWAY_USER_TOKEN' && c.userToken?.trim()) return { ...h, value: [`Bearer ${c.userToken.trim()}`] };
      if (variable === 'KEYWAY_ACCESS_TOKEN' && c.accessToken?.trim()) return { ...h, value: [`Bearer ${c.accessToken.trim()}`] };
      return h;
    });
  return { ...model, target: target + (qs ? `?${qs}` : ''), headers: [...headers, ...headerParams], body: bodyWith(model, op, typed.body) };
}

/** The typed body when the reader changed it (and, for JSON, while it parses); else the written one. */
function bodyWith(model: RequestModel, op: TryItOperation, body: string): RequestModel['body'] {
  if (!model.body || body === (op.body ?? '')) return model.body;
  switch (model.body.kind) {
    case 'json':
      try {
        return { kind: 'json', value: JSON.parse(body) as never, variables: [] };
      } catch {
        return model.body;
      }
    case 'raw':
      return { ...model.body, text: body };
    case 'form':
      return { kind: 'form', fields: [...new URLSearchParams(body)] };
    case 'multipart':
      return { kind: 'multipart', parts: model.body.parts.map((p) => (p.file && p.name === op.file?.field ? { ...p, value: body } : p)) };
  }
}

/** The written samples made again for the typed values, each in its own language. */
export function samplesWith(written: RequestSample[], model: RequestModel, op: TryItOperation, typed: TryItValues, apiUrl: string, sdk?: string): RequestSample[] {
  const base = typed.baseUrl.trim().replace(/\/+$/, '') || apiUrl;
  const m = modelWith(model, op, typed);
  const orgId = typed.credentials.orgId?.trim();
  return written.map((s) => {
    switch (s.value) {
      case 'curl':
        return { ...s, code: curlSample(m, base) };
      case 'fetch':
        return { ...s, code: fetchSample(m, base) };
      case 'python':
        return { ...s, code: pythonSample(m, base) };
      case 'go':
        return { ...s, code: goSample(m, base) };
      case 'sdk': {
        if (!sdk) return s;
        const code = sdkSample({ methods: [], code: sdk }, base);
        return { ...s, code: orgId ? code.replace(`oid: '${DEV_ORG_ID}'`, `oid: '${orgId.replace(/['\\]/g, '\\$&')}'`) : code };
      }
      default:
        return s;
    }
  });
}
