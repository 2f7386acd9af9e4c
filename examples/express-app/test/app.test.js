import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greeting } from '../app.js';

test('the greeting comes from GREETING, else hello', () => {
  assert.equal(greeting({ GREETING: 'hi' }), 'hi');
  assert.equal(greeting({}), 'hello');
});
