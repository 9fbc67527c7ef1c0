/**
 * What this service provider supports, as RFC 7643 §5-7 documents describe it
 * (ServiceProviderConfig, ResourceTypes, Schemas). Clients such as Okta read these; SCIMMY's
 * schema classes check our answers against the RFC's definitions in the tests.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** The most resources one list answer holds (`count` above it is lowered, RFC 7644 §3.4.2.4). */
export const MAX_RESULTS = 1000;

type Attr = Record<string, unknown>;

function attr(
  name: string,
  options: {
    type?: string;
    multi?: boolean;
    required?: boolean;
    caseExact?: boolean;
    mutability?: string;
    returned?: string;
    uniqueness?: string;
    sub?: Attr[];
    canonical?: string[];
    refTypes?: string[];
    description?: string;
  } = {},
): Attr {
  return {
    name,
    type: options.type ?? (options.sub ? 'complex' : 'string'),
    multiValued: options.multi ?? false,
    description: options.description ?? name,
    required: options.required ?? false,
    ...(options.type === 'complex' || options.sub ? {} : { caseExact: options.caseExact ?? false }),
    mutability: options.mutability ?? 'readWrite',
    returned: options.returned ?? 'default',
    uniqueness: options.uniqueness ?? 'none',
    ...(options.sub ? { subAttributes: options.sub } : {}),
    ...(options.canonical ? { canonicalValues: options.canonical } : {}),
    ...(options.refTypes ? { referenceTypes: options.refTypes } : {}),
  };
}

const multiValue = (canonical: string[]) => [
  attr('value'),
  attr('display'),
  attr('type', { canonical }),
  attr('primary', { type: 'boolean' }),
];

const userAttributes: Attr[] = [
  attr('userName', {
    required: true,
    uniqueness: 'server',
    description: 'Unique identifier for the User (the Tessera username)',
  }),
  attr('name', {
    sub: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map(
      (n) => attr(n),
    ),
  }),
  attr('displayName'),
  attr('nickName'),
  attr('title'),
  attr('userType'),
  attr('preferredLanguage'),
  attr('locale'),
  attr('timezone'),
  attr('active', { type: 'boolean' }),
  attr('password', { mutability: 'writeOnly', returned: 'never' }),
  attr('emails', { multi: true, sub: multiValue(['work', 'home', 'other']) }),
  attr('phoneNumbers', { multi: true, sub: multiValue(['work', 'home', 'mobile', 'fax', 'pager', 'other']) }),
  attr('groups', {
    multi: true,
    mutability: 'readOnly',
    sub: [
      attr('value', { mutability: 'readOnly' }),
      attr('$ref', { type: 'reference', mutability: 'readOnly', refTypes: ['Group'] }),
      attr('display', { mutability: 'readOnly' }),
      attr('type', { mutability: 'readOnly', canonical: ['direct', 'indirect'] }),
    ],
  }),
];

const enterpriseAttributes: Attr[] = [
  attr('employeeNumber'),
  attr('costCenter'),
  attr('organization'),
  attr('division'),
  attr('department'),
  attr('manager', {
    sub: [
      attr('value'),
      attr('$ref', { type: 'reference', refTypes: ['User'] }),
      attr('displayName', { mutability: 'readOnly' }),
    ],
  }),
];

const groupAttributes: Attr[] = [
  attr('displayName', { required: true, description: 'The department or permission role name' }),
  attr('members', {
    multi: true,
    sub: [
      attr('value', { mutability: 'immutable' }),
      attr('$ref', { type: 'reference', mutability: 'immutable', refTypes: ['User'] }),
      attr('display', { mutability: 'readOnly' }),
      attr('type', { mutability: 'immutable', canonical: ['User'] }),
    ],
  }),
];

const schemaDoc = (baseUrl: string, id: string, name: string, description: string, attributes: Attr[]) => ({
  schemas: [SCHEMA_SCHEMA],
  id,
  name,
  description,
  attributes,
  meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${id}` },
});

export const schemaDocs = (baseUrl: string) => [
  schemaDoc(baseUrl, USER_SCHEMA, 'User', 'User Account', userAttributes),
  schemaDoc(baseUrl, ENTERPRISE_SCHEMA, 'EnterpriseUser', 'Enterprise User', enterpriseAttributes),
  schemaDoc(
    baseUrl,
    GROUP_SCHEMA,
    'Group',
    'Group (a department or a permission role, as the token is set)',
    groupAttributes,
  ),
];

export const resourceTypeDocs = (baseUrl: string) => [
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'The people of the company',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
  },
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: 'The departments or the permission roles of the company, as the token is set',
    schema: GROUP_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
  },
];

export const serviceProviderConfig = (baseUrl: string, documentationUri: string) => ({
  schemas: [CONFIG_SCHEMA],
  documentationUri,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: true },
  sort: { supported: true },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer token',
      description: "A SCIM token created in the console's company settings",
      specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
});
