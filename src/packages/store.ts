// Where wheels are kept on a device, one shape for every adapter (Node: store-node.ts, files under
// $EDGE_DATA_DIR/packages). A store holds bytes by the wheel's file name; whether they are the
// lock's bytes is checked by whoever reads them (verify.ts), every time.
export interface StoredWheel {
  file_name: string;
  bytes: number;
}

export interface PackageStore {
  /** Where the wheels are, for people ("/home/me/.local/share/edge-web/packages"). */
  readonly location: string;
  get(fileName: string): Promise<Uint8Array | undefined>;
  /** Write atomically (a reader never sees half a wheel). */
  put(fileName: string, bytes: Uint8Array): Promise<void>;
  /** true when there was something to remove. */
  remove(fileName: string): Promise<boolean>;
  list(): Promise<StoredWheel[]>;
}
