// Export as Markdown (the active path, readable) and JSONL (header + every entry). Pure.
import type { SessionStore } from './store.js';

export function exportMarkdown(store: SessionStore): string {
  return `# Session ${store.id}\n\n(export not implemented yet)\n`;
}

export function exportJsonl(store: SessionStore): string {
  return [store.header, ...store.entries()].map((e) => JSON.stringify(e)).join('\n') + '\n';
}
