// The Host and Origin rule of the MCP endpoint and its two settings, as tables of cases.
import { hostOfHeader, HostOriginRule, hostOriginRefusal, hostOriginRule } from '../../src/common/http/host-origin';
import { ConfigError, loadConfig } from '../../src/config/app-config';

function rule(hosts?: string, origins?: string): HostOriginRule {
  const { rule: made, problems } = hostOriginRule(hosts, origins);
  expect(problems).toEqual([]);
  return made;
}

describe('the Host header', () => {
  it.each<[string, string | null]>([
    ['localhost', 'localhost'],
    ['localhost:3000', 'localhost'],
    ['LOCALHOST:3000', 'localhost'],
    ['localhost.', 'localhost'],
    ['localhost:', 'localhost'],
    ['127.0.0.1:65535', '127.0.0.1'],
    ['[::1]', '[::1]'],
    ['[::1]:8080', '[::1]'],
    ['[0:0:0:0:0:0:0:1]:80', '[::1]'],
    ['[::FFFF:7f00:1]', '[::ffff:7f00:1]'],
    ['skills.example.com', 'skills.example.com'],
    ['skill_resolver:3000', 'skill_resolver'],
    ['::1', null],
    ['[::1', null],
    ['[::g]', null],
    ['evil@localhost', null],
    ['localhost/path', null],
    ['localhost:3000:4000', null],
    ['localhost:123456', null],
    ['local host', null],
    ['', null],
    ['.', null],
    ['a..b', null],
    ['x'.repeat(256), null],
  ])('%j names %j', (header, host) => {
    expect(hostOfHeader(header)).toBe(host);
  });
});

describe('which requests may reach the endpoint', () => {
  const defaults = rule();
  const configured = rule('skills.example.com,[2001:db8::1]', 'https://app.example.com,http://localhost:6274');

  it.each<[string, HostOriginRule, string | undefined, string | undefined, 'Host' | 'Origin' | null]>([
    ['a loopback name, any port', defaults, 'localhost:1234', undefined, null],
    ['a loopback address', defaults, '127.0.0.1:3000', undefined, null],
    ['the IPv6 loopback', defaults, '[::1]:3000', undefined, null],
    ['no Host at all (HTTP/1.0)', defaults, undefined, undefined, 'Host'],
    ['an empty Host', defaults, '', undefined, 'Host'],
    ['a foreign host', defaults, 'evil.example.com', undefined, 'Host'],
    ['a foreign host with a loopback port', defaults, 'evil.example.com:3000', undefined, 'Host'],
    ['another 127/8 address', defaults, '127.0.0.2', undefined, 'Host'],
    ['0.0.0.0', defaults, '0.0.0.0:3000', undefined, 'Host'],
    ['a name under localhost', defaults, 'a.localhost', undefined, 'Host'],
    ['an IPv4 address written another way', defaults, '0x7f.0.0.1', undefined, 'Host'],
    // Loopback origins, any port, by default: a page served from this machine.
    ['a loopback origin', defaults, 'localhost:3000', 'http://localhost:3000', null],
    ['a loopback origin on another port', defaults, 'localhost:3000', 'http://localhost:6274', null],
    ['a loopback origin over https', defaults, '127.0.0.1:3000', 'https://localhost:8443', null],
    ['the IPv4 loopback origin', defaults, '127.0.0.1:3000', 'http://127.0.0.1:3000', null],
    ['the IPv6 loopback origin', defaults, '[::1]:3000', 'http://[::1]:3000', null],
    ['the IPv6 loopback origin written long', defaults, '[::1]:3000', 'http://[0:0:0:0:0:0:0:1]:80', null],
    ['a loopback origin in capitals', defaults, 'localhost', 'HTTP://LOCALHOST:3000', null],
    ['a loopback origin with a final dot', defaults, 'localhost', 'http://localhost.:3000', null],
    ['a loopback origin without a port', defaults, 'localhost', 'http://localhost', null],
    [
      'a loopback origin, a configured host',
      rule('skills.example.com'),
      'skills.example.com',
      'http://localhost:6274',
      null,
    ],
    // Look-alikes and everything else stay refused.
    ['a name under localhost', defaults, 'localhost', 'http://app.localhost:3000', 'Origin'],
    ['localhost as a subdomain', defaults, 'localhost', 'http://localhost.evil.com', 'Origin'],
    ['a loopback address as a subdomain', defaults, 'localhost', 'http://127.0.0.1.nip.io', 'Origin'],
    ['the IPv6 loopback with a suffix', defaults, 'localhost', 'http://[::1].evil', 'Origin'],
    ['user information before localhost', defaults, 'localhost', 'http://evil.com@localhost:3000', 'Origin'],
    ['user information naming localhost', defaults, 'localhost', 'http://localhost:3000@evil.com', 'Origin'],
    ['a user and password', defaults, 'localhost', 'http://user:pass@localhost', 'Origin'],
    ['a WebSocket scheme', defaults, 'localhost', 'ws://localhost:3000', 'Origin'],
    ['a file scheme', defaults, 'localhost', 'file://localhost', 'Origin'],
    ['an extension scheme', defaults, 'localhost', 'chrome-extension://localhost', 'Origin'],
    ['a path after localhost', defaults, 'localhost', 'http://localhost:3000/x', 'Origin'],
    ['another 127/8 address', defaults, 'localhost', 'http://127.0.0.2:3000', 'Origin'],
    ['0.0.0.0', defaults, 'localhost', 'http://0.0.0.0:3000', 'Origin'],
    ['an IPv4-mapped IPv6 loopback', defaults, 'localhost', 'http://[::ffff:127.0.0.1]', 'Origin'],
    ['a foreign origin', defaults, 'localhost', 'https://evil.example.com', 'Origin'],
    ['the null Origin', defaults, 'localhost', 'null', 'Origin'],
    ['a loopback origin, a foreign host', defaults, 'evil.example.com', 'http://localhost:3000', 'Host'],
    ['a configured host', configured, 'skills.example.com:443', undefined, null],
    ['a configured IPv6 host', configured, '[2001:db8:0::1]:443', undefined, null],
    ['loopback, still', configured, 'localhost', undefined, null],
    ['a configured origin', configured, 'skills.example.com', 'https://app.example.com', null],
    [
      'a configured origin with its default port',
      configured,
      'skills.example.com',
      'https://app.example.com:443',
      null,
    ],
    ['a configured origin in capitals', configured, 'localhost', 'HTTP://LOCALHOST:6274', null],
    ['another scheme', configured, 'skills.example.com', 'http://app.example.com', 'Origin'],
    ['another port', configured, 'skills.example.com', 'https://app.example.com:8443', 'Origin'],
    ['an Origin with a path', configured, 'skills.example.com', 'https://app.example.com/x', 'Origin'],
    ['a configured origin, a foreign host', configured, 'evil.example.com', 'https://app.example.com', 'Host'],
    ['the host of a configured origin is no allowed host', configured, 'app.example.com', undefined, 'Host'],
  ])('%s', (_case, made, host, origin, refused) => {
    expect(hostOriginRefusal(host, origin, made)?.header ?? null).toBe(refused);
  });

  it('names the refused value, cut short when long', () => {
    expect(hostOriginRefusal('EVIL.example.com:3000', undefined, defaults)?.message).toBe(
      'The host "evil.example.com" is not allowed here: only loopback hosts and those named in MCP_ALLOWED_HOSTS are',
    );
    const long = hostOriginRefusal('localhost', `https://${'a'.repeat(5000)}.com`, defaults)!.message;
    expect(long.length).toBeLessThan(250);
  });
});

describe('MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS', () => {
  it('default to loopback hosts and no origins', () => {
    const { mcpHostOrigin } = loadConfig({});
    expect([...mcpHostOrigin.hosts]).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect([...mcpHostOrigin.origins]).toEqual([]);
  });

  it('add hosts and origins, as they are compared', () => {
    const { mcpHostOrigin } = loadConfig({
      MCP_ALLOWED_HOSTS: ' Skills.Example.com , skill-resolver,[::FFFF:a00:1] ',
      MCP_ALLOWED_ORIGINS: 'https://App.Example.com:443/, http://localhost:6274',
    });
    expect([...mcpHostOrigin.hosts]).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'skills.example.com',
      'skill-resolver',
      '[::ffff:a00:1]',
    ]);
    expect([...mcpHostOrigin.origins]).toEqual(['https://app.example.com', 'http://localhost:6274']);
  });

  it.each([
    [{ MCP_ALLOWED_HOSTS: 'skills.example.com:443' }, 'MCP_ALLOWED_HOSTS entries must be host names'],
    [{ MCP_ALLOWED_HOSTS: 'https://skills.example.com' }, '(got "https://skills.example.com")'],
    [{ MCP_ALLOWED_HOSTS: 'a.example.com,,b.example.com' }, '(got "")'],
    [{ MCP_ALLOWED_HOSTS: '::1' }, 'IPv6 in brackets'],
    [{ MCP_ALLOWED_HOSTS: '*' }, '(got "*")'],
    [{ MCP_ALLOWED_ORIGINS: 'app.example.com' }, 'MCP_ALLOWED_ORIGINS entries must be origins'],
    [{ MCP_ALLOWED_ORIGINS: 'null' }, '(got "null")'],
    [{ MCP_ALLOWED_ORIGINS: '*' }, '(got "*")'],
    [{ MCP_ALLOWED_ORIGINS: 'https://app.example.com/path' }, '(got "https://app.example.com/path")'],
    [{ MCP_ALLOWED_ORIGINS: 'ftp://app.example.com' }, '(got "ftp://app.example.com")'],
  ])('%j stops the boot', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
