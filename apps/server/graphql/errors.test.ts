import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../core/services/index.js';
import { createGraphQLError } from 'graphql-yoga';
import { maskError, maskErrorLogging, requestError } from './errors.js';

describe('GraphQL error mapping', () => {
  it('gives service errors their code and keeps their message', () => {
    const masked = maskError(
      new ServiceError('PAYMENT_REQUIRED', 'Insufficient API credits'),
      'Unexpected error.',
      false,
    );
    expect(masked).toMatchObject({ message: 'Insufficient API credits', extensions: { code: 'PAYMENT_REQUIRED' } });
    const gated = maskError(
      new ServiceError('FORBIDDEN', 'Trial used', { code: 'trial_used' }),
      'Unexpected error.',
      false,
    );
    expect(gated).toMatchObject({ extensions: { code: 'FORBIDDEN', reason: 'trial_used' } });
  });

  it('masks anything unexpected', () => {
    const masked = maskError(new Error('database password is hunter2'), 'Unexpected error.', false);
    expect(masked.message).toBe('Unexpected error.');
    expect(JSON.stringify(masked)).not.toContain('hunter2');
  });

  it('answers a backend that did not answer with SERVICE_UNAVAILABLE and the 503, even in one field, logged', () => {
    const warnings: object[] = [];
    const mask = maskErrorLogging({ warn: (fields) => warnings.push(fields) });
    // What node-postgres rejects a query with when the server went away under it.
    const lost = new Error('Connection terminated unexpectedly');
    const masked = mask(
      createGraphQLError('wrapped', { originalError: lost, path: ['job'] }),
      'Unexpected error.',
      false,
    );
    expect(masked).toMatchObject({
      message: "The service's database did not answer; try again shortly",
      path: ['job'],
      extensions: {
        code: 'SERVICE_UNAVAILABLE',
        retryAfterSeconds: 5,
        http: { status: 503, headers: { 'Retry-After': '5' } },
      },
    });
    expect(warnings).toEqual([{ backend: 'PostgreSQL', err: lost }]);
  });

  it('answers a full disk with INSUFFICIENT_STORAGE and the 507, even in one field', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const masked = maskError(createGraphQLError('wrapped', { originalError: enospc }), 'Unexpected error.', false);
    expect(masked).toMatchObject({
      message: expect.stringMatching(/disk is full/),
      extensions: { code: 'INSUFFICIENT_STORAGE', reason: 'insufficient_storage', http: { status: 507 } },
    });
  });

  it('answers request-level failures with the REST status', () => {
    const limited = requestError(new ServiceError('RATE_LIMITED', 'Slow down', { retryAfterSeconds: 12 }));
    expect(limited.extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 12,
      http: { status: 429, headers: { 'Retry-After': '12' } },
    });
  });
});
