/**
 * Licences of what a plugin links and runs, and the operator's policy (PLUGIN_LICENSES): `any`
 * (default), `no-strong-copyleft` (leaves out GPL and AGPL: plugins running ffmpeg, ghostscript,
 * poppler or pandoc), or `permissive` (also leaves out weak copyleft such as LGPL and MPL:
 * libvips inside sharp, LibreOffice).
 */
import { z } from 'zod';
import type { Plugin } from './index.js';

export const licensePolicySchema = z.enum(['any', 'no-strong-copyleft', 'permissive']);
export type LicensePolicy = z.infer<typeof licensePolicySchema>;

export type LicenseClass = 'permissive' | 'weak-copyleft' | 'strong-copyleft';

/** The class of one SPDX identifier (an `A OR B` expression is as free as its freest choice). */
export function licenseClass(spdx: string): LicenseClass {
  const choices = spdx.split(/\s+OR\s+/i).map((id): LicenseClass => {
    if (/^(A?GPL|SSPL|OSL|EUPL)-/i.test(id)) return 'strong-copyleft';
    if (/^(LGPL|MPL|EPL|CDDL|CPL)-/i.test(id)) return 'weak-copyleft';
    return 'permissive';
  });
  const order: LicenseClass[] = ['permissive', 'weak-copyleft', 'strong-copyleft'];
  return order[Math.min(...choices.map((c) => order.indexOf(c)))]!;
}

/** Every licence a plugin brings: the libraries it declares and the engines it runs. */
export function pluginLicenses(plugin: Pick<Plugin, 'licenses' | 'engines'>): string[] {
  return [...new Set([...(plugin.licenses ?? []), ...plugin.engines.map((e) => e.license)])].sort();
}

/** Whether the operator's policy admits the plugin. */
export function admittedBy(policy: LicensePolicy, plugin: Pick<Plugin, 'licenses' | 'engines'>): boolean {
  if (policy === 'any') return true;
  const classes = pluginLicenses(plugin).map(licenseClass);
  return policy === 'permissive' ? classes.every((c) => c === 'permissive') : !classes.includes('strong-copyleft');
}
