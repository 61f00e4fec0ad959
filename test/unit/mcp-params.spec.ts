// JSON-RPC params checked before the SDK's handlers: which requests are -32602 and with what
// message, what the transport is handed, and how an internal error leaves.
import { forTransport, paramsRefusal, SERVED_REQUESTS, withoutInternals } from '../../src/mcp/mcp-params';

const TOOLS = new Set(['get_task_skills', 'check_tools']);
const request = (method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id: 'r1',
  method,
  ...(params === undefined ? {} : { params }),
});
const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

describe('params that do not fit the request', () => {
  it.each<[string, unknown, string | null]>([
    ['a tool call that fits', request('tools/call', { name: 'check_tools', arguments: { task_id: 1 } }), null],
    ['a tool call without arguments', request('tools/call', { name: 'check_tools' }), null],
    // The tool's own schema decides about the fields (VALIDATION_FAILED as a tool result).
    [
      'arguments with fields of the wrong type',
      request('tools/call', { name: 'check_tools', arguments: { task_id: 'x' } }),
      null,
    ],
    ['arguments a list', request('tools/call', { name: 'check_tools', arguments: [] }), 'arguments must be an object'],
    [
      'arguments a string',
      request('tools/call', { name: 'check_tools', arguments: '{}' }),
      'arguments must be an object',
    ],
    ['arguments a number', request('tools/call', { name: 'check_tools', arguments: 0 }), 'arguments must be an object'],
    ['arguments null', request('tools/call', { name: 'check_tools', arguments: null }), 'arguments must be an object'],
    ['no name', request('tools/call', { arguments: {} }), 'name is required'],
    ['a name that is no string', request('tools/call', { name: ['check_tools'] }), 'name must be a string'],
    ['no params', request('tools/call'), 'params is required'],
    ['params a list', request('tools/call', ['check_tools']), 'params must be an object'],
    ['params null', request('tools/call', null), 'params must be an object'],
    ['a task of the wrong type', request('tools/call', { name: 'check_tools', task: 'now' }), 'task must be an object'],
    ['initialize that fits', request('initialize', INITIALIZE), null],
    ['initialize without params', request('initialize'), 'params is required'],
    [
      'initialize with a number for its version',
      request('initialize', { ...INITIALIZE, protocolVersion: 1 }),
      'protocolVersion must be a string',
    ],
    [
      'initialize without clientInfo.version',
      request('initialize', { ...INITIALIZE, clientInfo: { name: 'c' } }),
      'clientInfo.version is required',
    ],
    ['ping without params', request('ping'), null],
    ['ping with params a string', request('ping', 'x'), 'params must be an object'],
    [
      'a progress token of the wrong type',
      request('ping', { _meta: { progressToken: {} } }),
      '_meta.progressToken has a value that is not allowed',
    ],
    ['tools/list without a cursor', request('tools/list', {}), null],
    ['tools/list with a cursor that is no string', request('tools/list', { cursor: 1 }), 'cursor must be a string'],
  ])('%s', (_case, body, problem) => {
    const refusal = paramsRefusal(body, TOOLS);
    if (problem === null) expect(refusal).toBeNull();
    else {
      const method = (body as { method: string }).method;
      expect(refusal).toEqual({
        jsonrpc: '2.0',
        id: 'r1',
        error: { code: -32602, message: `Invalid params for ${method}: ${problem}` },
      });
    }
  });

  it.each([
    ['tools/list', 'abc'],
    ['tools/list', ''],
    ['resources/templates/list', 'eyJ2IjoxfQ'],
  ])(
    'refuses any cursor sent to %s, a list answered in one page, as every list refuses a forged one',
    (method, cursor) => {
      expect(paramsRefusal(request(method, { cursor }), TOOLS)).toEqual({
        jsonrpc: '2.0',
        id: 'r1',
        error: { code: -32602, message: 'Invalid cursor: pass back a nextCursor exactly as it was received' },
      });
    },
  );

  it('lists every problem once, and at most ten', () => {
    const refusal = paramsRefusal(request('initialize', { protocolVersion: 1, capabilities: 2, clientInfo: 3 }), TOOLS);
    expect(refusal?.error.message).toBe(
      'Invalid params for initialize: protocolVersion must be a string; capabilities must be an object; clientInfo must be an object',
    );
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 1]));
    const capped = paramsRefusal(request('initialize', { ...INITIALIZE, capabilities: { experimental: many } }), TOOLS);
    expect(capped?.error.message.split('; ')).toHaveLength(10);
  });

  it('answers a tool the caller is not offered as unknown, its name cut short when long', () => {
    expect(paramsRefusal(request('tools/call', { name: 'find_skills' }), TOOLS)?.error).toEqual({
      code: -32602,
      message: 'Unknown tool: find_skills',
    });
    expect(paramsRefusal(request('tools/call', { name: 'x'.repeat(10_000) }), TOOLS)?.error.message).toBe(
      `Unknown tool: ${'x'.repeat(64)}...`,
    );
  });

  it.each<[string, unknown]>([
    ['a method the server does not serve (the SDK answers -32601)', request('prompts/list', 42)],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized', params: 5 }],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }],
    ['no JSON-RPC message (the transport answers it)', { hello: 'world' }],
    ['an id that is no id', { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/call', params: [] }],
    ['a list (the JSON body rule refuses batches first)', [request('tools/call')]],
  ])('leaves alone %s', (_case, body) => {
    expect(paramsRefusal(body, TOOLS)).toBeNull();
  });

  it('serves exactly the methods the server answers', () => {
    expect([...SERVED_REQUESTS.keys()]).toEqual([
      'initialize',
      'ping',
      'tools/list',
      'tools/call',
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'resources/directory/read',
      'skills/list',
      'skills/get',
    ]);
  });
});

describe('what the transport is handed', () => {
  it.each<[string, unknown, unknown]>([
    [
      'a request with object params, as sent',
      request('tools/call', { name: 'a' }),
      request('tools/call', { name: 'a' }),
    ],
    ['a request without params, as sent', request('ping'), request('ping')],
    ['a request with params a list, without them', request('tools/call', [1]), request('tools/call')],
    ['a request with params null, without them', request('resources/list', null), request('resources/list')],
    ['a notification, as sent', { jsonrpc: '2.0', method: 'x', params: 1 }, { jsonrpc: '2.0', method: 'x', params: 1 }],
    ['no message, as sent', { params: 1 }, { params: 1 }],
  ])('%s', (_case, body, handed) => {
    expect(forTransport(body)).toEqual(handed);
  });
});

describe('an internal error as it leaves', () => {
  it('keeps its code and loses its message, which is kept for the log', () => {
    const dump = '[{"expected":"record","code":"invalid_type","path":["params","arguments"]}]';
    expect(withoutInternals({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: dump, data: { x: 1 } } })).toEqual(
      {
        message: { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error' } },
        hidden: dump,
      },
    );
  });

  it.each<[string, object]>([
    ['a result', { jsonrpc: '2.0', id: 3, result: {} }],
    ['another error', { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Unknown tool: x' } }],
    ['a bare internal error', { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error' } }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/message' }],
  ])('leaves %s as it is', (_case, message) => {
    expect(withoutInternals(message as never)).toEqual({ message });
  });
});
