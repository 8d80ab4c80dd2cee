// The checkpoint store (issue 26 §1): content-addressed objects (deduplicated, 0600, checked when
// read), and file states captured and restored exactly: bytes, modes, absence, symlinks, binary
// and empty files, files over the cap (noted, not restorable).
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointDirOf, CheckpointStore, type FileState } from '../src/session/checkpoint-store.js';
import { tempDir } from './support/helpers.js';

/** What is at a path, read directly (not through the store): the property's reference. */
function observe(path: string): string {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return 'absent';
  if (st.isSymbolicLink()) return `symlink → ${readlinkSync(path)}`;
  return `file ${(st.mode & 0o7777).toString(8)} ${readFileSync(path).toString('base64')}`;
}

const PATHS = ['a.txt', 'b.bin', 'new/deep/c.txt', 'link'];

type Op = { kind: 'write'; path: number; bytes: Uint8Array } | { kind: 'chmod'; path: number; mode: number } | { kind: 'delete'; path: number } | { kind: 'symlink'; path: number; target: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), path: fc.nat(PATHS.length - 1), bytes: fc.uint8Array({ maxLength: 64 }) }),
  fc.record({ kind: fc.constant('chmod' as const), path: fc.nat(PATHS.length - 1), mode: fc.constantFrom(0o600, 0o644, 0o755, 0o700) }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.nat(PATHS.length - 1) }),
  fc.record({ kind: fc.constant('symlink' as const), path: fc.nat(PATHS.length - 1), target: fc.constantFrom('a.txt', 'missing', '../outside') }),
);

function apply(cwd: string, o: Op): void {
  const path = join(cwd, PATHS[o.path]);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (o.kind === 'write') {
    if (st?.isSymbolicLink()) rmSync(path);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, o.bytes);
  } else if (o.kind === 'chmod') {
    if (st?.isFile()) chmodSync(path, o.mode);
  } else if (o.kind === 'delete') {
    rmSync(path, { force: true });
  } else {
    rmSync(path, { force: true });
    mkdirSync(join(path, '..'), { recursive: true });
    symlinkSync(o.target, path);
  }
}

describe('the checkpoint store', () => {
  it('property: after any sequence of writes, mode changes, deletions and symlinks, restoring the states of any step gives exactly that step (bytes, modes, absence), and the last state comes back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), fc.nat(), async (ops, pick) => {
        const cwd = tempDir();
        const store = new CheckpointStore(join(tempDir(), 's.checkpoints'));
        const states: FileState[][] = [];
        const seen: string[][] = [];
        for (const o of ops) {
          states.push(await Promise.all(PATHS.map((p) => store.capture(join(cwd, p)))));
          seen.push(PATHS.map((p) => observe(join(cwd, p))));
          apply(cwd, o);
        }
        const last = await Promise.all(PATHS.map((p) => store.capture(join(cwd, p))));
        const lastSeen = PATHS.map((p) => observe(join(cwd, p)));
        const k = pick % states.length;
        for (const [i, p] of PATHS.entries()) await store.restore(join(cwd, p), states[k][i]);
        expect(PATHS.map((p) => observe(join(cwd, p)))).toEqual(seen[k]);
        for (const [i, p] of PATHS.entries()) expect(await store.matches(join(cwd, p), states[k][i])).toBe(true);
        for (const [i, p] of PATHS.entries()) await store.restore(join(cwd, p), last[i]);
        expect(PATHS.map((p) => observe(join(cwd, p)))).toEqual(lastSeen);
      }),
      { numRuns: 60 },
    );
  });

  it('stores each content once, private (folders 0700, objects 0600), named by its SHA-256', async () => {
    const cwd = tempDir();
    const store = new CheckpointStore(checkpointDirOf(join(tempDir(), 'session.jsonl')));
    expect(store.dir).toMatch(/session\.checkpoints$/);
    writeFileSync(join(cwd, 'one'), 'same text\n');
    writeFileSync(join(cwd, 'two'), 'same text\n');
    const [a, b] = [await store.capture(join(cwd, 'one')), await store.capture(join(cwd, 'two'))];
    expect(a).toEqual(b);
    expect(a).toMatchObject({ kind: 'file', size: 10, blob: createHash('sha256').update('same text\n').digest('hex') });
    const objects = join(store.dir, 'objects');
    const subs = readdirSync(objects);
    expect(subs).toHaveLength(1);
    expect(readdirSync(join(objects, subs[0]))).toHaveLength(1);
    expect(statSync(objects).mode & 0o777).toBe(0o700);
    expect(statSync(join(objects, subs[0])).mode & 0o777).toBe(0o700);
    expect(statSync(join(objects, subs[0], readdirSync(join(objects, subs[0]))[0])).mode & 0o777).toBe(0o600);
    expect(await store.usage()).toEqual({ bytes: 10, objects: 1 });
  });

  it('binary and empty files, a file in a new folder (the folder goes too, when empty), a symlink; a damaged or missing object is an error, not wrong bytes', async () => {
    const cwd = tempDir();
    const store = new CheckpointStore(join(tempDir(), 's.checkpoints'));
    const binary = Buffer.from([0, 255, 1, 254, 0, 10, 13]);
    writeFileSync(join(cwd, 'bin'), binary);
    writeFileSync(join(cwd, 'empty'), '');
    symlinkSync('bin', join(cwd, 'ln'));
    const states = { bin: await store.capture(join(cwd, 'bin')), empty: await store.capture(join(cwd, 'empty')), ln: await store.capture(join(cwd, 'ln')), fresh: await store.capture(join(cwd, 'made/here.txt')) };
    expect(states.ln).toEqual({ kind: 'symlink', target: 'bin' });
    expect(states.fresh).toEqual({ kind: 'absent', missingFrom: join(cwd, 'made') });
    writeFileSync(join(cwd, 'bin'), 'text now');
    rmSync(join(cwd, 'empty'));
    rmSync(join(cwd, 'ln'));
    mkdirSync(join(cwd, 'made'));
    writeFileSync(join(cwd, 'made/here.txt'), 'new');
    for (const [name, path] of [
      ['bin', 'bin'],
      ['empty', 'empty'],
      ['ln', 'ln'],
      ['fresh', 'made/here.txt'],
    ] as const)
      await store.restore(join(cwd, path), states[name]);
    expect(readFileSync(join(cwd, 'bin')).equals(binary)).toBe(true);
    expect(readFileSync(join(cwd, 'empty'), 'utf8')).toBe('');
    expect(readlinkSync(join(cwd, 'ln'))).toBe('bin');
    expect(existsSync(join(cwd, 'made/here.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'made'))).toBe(false); // the folder it was created in goes with it

    // A folder that holds something else by then stays, and so do the folders above it.
    const deep = await store.capture(join(cwd, 'x/y/z.txt'));
    expect(deep).toEqual({ kind: 'absent', missingFrom: join(cwd, 'x') });
    mkdirSync(join(cwd, 'x/y'), { recursive: true });
    writeFileSync(join(cwd, 'x/y/z.txt'), 'z');
    writeFileSync(join(cwd, 'x/other.txt'), 'the user put this here');
    await store.restore(join(cwd, 'x/y/z.txt'), deep);
    expect([existsSync(join(cwd, 'x/y')), existsSync(join(cwd, 'x/other.txt'))]).toEqual([false, true]);

    const blob = (states.bin as Extract<FileState, { kind: 'file' }>).blob;
    const object = join(store.dir, 'objects', blob.slice(0, 2), blob.slice(2));
    chmodSync(object, 0o600);
    writeFileSync(object, 'tampered');
    await expect(store.restore(join(cwd, 'bin'), states.bin)).rejects.toThrow(/is damaged/);
    expect(readFileSync(join(cwd, 'bin')).equals(binary)).toBe(true); // nothing was written
    rmSync(object);
    await expect(store.get(blob)).rejects.toThrow(/is missing/);
    await expect(store.get('../../etc/passwd')).rejects.toThrow(/not a checkpoint object name/);
  });

  it('a file over the cap is noted (size, mode) but not stored, and never restored; a change is seen by hash', async () => {
    const cwd = tempDir();
    const store = new CheckpointStore(join(tempDir(), 's.checkpoints'), 16);
    writeFileSync(join(cwd, 'big'), 'x'.repeat(17));
    const big = await store.capture(join(cwd, 'big'));
    expect(big).toEqual({ kind: 'too_big', size: 17, mode: statSync(join(cwd, 'big')).mode & 0o7777 });
    expect(await store.usage()).toEqual({ bytes: 0, objects: 0 });
    await expect(store.restore(join(cwd, 'big'), big)).rejects.toThrow(/over the checkpoint size cap \(17 bytes\)/);
    expect(await store.matches(join(cwd, 'big'), big)).toBe(false);
    writeFileSync(join(cwd, 'small'), 'abc');
    const small = await store.capture(join(cwd, 'small'));
    expect(await store.matches(join(cwd, 'small'), small)).toBe(true);
    writeFileSync(join(cwd, 'small'), 'abd'); // same size, other bytes
    expect(await store.matches(join(cwd, 'small'), small)).toBe(false);
  });
});
