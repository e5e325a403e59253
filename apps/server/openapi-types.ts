/** The shape of the OpenAPI document: what openapi.ts builds and docs-page.ts renders. */
import type { JsonSchema } from './json-schema.js';

export interface Operation {
  /** Stable camelCase name (OPERATION_IDS): what generated clients call the method. */
  operationId?: string;
  summary: string;
  description?: string;
  tags: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{
    name: string;
    in: 'path' | 'query' | 'header';
    required: boolean;
    description?: string;
    schema: JsonSchema;
  }>;
  requestBody?: {
    required: boolean;
    content: Record<string, { schema: JsonSchema; encoding?: Record<string, { contentType: string }> }>;
  };
  responses: Record<
    string,
    | {
        description: string;
        content?: Record<string, { schema: JsonSchema }>;
        headers?: Record<string, { $ref: string }>;
      }
    | { $ref: string }
  >;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier?: string; url?: string };
    contact: { name: string; url: string };
  };
  tags: Array<{ name: string; description: string }>;
  servers: Array<{ url: string }>;
  security: Array<Record<string, string[]>>;
  paths: Record<string, Partial<Record<'get' | 'post' | 'patch' | 'delete', Operation>>>;
  /** What the server POSTs to receivers (OpenAPI 3.1). */
  webhooks?: Record<string, object>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<
      string,
      {
        description: string;
        content: Record<string, { schema: JsonSchema }>;
        headers?: Record<string, { $ref: string }>;
      }
    >;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
}
