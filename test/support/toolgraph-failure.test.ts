import { describe, expect, it } from 'vitest';
import { ToolgraphError } from '../../src/errors/index.ts';
import { failure } from './toolgraph-failure.ts';

const refusal = new ToolgraphError('TG_BAD_REQUEST', 'no');

describe('failure', () => {
  it('answers the ToolgraphError a promise rejects with, or a function throws', async () => {
    expect(await failure(Promise.reject(refusal))).toBe(refusal);
    expect(failure(() => {
      throw refusal;
    })).toBe(refusal);
  });

  it('fails the test on a value, on another error, and on a function that returns a promise', async () => {
    await expect(failure(Promise.resolve(1))).rejects.toThrow('expected a ToolgraphError, got a value');
    expect(() => failure(() => 1)).toThrow('expected a ToolgraphError, got a value');
    const other = new TypeError('not ours');
    await expect(failure(Promise.reject(other))).rejects.toBe(other);
    expect(() => failure(() => {
      throw other;
    })).toThrow(other);
    const pending = Promise.reject(refusal);
    pending.catch(() => undefined);
    expect(() => failure(() => pending)).toThrow('run returned a promise; pass the promise itself');
  });
});
