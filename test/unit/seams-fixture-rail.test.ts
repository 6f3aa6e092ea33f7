/**
 * Adding a rail is one folder and one registry line (docs/architecture.md "Seams"; docs/rails.md
 * "Adding a rail"). The fixture rail of test/fixtures/rails/fixture/ is appended to the real rail
 * registry exactly as its registry line would, and the real config merge (src/config.ts
 * configSchemaOf) and the real docs generator (tools/docs/config-tables.ts) take it with no other
 * change: its variables are parsed, defaulted, validated and documented.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, configSchemaOf, parseEnvironment } from '../../src/config';
import { RAIL_MODULES } from '../../src/rails/registry';
import { mergeSettings } from '../../src/seams/merge';
import { SEAM_REGISTRIES } from '../../src/seams/registry';
import { renderConfigurationDoc, registeredSeams } from '../../tools/docs/config-tables';
import { fixtureRailModule } from '../fixtures/rails/fixture/module';

const ROOT = resolve(__dirname, '../..');
/** The rail registry with the fixture's one line added; the other seams' registries as they are. */
const registries = [[...RAIL_MODULES, fixtureRailModule], ...SEAM_REGISTRIES.slice(1)] as const;

describe('a fixture rail added by its folder and one registry line', () => {
  const schema = configSchemaOf(registries);

  it('the config merge parses and defaults its variables, typed, beside every existing one', () => {
    const config = parseEnvironment(schema, { RAIL_FIXTURE_API_URL: 'https://fixture.example', RAIL_FIXTURE_MAX_ITEMS: '9' });
    const items: number = config.RAIL_FIXTURE_MAX_ITEMS;
    expect(items).toBe(9);
    expect(config.RAIL_FIXTURE_TIMEOUT).toBe('PT7S');
    expect(config.RAIL_FIXTURE_API_URL).toBe('https://fixture.example');
    expect(config.RAIL_SEPA_SFTP_PORT).toBe(22);
    expect(new Set(Object.keys(schema.shape))).toEqual(new Set([...CONFIG_VARIABLES, 'RAIL_FIXTURE_API_URL', 'RAIL_FIXTURE_TIMEOUT', 'RAIL_FIXTURE_MAX_ITEMS']));
  });

  it('the config merge validates them with the module’s own messages', () => {
    expect(() => parseEnvironment(schema, { RAIL_FIXTURE_MAX_ITEMS: '99', RAIL_FIXTURE_TIMEOUT: 'soon' })).toThrow(
      /Invalid configuration:\n {2}RAIL_FIXTURE_TIMEOUT: a positive ISO 8601 duration such as PT7S, or milliseconds\n {2}RAIL_FIXTURE_MAX_ITEMS: .*50/,
    );
  });

  it('the module connects from the merged config', () => {
    expect(fixtureRailModule.connect(parseEnvironment(schema, {}))).toEqual({ rail: null, missing: ['RAIL_FIXTURE_API_URL'] });
  });

  it('the docs generator documents them in docs/configuration.md "Service variables", nothing written by hand', () => {
    const current = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    const seams = registeredSeams().map((s, i) => (i === 0 ? { ...s, modules: registries[0] } : s));
    const next = renderConfigurationDoc(current, seams);
    const section = next.slice(next.indexOf('\n## Service variables\n'), next.indexOf('\n## ', next.indexOf('\n## Service variables\n') + 4));
    expect(section).toContain('#### Rails: `fixture_rail`');
    expect(section).toContain('| `RAIL_FIXTURE_TIMEOUT` | `PT7S` | how long one fixture call may take |');
    expect(section).toContain('| `RAIL_FIXTURE_API_URL` | unset |');
    expect(section).toContain('| `RAIL_FIXTURE_MAX_ITEMS` | `5` |');
    for (const v of Object.keys(schema.shape)) expect(section, v).toContain(`\`${v}\``);
    // Without the fixture, the generated part is what is committed.
    expect(renderConfigurationDoc(current)).toBe(current);
  });

  it('a variable declared by two modules is refused (each has one owner)', () => {
    expect(() => mergeSettings({}, [[fixtureRailModule, { ...fixtureRailModule, id: 'twin' }]])).toThrow(/RAIL_FIXTURE_API_URL is declared twice \(module fixture_rail and module twin\)/);
  });

  it('a module variable without a description is refused by the docs generator', () => {
    const bare = { ...fixtureRailModule, settings: { ...fixtureRailModule.settings, RAIL_FIXTURE_BARE: fixtureRailModule.settings.RAIL_FIXTURE_API_URL.unwrap().optional() } };
    expect(() => renderConfigurationDoc(readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8'), [{ title: 'Rails', modules: [bare] }])).toThrow(/RAIL_FIXTURE_BARE \(module fixture_rail\) has no \.describe\(\) text/);
  });
});
