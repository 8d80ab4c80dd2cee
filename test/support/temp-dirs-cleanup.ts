// A setup file (vitest.config.ts): every test file removes the temp folders it made when it ends.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.js';

afterAll(() => removeTempDirs());
