// The words that start the fix of an error message (what the person can do next), shared by the
// error table's test, fixOf's test and the guard over every `new EdgeError(` site.

/** Words that start the fix of a message: what the person can do next. */
export const FIX =
  /\b(use|pass|add|check|run|fix|rename|remove|ask|try|load|pick|import|learn|delete|raise|shorten|narrow|split|save|keep|return|list|reload|download|point|give|make|free|install|close|send|restore|set|decorate|start|change|export|copy|scale|convert|name|enable|leave|select|edit|import|reset|let|see|follow|move|put|lower|point|replace|wait|pin|include|declare|annotate|create)\b/i;
