/**
 * Encrypted office files: which kind of encryption a file has, and decryption of Microsoft Office
 * files with msoffcrypto-tool (Debian python3-msoffcrypto-tool, on Debian's /usr/bin/python3).
 * - DOCX, XLSX, PPTX encrypted by Office are OLE compound files holding `EncryptionInfo` and
 *   `EncryptedPackage`; legacy DOC, XLS and PPT carry RC4 or CryptoAPI encryption inside. msoffcrypto
 *   decrypts both to the plain file, which LibreOffice then converts as any other.
 * - ODF files keep their ZIP, with `manifest:encryption-data` in META-INF/manifest.xml: LibreOffice
 *   opens them itself when given the password (the office pool's bridge passes it to the load).
 * The password goes to python over stdin, never on a command line, and is never logged.
 */
import { open } from 'node:fs/promises';
import type yauzl from 'yauzl';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { isExitFailure, type EngineContext } from './common.js';
import { UNO_PYTHON, WRONG_PASSWORD_MESSAGE } from './libreoffice.js';
import { runProcess } from './process.js';
import { openZip } from './zip.js';

/** Its command-line tool stands for the package (the module is called from Debian's python: no password on argv). */
export const MSOFFCRYPTO: EngineRequirement = {
  command: 'msoffcrypto-tool',
  debian: 'python3-msoffcrypto-tool',
  license: 'MIT',
};

/** What a client reads when an encrypted document comes without its password. */
export const PASSWORD_NEEDED = 'the document is password-protected: send `password`';
/** ...and with a password that does not open it. */
export const WRONG_PASSWORD = WRONG_PASSWORD_MESSAGE;

export type OfficeEncryption = 'none' | 'office' | 'odf';

/** Reads the file's container only: never the password. */
const DETECT = String.raw`
import sys, zipfile
path = sys.argv[1]
with open(path, "rb") as handle:
    head = handle.read(8)
if head == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
    import msoffcrypto
    try:
        with open(path, "rb") as handle:
            print("office" if msoffcrypto.OfficeFile(handle).is_encrypted() else "none")
    except Exception:
        print("none")
elif head[:2] == b"PK":
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = archive.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in archive.namelist() else b""
        print("odf" if b"encryption-data" in manifest else "none")
    except Exception:
        print("none")
else:
    print("none")
`;

/** The password is the first line of stdin. Exit 2: wrong password; 3: an encryption msoffcrypto cannot decrypt. */
const DECRYPT = String.raw`
import sys, msoffcrypto
from msoffcrypto.exceptions import InvalidKeyError
password = sys.stdin.readline().rstrip("\n")
try:
    with open(sys.argv[1], "rb") as source:
        office = msoffcrypto.OfficeFile(source)
        office.load_key(password=password)
        with open(sys.argv[2], "wb") as target:
            office.decrypt(target)
except InvalidKeyError:
    sys.exit(2)
except Exception as err:
    print(type(err).__name__, file=sys.stderr)
    sys.exit(3)
`;

const OLE_SIGNATURE = Buffer.from('d0cf11e0a1b11ae1', 'hex');
const ODF_MANIFEST = 'META-INF/manifest.xml';
/** A manifest is a few kilobytes; one far larger is left to the python reader, which reads it whole. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * Which encryption `file` has ('none' for anything this cannot tell). A ZIP's manifest and any other file's first
 * bytes are read here; only an OLE compound file (Office's encrypted package, or a legacy DOC, XLS or PPT), or a ZIP
 * yauzl cannot read, needs msoffcrypto or python's own ZIP reader, in a jailed python: a python start in a jail per
 * conversion was about a third of a one-page DOCX's CPU outside soffice (bench/NOTES.md, "The office path").
 */
export async function officeEncryption(file: string, ctx: EngineContext): Promise<OfficeEncryption> {
  ctx.signal.throwIfAborted();
  const head = await firstBytes(file, OLE_SIGNATURE.length);
  if (head.subarray(0, 2).equals(Buffer.from('PK'))) {
    const odf = await odfManifestEncrypted(file, ctx.signal);
    if (odf !== undefined) return odf ? 'odf' : 'none';
  } else if (!head.equals(OLE_SIGNATURE)) return 'none';
  return pythonEncryption(file, ctx);
}

async function firstBytes(file: string, count: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(count), 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Whether a ZIP's ODF manifest declares encrypted parts (false: no manifest, as in every DOCX, XLSX and PPTX);
 * undefined when yauzl cannot read the archive or the manifest is oversized, for the python reader to judge as before.
 */
async function odfManifestEncrypted(file: string, signal: AbortSignal): Promise<boolean | undefined> {
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openZip(file);
    // The last entry of that name, as python's zipfile reads it.
    let encrypted = false;
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      if (entry.fileName !== ODF_MANIFEST) continue;
      if (entry.uncompressedSize > MAX_MANIFEST_BYTES) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      encrypted = Buffer.concat(chunks).includes('encryption-data');
    }
    return encrypted;
  } catch (err) {
    if (signal.aborted) throw err;
    return undefined;
  } finally {
    zip?.close();
  }
}

async function pythonEncryption(file: string, ctx: EngineContext): Promise<OfficeEncryption> {
  const { stdout } = await runProcess(UNO_PYTHON, ['-c', DETECT, file], {
    timeoutMs: Math.min(30_000, ctx.remainingMs()),
    signal: ctx.signal,
  });
  const kind = stdout.trim();
  return kind === 'office' || kind === 'odf' ? kind : 'none';
}

/**
 * Decrypt a Microsoft Office file to `output`: true when done, false when msoffcrypto cannot decrypt
 * this encryption (LibreOffice may: give it the password); a PluginError for a wrong password.
 */
export async function decryptOfficeFile(
  input: string,
  output: string,
  password: string,
  ctx: EngineContext,
): Promise<boolean> {
  try {
    await runProcess(UNO_PYTHON, ['-c', DECRYPT, input, output], {
      timeoutMs: Math.min(120_000, ctx.remainingMs()),
      signal: ctx.signal,
      stdin: `${password}\n`,
    });
    return true;
  } catch (err) {
    if (!isExitFailure(err, ctx.signal)) throw err;
    if (err.exitCode === 2) throw new PluginError(WRONG_PASSWORD, { cause: err });
    return false;
  }
}
