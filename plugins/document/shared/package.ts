/**
 * The parts of a ZIP-based document (PPTX, ODS, XLSX) as text, after the project's ZIP guard
 * has checked the archive cannot inflate past the family's limit.
 */
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import { PluginError } from '../../../core/contract/index.js';
import { assertZipWithinLimits } from '../../../core/engines/zip.js';
import { MAX_INFLATED_BYTES, MAX_PARTS } from './family.js';
import { parseXml, type XmlElement } from './xml.js';

export interface DocumentPackage {
  has(name: string): boolean;
  /** A part read as XML; undefined when the package has no such part. */
  xml(name: string): XmlElement | undefined;
  names(): string[];
}

export async function openPackage(file: string, label: string, signal: AbortSignal): Promise<DocumentPackage> {
  await assertZipWithinLimits(file, { maxInflatedBytes: MAX_INFLATED_BYTES, maxEntries: MAX_PARTS, label, signal });
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(new Uint8Array(await readFile(file)), {
      filter: (entry) => entry.name.endsWith('.xml') || entry.name.endsWith('.rels'),
    });
  } catch (err) {
    throw new PluginError(`The ${label} could not be read: it is damaged or not a ZIP-based file`, { cause: err });
  }
  const decoder = new TextDecoder();
  return {
    has: (name) => name in parts,
    names: () => Object.keys(parts),
    xml(name) {
      const bytes = parts[name];
      if (!bytes) return undefined;
      try {
        return parseXml(decoder.decode(bytes));
      } catch (err) {
        throw new PluginError(`The ${label} is damaged: its part ${name.split('/').pop()} is not readable XML`, {
          cause: err,
        });
      }
    },
  };
}

/** A package-relative target of a relationship, resolved against the part that names it. */
export function resolvePart(from: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = from.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  return parts.join('/');
}

/** The relationships of a part: id -> target part (resolved), with their types. */
export function relationships(pkg: DocumentPackage, part: string): Map<string, { target: string; type: string }> {
  const folder = part.split('/').slice(0, -1).join('/');
  const name = part.split('/').pop()!;
  const rels = pkg.xml(`${folder ? `${folder}/` : ''}_rels/${name}.rels`);
  const out = new Map<string, { target: string; type: string }>();
  if (!rels) return out;
  for (const rel of rels.children) {
    if (typeof rel === 'string' || rel.attrs.TargetMode === 'External') continue;
    if (rel.attrs.Id && rel.attrs.Target)
      out.set(rel.attrs.Id, { target: resolvePart(part, rel.attrs.Target), type: rel.attrs.Type ?? '' });
  }
  return out;
}
