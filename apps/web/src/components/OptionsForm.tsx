/** The fields of one operation's options, rendered from its JSON Schema (schema-form.ts). */
import type { JSX } from 'preact';
import {
  buildOptions,
  fieldKind,
  isDraft,
  labelOf,
  type Draft,
  type DraftValue,
  type JsonSchema,
} from '../schema-form.ts';

interface Props {
  schema: JsonSchema;
  draft: Draft;
  errors: Record<string, string>;
  onChange(draft: Draft): void;
  /** Prefix of element ids, unique on the page. */
  idPrefix: string;
}

export function OptionsForm({ schema, draft, errors, onChange, idPrefix }: Props) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return null;
  return (
    <div class="options">
      {properties.map(([name, property]) => (
        <Field
          key={name}
          name={name}
          path={name}
          schema={property}
          required={(schema.required ?? []).includes(name)}
          value={draft[name]}
          errors={errors}
          idPrefix={idPrefix}
          onChange={(value) => onChange({ ...draft, [name]: value })}
        />
      ))}
    </div>
  );
}

interface FieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  required: boolean;
  value: DraftValue | undefined;
  errors: Record<string, string>;
  idPrefix: string;
  onChange(value: DraftValue): void;
}

function Field({ name, path, schema, required, value, errors, idPrefix, onChange }: FieldProps) {
  const id = `${idPrefix}-${path.replace(/\./g, '-')}`;
  const field = fieldKind(schema);
  const error = errors[path];
  const hintId = schema.description ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      {labelOf(name)}
      {required ? <span class="required"> (required)</span> : null}
    </>
  );
  const hint = schema.description ? (
    <p class="hint" id={hintId}>
      {schema.description}
    </p>
  ) : null;
  const message = error ? (
    <p class="field-error" id={errorId} role="alert">
      {error}
    </p>
  ) : null;
  const text = typeof value === 'string' ? value : '';

  if (field.kind === 'object' || field.kind === 'variant') {
    const draft = isDraft(value) ? value : {};
    const chosen =
      field.kind === 'variant'
        ? (field.variants.find((v) => v.value === draft[field.discriminator]) ?? field.variants[0]!)
        : undefined;
    const inner = field.kind === 'object' ? field.schema : chosen!.schema;
    return (
      <fieldset class="field group" aria-describedby={describedBy}>
        <legend>{label}</legend>
        {hint}
        {field.kind === 'variant' ? (
          <div class="field">
            <label for={`${id}-${field.discriminator}`}>{labelOf(field.discriminator)}</label>
            <select
              id={`${id}-${field.discriminator}`}
              value={chosen!.value}
              onChange={(event) => {
                const next = field.variants.find((v) => v.value === event.currentTarget.value)!;
                onChange({
                  [field.discriminator]: next.value,
                  ...Object.fromEntries(Object.entries(draft).filter(([key]) => key !== field.discriminator)),
                });
              }}
            >
              {field.variants.map((variant) => (
                <option key={variant.value} value={variant.value}>
                  {variant.value}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {Object.entries(inner.properties ?? {})
          .filter(([key]) => field.kind !== 'variant' || key !== field.discriminator)
          .map(([key, property]) => (
            <Field
              key={key}
              name={key}
              path={`${path}.${key}`}
              schema={property}
              required={(inner.required ?? []).includes(key)}
              value={draft[key]}
              errors={errors}
              idPrefix={idPrefix}
              onChange={(next) => onChange({ ...draft, [key]: next })}
            />
          ))}
        {message}
      </fieldset>
    );
  }

  if (field.kind === 'checkboxes') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class="field group" aria-describedby={describedBy}>
        <legend>{label}</legend>
        {hint}
        <div class="choices">
          {field.choices.map((choice) => (
            <label key={choice} class="inline">
              <input
                type="checkbox"
                checked={chosen.includes(choice)}
                onChange={(event) =>
                  onChange(event.currentTarget.checked ? [...chosen, choice] : chosen.filter((c) => c !== choice))
                }
              />{' '}
              {choice}
            </label>
          ))}
        </div>
        {message}
      </fieldset>
    );
  }

  if (field.kind === 'checkbox') {
    return (
      <div class="field">
        <label class="inline" for={id}>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            aria-describedby={describedBy}
            onChange={(event) => onChange(event.currentTarget.checked)}
          />{' '}
          {label}
        </label>
        {hint}
        {message}
      </div>
    );
  }

  let control: JSX.Element;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined, required };
  if (field.kind === 'select') {
    control = (
      <select {...common} value={text} onChange={(event) => onChange(event.currentTarget.value)}>
        {required && schema.default !== undefined ? null : <option value="">—</option>}
        {field.choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'lines') {
    const lines = Array.isArray(value) ? value : [];
    control = (
      <textarea
        {...common}
        rows={3}
        placeholder="One per line"
        value={lines.join('\n')}
        onInput={(event) => onChange(event.currentTarget.value.split('\n'))}
      />
    );
  } else if (field.kind === 'number') {
    control = (
      <input
        {...common}
        type="number"
        inputMode={field.integer ? 'numeric' : 'decimal'}
        step={field.integer ? 1 : 'any'}
        min={schema.minimum ?? schema.exclusiveMinimum}
        max={schema.maximum ?? schema.exclusiveMaximum}
        value={text}
        onInput={(event) => onChange(event.currentTarget.value)}
      />
    );
  } else if (field.kind === 'json') {
    control = (
      <textarea
        {...common}
        rows={2}
        placeholder="JSON"
        value={text}
        onInput={(event) => onChange(event.currentTarget.value)}
      />
    );
  } else {
    const onInput = (event: { currentTarget: HTMLInputElement }) => onChange(event.currentTarget.value);
    control = field.secret ? (
      <input
        {...common}
        type="password"
        autoComplete="off"
        maxLength={schema.maxLength}
        value={text}
        onInput={onInput}
      />
    ) : (
      <input {...common} type="text" maxLength={schema.maxLength} value={text} onInput={onInput} />
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {hint}
      {message}
    </div>
  );
}

export { buildOptions };
