// Types of inputs-hash.mjs, for the test suite's global setup (TypeScript).
export declare const INPUTS_STAMP: string;
export declare const BUILD_INPUTS: readonly string[];
export declare function inputsHash(inputs: readonly string[]): string;
