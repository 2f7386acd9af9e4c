import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonSyntaxProblem } from '../../src/core/json-syntax.ts';

const problem = suite('jsonSyntaxProblem');

const SECRET = 'c2VjcmV0LWtleS1tYXRlcmlhbA';
const refusedText = (text: string) => {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonSyntaxProblem(error, text);
  }
  throw new Error(`${text} parsed`);
};

problem('says where, or what kind of fault, and never quotes the text', () => {
  const cases: [string, string | RegExp][] = [
    [`[\n  "${SECRET}",\n]`, 'not valid JSON (a trailing comma, or a missing quote or bracket?)'],
    [`["${SECRET}"`, /^not valid JSON at line 1, column \d+$/],
    [`[\n  "${SECRET}\n]`, /^not valid JSON at line 2, column \d+$/],
    [`["${SECRET}`, /^not valid JSON/],
    ['', 'not valid JSON: it ends early (a missing bracket or quote?)'],
  ];
  for (const [text, expected] of cases) {
    const said = refusedText(text);
    if (typeof expected === 'string') assert.is(said, expected, text);
    else assert.match(said, expected, text);
    assert.not.match(said, SECRET.slice(0, 6), text);
  }
});

problem.run();
