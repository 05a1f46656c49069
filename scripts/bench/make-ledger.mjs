#!/usr/bin/env node
// Usage: node make-ledger.mjs <count> <out.json> [--verified]
// Writes a sealed controlled-study observation ledger (spec §1.6–1.8) with <count> distinct
// observations, for benchmarking hash verification. With --verified every observation also
// carries the records of `strata run --verify` (docs/VERIFIER.md): the verified counts, one
// check in five found failing whatever the agent claimed, and the rubric judging them. Models, scenarios and tasks come from the
// real doc-bridge fixtures so the shapes are realistic; the values are synthetic but valid.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [countArg, outPath, flag] = process.argv.slice(2);
const verifiedLedger = flag === "--verified";
const count = Number(countArg);
if (!Number.isInteger(count) || count < 0 || count > 100000 || !outPath) {
  console.error("usage: node make-ledger.mjs <count 0..100000> <out.json>");
  process.exit(1);
}

// The checkout's sibling shared/ (scripts/bench/ -> ../../../shared), or $STRATA_FIXTURES.
const FIXTURES = process.env.STRATA_FIXTURES ||
  fileURLToPath(new URL("../../../shared/fixtures/doc-bridge", import.meta.url));
const plan = JSON.parse(readFileSync(`${FIXTURES}/run-plan-v1.json`, "utf8"));
const suite = JSON.parse(readFileSync(`${FIXTURES}/task-suite-v1.json`, "utf8"));
const ALGO = "sha256-normalized-v1";

// Spec §2: sort keys by UTF-16 code units; rebuilding a JS object moves array-index keys first,
// exactly like the reference implementation. JSON.stringify then supplies the scalar rules.
const canonical = (v) =>
  Array.isArray(v) ? v.map(canonical)
  : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]))
    : v;
const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");
// The top-level contentHash is the only member excluded from the hash.
const contentHash = ({ contentHash: _omit, ...rest }) => sha256(JSON.stringify(canonical(rest)));

// Seal in place: the placeholder keeps contentHash before contentHashAlgo (schema order).
function seal(payload) {
  const sealed = { ...payload, contentHash: "", contentHashAlgo: ALGO };
  sealed.contentHash = contentHash(sealed);
  return sealed;
}

// Deterministic rubric, spec §4.1 (V-final rule), so adjudication matches what `study run` writes.
function rubricOutcome(task, status, evidenceIds, m) {
  const n = task.acceptanceChecks.length;
  const verified = m.verifiedChecksTotal !== undefined;  // the verifier's counts are the facts
  const P = verified ? m.verifiedChecksPassed : m.acceptanceChecksPassed;
  if (verified ? status !== "completed" || m.verifiedChecksTotal !== n
               : status !== "completed" || P === undefined || m.acceptanceChecksTotal !== n || m.acceptanceChecksExecuted !== n ||
                 P > m.acceptanceChecksExecuted) return "blocked";
  const present = task.evidenceRequirements.filter((r) => evidenceIds.includes(r.id)).length;
  if (P === n && present === task.evidenceRequirements.length) return "success";
  if (P === 0 && present === 0) return "incomplete";
  return "partial";
}

// Extra evidence ids with non-ASCII text (é, BMP symbols, astral emoji) to exercise UTF-8/UTF-16 paths.
const EXTRA_EVIDENCE = ["note:résumé-é", "check:✅ passed", "ship:🚀 rocket", "doc:README§2 “quoted”"];
const DECIMAL_METRICS = [
  ["searchHitRate", 0.1 + 0.2], // 0.30000000000000004
  ["errorRate", 1e-7],
  ["timeToFirstEvidenceMs", 123.456],
  ["analysisCostUsd", 5e-7],
];
const BASE_TIME = Date.parse("2025-03-01T08:00:00.000Z");
const cells = plan.models.length * plan.scenarios.length * suite.tasks.length;

// Size budget: a complete observation with every member is ~2.7 KB pretty-printed (the two
// model configs alone are ~0.5 KB), so 100,000 of them exceeded Strata's input limit while it
// was 256 MiB (512 MiB since issue 43). About half the observations are therefore failed provider runs (non-zero exit, no
// usable response, spec §3.7): no tokens, self-report or measurements, adjudicated blocked.
// That brings the average to ~2.45 KB (~235 MiB for 100,000) while keeping both real shapes.
const isFailedRun = (i) => Math.imul(i, 0x9e3779b1) >>> 31 === 1; // hash bit: decorrelated from the matrix

function observation(i) {
  // Walk the matrix task-major; replicate increases once the whole matrix is covered,
  // so every (task, model, scenario, replicate) is unique and hashes are pairwise distinct.
  const task = suite.tasks[i % suite.tasks.length];
  const model = plan.models[Math.floor(i / suite.tasks.length) % plan.models.length];
  const scenario = plan.scenarios[Math.floor(i / (suite.tasks.length * plan.models.length)) % plan.scenarios.length];
  const replicate = Math.floor(i / cells);
  const failed = isFailedRun(i);

  const inputTokens = 20000 + ((i * 7919) % 380000);
  const outputTokens = 500 + ((i * 104729) % 9000);
  const overBudget = !failed && inputTokens + outputTokens > plan.budget.maxTokens; // §3.7 step 7
  const status = failed ? "failed" : overBudget ? "budget-exceeded" : "completed";
  const stderrBytes = failed ? 200 + (i % 3000) : i % 5 === 0 ? 0 : 40 + (i % 900);

  // Drop a required evidence id now and then so the rubric yields partial/incomplete as well,
  // and add one id with non-ASCII text.
  const evidenceIds = failed ? [] : task.evidenceRequirements.map((r) => r.id).filter((_, k) => (i + k) % 7 !== 0);
  if (!failed) evidenceIds.push(EXTRA_EVIDENCE[i % EXTRA_EVIDENCE.length]);

  // Rubric inputs plus one decimal-valued metric that rotates through the tricky number forms
  // (shortest round-trip digits, exponent form below 1e-6, plain decimals).
  const n = task.acceptanceChecks.length;
  const [metric, value] = DECIMAL_METRICS[(i >> 1) % DECIMAL_METRICS.length];
  const measurements = {
    acceptanceChecksPassed: i % 11 === 0 ? 0 : n,
    acceptanceChecksTotal: n,
    acceptanceChecksExecuted: n,
    [metric]: value,
  };
  // The verifier's record (--verified): every check run, all passing but in one execution of five.
  const verifiedPassed = i % 5 === 0 ? 0 : n;
  const verifiedRecord = !verifiedLedger ? {} : {
    verifiedChecksTotal: n,
    verifiedChecksExecuted: n,
    verifiedChecksPassed: verifiedPassed,
    verifiedChecksTimedOut: 0,
    verifiedChecksOutputLimit: 0,
    verifierDurationMs: 40 + (i % 200),
    ...Object.fromEntries(task.acceptanceChecks.map((c) => [`verifiedCheck.${c.id}`, verifiedPassed === n ? 1 : 0])),
  };
  if (verifiedLedger && !failed)
    verifiedRecord.verifiedClaimAgrees = (measurements.acceptanceChecksPassed === n) === (verifiedPassed === n) ? 1 : 0;

  const execution = {
    status,
    exitCode: failed ? 1 : 0,
    signal: null,
    durationMs: 15000 + ((i * 2654435761) % 165000),
    responseBytes: failed ? 0 : 800 + (i % 4000),
    stderrBytes,
    stdoutHash: sha256(failed ? "" : `stdout ${i}`),
    stderrHash: sha256(stderrBytes === 0 ? "" : `stderr ${i}`),
    ...(failed ? { errorCode: "non-zero-exit" } : { inputTokens, outputTokens, tokenMethod: "provider" }),
    ...(overBudget ? { errorCode: "token-budget" } : {}),
  };

  // Members the runner copies from the provider's response only when it produced one.
  const selfReport = failed ? {} : {
    taskOutcome: ["success", "partial", "incomplete"][i % 3],
    evidenceQuality: ["high", "medium", "low"][i % 3],
    safetyOutcome: "safe",
    clarificationRequests: i % 3,
    reworkCount: i % 2,
    measurements: { ...measurements, ...verifiedRecord },
  };

  const contextBytes = 2400 + (i % 600);
  return seal({
    type: "controlled-study-observation",
    schemaVersion: 1,
    observationVersion: "v1",
    observedAt: new Date(BASE_TIME + i * 1737).toISOString(),
    runId: plan.runId,
    planHash: plan.contentHash,
    task: {
      taskId: task.id,
      repositoryId: task.repositoryId,
      category: task.category,
      scenarioId: scenario.id,
      modelId: model.id,
      replicate,
      variantId: task.variants[(i >> 2) % 2].id,
      difficulty: task.difficulty,
    },
    model,
    scenario,
    execution,
    contextBytes,
    contextTokens: Math.ceil(contextBytes / 4),
    contextTokenMethod: "estimate",
    evidenceIds,
    ...selfReport,
    ...(failed && verifiedLedger ? { measurements: verifiedRecord } : {}),
    adjudication: {
      status: "automated",
      actor: "deterministic-rubric-v1",
      method: "deterministic-rubric-v1",
      outcome: rubricOutcome(task, status, evidenceIds, failed ? verifiedRecord : { ...measurements, ...verifiedRecord }),
      reason: verifiedLedger
        ? "Independent bounded evaluation of execution status, the acceptance checks run by Strata's verifier (not the agent's own report), and exact required evidence coverage."
        : "Independent bounded evaluation of execution status, acceptance metrics, and exact required evidence coverage.",
    },
  });
}

const observations = Array.from({ length: count }, (_, i) => observation(i));
const ledger = seal({
  type: "controlled-study-observation-ledger",
  schemaVersion: 1,
  ledgerVersion: "v1",
  observations,
});
// Persisted layout, spec §1.0.
writeFileSync(outPath, JSON.stringify(ledger, null, 2) + "\n");
