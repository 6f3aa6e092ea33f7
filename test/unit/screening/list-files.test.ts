/** Reading a list's files from its URL (docs/screening.md "Versions and refresh"): OFAC's remote names, optional files, failures named. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHash, readListFiles } from '../../../src/core/screening/lists';
import { ofacSdnCsv } from '../../../src/screening/lists/ofac-sdn-csv';
import { unSc } from '../../../src/screening/lists/un-sc';

const FIX = join(import.meta.dirname, '../../fixtures/screening');
const source = { url: 'https://lists.example.test/exports', refreshMinutes: 60, maxAgeHours: 48 };

/** A fetch that serves `files` by URL and answers 404 otherwise, recording what was asked. */
function fakeFetch(files: Record<string, string | number>) {
  const asked: string[] = [];
  const f = (async (url: string | URL) => {
    asked.push(String(url));
    const body = files[String(url)];
    return typeof body === 'string' ? new Response(body) : new Response('no', { status: body ?? 404 });
  }) as typeof fetch;
  return { f, asked };
}

describe('readListFiles', () => {
  it("fetches OFAC's CSV set under its remote names from the base URL; a missing optional file is fine", async () => {
    const base = 'https://lists.example.test/exports/';
    const { f, asked } = fakeFetch(Object.fromEntries(['sdn', 'add', 'alt'].map((n) => [`${base}${n.toUpperCase()}.CSV`, readFileSync(join(FIX, 'ofac-csv', `${n}.csv`), 'utf8')])));
    const { files, from } = await readListFiles(ofacSdnCsv, source, { fetch: f });
    expect(asked).toEqual([`${base}SDN.CSV`, `${base}ADD.CSV`, `${base}ALT.CSV`, `${base}SDN_COMMENTS.CSV`]);
    expect([...files.keys()]).toEqual(['sdn.csv', 'add.csv', 'alt.csv']);
    expect(from).toBe(source.url);
    expect(ofacSdnCsv.parse(files).entries).toHaveLength(3);
    expect(contentHash(files)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the file of a failed required download', async () => {
    const { f } = fakeFetch({ [`${source.url}/SDN.CSV`]: 503 });
    await expect(readListFiles(ofacSdnCsv, source, { fetch: f })).rejects.toThrow('ofac-sdn-csv: sdn.csv: HTTP 503');
    await expect(readListFiles(unSc, { ...source, url: undefined }, { fetch: f })).rejects.toThrow(/neither a directory nor a URL/);
  });
});
