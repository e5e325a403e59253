/**
 * The server secret that derives download links (core/services/download-links.ts) when
 * TOKEN_SECRET is unset, embedded mode only: 256 bits from the CSPRNG in DATA_DIR/secret-key
 * (mode 0600), created on first start and reused by every process on that DATA_DIR. It lives
 * beside the database, not in it: a leaked transmute.db (or a copy of it) does not hold it.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MIN_TOKEN_SECRET_BYTES } from '../../core/services/download-links.js';

export const SECRET_KEY_FILE = 'secret-key';

export async function dataDirSecret(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  const existing = await readSecret(file);
  if (existing !== null) return existing;
  await mkdir(dataDir, { recursive: true });
  // Written whole under a private name, then linked into place: link() never replaces a file,
  // so when two processes start together one secret wins and both read it.
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(draft, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    await link(draft, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(draft, { force: true });
  }
  return (await readSecret(file))!;
}

async function readSecret(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const secret = text.trim();
  if (Buffer.byteLength(secret) < MIN_TOKEN_SECRET_BYTES) {
    throw new Error(
      `${file} holds fewer than ${MIN_TOKEN_SECRET_BYTES} bytes: delete it to have a new one generated, or set ` +
        `TOKEN_SECRET`,
    );
  }
  return secret;
}
