import { describe, expect, it } from 'vitest';
import { standardPlugins } from '../../plugins/index.js';
import { admittedBy, licenseClass, pluginLicenses } from './licenses.js';

describe('licences', () => {
  it('classes SPDX identifiers, an OR taking its freest choice', () => {
    expect(licenseClass('MIT')).toBe('permissive');
    expect(licenseClass('Apache-2.0')).toBe('permissive');
    expect(licenseClass('LGPL-3.0-or-later')).toBe('weak-copyleft');
    expect(licenseClass('MPL-2.0')).toBe('weak-copyleft');
    expect(licenseClass('GPL-2.0-or-later')).toBe('strong-copyleft');
    expect(licenseClass('AGPL-3.0-or-later')).toBe('strong-copyleft');
    expect(licenseClass('GPL-2.0-only OR MIT')).toBe('permissive');
  });

  it('every standard plugin declares what it links and runs', () => {
    for (const plugin of standardPlugins) expect(pluginLicenses(plugin).length, plugin.id).toBeGreaterThan(0);
    const byId = new Map(standardPlugins.map((p) => [p.id, p]));
    expect(pluginLicenses(byId.get('compress-pdf')!)).toContain('AGPL-3.0-or-later');
    expect(pluginLicenses(byId.get('video-convert')!)).toContain('GPL-2.0-or-later');
  });

  it('lets an operator leave out copyleft plugins', () => {
    const admitted = (policy: 'any' | 'no-strong-copyleft' | 'permissive') =>
      standardPlugins.filter((p) => admittedBy(policy, p)).map((p) => p.id);
    expect(admitted('any')).toHaveLength(standardPlugins.length);
    expect(admitted('no-strong-copyleft')).toEqual(
      expect.arrayContaining(['image-convert', 'pdf-to-markdown', 'data-convert']),
    );
    expect(admitted('no-strong-copyleft')).not.toContain('video-convert');
    expect(admitted('no-strong-copyleft')).not.toContain('compress-pdf');
    expect(admitted('permissive')).toEqual(expect.arrayContaining(['pdf-to-markdown', 'data-convert']));
    expect(admitted('permissive')).not.toContain('image-convert');
    expect(admitted('permissive')).not.toContain('office-convert');
  });
});
