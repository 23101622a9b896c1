// The tools.py editor seam. CodeMirror 6 (editor-cm.ts) is loaded as its own chunk, started at
// boot in parallel with the Python runner, so the page's entry script stays small.
export interface ToolsEditor {
  getText(): string;
  /** Replace the whole buffer (a file was opened). */
  setText(text: string): void;
  /** Move the cursor to a 1-based line, scroll it into view and focus the editor. */
  goToLine(line: number): void;
  /** Read-only while the file on disk is the source (edit it there). */
  setReadOnly(readOnly: boolean): void;
  onChange(listener: () => void): void;
}

export async function loadToolsEditor(parent: HTMLElement, text: string, label: string): Promise<ToolsEditor> {
  const { createToolsEditor } = await import("./editor-cm.ts");
  parent.replaceChildren();
  return createToolsEditor(parent, text, label);
}
