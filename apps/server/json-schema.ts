/** The JSON Schema subset that z.toJSONSchema produces and the surfaces read (OpenAPI, GraphQL inputs). */
export type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  description?: string;
  default?: unknown;
  $ref?: string;
  contentMediaType?: string;
  contentSchema?: JsonSchema;
  [key: string]: unknown;
};
