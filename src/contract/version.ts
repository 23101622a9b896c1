// Edge's own version (package.json's, kept equal by a test): on its own so that `edge --version`
// and receipts name it without loading anything else.
export const EDGE_RUNTIME_VERSION = "0.1.0";
