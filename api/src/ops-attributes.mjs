// @ts-check
// Attribute operations for a person (management) and for the organization itself. Both stores have the same
// shape: buckets of named JSON values, read and written several buckets at once or one bucket at a time.
import { ref } from './lib.mjs';
import { ORG_ID } from './examples.mjs';

const MULTI_EXAMPLE = { end_user_read_write: { theme: 'dark' }, end_user_no_access: { risk_score: 12 } };
const SINGLE_EXAMPLE = { risk_score: 12, reviewed: true };

/**
 * @param {{ base: string, owner: string, tags: string[], params: string[], idPrefix: string, notes: string }} target
 * @returns {import('./operation.mjs').OpSpec[]}
 */
function attributeOperations({ base, owner, tags, params, idPrefix, notes }) {
  const common = { security: /** @type {const} */ ('management'), tags };
  const bucketParams = [...params, 'BucketNamePath'];
  /** @param {'put' | 'patch'} method @param {boolean} multi @returns {import('./operation.mjs').OpSpec} */
  const write = (method, multi) => ({
    ...common, method, path: multi ? `${base}/attributes` : `${base}/attributes/{bucket_name}`,
    id: `${method === 'put' ? 'put' : 'patch'}${idPrefix}${multi ? 'Attributes' : 'BucketAttributes'}`,
    params: multi ? params : bucketParams,
    summary: `Upsert attributes for ${owner} in ${multi ? 'multiple buckets' : 'a single bucket'} (${method === 'put' ? 'replace values' : 'merge values'})`,
    description: (method === 'put'
      ? `Stores each given attribute of ${owner}, replacing its previous value; attributes not named are kept.`
      : `Merges each given attribute of ${owner} into its stored value (JSON Merge Patch: objects merge, \`null\` removes).`)
      + ` Management calls may write every bucket, including those the end person cannot see. ${notes}`,
    body: multi
      ? { schema: ref('AttributesByBucket'), example: MULTI_EXAMPLE }
      : { schema: ref('Attributes'), example: SINGLE_EXAMPLE },
    ok: { status: 204, description: 'Stored; read them back with the GET of the same path.' },
  });
  return [
    write('patch', true),
    write('put', true),
    {
      ...common, method: 'get', path: `${base}/attributes`, id: `get${idPrefix}Attributes`, params: [...params, 'BucketsQuery'],
      summary: `Get attributes for ${owner} from multiple buckets`,
      description: `Returns the attributes of ${owner} from the requested buckets (every bucket when \`buckets\` is absent). ${notes}`,
      ok: { schema: ref('AttributesByBucket'), example: MULTI_EXAMPLE },
    },
    write('patch', false),
    write('put', false),
    {
      ...common, method: 'get', path: `${base}/attributes/{bucket_name}`, id: `get${idPrefix}BucketAttributes`, params: [...bucketParams, 'AttributesQuery'],
      summary: `Get attributes for ${owner} from a single bucket`,
      description: `Returns the attributes of ${owner} in one bucket, optionally only those named in \`attributes\`.`,
      ok: { schema: ref('Attributes'), example: SINGLE_EXAMPLE },
    },
    {
      ...common, method: 'delete', path: `${base}/attributes/{bucket_name}`, id: `delete${idPrefix}BucketAttributes`, params: [...bucketParams, 'AttributesQuery'],
      summary: `Delete attributes for ${owner} from a single bucket`,
      description: `Deletes the attributes named in \`attributes\` from the bucket, or the whole bucket of ${owner} when none are named.`,
      ok: { status: 204, description: 'Deleted.' },
    },
  ];
}

/** @type {import('./operation.mjs').OpSpec[]} */
export const attributeOperationsList = [
  ...attributeOperations({
    base: '/persons/{person_id}', owner: 'a person', tags: ['person-attributes'], params: ['PersonIdPath'], idPrefix: 'Person',
    notes: 'Buckets prefixed `person_pool-` are shared with every organization of the person pool.',
  }),
  ...attributeOperations({
    base: '/organizations', owner: 'the organization', tags: ['organization-attributes'], params: [], idPrefix: 'Organization',
    notes: 'Organization attributes are visible to management calls only.',
  }),
  {
    security: 'management', method: 'get', path: '/organizations/attribute-buckets', id: 'listAttributeBuckets', tags: ['organizations', 'person-attributes'],
    summary: "List organization's attribute buckets",
    description: `
Lists the attribute buckets available to the organization and what the end person may do with each (read-write,
read-only, no access) and whether the bucket is shared with the person pool. The SDK can only reach buckets with
end-user access.`,
    ok: {
      schema: { type: 'array', items: ref('AttributeBucket') },
      example: [
        { name: 'end_user_read_write', end_user_permissions: 'read_write', sharing_scope: 'organization', owner_organization_id: ORG_ID, end_user_access: 'read_write', shared_with_person_pool: false },
        { name: 'end_user_read_only', end_user_permissions: 'read_only', sharing_scope: 'organization', owner_organization_id: ORG_ID, end_user_access: 'read_only', shared_with_person_pool: false },
        { name: 'end_user_no_access', end_user_permissions: 'no_access', sharing_scope: 'organization', owner_organization_id: ORG_ID, end_user_access: 'no_access', shared_with_person_pool: false },
        { name: 'person_pool-end_user_read_write', end_user_permissions: 'read_write', sharing_scope: 'person_pool', owner_organization_id: ORG_ID, end_user_access: 'read_write', shared_with_person_pool: true },
        { name: 'person_pool-end_user_read_only', end_user_permissions: 'read_only', sharing_scope: 'person_pool', owner_organization_id: ORG_ID, end_user_access: 'read_only', shared_with_person_pool: true },
        { name: 'person_pool-end_user_no_access', end_user_permissions: 'no_access', sharing_scope: 'person_pool', owner_organization_id: ORG_ID, end_user_access: 'no_access', shared_with_person_pool: true },
      ],
    },
  },
];
