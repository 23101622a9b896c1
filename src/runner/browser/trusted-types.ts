// Trusted Types in the sandbox: the frame's CSP says `require-trusted-types-for 'script';
// trusted-types edge-runner`, so a script URL (importScripts, new Worker) must be a
// TrustedScriptURL, only a policy named "edge-runner" can make one, and only one policy of that
// name can exist per realm. The frame makes its policy (it accepts exactly the runner bundle's
// URL); each runner worker takes the name in its own realm with no rules at all, before any
// tool code exists. Tool code then has no way to start a script from a string.

export const RUNNER_POLICY_NAME = "edge-runner";

interface TrustedTypesScope {
  trustedTypes?: { createPolicy(name: string, rules: object): unknown };
}

/** Take the runner's policy name in this worker, with no createScriptURL. A browser without
 *  Trusted Types keeps only the CSP (no blob:/data: in script-src); see docs/security.md. */
export function lockTrustedTypes(scope: object = globalThis): void {
  (scope as TrustedTypesScope).trustedTypes?.createPolicy(RUNNER_POLICY_NAME, {});
}
