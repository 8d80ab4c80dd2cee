// Export as one self-contained HTML file. Pure.
import type { SessionStore } from './store.js';

export function exportHtml(store: SessionStore): string {
  return `<!doctype html><title>${store.id}</title>`;
}
