// The workspace VFS as what read_local tools see: the files and folders under /workspace (not
// Edge's own /.edge bookkeeping), at the moment a call starts, refused past the mount limits
// before anything is gathered.
import { workspaceTooLarge, type WorkspaceMount, type WorkspaceSource } from "../../toolset/workspace.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "../vfs/core.ts";
import { relativeTo } from "./import-path.ts";

export function vfsWorkspaceSource(vfs: EdgeVfs, root = WORKSPACE_DIR): WorkspaceSource {
  return {
    async snapshot(limits) {
      const mount: WorkspaceMount = { files: {}, dirs: [] };
      let bytes = 0;
      let files = 0;
      const prefix = root === "/" ? "/" : `${root}/`;
      for (const path of vfs.getAllPaths()) {
        if (!path.startsWith(prefix)) continue;
        const rel = relativeTo(root, path);
        const data = vfs.readBytesIfFile(path);
        if (!data) {
          mount.dirs.push(rel);
          continue;
        }
        bytes += data.byteLength;
        if (++files > limits.maxFiles || bytes > limits.maxBytes) throw workspaceTooLarge({ bytes, files }, limits);
        mount.files[rel] = data;
      }
      mount.dirs.sort();
      return mount;
    },
  };
}
