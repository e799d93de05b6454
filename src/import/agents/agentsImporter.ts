/**
 * The agent-benchmark importer: SWE-bench, Terminal-Bench (tb) and Harbor records. Each file is claimed by the
 * first format whose layout it matches; the files of one call are then joined into evaluations (a summary with
 * its log folders and predictions, a tb run folder, a Harbor job folder).
 */
import type { FileProbe, ImportedRun, Importer } from '../types.ts';
import { withFieldLineFromFile } from '../../util/jsonFieldLine.ts';
import { harborRole, importHarborJobs, type HarborRole } from './harbor.ts';
import { importSettingsOnly, settingsRole, type SettingsRole } from './settingsOnly.ts';
import { importSwebench, swebenchRole, type SwebenchRole } from './swebench.ts';
import { importTerminalBench, tbRole, type TbRole } from './terminalBench.ts';

type Claim =
  | { kind: 'swebench'; role: SwebenchRole }
  | { kind: 'tb'; role: TbRole }
  | { kind: 'harbor'; role: HarborRole }
  | { kind: 'settings'; role: SettingsRole };

export function agentClaim(p: FileProbe): Claim | null {
  const tb = tbRole(p);
  if (tb) return { kind: 'tb', role: tb };
  const harbor = harborRole(p);
  if (harbor) return { kind: 'harbor', role: harbor };
  const swe = swebenchRole(p);
  if (swe) return { kind: 'swebench', role: swe };
  const settings = settingsRole(p);
  if (settings) return { kind: 'settings', role: settings };
  return null;
}

export const agentsImporter: Importer = {
  name: 'agents',
  claims: (probe) => agentClaim(probe) !== null,
  async importFiles(files: readonly FileProbe[]) {
    // The JSON files are not held while they are mapped: a refused field's line is found by reading its file again.
    return readAgentRuns(files).catch(async (error: unknown) => {
      throw await withFieldLineFromFile(error, (file) => /\.json$/i.test(file));
    });
  },
};

async function readAgentRuns(files: readonly FileProbe[]): Promise<ImportedRun[]> {
  const claimed = files.map((probe) => ({ probe, claim: agentClaim(probe)! }));
  const of = <K extends Claim['kind']>(kind: K) =>
    claimed.filter((c) => c.claim.kind === kind).map((c) => ({ probe: c.probe, role: c.claim.role })) as { probe: FileProbe; role: Extract<Claim, { kind: K }>['role'] }[];
  // Every source is read and checked before any run is returned, so a bad file stores nothing.
  return [
    ...(await importSwebench(of('swebench'))),
    ...(await importTerminalBench(of('tb'))),
    ...(await importHarborJobs(of('harbor'))),
    ...(await importSettingsOnly(of('settings'))),
  ];
}
