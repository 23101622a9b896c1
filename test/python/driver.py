"""Test driver: runs edge_runner jobs described as JSON on stdin, prints JSON results.

Input: {"jobs": [job, ...]}; each job is
  {"op": "discover"|"call", "source": str | "source_b64": str, "sha": "auto"|str,
   "filename": str, "tool": str, "args": str, "call_id": str, "schema_sha": str}
  {"op": "canonical", "expr": "<python expression>"}     -> canonical_json(eval(expr)) and json.dumps
  {"op": "canonical_json_text", "text": "<json>"}       -> canonical_json(json.loads(text))
  {"op": "sign", "secret": hex, "call_id": str, "result_sha256": str}
  {"op": "state"}                                       -> leftovers of earlier jobs
Replies of discover/call are returned parsed; Python exceptions become {"raised": "..."}.
"""

import base64
import hashlib
import json
import sys

import edge_runner
import edgestudio.tools


def source_of(job):
    if "source_b64" in job:
        return base64.b64decode(job["source_b64"])
    return job["source"].encode("utf-8")


def run(job):
    op = job["op"]
    if op in ("discover", "call"):
        src = source_of(job)
        sha = job.get("sha", "auto")
        if sha == "auto":
            sha = "sha256:" + hashlib.sha256(src).hexdigest()
        filename = job.get("filename", "tools.py")
        if op == "discover":
            text = edge_runner.discover(src, sha, filename)
        else:
            text = edge_runner.call(src, sha, filename, job["tool"], job.get("args", "{}"), job.get("call_id", "c1"), None, job.get("schema_sha"))
        if not isinstance(text, str) or not text.isascii():
            return {"raised": "reply is not ASCII JSON text"}
        return json.loads(text)
    if op == "canonical":
        value = eval(job["expr"], {"__builtins__": __builtins__})
        try:
            return {"canonical": edge_runner.canonical_json(value), "json": json.dumps(value)}
        except (TypeError, ValueError) as exc:
            return {"raised": f"{type(exc).__name__}: {exc}"}
    if op == "canonical_json_text":
        return {"canonical": edge_runner.canonical_json(json.loads(job["text"]))}
    if op == "state":
        return {
            "module": edge_runner.MODULE_NAME in sys.modules,
            "collector": edgestudio.tools._collector is not None,
            "stdout_restored": sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__,
            "user_modules": sorted(k for k in sys.modules if k.startswith("__edge")),
        }
    raise ValueError(f"unknown op {op}")


def main():
    jobs = json.loads(sys.stdin.read())["jobs"]
    out = []
    for job in jobs:
        try:
            out.append(run(job))
        except Exception as exc:  # a driver-level failure is a test failure, reported as data
            out.append({"raised": f"{type(exc).__name__}: {exc}"})
    sys.__stdout__.write(json.dumps(out))


main()
