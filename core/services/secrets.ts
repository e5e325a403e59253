import { hash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../schema/index.js';

/** 256 random bits from the CSPRNG, base64url without padding (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function newApiKey(): string {
  return `${API_KEY_PREFIX}${randomToken()}`;
}

/** Keys and tokens are stored only as this digest. Unsalted is right here: the inputs are 256-bit random. */
export function sha256(value: string): string {
  // The one-shot digest (Node >= 20.12): every request digests its key, and a Hash object costs twice as much.
  return hash('sha256', value, 'hex');
}
