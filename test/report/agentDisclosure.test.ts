/**
 * The agent settings (RunProvenance.agent: scaffold, sandbox, limits, attempts, denominator) as rows of the
 * report's run-level disclosure table in every format, "not recorded" where the records do not say, and every
 * string from the records escaped (HTML entities, Markdown and LaTeX escapes). Expected values are read from the
 * mini-swe-agent fixture's trajectories here, not through the importer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { AGENT_FIELDS } from '../../src/store/schema.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

const OPTIONS = { skipBad: false, fields: {} };
const PAIRED = { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 };
const MINI = fixturePath('agents/mini-swe-agent');
const trajConfig = JSON.parse(readFileSync(join(MINI, 'demo__mini-1/demo__mini-1.traj.json'), 'utf8')).info.config;
/** What the fixture's records leave unsaid: mini writes no sandbox resources, network, retries, workers or dataset. */
const UNRECORDED = ['sandbox_resources', 'network', 'retries', 'concurrency', 'tasks_excluded', 'dataset', 'dataset_version', 'harness_version'];

async function reportOf(path: string) {
  const source = await loadSource([path], OPTIONS);
  return buildReport(source.store, null, null, PAIRED);
}

test('agent settings are rows of the disclosure table: every field, its value or "not recorded", in md, tex, html and json', async () => {
  const data = await reportOf(MINI);
  const agent = data.disclosure[0]!.agent!;
  assert.deepEqual(agent.map((r) => r.field), [...AGENT_FIELDS]);
  assert.deepEqual(agent.filter((r) => r.status === 'unknown').map((r) => r.field), UNRECORDED);
  const row = (field: string) => agent.find((r) => r.field === field)!;
  assert.deepEqual(row('agent_limits').value, { step_limit: trajConfig.agent.step_limit, cost_limit: trajConfig.agent.cost_limit, max_consecutive_format_errors: trajConfig.agent.max_consecutive_format_errors });
  assert.equal(row('sandbox_provider').value, trajConfig.environment_type);
  assert.deepEqual([row('attempts').status, row('attempts').value, row('attempts').how], ['inferred', 1, 'SWE-bench evaluates one prediction per instance']);

  const json = JSON.parse(renderReport(data, 'json'));
  assert.deepEqual(json.disclosure[0].agent, JSON.parse(JSON.stringify(agent)));

  const md = renderReport(data, 'md');
  // 19 fields, 11 known: the title counts them.
  assert.match(md, /run-level disclosure items \(3 of 4 recorded; agent settings: 11 of 19 known\)/);
  assert.ok(md.includes('| agent.split\\_size | yes | 1/1 | 8 |'));
  assert.ok(md.includes('| agent.network | no | 0/1 | not recorded |'));
  assert.ok(md.includes('| agent.agent\\_limits | yes | 1/1 | {"step\\_limit":3,"cost\\_limit":3,"max\\_consecutive\\_format\\_errors":3} |'));
  assert.ok(md.includes('| agent.attempts | inferred | 1/1 | 1 (inferred: SWE-bench evaluates one prediction per instance) |'));
  // The denominator sweep's line names the agent's exit statuses beside the harness's outcomes.
  assert.ok(md.includes("denominator: 8 trial(s) over 8 instance(s) (2 resolved, 1 unresolved, 3 empty\\_patch, 2 not\\_submitted); the agent's exit statuses: 3 Submitted, 1 LimitsExceeded, 1 ContextWindowExceededError, 1 RuntimeError"));
  const html = renderReport(data, 'html');
  // The recorded column is a status column: it wraps between words only (class status).
  assert.ok(html.includes('<tr><td>agent.network</td><td class="status">no</td><td>0/1</td><td>not recorded</td></tr>'));
  assert.ok(html.includes('<tr><td>agent.agent_version</td><td class="status">yes</td><td>1/1</td><td>&quot;2.4.6&quot;</td></tr>'));
  const tex = renderReport(data, 'tex');
  assert.ok(tex.includes('agent.network & no & 0/\\allowbreak{}1 & not recorded'));
  assert.ok(tex.includes('agent.agent\\_\\allowbreak{}version & yes'));
});

test('a run that is not an agent run has no agent rows', async () => {
  const data = await reportOf(`${externalFixture('lm-evaluation-harness/')}pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct`);
  assert.ok(data.disclosure.every((d) => d.agent === null));
  assert.ok(!renderReport(data, 'md').includes('agent.'));
});

test('strings from agent records are escaped in every format', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-agent-escape-'));
  try {
    cpSync(MINI, join(dir, 'in'), { recursive: true });
    const hostile = 'minisweagent.environments.docker.DockerEnvironment<img src=x onerror=alert(1)>|*x*&';
    for (const id of readdirSync(join(dir, 'in')).filter((n) => n.startsWith('demo__'))) {
      const path = join(dir, 'in', id, `${id}.traj.json`);
      const t = JSON.parse(readFileSync(path, 'utf8'));
      t.info.config.environment_type = hostile;
      writeFileSync(path, JSON.stringify(t, null, 2));
    }
    const data = await reportOf(join(dir, 'in'));
    assert.equal(data.disclosure[0]!.agent!.find((r) => r.field === 'sandbox_provider')!.value, hostile);
    const html = renderReport(data, 'html');
    assert.ok(!html.includes('<img'));
    assert.ok(html.includes('<td>&quot;minisweagent.environments.docker.DockerEnvironment&lt;img src=x onerror=alert(1)&gt;|*x*&amp;&quot;</td>'));
    const md = renderReport(data, 'md');
    assert.ok(md.includes('"minisweagent.environments.docker.DockerEnvironment&lt;img src=x onerror=alert(1)&gt;\\|\\*x\\*&amp;"'));
    const tex = renderReport(data, 'tex');
    assert.ok(tex.includes('DockerEnvironment\\textless{}img src=x onerror=alert(1)\\textgreater{}\\textbar{}*x*\\&'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
