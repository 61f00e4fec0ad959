// The five measured rows and the three ratios the performance targets are stated in.
import { Endpoint } from './load';
import { Ratio } from './report';
import { TaskTarget, SkillTarget } from './targets';

export interface Scenario {
  endpoints: Endpoint[];
  ratios: Ratio[];
}

const auth = (apiKey: string): Record<string, string> => ({ 'x-api-key': apiKey });
const taskPath = (id: number): string => `/api/tasks/${id}/skills`;

/** `small` and `large` are the services on the 10k and 100k databases. */
export function scenario(
  small: string,
  large: string,
  targets: { tasks: TaskTarget[]; skills: SkillTarget[] },
  etags: Map<number, string>,
): Scenario {
  const resolve = (baseUrl: string, label: string): Endpoint => ({
    label: `GET /api/tasks/{id}/skills 200, ${label}`,
    baseUrl,
    requests: targets.tasks.map((t) => ({ method: 'GET', path: taskPath(t.taskId), headers: auth(t.apiKey) })),
    expect: 200,
  });
  const conditional = (t: TaskTarget): Record<string, string> => ({
    ...auth(t.apiKey),
    // A task without a known ETag still sends the header, so its 200 shows up in the status column.
    'if-none-match': etags.get(t.taskId) ?? '"none"',
  });
  // The same headers as the 304 row (health ignores them), so both rows cost the load generator
  // and the HTTP parser alike and the ratio compares what the service does with them.
  const health: Endpoint = {
    label: 'GET /api/health/live',
    baseUrl: small,
    requests: targets.tasks.map((t) => ({ method: 'GET', path: '/api/health/live', headers: conditional(t) })),
    expect: 200,
  };
  const oneRow: Endpoint = {
    label: 'GET /api/skills/{id}',
    baseUrl: small,
    requests: targets.skills.map((t) => ({ method: 'GET', path: `/api/skills/${t.skillId}`, headers: auth(t.apiKey) })),
    expect: 200,
  };
  const small200 = resolve(small, '10k skills');
  const small304: Endpoint = {
    label: 'GET /api/tasks/{id}/skills 304, 10k skills',
    baseUrl: small,
    requests: targets.tasks.map((t) => ({ method: 'GET', path: taskPath(t.taskId), headers: conditional(t) })),
    expect: 304,
  };
  const large200 = resolve(large, '100k skills');
  return {
    endpoints: [health, oneRow, small200, small304, large200],
    ratios: [
      { row: small200, label: '÷ one-row read', over: small200, under: oneRow, bound: 'min', target: 0.8 },
      { row: small304, label: '÷ health/live', over: small304, under: health, bound: 'min', target: 0.9 },
      // Cost per request is the inverse of req/s: 100k's cost over 10k's is 10k's req/s over 100k's.
      { row: large200, label: 'cost ÷ 10k cost', over: small200, under: large200, bound: 'max', target: 1.2 },
    ],
  };
}
