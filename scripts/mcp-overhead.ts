// `node dist/scripts/mcp-overhead.js` against a running service: seeds a small task through the API,
// prints a transcript of the MCP tools (tools/list, then one call of each tool offered) and the
// per-call latency of get_task_skills over MCP against the same GET, for an API key and a task token;
// then a host's flow over the Skills extension (skills/list, skills/get, SKILL.md, a reference, a
// folder) as the key and as the token, and a token's skills/list against its GET.
// SKILL_RESOLVER_URL (http://127.0.0.1:3000), SKILL_RESOLVER_KEY (an admin key; default the one in
// $DATA_DIR/admin-api-key), MCP_CALLS (300).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  connectMcp,
  LatencyStats,
  McpTarget,
  measureMcpOverhead,
  measureSkillsList,
  seedMcpScenario,
  SkillsListResult,
  skillsRequest,
} from './bench/mcp-overhead';

function print(title: string, value: unknown): void {
  process.stdout.write(`\n=== ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
}

function row(label: string, s: LatencyStats): string {
  return `| ${label.padEnd(34)} | ${String(s.calls).padStart(5)} | ${s.p50_ms.toFixed(2).padStart(6)} | ${s.p99_ms.toFixed(2).padStart(6)} | ${s.mean_ms.toFixed(2).padStart(7)} |`;
}

async function main(): Promise<void> {
  const url = (process.env.SKILL_RESOLVER_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
  const key =
    process.env.SKILL_RESOLVER_KEY ??
    readFileSync(join(process.env.DATA_DIR ?? './data', 'admin-api-key'), 'utf8').trim();
  const calls = Number(process.env.MCP_CALLS ?? 300);
  const admin: McpTarget = { url, key };
  const scenario = await seedMcpScenario(admin, Date.now().toString(36));
  const [audit] = Object.values(scenario.skillIds);
  const examples: Record<string, Record<string, unknown>> = {
    find_skills: { query: 'release audit' },
    get_task_skills: { task_id: scenario.taskId },
    get_skill_manifest: { skill_id: audit },
    read_skill_file: { skill_id: audit, path: 'references/checklist.md' },
    check_tools: {
      task_id: scenario.taskId,
      tools: ['Bash', 'Read', 'Write'],
      call: { tool: 'Bash', command: 'git status' },
    },
  };

  const client = await connectMcp(admin);
  const { tools } = await client.listTools();
  print('tools/list (API key)', { tools });
  for (const tool of tools) {
    const args = examples[tool.name];
    print(
      `tools/call ${tool.name} ${JSON.stringify(args)}`,
      await client.callTool({ name: tool.name, arguments: args }),
    );
  }
  await client.close();
  const asToken = await connectMcp({ url, key: scenario.token });
  print(
    'tools/list (task token): names',
    (await asToken.listTools()).tools.map((tool) => tool.name),
  );
  print(
    'tools/call get_task_skills as the token, for another task',
    await asToken.callTool({ name: 'get_task_skills', arguments: { task_id: scenario.taskId + 1_000_000 } }),
  );
  await asToken.close();

  for (const [who, key] of [
    ['API key', admin.key],
    ['task token', scenario.token],
  ] as const) {
    const host = await connectMcp({ url, key });
    const listed = (await skillsRequest(host, 'skills/list')) as unknown as SkillsListResult;
    print(`skills/list (${who}): uri and file count of each entry`, {
      skills: listed.skills.map((entry) => ({
        uri: entry.uri,
        files: entry.resources.length,
      })),
      nextCursor: listed.nextCursor ?? null,
    });
    const audit = listed.skills.find((entry) => entry.uri.includes('/release-audit-'));
    if (audit) {
      print(`skills/get ${audit.uri} (${who})`, await skillsRequest(host, 'skills/get', { uri: audit.uri }));
      print(`resources/read ${audit.uri} (${who})`, await skillsRequest(host, 'resources/read', { uri: audit.uri }));
      const folder = audit.uri.replace(/\/SKILL\.md$/, '');
      const reference = `${folder}/references/checklist.md`;
      print(`resources/read ${reference} (${who})`, await skillsRequest(host, 'resources/read', { uri: reference }));
      print(
        `resources/directory/read ${folder} (${who})`,
        await skillsRequest(host, 'resources/directory/read', { uri: folder }),
      );
    }
    await host.close();
  }

  const user = await measureMcpOverhead(admin, scenario.taskId, calls);
  const token = await measureMcpOverhead({ url, key: scenario.token }, scenario.taskId, calls);
  print(
    `get_task_skills over MCP against GET /api/tasks/{id}/skills (${calls} sequential calls each, ms)`,
    [
      '| call                               | calls |    p50 |    p99 |    mean |',
      '| ---------------------------------- | ----: | -----: | -----: | ------: |',
      row('GET /api/tasks/{id}/skills, key', user.get),
      row('MCP get_task_skills, key', user.mcp),
      row('  the same, one plain POST', user.raw),
      row('GET /api/tasks/{id}/skills, token', token.get),
      row('MCP get_task_skills, token', token.mcp),
      row('  the same, one plain POST', token.raw),
    ].join('\n'),
  );
  const listing = await measureSkillsList({ url, key: scenario.token }, scenario.taskId, calls);
  print(
    `a task token's skills/list against its GET /api/tasks/{id}/skills (${calls} sequential calls each, ms)`,
    [
      '| call                               | calls |    p50 |    p99 |    mean |',
      '| ---------------------------------- | ----: | -----: | -----: | ------: |',
      row('GET /api/tasks/{id}/skills, token', listing.get),
      row('MCP skills/list, token', listing.list),
    ].join('\n'),
  );
  process.stdout.write(
    `\nMCP overhead per call (p50): ${(user.mcp.p50_ms - user.get.p50_ms).toFixed(2)} ms with a key, ` +
      `${(token.mcp.p50_ms - token.get.p50_ms).toFixed(2)} ms with a token\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp-overhead: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
