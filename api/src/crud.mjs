// @ts-check
// Builder for the list / create / get / modify / delete family shared by several configuration objects.
import { ref, arrayOf } from './lib.mjs';

/**
 * @param {{
 *   base: string, param: string, paramName: string, tags: string[], id: string, noun: string,
 *   schema: string, createSchema: string, patchSchema: string, createdSchema?: string,
 *   example: object, createExample: object, patchExample: object, createdExample?: object,
 *   text: { list: string, create: string, get: string, patch: string, delete: string },
 *   summaries?: Partial<Record<'list'|'create'|'get'|'patch'|'delete', string>>,
 *   deleteInBody?: boolean,
 * }} c
 * @returns {import('./operation.mjs').OpSpec[]}
 */
export function crudOperations(c) {
  const common = { security: /** @type {const} */ ('management'), tags: c.tags };
  const item = `${c.base}/{${c.paramName}}`;
  const s = c.summaries ?? {};
  return [
    {
      ...common, method: 'get', path: c.base, id: `list${c.id}s`,
      summary: s.list ?? `List ${c.noun}s`, description: c.text.list,
      ok: { schema: arrayOf(ref(c.schema)), example: [c.example] },
    },
    {
      ...common, method: 'post', path: c.base, id: `create${c.id}`,
      summary: s.create ?? `Create ${c.noun}`, description: c.text.create,
      body: { schema: ref(c.createSchema), example: c.createExample },
      ok: { status: 201, schema: ref(c.createdSchema ?? c.schema), example: c.createdExample ?? c.example },
      errors: ['Conflict'],
    },
    {
      ...common, method: 'get', path: item, id: `get${c.id}`, params: [c.param],
      summary: s.get ?? `Get ${c.noun}`, description: c.text.get,
      ok: { schema: ref(c.schema), example: c.example },
    },
    {
      ...common, method: 'patch', path: item, id: `patch${c.id}`, params: [c.param],
      summary: s.patch ?? `Modify ${c.noun}`, description: c.text.patch,
      body: { schema: ref(c.patchSchema), example: c.patchExample },
      ok: { schema: ref(c.schema), example: { ...c.example, ...c.patchExample } },
    },
    {
      ...common, method: 'delete', path: item, id: `delete${c.id}`, params: [c.param],
      summary: s.delete ?? `Delete ${c.noun}`, description: c.text.delete,
      ok: { status: 204, description: 'Deleted.' },
    },
  ];
}
