import { Ajv, type ErrorObject } from 'ajv';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { bodyOf } from '../engine/body.js';
import { FORM_STATUSES, forms, formTypes } from './tables.js';
import { incidents } from '../incidents/tables.js';
import { HttpError, invalid } from '../core/errors.js';
import { fieldsOf, mustExist } from '../engine/definition-kit.js';
import { defineResource } from '../engine/define.js';
import { type RequestContext } from '../core/context.js';
import { requiredText, text } from '../engine/fields.js';

// Draft 2020-12 is not needed; plain draft-07 schemas, as form builders write them. Strict mode off:
// unknown keywords (titles for widgets, ui hints) are allowed in a form type's schema.
const ajv = new Ajv({ allErrors: true, strict: false });

const jsonObject = () => z.record(z.string(), z.unknown());

function checkSchema(schema: unknown) {
  if (!ajv.validateSchema(schema as object)) {
    throw invalid(`The form schema is not a valid JSON schema: ${ajv.errorsText(ajv.errors)}.`, ['body', 'form_schema'], 'schema_invalid');
  }
  try {
    ajv.compile(schema as object);
  } catch (err) {
    throw invalid(`The form schema cannot be used: ${(err as Error).message}.`, ['body', 'form_schema'], 'schema_invalid');
  }
}

export const formTypeResource = defineResource({
  model: 'FormType',
  label: 'Form type',
  path: '/form_types',
  table: formTypes,
  create: bodyOf(formTypes, { name: requiredText(200), description: text(5000), form_schema: jsonObject() }),
  pageSize: 10,
  sort: [['name', 'asc']],
  search: ['name', 'description'],
  fields: fieldsOf(formTypes, ['form_schema']),
  fieldMeta: {
    form_schema: { help: 'The JSON schema its forms are checked against, e.g. {"type": "object", "properties": {"summary": {"type": "string"}}}.' },
  },
  references: { project_id: 'Project' },
  hooks: {
    beforeCreate(_ctx, data) {
      checkSchema(data.form_schema);
      return data;
    },
    beforeUpdate(_ctx, _id, data) {
      if (data.form_schema !== undefined) checkSchema(data.form_schema);
      return data;
    },
  },
});

const errorItem = (e: ErrorObject) => ({
  msg: `${e.instancePath ? `'${e.instancePath.slice(1).replace(/\//g, '.')}' ` : ''}${e.message ?? 'is invalid'}`,
  loc: ['body', 'form_data', ...e.instancePath.split('/').filter(Boolean)],
  type: 'form_data',
});

/** The filled-in data must satisfy its form type's schema. */
async function checkData(ctx: RequestContext, typeId: number, data: unknown) {
  const [type] = await ctx.tx
    .select({ schema: formTypes.form_schema })
    .from(formTypes)
    .where(and(eq(formTypes.id, typeId), eq(formTypes.organization_id, ctx.orgId)));
  if (!type) return; // the reference check reports the missing type
  const validate = ajv.compile(type.schema);
  if (!validate(data)) {
    throw new HttpError(422, (validate.errors ?? []).map(errorItem));
  }
}

export const formResource = defineResource({
  model: 'Form',
  label: 'Form',
  path: '/forms',
  table: forms,
  create: bodyOf(forms, {
    status: z.enum(FORM_STATUSES, { error: 'Status must be Draft or Completed' }).optional(),
    form_data: jsonObject().optional(),
    creator: text(200),
  }),
  pageSize: 10,
  sort: [['created_at', 'desc']],
  search: ['status', 'creator'],
  fields: fieldsOf(forms, ['form_data']),
  fieldMeta: {
    incident_id: { reference: 'Incident' },
    form_data: { label: 'Answers', help: "The filled-in form as a JSON object, checked against its type's schema." },
  },
  references: { project_id: 'Project', form_type_id: 'FormType' },
  hooks: {
    async beforeCreate(ctx, data) {
      await mustExist(ctx, incidents, data.incident_id, 'Incident', 'incident_id');
      await checkData(ctx, data.form_type_id as number, data.form_data ?? {});
      return data;
    },
    async beforeUpdate(ctx, id, data) {
      await mustExist(ctx, incidents, data.incident_id, 'Incident', 'incident_id');
      if (data.form_data === undefined && data.form_type_id === undefined) return data;
      const [current] = await ctx.tx
        .select({ type: forms.form_type_id, data: forms.form_data })
        .from(forms)
        .where(and(eq(forms.id, id), eq(forms.organization_id, ctx.orgId)));
      if (!current) return data;
      await checkData(ctx, (data.form_type_id as number | undefined) ?? current.type, data.form_data ?? current.data);
      return data;
    },
  },
});
