// The formats a session exports to, alone: the CLI checks --format on the path of `--version`
// and `--help`, which must not load the exporters (app/export.ts).
export const EXPORT_FORMATS = ['md', 'html', 'jsonl'] as const;

export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}
