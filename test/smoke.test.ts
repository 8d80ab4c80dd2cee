import { describe, expect, it } from 'vitest';
import { projectMessages } from '../src/session/projector.js';
describe('smoke', () => {
  it('projects nothing from an empty path', () => {
    expect(projectMessages([])).toEqual([]);
  });
});
