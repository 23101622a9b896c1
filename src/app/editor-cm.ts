// The tools.py editor: CodeMirror 6 with Python highlighting, loaded as its own chunk (editor.ts).
// A lean extension set (no autocomplete, search or lint panels) keeps the chunk small.
import { python } from "@codemirror/lang-python";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import type { ToolsEditor } from "./editor.ts";

// Colours come from CSS custom properties, so light and dark follow prefers-color-scheme.
const highlight = HighlightStyle.define([
  { tag: t.keyword, color: "var(--syn-keyword)" },
  { tag: [t.string, t.special(t.string)], color: "var(--syn-string)" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [t.number, t.bool, t.null], color: "var(--syn-number)" },
  {
    tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))],
    color: "var(--syn-function)",
  },
  { tag: [t.className, t.definition(t.className)], color: "var(--syn-type)" },
  { tag: [t.meta, t.annotation], color: "var(--syn-decorator)" },
  { tag: [t.operator, t.punctuation], color: "var(--syn-punct)" },
  { tag: t.variableName, color: "var(--fg)" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "13px", backgroundColor: "var(--code-bg)", color: "var(--fg)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.5" },
  ".cm-gutters": { backgroundColor: "var(--code-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--code-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active)" },
  ".cm-cursor": { borderLeftColor: "var(--fg)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--code-selection) !important",
  },
  "&.cm-focused": { outline: "2px solid var(--focus)", outlineOffset: "-2px" },
});

export function createToolsEditor(parent: HTMLElement, text: string, label: string): ToolsEditor {
  const listeners: Array<() => void> = [];
  const readOnly = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        foldGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, indentWithTab]),
        python(),
        syntaxHighlighting(highlight),
        theme,
        readOnly.of(EditorState.readOnly.of(false)),
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
        // Long lines wrap: on a phone the code stays inside the screen instead of scrolling sideways.
        EditorView.lineWrapping,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) for (const l of listeners) l();
        }),
      ],
    }),
  });
  return {
    getText: () => view.state.doc.toString(),
    setText(next) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next }, selection: { anchor: 0 } });
    },
    goToLine(line) {
      const n = Math.min(Math.max(1, Math.floor(line)), view.state.doc.lines);
      const pos = view.state.doc.line(n).from;
      view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: "center" }) });
      view.focus();
    },
    setReadOnly(value) {
      view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(value)) });
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
