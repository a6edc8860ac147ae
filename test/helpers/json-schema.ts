// A small JSON Schema (draft-07) validator for the subset the contract's schema
// uses: type (one or a list), properties, additionalProperties (false or a
// schema), required, items, enum, minLength, pattern, minimum and local $ref
// (#/definitions/...). Annotations (description, default, ...) are ignored. Any
// other keyword is an error, so the schema cannot grow past what this checks.
export interface Schema {
  [keyword: string]: unknown;
}

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'markdownDescription', 'default', 'enumDescriptions', 'definitions']);
const CHECKED = new Set(['type', 'properties', 'additionalProperties', 'required', 'items', 'enum', 'minLength', 'pattern', 'minimum', '$ref']);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The problems of `value` against `schema` (empty: valid), each as "<JSON pointer>: <what>". */
export function validate(value: unknown, schema: Schema, root: Schema = schema, path = ''): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !CHECKED.has(keyword)) throw new Error(`${path || '/'}: keyword ${keyword} is not supported by this validator`);
  }
  if (typeof schema.$ref === 'string') {
    const match = /^#\/definitions\/([\w-]+)$/.exec(schema.$ref);
    if (!match) throw new Error(`${path}: unsupported $ref ${schema.$ref}`);
    const target = (root.definitions as Record<string, Schema> | undefined)?.[match[1]];
    if (!target) throw new Error(`${path}: $ref ${schema.$ref} points nowhere`);
    return validate(value, target, root, path);
  }
  const at = path || '/';
  const problems: string[] = [];
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) return [`${at}: must be ${allowed.join(' or ')}, not ${actual}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) problems.push(`${at}: must be one of ${schema.enum.join(', ')}`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) problems.push(`${at}: must not be shorter than ${schema.minLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${at}: must match ${schema.pattern}`);
  }
  if (typeof value === 'number' && typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${at}: must be at least ${schema.minimum}`);
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in object)) problems.push(`${at}: missing required ${key}`);
    for (const [key, child] of Object.entries(object)) {
      const childPath = `${path}/${key}`;
      if (key in properties) problems.push(...validate(child, properties[key], root, childPath));
      else if (schema.additionalProperties === false) problems.push(`${childPath}: unknown key`);
      else if (typeof schema.additionalProperties === 'object') problems.push(...validate(child, schema.additionalProperties as Schema, root, childPath));
    }
  }
  if (actual === 'array' && schema.items) {
    (value as unknown[]).forEach((item, index) => problems.push(...validate(item, schema.items as Schema, root, `${path}/${index}`)));
  }
  return problems;
}

/** Every subschema of `schema` that describes an object, with its JSON pointer in the schema. */
export function objectSchemas(schema: Schema, path = ''): Array<{ path: string; schema: Schema }> {
  const found: Array<{ path: string; schema: Schema }> = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object')) found.push({ path: path || '/', schema });
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties' || keyword === 'definitions') {
      for (const [name, child] of Object.entries(value as Record<string, Schema>)) found.push(...objectSchemas(child, `${path}/${keyword}/${name}`));
    } else if (keyword === 'items' && typeof value === 'object') {
      found.push(...objectSchemas(value as Schema, `${path}/items`));
    }
  }
  return found;
}
