/**
 * Passwords: the rules a new one must meet, and argon2id hashing (@node-rs/argon2, prebuilt
 * binaries, no compiler at install). Parameters are OWASP's minimum for argon2id: 19 MiB of
 * memory, 2 passes, 1 lane; the salt is 16 random bytes per hash, all kept in the PHC string.
 */
import { hash, verify } from '@node-rs/argon2';
import { badRequest } from './errors.js';

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase or manager-generated secret; bounded so hashing stays cheap. */
export const PASSWORD_MAX_LENGTH = 256;

const ARGON2ID = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** 400 unless the password may be set (length counted in characters, as people count them). */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH)
    throw badRequest(`The password must be at least ${PASSWORD_MIN_LENGTH} characters long`);
  if (length > PASSWORD_MAX_LENGTH)
    throw badRequest(`The password must be at most ${PASSWORD_MAX_LENGTH} characters long`);
}

/** argon2id (the package's default algorithm) with the parameters above. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

/** False for a wrong password, and for a hash that cannot be read (never throws on input). */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX_LENGTH * 4) return false;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/**
 * A hash to check a password against when no account has the address: an unknown address then
 * costs the same argon2 work as a wrong password, so timing does not tell which it was.
 */
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword('decoy password never set on any account');
  return decoy;
}
