import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WalrusGitError } from '../../src/core/errors.ts';
import { linesOfDescriptor, writeAll } from '../../src/main/stdio.ts';
import { tempDir } from '../../scripts/harness/git-env.ts';

const collect = async (lines: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

/** The lines of a file with `text`, read through its descriptor. */
async function linesOfText(text: string | Buffer): Promise<string[]> {
  const dir = tempDir('stdio-');
  try {
    const path = join(dir.path, 'input');
    writeFileSync(path, text);
    const fd = openSync(path, 'r');
    try {
      return await collect(linesOfDescriptor(fd));
    } finally {
      closeSync(fd);
    }
  } finally {
    dir.remove();
  }
}

/** Runs `body` with a new named pipe (FIFO) at `fifo`, removed afterwards. */
async function withFifo(body: (fifo: string, dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir('stdio-fifo-');
  try {
    const fifo = join(dir.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await body(fifo, dir.path);
  } finally {
    dir.remove();
  }
}

const lines = suite('linesOfDescriptor');

lines('yields each line without its newline, a last one without a newline too, nothing for an empty input', async () => {
  assert.equal(await linesOfText('capabilities\nlist for-push\n\n'), ['capabilities', 'list for-push', '']);
  assert.equal(await linesOfText('option verbosity 1\nlist'), ['option verbosity 1', 'list']);
  assert.equal(await linesOfText('a\r\nb\n'), ['a\r', 'b'], 'a CR stays for the session to strip');
  assert.equal(await linesOfText(''), []);
});

lines('keeps lines and UTF-8 characters whole across the reads that split them', async () => {
  // 64 KiB reads: the first line ends past the first read, and a 3-byte character straddles the boundary.
  const long = `${'x'.repeat(64 * 1024 - 1)}€tail`;
  const many = Array.from({ length: 5000 }, (_, i) => `fetch ${String(i).padStart(40, '0')} refs/heads/ünïcode-${i}`);
  assert.equal(await linesOfText(`${long}\n${many.join('\n')}\n`), [long, ...many]);
});

lines('waits on a descriptor that is non-blocking and not ready yet, then reads what arrives', () => withFifo(async (fifo) => {
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  try {
    const reading = collect(linesOfDescriptor(reader));
    await new Promise((done) => setTimeout(done, 30));
    writeFileSync(writer, 'list\n\n');
    closeSync(writer);
    assert.equal(await reading, ['list', '']);
  } finally {
    closeSync(reader);
  }
}));

lines.run();

const writing = suite('writeAll');

writing('writes all of a text larger than a pipe holds to a non-blocking descriptor a slow reader drains', () => withFifo(async (fifo, dir) => {
  // A non-blocking write end needs a reader: this one holds the pipe open and never reads; cat, starting late,
  // drains it, so the writer finds the pipe full first.
  const drained = join(dir, 'drained');
  const reader = spawn('sh', ['-c', `sleep 0.2; cat "${fifo}" > "${drained}"`]);
  const readerOpen = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  const text = `${'0123456789abcdef€'.repeat(20_000)}\n`;
  try {
    await writeAll(writer, text);
  } finally {
    closeSync(writer);
    closeSync(readerOpen);
  }
  await new Promise((done) => reader.on('close', done));
  assert.is(readFileSync(drained, 'utf8'), text);
}));

writing('a reader that has gone is an error that says git closed the output', () => withFifo(async (fifo) => {
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  closeSync(reader);
  try {
    await writeAll(writer, 'answer\n').then(() => assert.unreachable('written with no reader'), (error: unknown) => {
      assert.instance(error, WalrusGitError);
      assert.is((error as WalrusGitError).code, 'OUTPUT_CLOSED');
      assert.match((error as Error).message, /git closed the helper's output/);
    });
  } finally {
    closeSync(writer);
  }
}));

writing('a helper process answers through its descriptors, line by line, on real pipes', async () => {
  const module = JSON.stringify(fileURLToPath(new URL('../../src/main/stdio.ts', import.meta.url)));
  const echo = `const { linesOfDescriptor, writeAll } = await import(${module});\nfor await (const line of linesOfDescriptor(0)) await writeAll(1, \`<\${line}>\\n\`);\n`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', echo], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => { out += text; });
  child.stdin.write('capabilities\n');
  await new Promise<void>((done) => { const check = () => (out.includes('<capabilities>') ? done() : setTimeout(check, 5)); check(); });
  child.stdin.end('list\n\n');
  const code = await new Promise((done) => child.on('close', done));
  assert.is(code, 0);
  assert.is(out, '<capabilities>\n<list>\n<>\n');
});

writing.run();
