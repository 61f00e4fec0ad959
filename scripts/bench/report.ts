// What the benchmark prints: a few lines on the machine, the database and the data, then one table
// of throughput and latency per endpoint with the target ratios next to the rows they compare.
import { cpus, totalmem } from 'node:os';
import { clean, Endpoint, LoadSettings, Measurement, percentile, perSecond } from './load';
import { TaskProbe } from './targets';

export interface Ratio {
  /** The row the ratio is printed on. */
  row: Endpoint;
  label: string;
  /** Numerator and denominator, in req/s (or their p99 latencies with `metric: 'p99'`). */
  over: Endpoint;
  under: Endpoint;
  metric?: 'rate' | 'p99';
  /** `min`: the ratio should be at least `target`; `max`: at most. Without them the ratio is shown only. */
  bound?: 'min' | 'max';
  target?: number;
}

export interface RunInfo {
  databaseKind: string;
  /** One line on the data set. */
  data: string;
  probes: Array<[label: string, probe: TaskProbe]>;
  tasks: number;
  skills: number;
  settings: LoadSettings;
}

const count = (n: number): string => n.toLocaleString('en-US');

function describeProbe(label: string, probe: TaskProbe): string {
  const answered = [...probe.statuses.entries()].map(([status, n]) => `${count(n)}x ${status}`).join(', ');
  if (probe.etags.size === 0) return `${label}: ${answered}`;
  return `${label}: ${probe.skills.toFixed(1)} skills, ${probe.unresolved.toFixed(1)} unresolved per task (${answered})`;
}

export function renderHeader(info: RunInfo): string[] {
  const cpu = cpus();
  const { settings } = info;
  const rounds = Math.max(1, Math.round(settings.seconds / settings.roundSeconds));
  return [
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `node ${process.version}, ${process.platform} ${process.arch}`,
    `database: ${info.databaseKind}, one per scale`,
    `data: ${info.data}`,
    `resolution of the ${count(info.tasks)} tasks loaded: ` +
      info.probes.map(([label, probe]) => describeProbe(label, probe)).join('; '),
    `load: autocannon, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, then ${rounds} ` +
      `rounds of ${settings.seconds / rounds} s per endpoint, endpoints in turn; ${count(info.tasks)} tasks and ` +
      `${count(info.skills)} skills rotated`,
  ];
}

function statuses(m: Measurement): string {
  const parts = [...m.statuses.entries()]
    .sort(([, a], [, b]) => b - a)
    .map(([status, n]) => (n === m.responses ? String(status) : `${status} ${((100 * n) / m.responses).toFixed(1)}%`));
  if (m.errors > 0) parts.push(`${m.errors} conn. errors`);
  return parts.join(', ') || 'none';
}

function ratioCells(ratio: Ratio, of: (e: Endpoint) => Measurement): [string, string] {
  const target = ratio.target === undefined ? '' : `${ratio.bound === 'min' ? '>=' : '<='} ${ratio.target.toFixed(2)}`;
  const [over, under] = [of(ratio.over), of(ratio.under)];
  const dirty = [over, under].find((m) => !clean(m));
  if (dirty) return [`${ratio.label}: n/a (${dirty.endpoint.label} answered ${statuses(dirty)})`, target];
  const value =
    ratio.metric === 'p99' ? percentile(over, 0.99) / percentile(under, 0.99) : perSecond(over) / perSecond(under);
  if (ratio.target === undefined) return [`${ratio.label} = ${value.toFixed(2)}`, ''];
  const ok = ratio.bound === 'min' ? value >= ratio.target : value <= ratio.target;
  return [`${ratio.label} = ${value.toFixed(2)}`, `${target} ${ok ? 'met' : 'MISSED'}`];
}

const ms = (value: number): string => (Number.isNaN(value) ? '-' : value.toFixed(1));

export function renderTable(results: Measurement[], ratios: Ratio[]): string {
  const of = (e: Endpoint): Measurement => results.find((m) => m.endpoint === e)!;
  const header = ['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'status', 'ratio', 'target'];
  const cells = (m: Measurement): [string, string] => {
    const mine = ratios.filter((r) => r.row === m.endpoint).map((r) => ratioCells(r, of));
    const note = m.endpoint.note?.();
    if (mine.length === 0) return [note ?? '', ''];
    const texts = [...mine.map(([text]) => text), ...(note ? [note] : [])];
    return [texts.join('; '), mine.map(([, target]) => target).join('; ')];
  };
  const rows = results.map((m) => [
    m.endpoint.label,
    Math.round(perSecond(m)).toLocaleString('en-US'),
    ms(percentile(m, 0.5)),
    ms(percentile(m, 0.99)),
    statuses(m),
    ...cells(m),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const numeric = new Set([1, 2, 3]);
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric.has(i) ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
